/**
 * Restart bench of @mem/core (ours): a new process writing to a scope that already holds N
 * observations (SQLite file, offline defaults), with and without the state an earlier process saved
 * on close: the scope's SAGE gate snapshot (else the gate replays every stored commit) and its HNSW
 * graph (else it is rebuilt in the background while searches scan exactly and each advance it by a
 * slice). Times the first `add` and the next 100. Each start runs in its own child process, so JIT
 * warm-up and caches do not carry over.
 *
 * Run: `npx tsx --conditions=@mem/source bench/restart.ts [N]` (default N = 100000).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWinkEmbedder } from '../src/embed/index.js';
import { createSqliteStore } from '../src/store/index.js';
import type { ResolvedScope } from '../src/types.js';
import { GATE_STATE_NAME } from '../src/write/gates.js';
import { createMemory, MEMORY_SCHEMA_VERSION } from '../src/write/memory.js';
import { seedSyntheticScope, synthetic } from './synthetic.js';

const scope: ResolvedScope = { namespace: 'bench', userId: 'restart', agentId: '', runId: '' };
const probe = (i: number) => {
  const x = synthetic(10_000_000 + i);
  return { text: x.text, speaker: x.name, observedAt: x.observedAt, scope: { namespace: 'bench', userId: 'restart' } };
};

interface StartResult {
  firstAddMs: number;
  nextP50: number;
  nextP95: number;
  annMs: number;
  ann: ReturnType<ReturnType<typeof createSqliteStore>['annStatus']>;
  closeMs: number;
  gateState: { restored: number; replayedCommits: number; saved: number; saveFailures: number; rebuilt: number; caughtUp: number };
  snapshotBytes: number;
}

/** One process start: open the file, time the first and second add, close (which saves the gate). */
async function child(path: string): Promise<void> {
  const embedder = createWinkEmbedder();
  await embedder.embed(['warm up the embedder']); // loading the vectors is not what this measures
  const store = createSqliteStore({ path });
  const memory = createMemory({ store, embedder });
  const base = Number(process.env.MEM_RESTART_PROBE ?? 0) * 1000;
  let t = performance.now();
  await memory.add(probe(base));
  const firstAddMs = performance.now() - t;
  const lat: number[] = [];
  for (let i = 1; i <= 100; i++) {
    t = performance.now();
    await memory.add(probe(base + i));
    lat.push(performance.now() - t);
  }
  lat.sort((a, b) => a - b);
  const ann = store.annStatus(scope);
  // the first start finishes the graph so that its close saves one
  t = performance.now();
  if (process.env.MEM_RESTART_BUILD) await store.buildAnnIndex(scope);
  const annMs = performance.now() - t;
  const { gateState } = await memory.stats();
  t = performance.now();
  await memory.close();
  const closeMs = performance.now() - t;
  const check = createSqliteStore({ path });
  await check.open({ schemaVersion: MEMORY_SCHEMA_VERSION, embeddingModel: embedder.model, dimension: embedder.dimension });
  const snapshotBytes = Buffer.byteLength((await check.loadState(scope, GATE_STATE_NAME)) ?? '');
  await check.close();
  const out: StartResult = { firstAddMs, nextP50: lat[49]!, nextP95: lat[94]!, annMs, ann, closeMs, gateState, snapshotBytes };
  process.stdout.write(`RESULT ${JSON.stringify(out)}\n`);
}

function start(path: string, probeNo: number, build = false): StartResult {
  const r = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!], {
    env: { ...process.env, MEM_RESTART_CHILD: path, MEM_RESTART_PROBE: String(probeNo), MEM_RESTART_BUILD: build ? '1' : '' },
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (r.status !== 0 || !line) throw new Error(`child failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return JSON.parse(line.slice(7)) as StartResult;
}

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 100_000);
  const dir = mkdtempSync(join(tmpdir(), 'mem-restart-'));
  try {
    const file = join(dir, 'memory.db');
    const embedder = createWinkEmbedder();
    const store = createSqliteStore({ path: file });
    await store.open({ schemaVersion: MEMORY_SCHEMA_VERSION, embeddingModel: embedder.model, dimension: embedder.dimension });
    const t = performance.now();
    await seedSyntheticScope(store, embedder, scope, n);
    const seedMs = performance.now() - t;
    await store.close();
    console.log(`# @mem/core restart bench\n\nnode ${process.version}, ${new Date().toISOString()}, N = ${n} in one scope (SQLite file, seeded in ${(seedMs / 1000).toFixed(1)} s through the store), wink embedder loaded before timing\n`);
    // the first start after the seeding finds no saved state: it replays the gate and saves a
    // snapshot; it also finishes the HNSW graph before closing, so its close saves that too
    const first = start(file, 0, true);
    // the same file without the saved state (a store of an earlier version) vs with it
    const bare = join(dir, 'bare.db');
    copyFileSync(file, bare); // the graph lives next to the file (memory.db.ann/), so the copy has none
    const s2 = createSqliteStore({ path: bare });
    await s2.open({ schemaVersion: MEMORY_SCHEMA_VERSION, embeddingModel: embedder.model, dimension: embedder.dimension });
    await s2.saveState(scope, GATE_STATE_NAME, null);
    await s2.close();
    const replay = start(bare, 1);
    const restored = start(file, 2);
    console.log('| start | first add s | next 100 adds p50 / p95 ms | HNSW after them | gate restored from snapshot | commits replayed | gate snapshot bytes | close ms |');
    console.log('|---|---:|---:|---|---:|---:|---:|---:|');
    const annText = (r: StartResult) =>
      r.ann.loaded?.loaded ? `loaded (tail ${r.ann.loaded.tail})` : `${r.ann.state}, ${r.ann.pending} pending`;
    const row = (name: string, r: StartResult) =>
      console.log(
        `| ${name} | ${(r.firstAddMs / 1000).toFixed(2)} | ${r.nextP50.toFixed(1)} / ${r.nextP95.toFixed(1)} | ${annText(r)} | ${r.gateState.restored} | ${r.gateState.replayedCommits} | ${r.snapshotBytes} | ${r.closeMs.toFixed(0)} |`,
      );
    row('first start after seeding (nothing saved yet)', first);
    row('restart without saved state (gate replay, HNSW rebuilt)', replay);
    row('restart with the saved gate snapshot and HNSW graph', restored);
    console.log(
      `\nwith / without the saved state: first add ${(restored.firstAddMs / replay.firstAddMs).toFixed(2)}, next adds p50 ${(restored.nextP50 / replay.nextP50).toFixed(2)}` +
        ` (file ${(statSync(file).size / 1e6).toFixed(0)} MB; the first start finished its HNSW graph in ${(first.annMs / 1000).toFixed(1)} s before closing)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.env.MEM_RESTART_CHILD) await child(process.env.MEM_RESTART_CHILD);
else await main();

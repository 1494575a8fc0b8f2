/**
 * Restart bench of @mem/core (ours): the first `add` of a new process to a scope that already holds
 * N observations (SQLite file, offline defaults), with and without the scope's saved SAGE gate
 * snapshot. Without one the gate replays every stored commit; with one it restores the snapshot
 * (vectors from the nodes) and replays only the commits after it. Each start runs in its own child
 * process, so JIT warm-up and caches do not carry over.
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
  secondAddMs: number;
  closeMs: number;
  gateState: { restored: number; replayedCommits: number; saved: number; saveFailures: number };
  snapshotBytes: number;
}

/** One process start: open the file, time the first and second add, close (which saves the gate). */
async function child(path: string): Promise<void> {
  const embedder = createWinkEmbedder();
  await embedder.embed(['warm up the embedder']); // loading the vectors is not what this measures
  const store = createSqliteStore({ path });
  const memory = createMemory({ store, embedder });
  let t = performance.now();
  await memory.add(probe(Number(process.env.MEM_RESTART_PROBE ?? 0)));
  const firstAddMs = performance.now() - t;
  t = performance.now();
  await memory.add(probe(1000 + Number(process.env.MEM_RESTART_PROBE ?? 0)));
  const secondAddMs = performance.now() - t;
  const { gateState } = await memory.stats();
  t = performance.now();
  await memory.close();
  const closeMs = performance.now() - t;
  const check = createSqliteStore({ path });
  await check.open({ schemaVersion: MEMORY_SCHEMA_VERSION, embeddingModel: embedder.model, dimension: embedder.dimension });
  const snapshotBytes = Buffer.byteLength((await check.loadState(scope, GATE_STATE_NAME)) ?? '');
  await check.close();
  const out: StartResult = { firstAddMs, secondAddMs, closeMs, gateState, snapshotBytes };
  process.stdout.write(`RESULT ${JSON.stringify(out)}\n`);
}

function start(path: string, probeNo: number): StartResult {
  const r = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!], {
    env: { ...process.env, MEM_RESTART_CHILD: path, MEM_RESTART_PROBE: String(probeNo) },
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
    // the first start after the seeding finds no snapshot: it replays everything and saves one
    const first = start(file, 0);
    // the same file without the snapshot (a store of an earlier version, or after a forget) vs with it
    const bare = join(dir, 'bare.db');
    copyFileSync(file, bare);
    const s2 = createSqliteStore({ path: bare });
    await s2.open({ schemaVersion: MEMORY_SCHEMA_VERSION, embeddingModel: embedder.model, dimension: embedder.dimension });
    await s2.saveState(scope, GATE_STATE_NAME, null);
    await s2.close();
    const replay = start(bare, 1);
    const restored = start(file, 2);
    console.log('| start | first add s | second add ms | gate restored from snapshot | commits replayed | snapshots saved | close ms | snapshot bytes |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    const row = (name: string, r: StartResult) =>
      console.log(`| ${name} | ${(r.firstAddMs / 1000).toFixed(2)} | ${r.secondAddMs.toFixed(1)} | ${r.gateState.restored} | ${r.gateState.replayedCommits} | ${r.gateState.saved} | ${r.closeMs.toFixed(0)} | ${r.snapshotBytes} |`);
    row('first start after seeding (no snapshot yet)', first);
    row('restart, snapshot removed (full replay)', replay);
    row('restart with the saved snapshot', restored);
    console.log(`\nfirst add with the snapshot / without: ${(restored.firstAddMs / replay.firstAddMs).toFixed(2)} (file ${(statSync(file).size / 1e6).toFixed(0)} MB)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.env.MEM_RESTART_CHILD) await child(process.env.MEM_RESTART_CHILD);
else await main();

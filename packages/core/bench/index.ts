/**
 * Write-path bench of @mem/core (`pnpm bench` in packages/core). One run measures, with the offline
 * defaults (wink embedder, offline System-One backend, default SAGE gate, SQLite in memory):
 *
 * 1. LoCoMo ingest (every turn of ../shared/data/locomo/locomo10-dev.json, one scope per
 *    conversation): the Jev write path vs a flat "embed and append" baseline on the same data in the
 *    same run, both streaming (one call per observation) and per session (one batch per session).
 * 2. Write p50/p95 of a single `add` in one scope holding N = 1k, 10k, 100k synthetic observations.
 *
 * The scale part first runs one untimed probe at the first N (JIT warm-up), so the first N's p50 is
 * a steady-state number like the others; then it fills one scope per N and times single adds in
 * rounds (one add to every N per round), so load changes on a shared machine hit all N alike.
 *
 * 3. Embedder throughput: sentences per second embedding the same texts one by one, in calls of 32,
 *    and all in one call (the embedder batches them itself; MiniLM in length order).
 *
 * Env: MEM_LOCOMO_PATH (data file), MEM_BENCH_SCALE (e.g. "1000,10000"), MEM_BENCH_PROBES (adds per N,
 * default 100), MEM_BENCH_INTERLEAVE (0 = each N's adds back to back), MEM_BENCH_GATE_MODE (exact | fast),
 * MEM_BENCH_SKIP (locomo | scale | throughput), MEM_BENCH_EMBEDDER (glove = default wink GloVe | minilm |
 * minilm-q8: all-MiniLM-L6-v2 from `pnpm models:fetch`), MEM_BENCH_SESSIONS (first n LoCoMo sessions only).
 */
import { cpus, loadavg } from 'node:os';
import { createMiniLmEmbedder, createWinkEmbedder } from '../src/embed/index.js';
import { extract } from '../src/extract/index.js';
import { createSqliteStore } from '../src/store/index.js';
import type { Embedder, MemoryNode, ObservationInput, ResolvedScope } from '../src/types.js';
import { createMemory, MEMORY_SCHEMA_VERSION, type Memory } from '../src/write/memory.js';
import { WRITE_STAGES } from '../src/write/writer.js';
import { uuidv7 } from '../src/write/ids.js';
import { validateObservation } from '../src/write/validate.js';
import { readLocomo, locomoPath, LocomoMissingError } from './locomo.js';
import { seedSyntheticScope, synthetic } from './synthetic.js';

const env = process.env;
const SCALE = (env.MEM_BENCH_SCALE ?? '1000,10000,100000').split(',').map(Number).filter((n) => n > 0);
const PROBES = Number(env.MEM_BENCH_PROBES ?? 100);
/** MEM_BENCH_INTERLEAVE=0: each N's timed adds back to back (warm caches) instead of one add per N per round. */
const INTERLEAVE = env.MEM_BENCH_INTERLEAVE !== '0';
const GATE_MODE = env.MEM_BENCH_GATE_MODE as 'exact' | 'fast' | undefined;
const SKIP = new Set((env.MEM_BENCH_SKIP ?? '').split(',').filter(Boolean));
const EMBEDDER = env.MEM_BENCH_EMBEDDER ?? 'glove';
const SESSIONS = env.MEM_BENCH_SESSIONS ? Number(env.MEM_BENCH_SESSIONS) : Infinity;

/** The bench's embedder (MEM_BENCH_EMBEDDER); flat and Jev ingest share it, so both pay the same encoder. */
function benchEmbedder(): Embedder {
  if (EMBEDDER === 'glove') return createWinkEmbedder();
  if (EMBEDDER === 'minilm' || EMBEDDER === 'minilm-q8') return createMiniLmEmbedder({ quantized: EMBEDDER === 'minilm-q8' });
  throw new Error(`MEM_BENCH_EMBEDDER must be glove, minilm or minilm-q8, got "${EMBEDDER}"`);
}

/** Sentences per second (wall and per CPU second) embedding `texts` one call per text, `batch` texts per call, and all in one call. */
async function throughput(embedder: Embedder, texts: string[], batch: number) {
  const one = { wall: performance.now(), cpu: cpuNow() };
  for (const t of texts) await embedder.embed([t]);
  const oneWall = performance.now() - one.wall;
  const oneCpu = cpuNow() - one.cpu;
  const b = { wall: performance.now(), cpu: cpuNow() };
  for (let i = 0; i < texts.length; i += batch) await embedder.embed(texts.slice(i, i + batch));
  const bWall = performance.now() - b.wall;
  const bCpu = cpuNow() - b.cpu;
  const w = { wall: performance.now(), cpu: cpuNow() };
  await embedder.embed(texts);
  const wWall = performance.now() - w.wall;
  const wCpu = cpuNow() - w.cpu;
  return {
    one: { perSec: texts.length / (oneWall / 1000), cpuS: oneCpu / 1000 },
    batched: { perSec: texts.length / (bWall / 1000), cpuS: bCpu / 1000 },
    whole: { perSec: texts.length / (wWall / 1000), cpuS: wCpu / 1000 },
  };
}

function percentile(xs: number[], p: number): number {
  if (!xs.length) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}
const ms = (x: number) => x.toFixed(2);
const sec = (x: number) => (x / 1000).toFixed(2);

function meta(embedder: Embedder) {
  return { schemaVersion: MEMORY_SCHEMA_VERSION, embeddingModel: embedder.model, dimension: embedder.dimension };
}

/** A node as the flat baseline stores it: text, time, embedding; no extraction, typing, gate or relations. */
function flatNode(o: ObservationInput, embedding: Float32Array): MemoryNode {
  const v = validateObservation(o);
  return {
    id: uuidv7(),
    scope: v.scope,
    text: v.text,
    speaker: v.speaker,
    observedAt: v.observedAt,
    eventTime: null,
    entities: [],
    keywords: [],
    types: { episodic: 0, semantic: 0, procedural: 0, preference: 0 },
    embedding,
    gate: null,
    provenance: { sourceId: v.sourceId, contentHash: v.contentHash, metadata: v.metadata },
    obsoleteBy: null,
    createdAt: new Date().toISOString(),
  };
}

interface IngestRun {
  totalMs: number;
  /** CPU time of this process (user + system) during the run, ms: robust to other processes on a shared machine. */
  cpuMs: number;
  latencies: number[];
}

function cpuNow(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * Ingest `sessions` one session per call of `addSession` (`perSession`: each observation's latency is
 * its session's time / its size) or one observation per call of `addOne`; wall and CPU time of the whole run.
 */
async function timedIngest(
  sessions: { observations: ObservationInput[] }[],
  perSession: boolean,
  addSession: (observations: ObservationInput[]) => Promise<void>,
  addOne: (o: ObservationInput) => Promise<void>,
): Promise<IngestRun> {
  const latencies: number[] = [];
  const t0 = performance.now();
  const c0 = cpuNow();
  for (const s of sessions) {
    if (perSession) {
      const t = performance.now();
      await addSession(s.observations);
      const per = (performance.now() - t) / s.observations.length;
      for (let i = 0; i < s.observations.length; i++) latencies.push(per);
    } else {
      for (const o of s.observations) {
        const t = performance.now();
        await addOne(o);
        latencies.push(performance.now() - t);
      }
    }
  }
  return { totalMs: performance.now() - t0, cpuMs: cpuNow() - c0, latencies };
}

async function flatIngest(embedder: Embedder, sessions: { observations: ObservationInput[] }[], perSession: boolean): Promise<IngestRun> {
  const store = createSqliteStore({ path: ':memory:' });
  await store.open(meta(embedder));
  const run = await timedIngest(
    sessions,
    perSession,
    async (observations) => {
      const vs = await embedder.embed(observations.map((o) => o.text));
      const nodes = observations.map((o, i) => flatNode(o, vs[i]!));
      await store.write({ scope: nodes[0]!.scope, nodes });
    },
    async (o) => {
      const [v] = await embedder.embed([o.text]);
      const node = flatNode(o, v!);
      await store.write({ scope: node.scope, nodes: [node] });
    },
  );
  await store.close();
  return run;
}

async function jevIngest(embedder: Embedder, sessions: { observations: ObservationInput[] }[], perSession: boolean) {
  const memory = createMemory({ embedder, gate: GATE_MODE ? { mode: GATE_MODE } : undefined });
  const { totalMs, cpuMs, latencies } = await timedIngest(
    sessions,
    perSession,
    async (observations) => void (await memory.add(observations)),
    async (o) => void (await memory.add(o)),
  );
  // questions the System-One controller answered (typing, relations, consolidation), not calls
  const stats = { ...(await memory.stats()), questions: memory.systemOne.stats().questions };
  await memory.close();
  return { totalMs, cpuMs, latencies, stats };
}

interface ScaleSubject {
  n: number;
  memory: Memory;
  seedMs: number;
  rebuildMs: number;
  probe: (i: number) => ObservationInput;
  lat: number[];
  actions: { add: number; update: number; noop: number; certified: number };
  stagesAtStart: Record<string, number>;
}

/** One scope of n synthetic nodes in its own in-memory store, its gate rebuilt by a first add, warmed up by 3 more. */
async function scaleSubject(embedder: Embedder, n: number): Promise<ScaleSubject> {
  // the HNSW index is built inside the first search ('blocking'), so timed adds see the steady state
  // rather than a background build sharing the event loop
  const store = createSqliteStore({ path: ':memory:', ann: { build: 'blocking' } });
  await store.open(meta(embedder));
  const scope: ResolvedScope = { namespace: 'bench', userId: 'scale', agentId: '', runId: '' };
  const tSeed = performance.now();
  await seedSyntheticScope(store, embedder, scope, n);
  const seedMs = performance.now() - tSeed;
  const memory: Memory = createMemory({ store, embedder, gate: GATE_MODE ? { mode: GATE_MODE } : undefined });
  const probe = (i: number): ObservationInput => {
    const x = synthetic(10_000_000 + i);
    return { text: x.text, speaker: x.name, observedAt: x.observedAt, scope: { namespace: 'bench', userId: 'scale' } };
  };
  const tRebuild = performance.now();
  await memory.add(probe(-1)); // first write: rebuilds the scope's gate from the store
  const rebuildMs = performance.now() - tRebuild;
  for (let i = 0; i < 3; i++) await memory.add(probe(1000 + i)); // warm-up
  const stagesAtStart = { ...(await memory.stats()).timings } as Record<string, number>;
  return { n, memory, seedMs, rebuildMs, probe, lat: [], actions: { add: 0, update: 0, noop: 0, certified: 0 }, stagesAtStart };
}

/**
 * Timed single adds at every N, interleaved: round i adds probe i to each scope in turn, so a change
 * in machine load during the run hits every N alike and the p50 ratios compare like with like.
 */
async function scaleRun(embedder: Embedder, sizes: number[]) {
  const subjects: ScaleSubject[] = [];
  for (const n of sizes) subjects.push(await scaleSubject(embedder, n));
  const timedAdd = async (x: ScaleSubject, i: number) => {
    const t = performance.now();
    const r = await x.memory.add(x.probe(i));
    x.lat.push(performance.now() - t);
    if (r.action !== 'duplicate') x.actions[r.action]++;
    if (r.node.gate?.scoreError) x.actions.certified++;
  };
  if (INTERLEAVE) {
    for (let i = 0; i < PROBES; i++) for (const x of subjects) await timedAdd(x, i);
  } else {
    for (const x of subjects) for (let i = 0; i < PROBES; i++) await timedAdd(x, i);
  }
  const out = [];
  for (const x of subjects) {
    const st = await x.memory.stats();
    const stages = Object.fromEntries(WRITE_STAGES.map((k) => [k, (st.timings[k] - x.stagesAtStart[k]!) / PROBES]));
    await x.memory.close();
    out.push({ n: x.n, seedMs: x.seedMs, rebuildMs: x.rebuildMs, p50: percentile(x.lat, 50), p95: percentile(x.lat, 95), stages, actions: x.actions });
  }
  return out;
}

async function main() {
  const lines: string[] = [];
  const out = (s = '') => {
    lines.push(s);
    console.log(s);
  };
  const embedder = benchEmbedder();
  await embedder.embed(['warm up']);
  extract('Warm up on Monday with Mira.', new Date().toISOString());
  out(`# @mem/core write-path bench`);
  out();
  out(
    `node ${process.version}, ${new Date().toISOString()}, ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)} at start, embedder ${embedder.model}, gate mode ${GATE_MODE ?? 'default'}`,
  );

  let sessions: ReturnType<typeof readLocomo> = [];
  if (!SKIP.has('locomo')) {
    try {
      sessions = readLocomo().slice(0, SESSIONS);
    } catch (e) {
      if (!(e instanceof LocomoMissingError)) throw e;
      out();
      out(`## LoCoMo ingest: skipped. ${e.message}`);
    }
  }
  if (sessions.length) {
    const count = sessions.reduce((a, s) => a + s.observations.length, 0);
    const scopes = new Set(sessions.map((s) => s.scope.userId)).size;
    out();
    out(`## LoCoMo ingest (${count} observations, ${scopes} scopes, ${sessions.length} sessions; ${locomoPath().split('/').slice(-2).join('/')})`);
    out();
    // warm-up of both paths on the first session (not timed)
    await flatIngest(embedder, sessions.slice(0, 1), false);
    await jevIngest(embedder, sessions.slice(0, 1), false);
    out('| mode | system | total s (wall) | CPU s | per-obs p50 ms | per-obs p95 ms | ratio to flat (wall) | ratio to flat (CPU) |');
    out('|---|---|---:|---:|---:|---:|---:|---:|');
    const summary: Record<string, any> = {};
    for (const perSession of [false, true]) {
      const mode = perSession ? 'one batch per session' : 'one add per observation';
      const flat = await flatIngest(embedder, sessions, perSession);
      const jev = await jevIngest(embedder, sessions, perSession);
      summary[mode] = jev.stats;
      out(`| ${mode} | flat embed + append | ${sec(flat.totalMs)} | ${sec(flat.cpuMs)} | ${ms(percentile(flat.latencies, 50))} | ${ms(percentile(flat.latencies, 95))} | 1.00 | 1.00 |`);
      out(
        `| ${mode} | Jev write path + SAGE gate | ${sec(jev.totalMs)} | ${sec(jev.cpuMs)} | ${ms(percentile(jev.latencies, 50))} | ${ms(percentile(jev.latencies, 95))} | ${(jev.totalMs / flat.totalMs).toFixed(2)} | ${(jev.cpuMs / flat.cpuMs).toFixed(2)} |`,
      );
    }
    out();
    out(`Time per write by stage (ms; batched stages split evenly over the batch):`);
    out();
    out(`| mode | ${WRITE_STAGES.join(' | ')} |`);
    out(`|---|${WRITE_STAGES.map(() => '---:').join('|')}|`);
    for (const [mode, s] of Object.entries(summary)) {
      out(`| ${mode} | ${WRITE_STAGES.map((k) => (s.timings[k] / s.writes).toFixed(2)).join(' | ')} |`);
    }
    out();
    out('| mode | writes | gate Add | gate Update | gate Noop | controller calls / write | controller questions / write | relation calls saved by the gate | consolidation passes | relations (semantic / temporal / causal / entity) |');
    out('|---|---:|---:|---:|---:|---:|---:|---:|---:|---|');
    for (const [mode, s] of Object.entries(summary)) {
      out(
        `| ${mode} | ${s.writes} | ${s.gate.add} | ${s.gate.update} | ${s.gate.noop} | ${(s.controllerCalls / s.writes).toFixed(2)} | ${(s.questions / s.writes).toFixed(1)} | ${s.controllerCallsSaved} | ${s.consolidations} | ${s.relations.semantic} / ${s.relations.temporal} / ${s.relations.causal} / ${s.relations.entity} |`,
      );
    }
  }

  if (!SKIP.has('throughput')) {
    const texts = (sessions.length ? sessions.flatMap((x) => x.observations.map((o) => o.text)) : Array.from({ length: 512 }, (_, i) => synthetic(i).text)).slice(0, 512);
    await embedder.embed(texts.slice(0, 8)); // warm-up
    const batch = 32;
    const r = await throughput(embedder, texts, batch);
    out();
    out(`## Embedder throughput (${embedder.model}, ${texts.length} ${sessions.length ? 'LoCoMo turns' : 'synthetic sentences'}, ${cpus().length} cores, same process)`);
    out();
    out('| how | sentences/s (wall) | CPU s | sentences per CPU s |');
    out('|---|---:|---:|---:|');
    out(`| one text per call | ${r.one.perSec.toFixed(1)} | ${r.one.cpuS.toFixed(2)} | ${(texts.length / r.one.cpuS).toFixed(1)} |`);
    out(`| ${batch} texts per call | ${r.batched.perSec.toFixed(1)} | ${r.batched.cpuS.toFixed(2)} | ${(texts.length / r.batched.cpuS).toFixed(1)} |`);
    out(`| all ${texts.length} texts in one call (the embedder's own batches${embedder.model.startsWith('all-MiniLM') ? ', in length order' : ''}) | ${r.whole.perSec.toFixed(1)} | ${r.whole.cpuS.toFixed(2)} | ${(texts.length / r.whole.cpuS).toFixed(1)} |`);
    out(`| batched / one by one (wall) | ${(r.batched.perSec / r.one.perSec).toFixed(2)}× | | |`);
    out(`| one call / one by one (CPU) | ${(r.one.cpuS / r.whole.cpuS).toFixed(2)}× | | |`);
  }

  if (!SKIP.has('scale') && SCALE.length) {
    out();
    out(`## Single-add latency vs scope size (synthetic observations, ${PROBES} timed adds per N, ${INTERLEAVE ? 'interleaved across N' : 'back to back per N'})`);
    out();
    out('| N in scope | seed s (store only) | gate rebuild + first add s | write p50 ms | write p95 ms | p50 ratio to first N | probes Add / Update / Noop | routed from a certificate |');
    out('|---:|---:|---:|---:|---:|---:|---|---:|');
    // untimed warm-up run at the first N, so no N pays for JIT compilation of the write path (the
    // offline scorers, gate, store statements)
    await scaleRun(embedder, [SCALE[0]!]);
    const rows = await scaleRun(embedder, SCALE);
    const base = rows[0]!.p50;
    for (const r of rows) {
      const a = r.actions;
      out(`| ${r.n} | ${sec(r.seedMs)} | ${sec(r.rebuildMs)} | ${ms(r.p50)} | ${ms(r.p95)} | ${(r.p50 / base).toFixed(2)} | ${a.add} / ${a.update} / ${a.noop} | ${a.certified} |`);
    }
    out();
    out('Mean time per timed add by stage (ms):');
    out();
    out(`| N | ${WRITE_STAGES.join(' | ')} |`);
    out(`|---:|${WRITE_STAGES.map(() => '---:').join('|')}|`);
    for (const r of rows) out(`| ${r.n} | ${WRITE_STAGES.map((k) => r.stages[k]!.toFixed(2)).join(' | ')} |`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

/**
 * Growth curves on SQLite (issue 33 point 4, a modest first cut; a script, not a test). One scope is
 * grown to each size of `--sizes` (default 1000,10000) and at each size the script measures, with a
 * fresh `createStack` on the file (GloVe, offline System One):
 *  - write p50 / p95 of `--writes` single-observation adds through the full write path (gate,
 *    System One, candidates, relations, store), after one untimed add that rebuilds the scope's
 *    in-process state;
 *  - search p50 / p95 of `--queries` questions for bm25, dense, hybrid and jev (one warm-up each),
 *    once the scope's HNSW graph is built (above 5,000 memories; its build time is printed);
 *  - the SQLite file size (with its WAL) and the process RSS.
 * Besides wall time, each operation's CPU time (process.cpuUsage, user + system) is recorded: on a
 * shared machine other jobs inflate wall time far more than CPU time.
 * Ratios against the first size are printed from the same run. The growth between sizes is written
 * straight through the store as gate Adds (core bench/synthetic.ts sentences, no relations; the
 * full write path at 50 adds/s would take an hour for 100k), so jev's graph is thinner than after
 * real ingestion; the measured writes and searches go through the full path.
 *
 *   nice -n 10 pnpm --filter @mem/demo-agent bench:scale [--sizes 1000,10000,100000] [--writes 50] [--queries 30]
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Retriever } from '@mem/core';
import { createBm25Retriever, createDenseRetriever, createHybridRetriever, createJevRetriever } from '@mem/retrieval';
import { seedSyntheticScope, synthetic } from '../../../packages/core/bench/synthetic';
import { createStack } from '../src/stack';

const { values } = parseArgs({ options: { sizes: { type: 'string', default: '1000,10000' }, writes: { type: 'string', default: '50' }, queries: { type: 'string', default: '30' } } });
const SIZES = values.sizes!.split(',').map(Number);
const WRITES = Number(values.writes);
const QUERIES = Number(values.queries);
const QUESTIONS = ['Who painted the kite?', 'What did Mira buy at the market?', 'Where did Tom fix the bicycle?', 'When did Lena sell the guitar?', 'Which camera did Ravi borrow?', 'What happened at the harbour last weekend?'];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
};
/** This process's CPU time in ms (user + system): robust to other jobs on a loaded machine, unlike wall time. */
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;
const fileMb = (db: string) => ['', '-wal'].reduce((a, s) => a + (existsSync(db + s) ? statSync(db + s).size : 0), 0) / 1048576;

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mem-scale-'));
  const db = path.join(dir, 'scale.db');
  console.log(`scale: one scope on SQLite, GloVe, sizes ${SIZES.join(', ')}; ${cpus().length} × ${cpus()[0]?.model ?? '?'}, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} (shared machine)`);
  const rows: Record<string, number>[] = [];
  let stored = 0;
  let next = 1_000_000; // synthetic indices of the measured writes (the seeded ones count from 0)
  try {
    for (const size of SIZES) {
      const stack = await createStack({ db, scope: { userId: 'scale' }, retriever: 'jev', embedder: 'glove', systemTwo: null });
      const t0 = performance.now();
      // grow to `size` straight through the store (gate Adds, as the write path would store them)
      if (stored < size) {
        await seedSyntheticScope(stack.store, stack.embedder, stack.scope, size - stored, stored);
        stored = size;
      }
      const seedS = (performance.now() - t0) / 1000;
      const obs = () => {
        const x = synthetic(next++);
        return { text: x.text, speaker: x.name, observedAt: x.observedAt };
      };
      let t = performance.now();
      await stack.add([obs()]); // rebuilds the scope's gate and indexes: not timed
      const warmS = (performance.now() - t) / 1000;
      const writes: number[] = [];
      const writeCpu: number[] = [];
      for (let i = 0; i < WRITES; i++) {
        t = performance.now();
        const c = cpuMs();
        await stack.add([obs()]);
        writes.push(performance.now() - t);
        writeCpu.push(cpuMs() - c);
      }
      stored += WRITES + 1;
      const retrievers: Retriever[] = [
        createBm25Retriever({ store: stack.store }),
        createDenseRetriever({ store: stack.store, embedder: stack.embedder }),
        createHybridRetriever({ store: stack.store, embedder: stack.embedder }),
        createJevRetriever({ store: stack.store, embedder: stack.embedder, systemOne: stack.systemOne }),
      ];
      // a server builds the HNSW graph (scopes above 5,000 memories) in the background; searches are
      // timed once it is built (its build time is printed)
      t = performance.now();
      await (stack.store as { buildAnnIndex?: (s: typeof stack.scope) => Promise<void> }).buildAnnIndex?.(stack.scope);
      const annS = (performance.now() - t) / 1000;
      const row: Record<string, number> = { size, seedS, warmS, annS, writeP50: pct(writes, 0.5), writeP95: pct(writes, 0.95), writeCpuP50: pct(writeCpu, 0.5) };
      for (const r of retrievers) {
        await r.search({ scope: stack.scope, query: QUESTIONS[0]!, k: 10 }); // warm-up (snapshots, indexes)
        const xs: number[] = [];
        const cs: number[] = [];
        for (let i = 0; i < QUERIES; i++) {
          t = performance.now();
          const c = cpuMs();
          await r.search({ scope: stack.scope, query: QUESTIONS[i % QUESTIONS.length]!, k: 10 });
          xs.push(performance.now() - t);
          cs.push(cpuMs() - c);
        }
        row[`${r.name}P50`] = pct(xs, 0.5);
        row[`${r.name}P95`] = pct(xs, 0.95);
        row[`${r.name}CpuP50`] = pct(cs, 0.5);
      }
      row.fileMb = fileMb(db);
      row.rssMb = rssMb();
      rows.push(row);
      await stack.close();
      console.log(`  ${size}: grown in ${seedS.toFixed(1)} s, first add ${warmS.toFixed(1)} s, HNSW build ${annS.toFixed(1)} s, write p50 ${row.writeP50!.toFixed(1)} ms, load average ${loadavg()[0]!.toFixed(1)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const cols = Object.keys(rows[0]!).filter((c) => !['size', 'seedS', 'warmS', 'annS'].includes(c));
  console.log(`\n| memories in the scope | ${cols.join(' | ')} |\n|---:|${cols.map(() => '---:').join('|')}|`);
  for (const r of rows) console.log(`| ${r.size} | ${cols.map((c) => `${r[c]!.toFixed(1)} (${(r[c]! / rows[0]![c]!).toFixed(2)}×)`).join(' | ')} |`);
  console.log(`(ms: P50/P95 wall time, CpuP50 = median CPU time of this process per operation, which other jobs on a loaded machine inflate less; ratios against ${rows[0]!.size} memories in the same run)`);
}

await main();

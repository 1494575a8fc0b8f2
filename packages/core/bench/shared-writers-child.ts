/**
 * One writer of bench/shared-writers.ts (ours): `createMemory` on the SQLite file argv[2], writer
 * argv[3] of the many-writers kill test's job (argv[4] adds, a third shared, two scopes). Counts the
 * memories the write path reads back with `store.list` (the scope rebuilds of 'shared' writers) and
 * prints one JSON line: adds, ms, listed, gate replayed commits.
 */
import { createInterface } from 'node:readline';
import { createSqliteStore } from '../src/store/index.js';
import { createMemory } from '../src/write/memory.js';
import { simpleExtractor } from '../src/write/test-kit.js';
import { hashEmbedder } from '../src/write/testdata/hash-embedder.js';
import { manyWritersJob } from '../src/write/testdata/many-writers-job.js';

const [path, w, n] = [process.argv[2]!, Number(process.argv[3]), Number(process.argv[4])];
const store = createSqliteStore({ path });
let listed = 0;
const list = store.list.bind(store);
store.list = async (...a: Parameters<typeof list>) => {
  const page = await list(...a);
  listed += page.length;
  return page;
};
const memory = createMemory({ store, embedder: hashEmbedder(), extractor: simpleExtractor });
await memory.stats();
process.stdout.write('ready\n');
const rl = createInterface({ input: process.stdin });
await new Promise<void>((r) => rl.once('line', () => r()));
rl.close();
const t = performance.now();
for (const it of manyWritersJob(w, n)) await memory.add({ text: it.text, observedAt: it.observedAt, scope: { userId: it.user } });
const ms = performance.now() - t;
const stats = await memory.stats();
const g = stats.gateState;
process.stdout.write(`${JSON.stringify({ adds: n, ms, listed, replayed: g.replayedCommits, rebuilt: g.rebuilt, caughtUp: g.caughtUp, caughtUpNodes: g.caughtUpNodes })}\n`);
await memory.close();

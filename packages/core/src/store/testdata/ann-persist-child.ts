/**
 * Child process of ann-persist.breakit.test.ts: opens the store file argv[2] (8-d, ANN threshold 100,
 * persisted graphs), tops scope `ann-child` up to argv[3] nodes, then writes argv[5] more and
 * forgets a fifth as many of the oldest (so its graph has something to save), builds the scope's
 * graph (HNSW degree from env ANN_CHILD_M, default 16), prints `ready`, and closes the store (saving the graph) when a line arrives on stdin,
 * then prints `closed`. The parent may SIGKILL it at any moment after `ready`.
 */
import { makeNode, testMeta, testScope, unitVector } from '../../testing/index.js';
import { createSqliteStore } from '../sqlite.js';

const [path, total, seed, writes] = [process.argv[2]!, Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5] ?? 0)];
const dim = 8;
const scope = testScope('ann-child');

async function main(): Promise<void> {
  const m = Number(process.env.ANN_CHILD_M ?? 16); // another HNSW degree: the saved graph is refused and rebuilt
  const store = createSqliteStore({ path, ann: { threshold: 100, efSearch: 400, build: 'blocking', m } });
  await store.open(testMeta(dim));
  const have = await store.count(scope);
  const t0 = performance.now();
  for (let i = have; i < total; i += 2000) {
    const n = Math.min(2000, total - i);
    await store.write({ scope, nodes: Array.from({ length: n }, (_, j) => makeNode(scope, `child memory ${i + j}`, unitVector(dim, i + j + 1))) });
  }
  if (writes > 0) {
    const oldest = await store.list(scope, { limit: Math.ceil(writes / 5), orderBy: 'createdAt' });
    for (const n of oldest) await store.forget(scope, n.id);
    await store.write({ scope, nodes: Array.from({ length: writes }, (_, j) => makeNode(scope, `child later ${seed}-${j}`, unitVector(dim, seed * 100_000 + j))) });
  }
  await store.buildAnnIndex(scope);
  await store.vectorSearch(scope, unitVector(dim, seed), 3);
  process.stdout.write(`setup ${(performance.now() - t0).toFixed(0)} ms\n`);
  process.stdout.write('ready\n');
  process.stdin.once('data', () => {
    const t1 = performance.now();
    void store.close().then(() => {
      process.stdout.write(`closed ${(performance.now() - t1).toFixed(1)} ms\n`);
      process.exit(0);
    });
  });
}

main().catch((e) => {
  process.stderr.write(String(e?.stack ?? e));
  process.exit(1);
});

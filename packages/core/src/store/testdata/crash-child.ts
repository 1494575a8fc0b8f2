/**
 * Child process of sqlite.crash.test.ts: writes batches forever to the store file given as argv[2]
 * and prints `ack <batchId>` after each write resolved. The parent SIGKILLs it at random times.
 */
import { makeHistory, makeNode, makeRelation, testScope, unitVector } from '../../testing/index.js';
import { createSqliteStore } from '../sqlite.js';

const [path, run] = [process.argv[2], process.argv[3]];
const PER_BATCH = 4;
const scopes = [testScope('crash-a'), testScope('crash-b')];

async function main(): Promise<void> {
  const store = createSqliteStore({ path, ann: { threshold: 100, build: 'background' } });
  await store.open({ schemaVersion: 1, embeddingModel: 'crash', dimension: 16 });
  process.stdout.write('ready\n');
  for (let b = 0; ; b++) {
    const scope = scopes[b % 2];
    const batchId = `r${run}-b${b}`;
    const nodes = Array.from({ length: PER_BATCH }, (_, i) =>
      makeNode(scope, `crash batch ${batchId} node ${i} ${'lorem ipsum '.repeat(i * 20)}`, unitVector(16, b * 10 + i + 1), { id: `${batchId}-n${i}` }),
    );
    const relations = nodes.slice(1).map((n, i) => makeRelation(nodes[i].id, n.id, 'PRECEDES', { id: `${batchId}-r${i}` }));
    const history = nodes.map((n) => makeHistory(scope, 'ADD', n.id, { batchId }));
    await store.write({ scope, nodes, relations, history });
    if (b % 5 === 0) await store.vectorSearch(scope, unitVector(16, b), 3);
    process.stdout.write(`ack ${batchId}\n`);
  }
}

main().catch((e) => {
  process.stderr.write(String(e?.stack ?? e));
  process.exit(1);
});

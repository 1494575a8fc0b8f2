// One writer process of the many-writers integration test (src/many-writers.integration.test.ts):
// opens a Memory on the Neo4j store named by MEM_NEO4J_URI / MEM_NEO4J_PASSWORD, prints READY, waits
// for one line on stdin (so every process starts writing at once), adds the observations of
// MEM_WRITER_JOB one by one (an item's `user` overrides the job's scope), printing one `ACK {json}`
// line per acknowledged add, then one `STATS {json}` line (the Memory's gateState counters: rebuilds,
// catch-ups) and DONE.
import { createInterface } from 'node:readline';
import { createMemory } from '@mem/core';
import { createNeo4jStore } from '../src/index.js';
import { wordHashEmbedder } from './word-hash-embedder.js';

async function main(): Promise<void> {
  const job = JSON.parse(process.env.MEM_WRITER_JOB ?? '{}') as { scope: { userId: string }; items: { text: string; observedAt: string; user?: string }[] };
  const store = createNeo4jStore({ uri: process.env.MEM_NEO4J_URI!, user: process.env.MEM_NEO4J_USER ?? 'neo4j', password: process.env.MEM_NEO4J_PASSWORD ?? '', connectionTimeoutMs: 20_000 });
  const memory = createMemory({ store, embedder: wordHashEmbedder() });
  await memory.add({ text: 'writer warm-up note', scope: { userId: `${job.scope.userId}-warmup-${process.pid}` }, observedAt: '2024-01-01T00:00:00Z' });
  console.log('READY');
  const rl = createInterface({ input: process.stdin });
  await new Promise<void>((resolve) => rl.once('line', () => resolve()));
  rl.close();
  for (const item of job.items) {
    const scope = item.user ? { userId: item.user } : job.scope;
    const r = await memory.add({ text: item.text, scope, observedAt: item.observedAt });
    console.log(`ACK ${JSON.stringify({ text: item.text, user: scope.userId, id: r.node.id, action: r.action, stored: r.stored })}`);
  }
  const stats = await memory.stats();
  console.log(`STATS ${JSON.stringify(stats.gateState)}`);
  await memory.close();
  console.log('DONE');
}

main().catch((e) => {
  console.error(`WRITER FAILED ${e?.code ?? ''} ${e?.message ?? e}`);
  process.exit(1);
});

/**
 * Neo4j search queries under PROFILE (issue 33 point 4; a script, not a test): starts the
 * integration tier's server (tools/neo4j-test-server; or uses MEM_NEO4J_URI), grows one scope to
 * `--size` synthetic memories through the Neo4j store (core's `seedSyntheticScope`, GloVe), and runs
 * each search query of the store, and the query text it replaced, under `PROFILE`: rows, database
 * hits per operator, and the wall time of the same query without PROFILE (median of `--runs`, after
 * one warm-up). The replaced texts (before issue 33's change) projected `node {.*}` (text and
 * embedding) before ORDER BY / LIMIT, and asked the full-text index for every match.
 *
 *   nice -n 10 pnpm --filter @mem/demo-agent bench:neo4j-profile [--size 20000] [--runs 3]
 */
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import neo4j from 'neo4j-driver';
import { createWinkEmbedder } from '@mem/core';
import { buildLexicalSearchQuery, buildVectorSearchExactQuery, buildVectorSearchIndexQuery, toLuceneQuery, type CypherQuery } from '../../../packages/graph-neo4j/src/queries';
import { seedSyntheticScope } from '../../../packages/core/bench/synthetic';
import { createStack } from '../src/stack';

const { values } = parseArgs({ options: { size: { type: 'string', default: '20000' }, runs: { type: 'string', default: '3' }, question: { type: 'string', default: 'Who painted the kite?' } } });
const SIZE = Number(values.size);
const RUNS = Number(values.runs);

interface Plan {
  operatorType: string;
  rows: number;
  dbHits: number;
  children?: Plan[];
}
const lines = (p: Plan, depth = 0, out: string[] = []): string[] => {
  out.push(`${'  '.repeat(depth)}${p.operatorType.replace(/@neo4j$/, '')} rows=${p.rows} dbHits=${p.dbHits}`);
  for (const c of p.children ?? []) lines(c, depth + 1, out);
  return out;
};
const hits = (p: Plan): number => (p.dbHits ?? 0) + (p.children ?? []).reduce((a, c) => a + hits(c), 0);

const env = { ...process.env };
let server: { uri: string; user: string; password: string; version: string; stop(): Promise<void> } | null = null;
if (!env.MEM_NEO4J_URI) {
  // @ts-expect-error: test tooling in plain JS (tools/neo4j-test-server/server.mjs), typed by its JSDoc only
  const { startServer } = (await import('../../../tools/neo4j-test-server/server.mjs')) as { startServer: (o: { heapMb: number }) => Promise<NonNullable<typeof server>> };
  server = await startServer({ heapMb: 2048 });
  Object.assign(env, { MEM_NEO4J_URI: server.uri, MEM_NEO4J_USER: server.user, MEM_NEO4J_PASSWORD: server.password });
}
try {
  const stack = await createStack({ store: 'neo4j', env, scope: { userId: 'profile-0' }, retriever: 'bm25', embedder: 'glove', systemTwo: null });
  const have = await stack.store.count(stack.scope);
  const t = performance.now();
  if (have < SIZE) await seedSyntheticScope(stack.store, stack.embedder, stack.scope, SIZE - have, 500_000_000 + have);
  console.log(`Neo4j ${server?.version ?? '(MEM_NEO4J_URI)'}: ${SIZE} memories in one scope (seeded ${SIZE - have} in ${((performance.now() - t) / 1000).toFixed(0)} s); load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} (shared machine)`);
  const scope = stack.scope;
  const vector = (await createWinkEmbedder().embed([values.question!]))[0]!;
  const lucene = toLuceneQuery(values.question!)!;
  const k = 10;
  const lexical = buildLexicalSearchQuery(scope, lucene, k, Math.max(64, 4 * k));
  const exact = buildVectorSearchExactQuery(scope, vector, k);
  const queries: CypherQuery[] = [
    {
      name: 'read.lexical before (every match, projected before ORDER BY)',
      cypher: `CALL db.index.fulltext.queryNodes($indexName, $query) YIELD node, score WITH node, score WHERE node.scopeKey = $scopeKey RETURN node {.*} AS node, score ORDER BY score DESC, node.rid ASC LIMIT $k`,
      params: lexical.params,
    },
    { ...lexical, name: 'read.lexical now (first round: the index asked for 64 hits)' },
    { ...exact, name: 'read.vector.exact (vectorSearch exact: the default before)' },
    { ...buildVectorSearchIndexQuery(scope, vector, k, 200), name: "read.vector.index (vectorSearch 'auto' from 5,000 memories)" },
    { ...buildVectorSearchIndexQuery(scope, vector, k, 200, 'id'), name: 'read.vector.index, ids only (vectorSearchIds: candidate discovery on writes)' },
  ];
  const driver = neo4j.driver(env.MEM_NEO4J_URI!, neo4j.auth.basic(env.MEM_NEO4J_USER ?? 'neo4j', env.MEM_NEO4J_PASSWORD!));
  const session = driver.session();
  try {
    for (const q of queries) {
      await session.run(q.cypher, q.params);
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const w = performance.now();
        await session.run(q.cypher, q.params);
        times.push(performance.now() - w);
      }
      const r = await session.run(`PROFILE ${q.cypher}`, q.params);
      const plan = r.summary.profile as unknown as Plan;
      const median = [...times].sort((a, b) => a - b)[Math.floor((times.length - 1) / 2)]!;
      console.log(`\n${q.name}: ${r.records.length} rows; ${hits(plan)} db hits; ${median.toFixed(0)} ms (median of ${RUNS}, wall)`);
      console.log(lines(plan).map((l) => `  ${l}`).join('\n'));
    }
  } finally {
    await session.close();
    await driver.close();
    await stack.close();
  }
} finally {
  await server?.stop();
}

// Integration tests against a REAL Neo4j 5 server. Gated: they run only when MEM_NEO4J_URI is set
// (e.g. `docker compose up -d neo4j` then
//  MEM_NEO4J_URI=neo4j://127.0.0.1:7687 MEM_NEO4J_PASSWORD=mem-password npx vitest run src/neo4j.integration.test.ts).
// WARNING: they delete every :Memory, :MemoryHistory, :MemoryMeta and :MemoryState node of the target database.
import neo4j from 'neo4j-driver';
import { afterAll, describe, expect, it } from 'vitest';
import { runStoreConformance } from '@mem/core/testing';
import type { MemoryStore, StoreMeta } from '@mem/core';
import { createNeo4jStore } from './store.js';
import { INDEX_NAMES } from './schema.js';
import { makeNode, makeRelation, unit } from './test/fixtures.js';

const URI = process.env.MEM_NEO4J_URI;
const USER = process.env.MEM_NEO4J_USER ?? 'neo4j';
const PASSWORD = process.env.MEM_NEO4J_PASSWORD ?? 'mem-password';
const DATABASE = process.env.MEM_NEO4J_DATABASE || undefined;

if (!URI) {
  console.log('[graph-neo4j] integration tests skipped: MEM_NEO4J_URI is not set (start Neo4j 5 with `docker compose up -d neo4j` and set MEM_NEO4J_URI=neo4j://127.0.0.1:7687).');
}

/** Remove everything this store writes, and its indexes (a new dimension needs a new vector index). */
async function resetDatabase(): Promise<void> {
  const driver = neo4j.driver(URI!, neo4j.auth.basic(USER, PASSWORD));
  const session = driver.session({ database: DATABASE });
  try {
    await session.run('MATCH (n) WHERE n:Memory OR n:MemoryHistory OR n:MemoryMeta OR n:MemoryState DETACH DELETE n');
    await session.run(`DROP INDEX ${INDEX_NAMES.vector} IF EXISTS`);
    await session.run(`DROP INDEX ${INDEX_NAMES.fulltext} IF EXISTS`);
  } finally {
    await session.close();
    await driver.close();
  }
}

const stores: MemoryStore[] = [];
async function freshStore(): Promise<MemoryStore> {
  await resetDatabase();
  const store = createNeo4jStore({ uri: URI!, user: USER, password: PASSWORD, database: DATABASE, connectionTimeoutMs: 10_000 });
  stores.push(store);
  return store;
}
afterAll(async () => {
  for (const s of stores) await s.close().catch(() => {});
});

/** A second handle on the same database (no reset): persistence across handles. */
async function reopen(): Promise<MemoryStore> {
  const store = createNeo4jStore({ uri: URI!, user: USER, password: PASSWORD, database: DATABASE, connectionTimeoutMs: 10_000 });
  stores.push(store);
  return store;
}

describe.runIf(URI)('Neo4j store: core conformance suite', () => {
  runStoreConformance('neo4j', freshStore, { reopen, timeoutMs: 60_000 });
});

describe.runIf(URI)('Neo4j store: Neo4j-specific cases', () => {
  const META: StoreMeta = { schemaVersion: 1, embeddingModel: 'integration', dimension: 4 };
  const scope = { namespace: 'it', userId: "u'`-東京", agentId: '', runId: '' };
  const texts = [
    `O'Brien said "don't" and left`,
    'the `backtick` table) DETACH DELETE (n',
    'state-of-the-art well-known re-entry',
    '東京タワーで会いましょう',
  ];

  it('stores and finds quotes, backticks, hyphens and CJK verbatim (text, entities, lexical, vector)', async () => {
    const store = await freshStore();
    await store.open(META);
    const nodes = texts.map((t, i) => ({ ...makeNode(`n-${i}-'\`-東`, t, scope), entities: [t.slice(0, 8), "O'Brien-`x`"], embedding: unit(4, i + 1) }));
    await store.write({ scope, nodes, relations: [makeRelation('r-`1`', nodes[0].id, nodes[3].id, 'SAME_ENTITY')] });
    for (const n of nodes) {
      const got = await store.get(scope, n.id);
      expect(got!.text).toBe(n.text);
      expect(got!.entities).toEqual(n.entities);
    }
    expect((await store.lexicalSearch(scope, "O'Brien", 5))[0].node.id).toBe(nodes[0].id);
    expect((await store.lexicalSearch(scope, '`backtick`)', 5))[0].node.id).toBe(nodes[1].id);
    expect((await store.lexicalSearch(scope, 'state-of-the-art', 5))[0].node.id).toBe(nodes[2].id);
    expect((await store.lexicalSearch(scope, '東京', 5))[0].node.id).toBe(nodes[3].id);
    const v = await store.vectorSearch(scope, unit(4, 3), 1);
    expect(v[0].node.id).toBe(nodes[2].id);
    expect(v[0].score).toBeCloseTo(1, 5);
    const nb = await store.neighbors(scope, [nodes[0].id], { views: ['entity'] });
    expect(nb.map((x) => x.node.id)).toEqual([nodes[3].id]);
  });

  it('a forgotten node is gone from the vector and the full-text index', async () => {
    const store = await freshStore();
    await store.open(META);
    const a = { ...makeNode('gone', 'zebra crossing near the museum', scope), embedding: unit(4, 9) };
    const b = { ...makeNode('kept', 'a quiet afternoon', scope), embedding: unit(4, 2) };
    await store.write({ scope, nodes: [a, b] });
    expect((await store.lexicalSearch(scope, 'zebra', 5)).map((x) => x.node.id)).toEqual(['gone']);
    expect(await store.forget(scope, 'gone')).toBe(true);
    expect(await store.lexicalSearch(scope, 'zebra', 5)).toEqual([]);
    expect((await store.vectorSearch(scope, unit(4, 9), 5)).map((x) => x.node.id)).toEqual(['kept']);
    const indexed = createNeo4jStore({ uri: URI!, user: USER, password: PASSWORD, database: DATABASE, vectorSearch: 'index' });
    stores.push(indexed);
    await indexed.open(META);
    expect((await indexed.vectorSearch(scope, unit(4, 9), 5)).map((x) => x.node.id)).toEqual(['kept']);
    expect((await store.history(scope)).at(-1)).toMatchObject({ op: 'FORGET', nodeId: 'gone' });
  });

  it('wrong password → StoreUnavailableError with the Neo4j code', async () => {
    const bad = createNeo4jStore({ uri: URI!, user: USER, password: PASSWORD + '-wrong', database: DATABASE, connectionTimeoutMs: 5000 });
    const err = await bad.open(META).catch((e) => e);
    await bad.close();
    expect(err.code).toBe('STORE_UNAVAILABLE');
    expect(String(err.details?.code)).toMatch(/^Neo\.ClientError\.Security\./);
  });
});

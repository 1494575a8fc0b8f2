// Verifiable forgetting on Neo4j (issue 32 point 2), against a REAL Neo4j (gated like the other
// integration files): a canary memory with relations is forgotten through `Memory.forget`, a scope of
// canaries through `Memory.forgetScope`; then Cypher checks that the node is gone, that no node or
// relationship of the whole database has a property whose value (strings and lists of strings)
// contains the canary's words, that the full-text index finds nothing, and that the history keeps a
// FORGET row per memory without the text.
import { afterAll, describe, expect, it } from 'vitest';
import { createMemory, resolveScope, scopeKey } from '@mem/core';
import { createNeo4jStore } from '../src/store.js';
import { INDEX_NAMES } from '../src/schema.js';
import { DATABASE, PASSWORD, URI, USER, logSkip, resetDatabase, withSession } from './neo4j-test-db.js';
import { wordHashEmbedder } from './word-hash-embedder.js';

logSkip('forget.integration.test.ts');

/** Nodes and relationships of the whole database with a property value containing `needle` (strings, lists of strings). */
async function holding(needle: string): Promise<string[]> {
  const has = (x: string) => `any(k IN keys(${x}) WHERE (${x}[k] IS :: STRING AND toLower(${x}[k]) CONTAINS toLower($n)) OR (${x}[k] IS :: LIST<STRING> AND any(v IN ${x}[k] WHERE toLower(v) CONTAINS toLower($n))))`;
  return withSession(async (s) => {
    const nodes = (await s.run(`MATCH (x) WHERE ${has('x')} RETURN labels(x)[0] AS what, [k IN keys(x) WHERE x[k] IS :: STRING OR x[k] IS :: LIST<STRING> | k] AS keys`, { n: needle })).records;
    const rels = (await s.run(`MATCH ()-[x]->() WHERE ${has('x')} RETURN type(x) AS what`, { n: needle })).records;
    return [...nodes.map((r) => `node :${r.get('what')}`), ...rels.map((r) => `relationship :${r.get('what')}`)];
  });
}

async function fulltext(word: string): Promise<number> {
  return withSession(async (s) => (await s.run(`CALL db.index.fulltext.queryNodes($index, $q) YIELD node RETURN count(node) AS n`, { index: INDEX_NAMES.fulltext, q: word.toLowerCase() })).records[0]!.get('n'));
}

const memories: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const m of memories) await m.close().catch(() => {});
});

describe.runIf(URI)('Neo4j: forgetting leaves no property holding the text', () => {
  it('forget(id) and forgetScope: node, relationships and every property with the text gone (Cypher); history keeps FORGET rows without it', async () => {
    await resetDatabase(32);
    const store = createNeo4jStore({ uri: URI!, user: USER, password: PASSWORD, database: DATABASE, connectionTimeoutMs: 20_000 });
    const memory = createMemory({ store, embedder: wordHashEmbedder() });
    memories.push(memory);
    const one = { userId: 'forget-one' };
    const all = { userId: 'forget-all' };
    for (let i = 0; i < 12; i++) await memory.add({ text: `Ordinary note ${i}: Marisol walked the dog by the harbour on day ${i}.`, scope: one, observedAt: new Date(Date.UTC(2024, 0, 1, 9, i)).toISOString() });
    const canary = await memory.add({ text: 'Marisol told Zanthoriel the vault code Quellbrook-8812 at the harbour.', scope: one, observedAt: '2024-01-02T09:00:00Z' });
    const scoped: { node: { id: string } }[] = [];
    for (const t of ['Ombrevane hides the spare key in the Tessaline planter.', 'Ombrevane owes Kestrelmont four thousand euros.']) scoped.push(await memory.add({ text: t, scope: all, observedAt: '2024-01-03T09:00:00Z' }));
    for (let i = 0; i < 5; i++) await memory.add({ text: `Ombrevane note ${i} about the weather.`, scope: all, observedAt: new Date(Date.UTC(2024, 0, 4, 9, i)).toISOString() });
    // before: the checks can see the canaries (text, entities, keywords; relationships to them)
    expect((await holding('Zanthoriel')).length).toBeGreaterThan(0);
    expect((await holding('Tessaline')).length).toBeGreaterThan(0);
    // the full-text index is updated asynchronously: wait until it finds the canary (so 0 afterwards means something)
    for (let t0 = Date.now(); (await fulltext('Zanthoriel')) !== 1; ) {
      if (Date.now() - t0 > 60_000) throw new Error('the full-text index never found the canary');
      await new Promise((r) => setTimeout(r, 250));
    }
    const rels = await withSession(async (s) => (await s.run('MATCH (m:Memory {id: $id})-[r]-() RETURN count(r) AS n', { id: canary.node.id })).records[0]!.get('n'));
    expect(rels).toBeGreaterThan(0);

    expect(await memory.forget(canary.node.id, { scope: one })).toBe(true);
    expect(await memory.forgetScope({ scope: all })).toBe(7);

    for (const word of ['Zanthoriel', 'Quellbrook', 'vault code', 'Ombrevane', 'Tessaline', 'Kestrelmont']) {
      expect(await holding(word), word).toEqual([]);
      expect(await fulltext(word.split(' ')[0]!), word).toBe(0);
    }
    const left = await withSession(async (s) => (await s.run('MATCH (m:Memory) WHERE m.id IN $ids OR m.scopeKey = $key RETURN count(m) AS n', { ids: [canary.node.id, ...scoped.map((x) => x.node.id)], key: scopeKey(resolveScope(all)) })).records[0]!.get('n'));
    expect(left).toBe(0);
    // the other memories of the first scope stay, with their own relationships
    expect(await memory.list({ scope: one })).toHaveLength(12);
    const h1 = await memory.history({ scope: one, nodeId: canary.node.id });
    expect(h1.map((h) => h.op)).toEqual(['ADD', 'FORGET']);
    const h2 = await memory.history({ scope: all, limit: 1000 });
    expect(h2.filter((h) => h.op === 'FORGET')).toHaveLength(7);
    expect(JSON.stringify([...h1, ...h2])).not.toMatch(/Zanthoriel|Quellbrook|Ombrevane|Tessaline|Kestrelmont/);
  }, 300_000);
});

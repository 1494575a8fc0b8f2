import { describe, expect, it } from 'vitest';
import { scopeKey } from '@mem/core';
import * as Q from './queries.js';
import { ALLOWED_SCHEMA_NAMES } from './schema.js';
import { HOSTILE, makeNode, makeRelation, schemaNamesIn, scopeA, scopeB } from './test/fixtures.js';
import { allQueries, nodes } from './test/all-queries.js';

describe('Cypher builders', () => {
  it('never put caller text into the query string', () => {
    const hostileFragments = [...HOSTILE, scopeA.userId, scopeKey(scopeA), "O'Brien", '東京', '`tick`', 'hyphen-ated', '$scopeKey }', 'id-0'];
    for (const q of allQueries()) {
      for (const h of hostileFragments) expect(q.cypher, `${q.name} contains ${h}`).not.toContain(h);
      expect(q.cypher).not.toMatch(/['"]\s*\+/); // no string concatenation artefacts
    }
  });

  it('use only labels and relationship types from the closed enums', () => {
    const seen = new Set<string>();
    for (const q of allQueries()) {
      for (const name of schemaNamesIn(q.cypher)) {
        expect(ALLOWED_SCHEMA_NAMES, `${q.name}: ${name}`).toContain(name);
        seen.add(name);
      }
    }
    // the check is not vacuous: all four relation types and all four labels were seen
    for (const n of ['Memory', 'MemoryHistory', 'MemoryMeta', 'MemoryState', 'SEMANTIC', 'TEMPORAL', 'CAUSAL', 'ENTITY']) expect(seen).toContain(n);
  });

  it('filter every Memory/MemoryHistory query on the scope key, passed as a parameter', () => {
    let checked = 0;
    for (const q of allQueries()) {
      const touchesData = /:(Memory|MemoryHistory)\b/.test(q.cypher) || q.name.startsWith('read.vector') || q.name === 'read.lexical';
      if (!touchesData || q.name.startsWith('constraint') || q.name.startsWith('index') || q.name === 'read.scopes') continue;
      checked++;
      expect(q.cypher, q.name).toMatch(/scopeKey = \$scopeKey/);
      expect(q.params.scopeKey, q.name).toBe(scopeKey(scopeA));
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('addresses nodes by uid = [scopeKey, id], so equal ids in two scopes never meet', () => {
    const a = Q.buildGetQuery(scopeA, 'same');
    const b = Q.buildGetQuery(scopeB, 'same');
    expect(a.params.uid).toBe(JSON.stringify([scopeKey(scopeA), 'same']));
    expect(a.params.uid).not.toBe(b.params.uid);
    const rows = Q.buildUpsertNodesQuery(scopeA, [makeNode('n1', 'x')], [41]).params.nodes as Record<string, unknown>[];
    expect(rows[0].uid).toBe(JSON.stringify([scopeKey(scopeA), 'n1']));
    expect(rows[0].rid).toBe(41);
    expect(Q.buildUpsertNodesQuery(scopeA, []).cypher).toContain('SET m.rid = coalesce(oldRid, n.rid)');
  });

  it('passes all values as parameters (nodes, ids, vectors, limits)', () => {
    const create = Q.buildUpsertNodesQuery(scopeA, nodes);
    const rows = create.params.nodes as Record<string, unknown>[];
    expect(rows).toHaveLength(nodes.length);
    expect(rows[3].text).toBe(HOSTILE[3]);
    expect(rows[0].scopeKey).toBe(scopeKey(scopeA));
    expect(rows[0].embedding).toEqual(Array.from(nodes[0].embedding));
    expect(rows[3].searchText).toContain('東京 東京'.split(' ')[0]); // CJK unigrams/bigrams from core's searchText
    expect(rows[1].searchText).not.toMatch(/[`()]/);
    expect(JSON.parse(rows[0].metadata as string)).toEqual({ note: HOSTILE[0] });
    expect(create.cypher).toContain('UNWIND $nodes AS n');

    const list = Q.buildListQuery(scopeA, { limit: 5, offset: 2, orderBy: 'createdAt', order: 'desc' });
    expect((list.params.limit as any).toNumber()).toBe(5);
    expect((list.params.offset as any).toNumber()).toBe(2);
    expect(list.cypher).toContain('ORDER BY m.createdMs DESC, m.rid DESC');
    expect(Q.buildListQuery(scopeA).cypher).toContain('ORDER BY m.observedMs ASC');
    expect(Q.buildListQuery(scopeA).cypher).not.toContain('LIMIT');

    const vec = Q.buildVectorSearchExactQuery(scopeA, new Float32Array([0.5, 0.5, 0.5, 0.5]), 7);
    expect(vec.params.vector).toEqual([0.5, 0.5, 0.5, 0.5]);
    expect((vec.params.k as any).toNumber()).toBe(7);
    expect(vec.cypher).toContain('2 * s - 1 AS score');

    const idx = Q.buildVectorSearchIndexQuery(scopeA, [1, 0], 20, 5);
    expect((idx.params.candidates as any).toNumber()).toBe(20); // never fewer candidates than k
    expect(idx.params.indexName).toBe('mem_memory_embedding');
  });

  it('creates the vector index with the embedder dimension as a parameter, all schema idempotent', () => {
    const schema = Q.buildSchemaQueries(384);
    for (const q of schema) expect(q.cypher).toContain('IF NOT EXISTS');
    const vector = schema.find((q) => q.name === 'index.vector')!;
    expect(vector.cypher).toContain("`vector.similarity_function`: 'cosine'");
    expect(vector.cypher).toContain('toInteger($dimension)');
    expect((vector.params.dimension as any).toNumber()).toBe(384);
    expect(schema.find((q) => q.name === 'constraint.memoryId')!.cypher).toContain('REQUIRE m.uid IS UNIQUE');
    expect(schema.find((q) => q.name === 'constraint.contentKey')!.cypher).toContain('REQUIRE m.contentKey IS UNIQUE');
    expect(schema.find((q) => q.name === 'index.fulltext')!.cypher).toContain('CREATE FULLTEXT INDEX');
  });

  it('uses one relationship type per view, chosen from the enum', () => {
    const qs = Q.buildCreateRelationsQueries(scopeA, [
      makeRelation('r1', 'a', 'b', 'RELATED_TO'),
      makeRelation('r2', 'a', 'c', 'RELATED_TO'),
      makeRelation('r3', 'b', 'c', 'LEADS_TO'),
    ]);
    expect(qs.map((q) => q.name)).toEqual(['write.relations.semantic', 'write.relations.causal']);
    expect(qs[0].cypher).toContain('CREATE (a)-[e:SEMANTIC]->(b)');
    expect(qs[0].params.relations).toHaveLength(2);
    expect((qs[0].params.relations as any[])[0]).toMatchObject({ fromUid: JSON.stringify([scopeKey(scopeA), 'a']), props: { id: 'r1', subtype: 'RELATED_TO' } });
    expect(qs[1].cypher).toContain('CREATE (a)-[e:CAUSAL]->(b)');
    const clear = Q.buildClearRelationsQueries(scopeA, [makeRelation('r1', 'a', 'b')]);
    expect(clear.map((c) => c.name)).toEqual(['write.relations.clear.semantic', 'write.relations.clear.temporal', 'write.relations.clear.causal', 'write.relations.clear.entity']);
    expect(() => Q.buildCreateRelationsQueries(scopeA, [{ ...makeRelation('x', 'a', 'b'), view: 'bogus`) DELETE' as any }])).toThrow();
    expect(() => Q.relTypesFor(['nope' as any])).toThrow();
    for (const inherited of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) expect(() => Q.relTypesFor([inherited as any])).toThrow();
    expect(Q.relTypesFor(['temporal', 'entity'])).toBe('TEMPORAL|ENTITY');
  });

  it('neighbours: direction picks the arrow, views pick the types, subtypes are a parameter', () => {
    expect(Q.buildNeighborsQuery(scopeA, ['a'], { direction: 'out', views: ['causal'] }).cypher).toContain('-[e:CAUSAL]->');
    expect(Q.buildNeighborsQuery(scopeA, ['a'], { direction: 'in' }).cypher).toContain('<-[e:SEMANTIC|TEMPORAL|CAUSAL|ENTITY]-');
    const both = Q.buildNeighborsQuery(scopeA, ['a', 'a', 'b'], { subtypes: ['PRECEDES'] });
    expect(both.cypher).toContain('-[e:SEMANTIC|TEMPORAL|CAUSAL|ENTITY]-(b');
    expect(both.cypher).toContain('a.scopeKey = $scopeKey AND b.scopeKey = $scopeKey');
    expect(both.params.ids).toEqual(['a', 'b']);
    expect(both.params.subtypes).toEqual(['PRECEDES']);
    expect(() => Q.buildNeighborsQuery(scopeA, ['a'], { direction: 'sideways' as any })).toThrow();
  });

  it('sequence numbers come from the locked meta counter; history keeps the latest rows, oldest first', () => {
    const r = Q.buildReserveSeqQuery(5);
    expect(r.cypher.indexOf('SET x._lock = true')).toBeLessThan(r.cypher.indexOf('AS base'));
    expect((r.params.count as any).toNumber()).toBe(5);
    const q = Q.buildAppendHistoryQuery(
      scopeA,
      [
        { scope: scopeA, op: 'ADD', nodeId: 'n1', at: '2024-01-01T00:00:00Z', data: { a: 1 } },
        { scope: scopeA, op: 'RELATE', nodeId: null, at: '2024-01-01T00:00:00Z', data: {} },
      ],
      [7, 8],
    );
    const rows = q.params.rows as Record<string, unknown>[];
    expect(rows.map((x) => [x.op, x.seq])).toEqual([
      ['ADD', 7],
      ['RELATE', 8],
    ]);
    expect(rows[0].data).toBe('{"a":1}');
    const h = Q.buildHistoryQuery(scopeA, { limit: 2 });
    expect(h.cypher).toContain('ORDER BY h.seq DESC LIMIT $limit');
    expect(h.cypher).toMatch(/ORDER BY entry.seq ASC$/);
    expect((h.params.afterSeq as any).toNumber()).toBe(0);
    const after = Q.buildHistoryQuery(scopeA, { afterSeq: 41 });
    expect(after.cypher).toContain('h.seq > $afterSeq');
    expect((after.params.afterSeq as any).toNumber()).toBe(41);
  });

  it('toLuceneQuery strips every Lucene operator and keeps CJK (as core tokenises it)', () => {
    expect(Q.toLuceneQuery('hello AND world')).toBe('hello OR and OR world');
    expect(Q.toLuceneQuery('title:(foo* OR "bar") ~2 ^3 \\ / [a TO b] {x} !y +z -w &&')).toBe(
      'title OR foo OR or OR bar OR 2 OR 3 OR a OR to OR b OR x OR y OR z OR w',
    );
    expect(Q.toLuceneQuery("O'Brien's state-of-the-art `tick`")).toBe('o OR brien OR s OR state OR of OR the OR art OR tick');
    expect(Q.toLuceneQuery('東京')!.split(' OR ').sort()).toEqual(['東', '東京', '京'].sort());
    expect(Q.toLuceneQuery('?!* ()')).toBeNull();
    const lucene = Q.toLuceneQuery(HOSTILE.join(' '))!;
    expect(lucene).not.toMatch(/[+\-&|!(){}[\]^"~*?:\\/`'$]/);
  });
});

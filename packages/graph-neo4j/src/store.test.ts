import { describe, expect, it } from 'vitest';
import { MemError, reembedStore, scopeKey, type Embedder, type StoreMeta } from '@mem/core';
import { nodeToProps } from './codec.js';
import { createNeo4jStore } from './store.js';
import type { CypherQuery } from './queries.js';
import type { Row } from './runner.js';
import { makeNode, makeRelation, recordingRunner, scopeA, scopeB } from './test/fixtures.js';
import { MemValidationError, StoreError, type MemErrorCode } from '@mem/store-spec';
import { expectMemError } from '@mem/test-utils';

const META: StoreMeta = { schemaVersion: 1, embeddingModel: 'test-model', dimension: 4 };

/** Default answers: the counts a server would report when every row matched. */
function respondAll(q: CypherQuery): Row[] {
  if (q.name === 'meta.init') return [{ meta: { key: 'meta', ...META, seq: 0 } }];
  if (q.name === 'write.reserveSeq') return [{ base: 100 }];
  if (q.name === 'write.nodes') return [{ written: (q.params.nodes as unknown[]).length }];
  if (q.name === 'write.nodeUpdates') return [{ updated: (q.params.updates as unknown[]).length }];
  if (q.name.startsWith('write.relations.clear')) return [];
  if (q.name.startsWith('write.relations')) return [{ written: (q.params.relations as unknown[]).length }];
  if (q.name === 'write.history') return [{ written: (q.params.rows as unknown[]).length }];
  if (q.name === 'write.forget') return [{ rels: 2 }];
  if (q.name === 'read.state') return q.params.key === JSON.stringify([scopeKey(scopeA), 'gate']) ? [{ value: 'saved-gate' }] : [];
  return [];
}

async function opened(respond: (q: CypherQuery) => Row[] = respondAll) {
  const runner = recordingRunner((q) => (q.name === 'meta.init' ? respondAll(q) : respond(q)));
  const store = createNeo4jStore({ uri: 'bolt://unused', password: 'x', runner });
  await store.open(META);
  runner.log.length = 0;
  runner.committed = 0;
  return { runner, store };
}

describe('createNeo4jStore (recording runner: queries and store logic, no server)', () => {
  it('lockScopes: one lock transaction over the sorted, distinct scope keys, released (rolled back) after fn, also when fn throws', async () => {
    const { runner, store } = await opened();
    const inside: number[] = [];
    expect(await store.lockScopes!([scopeB, scopeA, scopeB], async () => (inside.push(runner.rolledBack), 'done'))).toBe('done');
    expect(inside).toEqual([0]); // held while fn ran
    expect(runner.rolledBack).toBe(1);
    expect(runner.log.map((l) => [l.mode, l.query?.name])).toEqual([['hold', 'lock.scopes']]);
    const q = runner.log[0]!.query!;
    expect(q.params.keys).toEqual([scopeKey(scopeA), scopeKey(scopeB)].sort());
    expect(q.cypher).toContain('MERGE (l:MemoryMeta {key: $prefix + k})');
    await expect(store.lockScopes!([scopeA], async () => {
      throw new Error('boom');
    })).rejects.toThrow('boom');
    expect(runner.rolledBack).toBe(2);
    expect(runner.committed).toBe(0); // a lock never stores anything
  });

  it('open: verifies, creates schema idempotently, waits for indexes, records meta', async () => {
    const runner = recordingRunner(respondAll);
    const store = createNeo4jStore({ uri: 'bolt://unused', password: 'x', runner });
    await store.open(META);
    expect(runner.log[0].mode).toBe('verify');
    expect(runner.log.map((l) => l.query?.name)).toEqual([
      undefined,
      'meta.read',
      'constraint.memoryId',
      'constraint.contentKey',
      'constraint.metaKey',
      'constraint.stateKey',
      'index.scope',
      'index.scopeId',
      'index.stateScope',
      'index.contentHash',
      'index.history',
      'index.vector',
      'index.fulltext',
      'index.relation.semantic',
      'index.relation.temporal',
      'index.relation.causal',
      'index.relation.entity',
      'index.await',
      'meta.init',
    ]);
    expect((runner.log.find((l) => l.query?.name === 'index.vector')!.query!.params.dimension as any).toNumber()).toBe(4);
  });

  it('open: a recorded meta that differs throws StoreMetaMismatchError naming both, before any schema change', async () => {
    const runner = recordingRunner((q) => (q.name === 'meta.read' ? [{ meta: { key: 'meta', schemaVersion: 1, embeddingModel: 'other', dimension: 8 } }] : []));
    const store = createNeo4jStore({ uri: 'bolt://unused', password: 'x', runner });
    const err = await store.open(META).catch((e) => e);
    expect(MemError.isInstance(err) && err.code).toBe('STORE_META_MISMATCH');
    expect(err.message).toContain('other');
    expect(err.message).toContain('test-model');
    expect(err.message).toContain('dimension 8 vs 4');
    expect(runner.log.some((l) => l.mode === 'schema')).toBe(false);
  });

  it('neighbors: inherited property names as views or subtypes are INVALID_INPUT and no query is sent', async () => {
    const { runner, store } = await opened();
    const before = runner.log.length;
    for (const bad of ['constructor', 'toString', '__proto__']) {
      await expectMemError(store.neighbors(scopeA, ['a'], { views: [bad as any] }), MemValidationError, 'INVALID_INPUT');
      await expectMemError(store.neighbors(scopeA, ['a'], { subtypes: [bad as any] }), MemValidationError, 'INVALID_INPUT');
    }
    expect(runner.log.length).toBe(before);
  });

  it('open: an index created by another process at the same moment counts as created; a schema deadlock is retried', async () => {
    const thrown: string[] = [];
    const base = recordingRunner(respondAll);
    const runner = {
      ...base,
      async schema(q: CypherQuery) {
        if (q.name === 'index.vector' && !thrown.includes('equivalent')) {
          thrown.push('equivalent');
          throw Object.assign(new Error('An equivalent index already exists'), { code: 'Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists' });
        }
        if (q.name === 'index.fulltext' && !thrown.includes('deadlock')) {
          thrown.push('deadlock');
          throw Object.assign(new Error('ForsetiClient can not acquire lock'), { code: 'Neo.TransientError.Transaction.DeadlockDetected' });
        }
        return base.schema(q);
      },
    };
    const store = createNeo4jStore({ uri: 'bolt://unused', password: 'x', runner });
    await store.open(META);
    expect(thrown).toEqual(['equivalent', 'deadlock']);
    expect(base.log.filter((l) => l.query?.name === 'index.fulltext').length).toBe(1); // the retried run (the failed one threw before recording)
    const bad = createNeo4jStore({
      uri: 'bolt://unused',
      password: 'x',
      runner: { ...recordingRunner(respondAll), schema: async () => Promise.reject(Object.assign(new Error('syntax'), { code: 'Neo.ClientError.Statement.SyntaxError' })) },
    });
    await expectMemError(bad.open(META), StoreError, 'STORE_ERROR');
  });

  it('rejects use before open and bad meta', async () => {
    const store = createNeo4jStore({ uri: 'bolt://unused', password: 'x', runner: recordingRunner() });
    await expectMemError(store.get(scopeA, 'x'), StoreError, 'STORE_ERROR');
    await expectMemError(store.open({ ...META, dimension: 0 }), MemValidationError, 'INVALID_INPUT');
  });

  it('write: one transaction, nodes then updates then one query per view then history', async () => {
    const { runner, store } = await opened();
    const a = makeNode('a', 'first');
    const b = makeNode('b', 'second');
    await store.write({
      scope: scopeA,
      nodes: [a, b],
      nodeUpdates: [{ id: 'old', obsoleteBy: 'a' }],
      relations: [makeRelation('r1', 'a', 'b', 'RELATED_TO'), makeRelation('r2', 'a', 'b', 'PRECEDES')],
      history: [{ scope: scopeA, op: 'ADD', nodeId: 'a', at: a.createdAt, data: {} }],
    });
    expect(runner.log.every((l) => l.mode === 'write' && l.tx === runner.log[0].tx)).toBe(true);
    expect(runner.log.map((l) => l.query!.name)).toEqual([
      'write.reserveSeq',
      'write.nodes',
      'write.nodeUpdates',
      'write.relations.clear.semantic',
      'write.relations.clear.temporal',
      'write.relations.clear.causal',
      'write.relations.clear.entity',
      'write.relations.semantic',
      'write.relations.temporal',
      'write.history',
    ]);
    for (const l of runner.log.slice(1)) expect(l.query!.params.scopeKey).toBe(scopeKey(scopeA));
    // 2 nodes + 2 relations + 1 history row numbered from the reserved base (100) + 1
    expect((runner.log[0].query!.params.count as any).toNumber()).toBe(5);
    expect((runner.log[1].query!.params.nodes as any[]).map((n) => n.rid)).toEqual([101, 102]);
    expect((runner.log[7].query!.params.relations as any[]).map((r) => r.props.rid)).toEqual([103]);
    expect((runner.log[9].query!.params.rows as any[]).map((r) => r.seq)).toEqual([105]);
    expect(runner.committed).toBe(1);
  });

  it('write: a missing relation endpoint rolls the whole batch back with MemNotFoundError', async () => {
    const { runner, store } = await opened((q) => (q.name.startsWith('write.relations.') && !q.name.includes('clear') ? [{ written: 0 }] : respondAll(q)));
    const err = await store.write({ scope: scopeA, nodes: [makeNode('a', 'x')], relations: [makeRelation('r', 'a', 'ghost')] }).catch((e) => e);
    expect(err.code).toBe('NODE_NOT_FOUND');
    expect(runner.rolledBack).toBe(1);
    expect(runner.committed).toBe(0);
  });

  it('write: invalid batches are refused before any query is sent', async () => {
    const { runner, store } = await opened();
    const cases: [string, any][] = [
      ['INVALID_INPUT', { scope: scopeA, nodes: [makeNode('a', 'x', scopeB)] }],
      ['DIMENSION_MISMATCH', { scope: scopeA, nodes: [{ ...makeNode('a', 'x'), embedding: new Float32Array(3) }] }],
      ['NON_FINITE_VECTOR', { scope: scopeA, nodes: [{ ...makeNode('a', 'x'), embedding: new Float32Array([NaN, 0, 0, 0]) }] }],
      ['INVALID_INPUT', { scope: scopeA, relations: [{ ...makeRelation('r', 'a', 'b', 'LEADS_TO'), view: 'semantic' }] }],
      ['INVALID_INPUT', { scope: scopeA, relations: [{ ...makeRelation('r', 'a', 'b'), subtype: 'HATES' }] }],
      ['INVALID_INPUT', { scope: scopeA, relations: [{ ...makeRelation('r', 'a', 'b'), probability: 1.5 }] }],
      ['INVALID_INPUT', { scope: scopeA, nodes: [makeNode('a', 'x'), makeNode('a', 'y')] }],
      ['INVALID_INPUT', { scope: scopeA, history: [{ scope: scopeB, op: 'ADD', nodeId: null, at: '2024-01-01T00:00:00Z', data: {} }] }],
      ['SCOPE_MISSING', { scope: { namespace: 'default', userId: '', agentId: '', runId: '' }, nodes: [] }],
      ['TEXT_EMPTY', { scope: scopeA, nodes: [makeNode('a', '  ')] }],
    ];
    for (const [code, batch] of cases) await expectMemError(store.write(batch), MemError, code as MemErrorCode);
    expect(runner.log).toHaveLength(0);
  });

  it('reads send one scoped query each and decode rows', async () => {
    const a = makeNode('a', "O'Brien's `東京` trip");
    const row = { node: { ...Object.fromEntries(Object.entries((await import('./codec.js')).nodeToProps(a))) } };
    const { runner, store } = await opened((q) => {
      if (q.name === 'read.count') return [{ count: 3 }];
      if (q.name.startsWith('read.vector')) return [{ ...row, score: 0.5 }];
      if (q.name === 'read.lexical') return [{ ...row, score: 0.5, fetched: 1, lastScore: 0.5 }];
      if (q.name === 'read.get' || q.name === 'read.getMany' || q.name === 'read.list' || q.name === 'read.contentHash') return [row];
      return [];
    });
    const got = await store.get(scopeA, 'a');
    expect(got!.text).toBe(a.text);
    expect(got!.scope).toEqual(scopeA);
    expect(Array.from(got!.embedding)).toEqual(Array.from(a.embedding));
    expect(got!.eventTime).toEqual(a.eventTime);
    expect(got!.gate).toEqual(a.gate);
    expect(got!.provenance).toEqual(a.provenance);
    expect(await store.count(scopeA)).toBe(3);
    expect((await store.vectorSearch(scopeA, a.embedding, 2))[0].score).toBe(0.5);
    expect((await store.lexicalSearch(scopeA, "O'Brien", 2))[0].node.id).toBe('a');
    expect(await store.lexicalSearch(scopeA, '*** ???', 2)).toEqual([]); // nothing searchable: no query sent
    expect(await store.getMany(scopeA, [])).toEqual([]);
    await store.getMany(scopeA, ['a']);
    await store.list(scopeA, { limit: 1 });
    await store.findByContentHash(scopeA, 'hash-a');
    await store.neighbors(scopeA, ['a'], { views: ['entity'] });
    await store.relations(scopeA, { nodeId: 'a' });
    await store.history(scopeA, { limit: 2 });
    expect(runner.log.every((l) => l.mode === 'read')).toBe(true);
    for (const l of runner.log) expect(l.query!.params.scopeKey, l.query!.name).toBe(scopeKey(scopeA));
    expect(runner.log.find((l) => l.query!.name === 'read.lexical')!.query!.params.query).toBe('o OR brien');
    await expectMemError(store.neighbors(scopeA, ['a'], { subtypes: ['LOVES' as any] }), MemValidationError, 'INVALID_INPUT');
  });

  it('vectorSearch index mode falls back to the exact query when the scope filter leaves < k', async () => {
    const runner = recordingRunner(respondAll);
    const store = createNeo4jStore({ uri: 'bolt://unused', password: 'x', runner, vectorSearch: 'index', vectorCandidates: 50 });
    await store.open(META);
    runner.log.length = 0;
    await store.vectorSearch(scopeA, new Float32Array([1, 0, 0, 0]), 3);
    expect(runner.log.map((l) => l.query!.name)).toEqual(['read.vector.index', 'read.vector.exact']);
    await expectMemError(store.vectorSearch(scopeA, new Float32Array([1, 0, 0]), 3), MemValidationError, 'DIMENSION_MISMATCH');
  });

  it('vectorSearch auto mode (default): exact below vectorIndexMinScope memories in the scope, the vector index from there; the size is read once', async () => {
    let size = 120;
    const runner = recordingRunner((q) => (q.name === 'read.count' ? [{ count: size }] : respondAll(q)));
    const store = createNeo4jStore({ uri: 'bolt://unused', password: 'x', runner, vectorIndexMinScope: 100, vectorCandidates: 50 });
    await store.open(META);
    runner.log.length = 0;
    await store.vectorSearch(scopeA, new Float32Array([1, 0, 0, 0]), 3);
    await store.vectorSearchIds!(scopeA, new Float32Array([1, 0, 0, 0]), 3);
    // respondAll answers no rows: the index leaves < k, so each falls back to exact
    expect(runner.log.map((l) => l.query!.name)).toEqual(['read.count', 'read.vector.index', 'read.vector.exact', 'read.vector.index', 'read.vector.exact']);
    expect(runner.log.at(-1)!.query!.cypher).toContain('RETURN m.id AS id');
    const small = createNeo4jStore({ uri: 'bolt://unused', password: 'x', runner, vectorIndexMinScope: 100 });
    await small.open(META);
    size = 99;
    runner.log.length = 0;
    await small.vectorSearch(scopeA, new Float32Array([1, 0, 0, 0]), 3);
    expect(runner.log.map((l) => l.query!.name)).toEqual(['read.count', 'read.vector.exact']);
  });

  it('lexicalSearch asks the full-text index for a bounded number of hits and more only while a larger fetch could change the top k', async () => {
    const node = (id: string, rid: number) => nodeToProps(makeNode(id, `memory ${id}`), rid);
    const fetches: number[] = [];
    const runner = recordingRunner((q) => {
      if (q.name !== 'read.lexical') return respondAll(q);
      const fetch = (q.params.fetch as any).toNumber();
      fetches.push(fetch);
      // 1st round: the index filled the fetch and its lowest hit ties with the 2nd in-scope hit (more may tie): ask again
      if (fetches.length === 1) return [{ node: node('a', 1), score: 2, fetched: fetch, lastScore: 1 }, { node: node('b', 2), score: 1, fetched: fetch, lastScore: 1 }];
      // 2nd round: the index ran out
      return [{ node: node('a', 1), score: 2, fetched: 70, lastScore: 0.5 }, { node: node('c', 0), score: 1, fetched: 70, lastScore: 0.5 }];
    });
    const store = createNeo4jStore({ uri: 'bolt://unused', password: 'x', runner });
    await store.open(META);
    const hits = await store.lexicalSearch(scopeA, 'kite', 2);
    expect(fetches).toEqual([64, 512]);
    expect(hits.map((h) => h.node.id)).toEqual(['a', 'c']);
    // the k-th hit above the lowest fetched: one round; no in-scope hit (a null row): none
    fetches.length = 0;
    const one = recordingRunner((q) => (q.name === 'read.lexical' ? [{ id: null, score: null, fetched: 64, lastScore: 3 }] : respondAll(q)));
    const s2 = createNeo4jStore({ uri: 'bolt://unused', password: 'x', runner: one });
    await s2.open(META);
    expect(await s2.lexicalSearchIds!(scopeA, 'kite', 1)).toEqual([]);
    // round 1 filled its fetch without an in-scope hit: asked again; round 2 got fewer than asked (64 < 512): done
    expect(one.log.filter((l) => l.query?.name === 'read.lexical').map((l) => (l.query!.params.fetch as any).toNumber())).toEqual([64, 512]);
  });

  it('forget: deletes, drops the scope\'s derived state and appends FORGET in the same transaction; absent → false, no history', async () => {
    const { runner, store } = await opened();
    expect(await store.forget(scopeA, 'a')).toBe(true);
    const tx = runner.log[0].tx;
    expect(runner.log.map((l) => [l.query!.name, l.tx])).toEqual([
      ['write.reserveSeq', tx],
      ['write.forget', tx],
      ['write.state.dropScope', tx],
      ['write.history', tx],
    ]);
    expect(runner.log[2].query!.params).toEqual({ scopeKey: scopeKey(scopeA) });
    expect((runner.log[3].query!.params.rows as any[])[0]).toMatchObject({ op: 'FORGET', nodeId: 'a', seq: 101, data: '{"relationsRemoved":2}' });
    const none = await opened((q) => (q.name === 'write.forget' ? [] : respondAll(q)));
    expect(await none.store.forget(scopeA, 'a')).toBe(false);
    expect(none.runner.log.map((l) => l.query!.name)).toEqual(['write.reserveSeq', 'write.forget']);
  });

  it('maps runner failures to typed errors and closes the runner once', async () => {
    const runner = recordingRunner(respondAll);
    const store = createNeo4jStore({ uri: 'bolt://unused', password: 'x', runner });
    await store.open(META);
    runner.read = async () => {
      throw Object.assign(new Error('boom'), { code: 'Neo.ClientError.Statement.SyntaxError' });
    };
    await expectMemError(store.count(scopeA), StoreError, 'STORE_ERROR', { code: 'Neo.ClientError.Statement.SyntaxError', operation: 'count' });
    await store.close();
    await store.close();
    expect(runner.closed).toBe(true);
    await expectMemError(store.count(scopeA), StoreError, 'STORE_ERROR');
  });
});

describe('derived state (loadState / saveState)', () => {
  it('saves, deletes and loads by [scopeKey, name]; one write transaction per save', async () => {
    const { runner, store } = await opened();
    await store.saveState!(scopeA, 'gate', '{"big":"snapshot"}');
    await store.saveState!(scopeA, 'gate', null);
    expect(runner.log.map((l) => l.query?.name).filter(Boolean)).toEqual(['write.state.save', 'write.state.delete']);
    const save = runner.log[0].query!;
    expect(save.params).toMatchObject({ key: JSON.stringify([scopeKey(scopeA), 'gate']), scopeKey: scopeKey(scopeA), name: 'gate', value: '{"big":"snapshot"}' });
    expect(runner.committed).toBe(2);
    expect(await store.loadState!(scopeA, 'gate')).toBe('saved-gate');
    expect(await store.loadState!(scopeB, 'gate')).toBeNull();
    expect(await store.loadState!(scopeA, 'other')).toBeNull();
  });

  it('refuses bad names and values before sending anything (INVALID_INPUT)', async () => {
    const { runner, store } = await opened();
    for (const call of [
      () => store.saveState!(scopeA, '', 'v'),
      () => store.saveState!(scopeA, 'x'.repeat(201), 'v'),
      () => store.saveState!(scopeA, 'gate', 7 as unknown as string),
      () => store.saveState!(scopeA, 'gate', 'half a pair \uD800 here'),
      () => store.loadState!(scopeA, 3 as unknown as string),
    ]) {
      const e = await call().then(() => null, (x) => x);
      expect(MemError.isInstance(e) && e.code).toBe('INVALID_INPUT');
    }
    expect(runner.log).toEqual([]);
  });
});

describe('re-embedding (issue 32 point 4)', () => {
  it('reembedStore refuses a Neo4j store with a typed INVALID_INPUT that names the way through a SQLite file; nothing is read or written', async () => {
    const { runner, store } = await opened();
    const embedder: Embedder = { model: 'other-8', dimension: 8, embed: async (texts) => texts.map(() => new Float32Array(8).fill(1)) };
    const err = await reembedStore(store as never, embedder).then(
      () => null,
      (e: unknown) => e,
    );
    expect(MemError.isInstance(err)).toBe(true);
    expect(err).toMatchObject({ code: 'INVALID_INPUT', details: { store: 'neo4j', supported: ['sqlite'] } });
    expect((err as Error).message).toMatch(/SQLite stores only .*neo4j.*mem export --all/);
    expect(runner.log).toEqual([]);
  });
});

/**
 * Property test: random multi-scope operation sequences (adds with colliding ids across scopes,
 * relations — some invalid —, obsolete updates, forgets, invalid batches) never leak anything
 * across scopes, and the store always equals a simple in-memory model of each scope.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemError } from '../errors.js';
import { scopeKey } from '../scope.js';
import { makeHistory, makeNode, makeRelation, testScope, unitVector } from '../testing/index.js';
import type { RelationSubtype, ResolvedScope } from '../types.js';
import { createSqliteStore } from './sqlite.js';
import type { AnnOptions } from './vectors.js';

const DIM = 6;
const SCOPES: ResolvedScope[] = [testScope('u1'), testScope('u2'), testScope('u1', { runId: 'r1' }), testScope('u1', { namespace: 'other' })];
const TAGS = ['zeroscope', 'onescope', 'twoscope', 'threescope'];
const IDS = ['a', 'b', 'c', 'd', 'e'];
const SUBTYPES: RelationSubtype[] = ['RELATED_TO', 'LEADS_TO', 'PRECEDES', 'SAME_ENTITY'];

type Op =
  | { t: 'add'; s: number; id: string; seed: number }
  | { t: 'relate'; s: number; from: string; to: string; sub: number }
  | { t: 'forget'; s: number; id: string }
  | { t: 'obsolete'; s: number; id: string; by: string }
  | { t: 'bad'; s: number; id: string };

const scopeArb = fc.integer({ min: 0, max: SCOPES.length - 1 });
const idArb = fc.constantFrom(...IDS);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ t: fc.constant('add' as const), s: scopeArb, id: idArb, seed: fc.integer({ min: 1, max: 1e6 }) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('relate' as const), s: scopeArb, from: idArb, to: idArb, sub: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('forget' as const), s: scopeArb, id: idArb }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('obsolete' as const), s: scopeArb, id: idArb, by: idArb }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('bad' as const), s: scopeArb, id: idArb }) },
);

interface Model {
  nodes: Map<string, { text: string; obsoleteBy: string | null }>;
  relations: Map<string, { from: string; to: string }>;
}

async function isRejected(p: Promise<unknown>): Promise<MemError | null> {
  try {
    await p;
    return null;
  } catch (e) {
    if (!MemError.isInstance(e)) throw e;
    return e as MemError;
  }
}

async function runSequence(ops: Op[], ann: AnnOptions | false): Promise<void> {
  const store = createSqliteStore({ path: ':memory:', ann });
  await store.open({ schemaVersion: 1, embeddingModel: 'prop', dimension: DIM });
  const models: Model[] = SCOPES.map(() => ({ nodes: new Map(), relations: new Map() }));
  let relN = 0;
  try {
    for (const op of ops) {
      const scope = SCOPES[op.s];
      const m = models[op.s];
      if (op.t === 'add') {
        const text = `${TAGS[op.s]} item ${op.id} v${op.seed}`;
        const node = makeNode(scope, text, unitVector(DIM, op.seed), { id: op.id });
        await store.write({ scope, nodes: [node], history: [makeHistory(scope, 'ADD', op.id)] });
        m.nodes.set(op.id, { text, obsoleteBy: null });
      } else if (op.t === 'relate') {
        const rel = makeRelation(op.from, op.to, SUBTYPES[op.sub], { id: `r${++relN}` });
        const err = await isRejected(store.write({ scope, relations: [rel] }));
        const ok = op.from !== op.to && m.nodes.has(op.from) && m.nodes.has(op.to);
        expect(err === null).toBe(ok);
        if (ok) m.relations.set(rel.id, { from: op.from, to: op.to });
      } else if (op.t === 'forget') {
        const removed = await store.forget(scope, op.id);
        expect(removed).toBe(m.nodes.has(op.id));
        m.nodes.delete(op.id);
        for (const [rid, r] of m.relations) if (r.from === op.id || r.to === op.id) m.relations.delete(rid);
      } else if (op.t === 'obsolete') {
        const err = await isRejected(store.write({ scope, nodeUpdates: [{ id: op.id, obsoleteBy: op.by }] }));
        const ok = m.nodes.has(op.id) && m.nodes.has(op.by);
        expect(err === null).toBe(ok);
        if (ok) m.nodes.get(op.id)!.obsoleteBy = op.by;
      } else {
        // A valid new node plus a relation to a node id that exists only in other scopes (or nowhere).
        const fresh = makeNode(scope, `${TAGS[op.s]} doomed`, unitVector(DIM, 7), { id: `doomed-${op.id}` });
        const other = IDS.find((x) => !m.nodes.has(x)) ?? 'nowhere';
        const err = await isRejected(store.write({ scope, nodes: [fresh], relations: [makeRelation(fresh.id, other)] }));
        expect(err?.code).toBe('NODE_NOT_FOUND');
      }
      await checkAll(store, models);
    }
  } finally {
    await store.close();
  }
}

async function checkAll(store: ReturnType<typeof createSqliteStore>, models: Model[]): Promise<void> {
  const withNodes = SCOPES.filter((_, i) => models[i].nodes.size > 0).map(scopeKey).sort();
  expect((await store.scopes()).map(scopeKey).sort()).toEqual(withNodes);
  for (const [i, scope] of SCOPES.entries()) {
    const m = models[i];
    const key = scopeKey(scope);
    const list = await store.list(scope);
    expect(list.map((n) => n.id).sort()).toEqual([...m.nodes.keys()].sort());
    for (const n of list) {
      expect(scopeKey(n.scope)).toBe(key);
      expect(n.text).toBe(m.nodes.get(n.id)!.text);
      expect(n.obsoleteBy ?? null).toBe(m.nodes.get(n.id)!.obsoleteBy);
    }
    for (const id of [...IDS, ...IDS.map((x) => `doomed-${x}`)]) {
      const got = await store.get(scope, id);
      expect(got?.text ?? null).toBe(m.nodes.get(id)?.text ?? null);
    }
    expect(await store.count(scope)).toBe(m.nodes.size);
    const vec = await store.vectorSearch(scope, unitVector(DIM, 99), 10);
    expect(vec.map((h) => h.node.id).sort()).toEqual([...m.nodes.keys()].sort());
    // Every scope's tag word: found only in its own scope.
    for (const [j, tag] of TAGS.entries()) {
      const hits = await store.lexicalSearch(scope, `${tag} item`, 20);
      for (const h of hits) expect(scopeKey(h.node.scope)).toBe(key);
      const own = (await store.lexicalSearch(scope, tag, 20)).map((h) => h.node.id).sort();
      expect(own).toEqual(j === i ? [...m.nodes.keys()].sort() : []);
    }
    const rels = await store.relations(scope);
    expect(rels.map((r) => r.id).sort()).toEqual([...m.relations.keys()].sort());
    const nb = await store.neighbors(scope, IDS);
    expect(nb.length).toBe(2 * m.relations.size);
    for (const x of nb) {
      expect(m.relations.has(x.relation.id)).toBe(true);
      expect(scopeKey(x.node.scope)).toBe(key);
      expect(x.node.text).toBe(m.nodes.get(x.node.id)!.text);
    }
    for (const h of await store.history(scope)) expect(scopeKey(h.scope)).toBe(key);
  }
}

describe('sqlite store: random multi-scope operations never leak across scopes', () => {
  it('exact vector scan', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 25 }), (ops) => runSequence(ops, false)),
      { numRuns: 15 },
    );
  }, 60_000);

  it('with the HNSW index (threshold 2; new vectors in the exact-scanned tail)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 25 }), (ops) => runSequence(ops, { threshold: 2, build: 'blocking' })),
      { numRuns: 15 },
    );
  }, 60_000);

  it('with the HNSW index (threshold 2; every new vector inserted into the graph, background build)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 25 }), (ops) => runSequence(ops, { threshold: 2, maxTail: 0 })),
      { numRuns: 15 },
    );
  }, 60_000);
});

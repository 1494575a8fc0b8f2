import { describe, expect, it } from 'vitest';
import { createSqliteStore } from './store/index.js';
import { makeNode, makeRelation, testMeta, testScope, unitVector } from './testing/index.js';
import { memoryStates, stateFromRelations, withSuccessors } from './state.js';
import { createMemory } from './write/memory.js';
import type { Embedder, Retriever } from './types.js';

const A = testScope('state');
const v = (i: number) => unitVector(8, i + 1);

describe('memory state (issue 37)', () => {
  const jan = makeNode(A, 'I love spicy food', v(0), { observedAt: '2026-01-10T10:00:00.000Z' });
  const nov = makeNode(A, 'I have stopped eating spicy food', v(1), { observedAt: '2026-11-10T10:00:00.000Z' });
  const dec = makeNode(A, 'I only eat mild dishes now', v(2), { observedAt: '2026-12-01T10:00:00.000Z' });
  const dog = makeNode(A, 'My dog loves the harbour walks', v(3), { observedAt: '2026-02-10T10:00:00.000Z' });
  const byId = new Map([jan, nov, dec, dog].map((n) => [n.id, n]));
  const nodeOf = (id: string) => byId.get(id);

  it('superseded by the newest later memory with a CONTRADICTS / OBSOLETES edge, with its time and p', () => {
    const r1 = makeRelation(nov.id, jan.id, 'CONTRADICTS', { probability: 0.94, origin: 'controller' });
    const r2 = makeRelation(dec.id, jan.id, 'OBSOLETES', { probability: 0.7, origin: 'controller' });
    expect(stateFromRelations(jan, [r1, r2], nodeOf)).toEqual({ status: 'superseded', by: dec.id, at: dec.observedAt, p: 0.7, relation: 'OBSOLETES' });
    expect(stateFromRelations(jan, [r1], nodeOf)).toEqual({ status: 'superseded', by: nov.id, at: nov.observedAt, p: 0.94, relation: 'CONTRADICTS' });
    // the newer end of the edge stays current; an edge from an EARLIER memory, or another subtype, does not supersede
    expect(stateFromRelations(nov, [r1], nodeOf)).toEqual({ status: 'current' });
    expect(stateFromRelations(dec, [makeRelation(jan.id, dec.id, 'OBSOLETES')], nodeOf)).toEqual({ status: 'current' });
    expect(stateFromRelations(jan, [makeRelation(nov.id, jan.id, 'REDUNDANT_WITH'), makeRelation(nov.id, jan.id, 'UPDATES')], nodeOf)).toEqual({ status: 'current' });
  });

  it('obsoleteBy alone: superseded with p null', () => {
    const old = { ...dog, obsoleteBy: nov.id };
    expect(stateFromRelations(old, [], nodeOf)).toEqual({ status: 'superseded', by: nov.id, at: nov.observedAt, p: null, relation: null });
    expect(stateFromRelations({ ...dog, obsoleteBy: 'gone' }, [], nodeOf)).toEqual({ status: 'current' });
  });

  it('memoryStates reads the edges from the store, per node, in one scope', async () => {
    const store = createSqliteStore({ path: ':memory:' });
    await store.open(testMeta(8));
    await store.write({ scope: A, nodes: [jan, nov, dec, dog], relations: [makeRelation(nov.id, jan.id, 'CONTRADICTS', { probability: 0.94, origin: 'controller' }), makeRelation(dec.id, dog.id, 'RELATED_TO')] });
    const s = await memoryStates(store, A, [jan, nov, dog]);
    expect(s.get(jan.id)).toEqual({ status: 'superseded', by: nov.id, at: nov.observedAt, p: 0.94, relation: 'CONTRADICTS' });
    expect(s.get(nov.id)).toEqual({ status: 'current' });
    expect(s.get(dog.id)).toEqual({ status: 'current' });
    expect((await memoryStates(store, A, [])).size).toBe(0);
    await store.close();
  });

  it('Memory.search gives every evidence item its state, whatever the retriever', async () => {
    const store = createSqliteStore({ path: ':memory:' });
    await store.open(testMeta(8, 'state-test'));
    await store.write({ scope: A, nodes: [jan, nov, dog], relations: [makeRelation(nov.id, jan.id, 'OBSOLETES', { probability: 0.8, origin: 'controller' })] });
    const embedder: Embedder = { model: 'state-test', dimension: 8, embed: async (t) => t.map((_, i) => unitVector(8, i + 1)) };
    // a retriever that knows nothing of states
    const retriever: Retriever = { name: 'plain', search: async () => ({ evidence: [jan, nov, dog].map((node) => ({ node, score: 1, path: [] })) }) };
    const memory = createMemory({ store, embedder, retriever });
    const r = await memory.search('What food does Jonas like?', { scope: { namespace: 'test', userId: 'state' } });
    expect(r.evidence.map((e) => e.state?.status)).toEqual(['superseded', 'current', 'current']);
    expect(r.evidence[0]!.state).toMatchObject({ by: nov.id, at: nov.observedAt, p: 0.8, relation: 'OBSOLETES' });
    await memory.close();
  });

  it('Memory.search brings the superseding memory into the evidence when only the old one was returned (mem ask -k 3)', async () => {
    const store = createSqliteStore({ path: ':memory:' });
    await store.open(testMeta(8, 'state-test'));
    await store.write({ scope: A, nodes: [jan, nov, dec, dog], relations: [makeRelation(nov.id, jan.id, 'OBSOLETES', { probability: 0.8, origin: 'controller' })] });
    const embedder: Embedder = { model: 'state-test', dimension: 8, embed: async (t) => t.map((_, i) => unitVector(8, i + 1)) };
    const mode: { asks?: 'present' | 'past' } = {};
    // the retriever's top 2 hold the old statement but not the one that replaced it
    const retriever: Retriever = { name: 'plain', search: async () => ({ evidence: [jan, dog].map((node, i) => ({ node, score: 1 - i / 10, path: [] })), ...(mode.asks ? { asks: mode.asks } : {}) }) };
    const memory = createMemory({ store, embedder, retriever });
    const scope = { namespace: 'test', userId: 'state' };
    const r = await memory.search('What food does Jonas like?', { scope, k: 2 });
    // the newer memory comes just above the old one, says it is current; the old one says by which id it is superseded
    expect(r.evidence.map((e) => e.node.id)).toEqual([nov.id, jan.id, dog.id]);
    expect(r.evidence[0]!.state).toEqual({ status: 'current' });
    expect(r.evidence[0]!.score).toBe(1);
    expect(r.evidence[1]!.state).toMatchObject({ status: 'superseded', by: nov.id });
    // a question about the past keeps the old one first, the newer just below it
    mode.asks = 'past';
    const past = await memory.search('What food did Jonas use to like?', { scope, k: 2 });
    expect(past.evidence.map((e) => e.node.id)).toEqual([jan.id, nov.id, dog.id]);
    await memory.close();
  });

  it('withSuccessors follows a chain to the current memory, inserts each successor once, skips ones the store lost', async () => {
    const store = createSqliteStore({ path: ':memory:' });
    await store.open(testMeta(8));
    await store.write({
      scope: A,
      nodes: [jan, nov, dec, dog],
      relations: [makeRelation(nov.id, jan.id, 'OBSOLETES', { probability: 0.8, origin: 'controller' }), makeRelation(dec.id, nov.id, 'CONTRADICTS', { probability: 0.9, origin: 'controller' })],
    });
    const states = await memoryStates(store, A, [jan, dog]);
    const ev = [jan, dog].map((node) => ({ node, score: 0.5, path: [], state: states.get(node.id)! }));
    const out = await withSuccessors(store, A, ev);
    expect(out.map((e) => e.node.id)).toEqual([dec.id, nov.id, jan.id, dog.id]);
    expect(out[0]!.state).toEqual({ status: 'current' });
    expect(out[1]!.state).toMatchObject({ status: 'superseded', by: dec.id });
    // two old items superseded by the same memory: it comes once, above the first
    const twice = await withSuccessors(store, A, [ev[0]!, { ...ev[0]!, node: { ...jan, id: 'copy' } }]);
    expect(twice.filter((e) => e.node.id === dec.id)).toHaveLength(1);
    // a successor that is gone from the store is skipped; nothing else changes
    const lost = await withSuccessors(store, A, [{ node: dog, score: 1, path: [], state: { status: 'superseded', by: 'gone', at: '', p: null, relation: null } }]);
    expect(lost.map((e) => e.node.id)).toEqual([dog.id]);
    await store.close();
  });
});

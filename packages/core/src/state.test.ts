import { describe, expect, it } from 'vitest';
import { createSqliteStore } from './store/index.js';
import { makeNode, makeRelation, testMeta, testScope, unitVector } from './testing/index.js';
import { memoryStates, stateFromRelations } from './state.js';
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
});

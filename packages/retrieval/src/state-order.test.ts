import { describe, expect, it } from 'vitest';
import { createJevRetriever } from './jev.js';
import { jointStateEvidence, orderByState } from './state-order.js';
import { hashEmbedder, makeNode, memoryStore, rel, SCOPE, scriptedSystemOne } from './__fixtures__/stubs.js';

describe('orderByState (issue 37)', () => {
  type X = { id: string; v: number };
  const list = (...ids: string[]): X[] => ids.map((id, i) => ({ id, v: 10 - i }));
  const succ: Record<string, string> = { a: 'b', b: 'c' }; // a → b → c (c is the newest)
  const run = (l: X[], past: boolean) =>
    orderByState(l, (x) => x.id, (x) => (succ[x.id] ? [succ[x.id]!] : []), past, (x) => x.v, (x, v) => (x.v = v)).map((x) => x.id);

  it('present: the newer memory moves up to just above the older one, nothing else moves; chains settle', () => {
    expect(run(list('a', 'x', 'b', 'y'), false)).toEqual(['b', 'a', 'x', 'y']);
    expect(run(list('a', 'x', 'b', 'y', 'c'), false)).toEqual(['c', 'b', 'a', 'x', 'y']);
    expect(run(list('b', 'a', 'x'), false)).toEqual(['b', 'a', 'x']); // already in order
    const l = list('a', 'x', 'b');
    orderByState(l, (x) => x.id, (x) => (succ[x.id] ? [succ[x.id]!] : []), false, (x) => x.v, (x, v) => (x.v = v));
    expect(l[2]!.v).toBe(10); // the moved one takes the value of the one it passed
  });

  it('a memory superseded twice is ordered against each successor in the list', () => {
    const many: Record<string, string[]> = { veg: ['spicy', 'never'] }; // spicy is not in the list
    const l = list('veg', 'x', 'never');
    expect(orderByState(l, (x) => x.id, (x) => many[x.id] ?? [], false, (x) => x.v, (x, v) => (x.v = v)).map((x) => x.id)).toEqual(['never', 'veg', 'x']);
  });

  it('window: pairs not both in the first `window` items stay where they are', () => {
    const l = list('a', 'x', 'b');
    expect(orderByState(l, (x) => x.id, (x) => (succ[x.id] ? [succ[x.id]!] : []), false, (x) => x.v, (x, v) => (x.v = v), 2).map((x) => x.id)).toEqual(['a', 'x', 'b']);
    expect(orderByState(l, (x) => x.id, (x) => (succ[x.id] ? [succ[x.id]!] : []), false, (x) => x.v, (x, v) => (x.v = v), 3).map((x) => x.id)).toEqual(['b', 'a', 'x']);
  });

  it('lift: the wanted memory takes the pair\'s value and moves up past lower values, within the window only', () => {
    const l = (...xs: [string, number][]) => xs.map(([id, v]) => ({ id, v }));
    const lifted = (xs: X[], past: boolean, window = xs.length) =>
      orderByState(xs, (x) => x.id, (x) => (succ[x.id] ? [succ[x.id]!] : []), past, (x) => x.v, (x, v) => (x.v = v), window, (want, other) => jointStateEvidence(want.v, other.v, 1)).map((x) => x.id);
    // present: b (newer, 0.5) with a (older, 0.5) → 0.75 > x (0.6): b first, then x, then a
    expect(lifted(l(['x', 0.6], ['a', 0.5], ['b', 0.5], ['y', 0.1]), false)).toEqual(['b', 'x', 'a', 'y']);
    // past: a takes the joint value and passes x
    expect(lifted(l(['x', 0.6], ['b', 0.5], ['a', 0.5], ['y', 0.1]), true)).toEqual(['a', 'x', 'b', 'y']);
    // a third memory with a higher value than the joint one stays first
    expect(lifted(l(['x', 0.9], ['a', 0.5], ['b', 0.5]), false)).toEqual(['x', 'b', 'a']);
    // the newer outside the window: nothing moves, nothing enters the window
    expect(lifted(l(['x', 0.6], ['a', 0.5], ['b', 0.5]), false, 2)).toEqual(['x', 'a', 'b']);
  });

  it('jointStateEvidence: at least the wanted p, the pair\'s noisy-or scaled by the edge p', () => {
    expect(jointStateEvidence(0.5, 0.5, 1)).toBeCloseTo(0.75);
    expect(jointStateEvidence(0.5, 0.5, 0.6)).toBeCloseTo(0.5);
    expect(jointStateEvidence(0.2, 0.8, 0.9)).toBeCloseTo(0.9 * 0.84);
    expect(jointStateEvidence(0.7, 0, 0)).toBe(0.7);
  });

  it('past: the older memory moves up to just above the newer one', () => {
    expect(run(list('b', 'x', 'a'), true)).toEqual(['a', 'b', 'x']);
    expect(run(list('c', 'b', 'x', 'a'), true)).toEqual(['a', 'b', 'c', 'x']);
    expect(run(list('x', 'y'), true)).toEqual(['x', 'y']);
  });
});

describe('the read path uses the state (issue 37)', () => {
  const embedder = hashEmbedder();
  const route = (past: number) => ({ semantic: 0.9, temporal: 0.05, causal: 0.05, entity: 0.9, multi_hop_need: 0.1, recency_importance: 0.05, past_state: past, present_state: 1 - past });
  async function setup() {
    const old = await makeNode(embedder, 'old', 'Jonas likes spicy food, the hotter the better', { observedAt: '2026-01-10T10:00:00.000Z', speaker: 'Jonas' });
    const fresh = await makeNode(embedder, 'new', 'Jonas stopped eating it and prefers mild dishes', { observedAt: '2026-11-10T10:00:00.000Z', speaker: 'Jonas' });
    const dog = await makeNode(embedder, 'dog', 'The dog loves the harbour walks', { observedAt: '2026-02-10T10:00:00.000Z', speaker: 'Jonas' });
    return memoryStore([old, fresh, dog], [rel('new', 'old', 'CONTRADICTS', 0.94)]);
  }
  const q = { scope: SCOPE, query: 'What kind of spicy food does Jonas like?', k: 3, now: '2026-12-01T00:00:00Z' };
  const search = async (past: number, extra = {}) =>
    createJevRetriever({ store: await setup(), systemOne: scriptedSystemOne(route(past)), embedder, relevanceModel: null, ablation: { traversal: true }, ...extra }).search(q);

  it('without the state order the old memory, closest in wording, ranks first', async () => {
    expect((await search(0.05, { stateOrder: false })).evidence[0]!.node.id).toBe('old');
  });

  it('a question about the present ranks the superseding memory above the superseded one, and items carry their state', async () => {
    const r = await search(0.05);
    expect(r.evidence.map((e) => e.node.id).slice(0, 2)).toEqual(['new', 'old']);
    expect(r.evidence.find((e) => e.node.id === 'old')!.state).toEqual({ status: 'superseded', by: 'new', at: '2026-11-10T10:00:00.000Z', p: 0.94, relation: 'CONTRADICTS' });
    expect(r.evidence.find((e) => e.node.id === 'new')!.state).toEqual({ status: 'current' });
  });

  it('a question about an earlier state ranks the old memory first', async () => {
    expect((await search(0.95)).evidence[0]!.node.id).toBe('old');
  });

  it('a question about an event (neither present nor past state) keeps the relevance order', async () => {
    const r = await createJevRetriever({ store: await setup(), systemOne: scriptedSystemOne({ ...route(0.05), present_state: 0.1 }), embedder, relevanceModel: null, ablation: { traversal: true } }).search(q);
    expect(r.evidence[0]!.node.id).toBe('old');
  });

  it('the order never changes which memories are in the top k', async () => {
    const two = await search(0.05, { stateOrder: false });
    const k1 = await createJevRetriever({ store: await setup(), systemOne: scriptedSystemOne(route(0.05)), embedder, relevanceModel: null, ablation: { traversal: true } }).search({ ...q, k: 1 });
    expect(k1.evidence.map((e) => e.node.id)).toEqual([two.evidence[0]!.node.id]);
  });

  it('with stateBringIn, the other memory of a pair is brought in when only one was an anchor', async () => {
    const one = { maxAnchors: 1, anchorPool: 1, seedsPerRanking: 0 };
    expect((await search(0.05, { ...one, stateOrder: false })).evidence.map((e) => e.node.id)).toEqual(['old']);
    expect((await search(0.05, { ...one })).evidence.map((e) => e.node.id)).toEqual(['old']);
    expect((await search(0.05, { ...one, stateBringIn: true })).evidence.map((e) => e.node.id)).toEqual(['new', 'old']);
  });

  it('a weak edge (p < 0.5) does not reorder', async () => {
    const store = await setup();
    const weak = memoryStore((await store.list(SCOPE)) as any, [rel('new', 'old', 'CONTRADICTS', 0.3)]);
    const r = await createJevRetriever({ store: weak, systemOne: scriptedSystemOne(route(0.05)), embedder, relevanceModel: null, ablation: { traversal: true } }).search(q);
    expect(r.evidence[0]!.node.id).toBe('old');
  });
});

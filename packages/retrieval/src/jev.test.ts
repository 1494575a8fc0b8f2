import { beforeEach, describe, expect, it } from 'vitest';
import { MemError } from '@mem/core';
import type { MemoryNode, Relation } from '@mem/core';
import { createJevRetriever } from './jev.js';
import { hashEmbedder, makeNode, memoryStore, OTHER, rel, SCOPE, scriptedSystemOne } from './__fixtures__/stubs.js';
import type { RetrievalTrace } from './types.js';

const embedder = hashEmbedder();
const ROUTE = { semantic: 0.9, temporal: 0.6, causal: 0.05, entity: 0.3, multi_hop_need: 0.3, recency_importance: 0 };
let nodes: MemoryNode[];
let relations: Relation[];

beforeEach(async () => {
  nodes = [
    await makeNode(embedder, 'n1', 'Mira said her old bicycle broke on the way to work'),
    await makeNode(embedder, 'n2', 'Mira bought a new bicycle yesterday'),
    await makeNode(embedder, 'n3', 'The shop on Elm street had a sale on helmets'),
    await makeNode(embedder, 'n4', 'Tomas planted tomatoes in the garden'),
    await makeNode(embedder, 'n5', 'Tomas cooked soup with fresh basil'),
    // reachable only through the graph: shares no word with the query
    await makeNode(embedder, 'n6', 'She picked the red one at Elm street'),
    await makeNode(embedder, 'x1', 'Mira bicycle bicycle bicycle', { scope: OTHER }),
  ];
  relations = [rel('n2', 'n6', 'SAME_EPISODE', 0.9), rel('n1', 'n2', 'LEADS_TO', 0.8), rel('n4', 'n5', 'RELATED_TO', 0.7)];
});

const trace = (r: { trace: unknown }) => r.trace as RetrievalTrace;

describe('createJevRetriever', () => {
  it('routes, budgets, anchors, expands and returns scoped evidence with paths', async () => {
    const store = memoryStore(nodes, relations);
    const s1 = scriptedSystemOne(ROUTE);
    const r = createJevRetriever({ store, systemOne: s1, embedder, maxAnchors: 3, seedsPerRanking: 0 });
    const res = await r.search({ scope: SCOPE, query: 'When did Mira buy a new bicycle?', k: 10, now: '2024-05-16T10:00:00Z' });
    const t = trace(res);
    expect(t.activeViews).toEqual(['semantic', 'temporal', 'entity']);
    expect(t.budgets.given.semantic + t.budgets.given.temporal + t.budgets.given.entity).toBe(80);
    expect(t.budgets.given.causal).toBe(0);
    expect(t.depth).toBe(3);
    const ids = res.evidence.map((e) => e.node.id);
    expect(ids).not.toContain('x1');
    expect(ids).toContain('n6');
    const n6 = res.evidence.find((e) => e.node.id === 'n6')!;
    expect(n6.path.map((p) => p.subtype)).toEqual(['SAME_EPISODE']);
    expect(t.budgets.spent.temporal).toBeGreaterThanOrEqual(1);
    // causal edge n1→n2 is not followed (causal inactive)
    expect(t.budgets.spent.causal).toBe(0);
    // one routing call, one scoring call for anchors, then per round one scoring + one stopping call at most
    expect(t.controllerCalls).toBe(s1.calls.length);
    expect(s1.calls[0].state).toEqual({ query: 'When did Mira buy a new bicycle?' });
    expect(Object.keys(s1.calls[0].questions).sort()).toEqual(['causal', 'entity', 'multi_hop_need', 'past_state', 'present_state', 'recency_importance', 'semantic', 'temporal']);
    const scoringCalls = s1.calls.filter((c) => Object.keys(c.questions).some((k) => k.startsWith('candidate_')));
    expect(scoringCalls.length).toBeLessThanOrEqual(1 + t.rounds.length);
    expect(res.evidence.every((e, i) => i === 0 || res.evidence[i - 1].score >= e.score)).toBe(true);
  });

  it('stops after the first round when the stopping Nouls say sufficient', async () => {
    const s1 = scriptedSystemOne({ ...ROUTE, multi_hop_need: 1 }, () => ({ evidence_sufficient: 0.99, continue_useful: 0.9, missing_evidence: 0, contradiction: 0 }));
    const r = createJevRetriever({ store: memoryStore(nodes, relations), systemOne: s1, embedder });
    const t = trace(await r.search({ scope: SCOPE, query: 'Mira bicycle', k: 3 }));
    expect(t.depth).toBe(8);
    expect(t.rounds).toHaveLength(1);
    expect(t.stopReason).toBe('sufficient');
    expect(t.rounds[0].stop).toBe(true);
  });

  it('stops when another round is not useful; stopping ablation ignores it', async () => {
    const stop = () => ({ evidence_sufficient: 0, continue_useful: 0.05, missing_evidence: 1, contradiction: 0 });
    const route = { ...ROUTE, multi_hop_need: 1 };
    const a = createJevRetriever({ store: memoryStore(nodes, relations), systemOne: scriptedSystemOne(route, stop), embedder });
    expect(trace(await a.search({ scope: SCOPE, query: 'Mira bicycle' })).stopReason).toBe('not_useful');
    const b = createJevRetriever({ store: memoryStore(nodes, relations), systemOne: scriptedSystemOne(route, stop), embedder, ablation: { stopping: true } });
    const tb = trace(await b.search({ scope: SCOPE, query: 'Mira bicycle' }));
    expect(tb.stopReason).not.toBe('not_useful');
    expect(tb.rounds.every((x) => x.stopping === null)).toBe(true);
  });

  it('respects the controller-call cap', async () => {
    const s1 = scriptedSystemOne({ ...ROUTE, multi_hop_need: 1 });
    const big = [...relations];
    for (let i = 0; i < 5; i++) big.push(rel(`n${i + 1}`, `n${((i + 1) % 6) + 1}`, 'RELATED_TO', 0.6));
    const r = createJevRetriever({ store: memoryStore(nodes, big), systemOne: s1, embedder, caps: { controllerCalls: 3 } });
    const t = trace(await r.search({ scope: SCOPE, query: 'Mira bicycle tomatoes' }));
    expect(s1.calls.length).toBeLessThanOrEqual(3);
    expect(t.controllerCalls).toBeLessThanOrEqual(3);
  });

  it('respects the node cap and the edge cap', async () => {
    const s1 = scriptedSystemOne({ ...ROUTE, multi_hop_need: 1 });
    const r = createJevRetriever({ store: memoryStore(nodes, relations), systemOne: s1, embedder, maxAnchors: 2, seedsPerRanking: 0, caps: { nodes: 3 } });
    const t = trace(await r.search({ scope: SCOPE, query: 'Mira bicycle' }));
    expect(t.nodesVisited).toBeLessThanOrEqual(3);
    const r2 = createJevRetriever({ store: memoryStore(nodes, relations), systemOne: scriptedSystemOne({ ...ROUTE, multi_hop_need: 1 }), embedder, caps: { edges: 1 } });
    const t2 = trace(await r2.search({ scope: SCOPE, query: 'Mira bicycle' }));
    expect(t2.edgesExamined).toBeLessThanOrEqual(1);
    expect(['edge_cap', 'frontier_empty', 'not_useful']).toContain(t2.stopReason);
  });

  it('seeds: the top of each ranking is a candidate even when the fusion drops it, within the node cap', async () => {
    // 'n4' is only in the lexical ranking ("tomatoes"), far below the fused top 1
    const q = { scope: SCOPE, query: 'Mira bicycle tomatoes', now: '2024-05-16T10:00:00Z' };
    const opts = { store: memoryStore(nodes, relations), systemOne: scriptedSystemOne(ROUTE), embedder, maxAnchors: 1, ablation: { traversal: true } };
    const without = trace(await createJevRetriever({ ...opts, seedsPerRanking: 0 }).search(q));
    expect(without.anchors).toHaveLength(1);
    const seeded = trace(await createJevRetriever({ ...opts, seedsPerRanking: 1 }).search(q));
    expect(seeded.anchors.length).toBeGreaterThan(1);
    expect(seeded.candidates.map((c) => c.id)).toContain(seeded.anchors[1].id);
    const tops = trace(await createJevRetriever({ ...opts, seedsPerRanking: 5, collectFeatures: true }).search(q));
    expect(tops.candidates.map((c) => c.id)).toContain('n4');
    expect(tops.candidates.find((c) => c.id === tops.anchors[0].id)!.features!.seed_only).toBe(0);
    expect(tops.candidates.find((c) => c.id === 'n4')!.features!.seed_only).toBe(1);
    const capped = trace(await createJevRetriever({ ...opts, seedsPerRanking: 5, caps: { nodes: 2 } }).search(q));
    expect(capped.anchors).toHaveLength(2);
  });

  it('respects per-view budgets', async () => {
    const many = [...relations];
    for (const id of ['n1', 'n3', 'n4', 'n5', 'n6']) many.push(rel('n2', id, 'SAME_EPISODE', 1));
    const r = createJevRetriever({ store: memoryStore(nodes, many), systemOne: scriptedSystemOne(ROUTE), embedder, budget: 4, maxAnchors: 1, seedsPerRanking: 0 });
    const t = trace(await r.search({ scope: SCOPE, query: 'Mira bought a new bicycle' }));
    for (const g of t.activeViews) expect(t.budgets.spent[g]).toBeLessThanOrEqual(t.budgets.given[g]);
    expect(t.nodesVisited).toBeLessThanOrEqual(1 + 4);
  });

  it('ablations: traversal off returns anchors only; routing off activates every view; views off', async () => {
    const t1 = trace(await createJevRetriever({ store: memoryStore(nodes, relations), systemOne: scriptedSystemOne(ROUTE), embedder, ablation: { traversal: true } }).search({ scope: SCOPE, query: 'Mira bicycle' }));
    expect(t1.rounds).toHaveLength(0);
    expect(t1.stopReason).toBe('traversal_off');
    const s1 = scriptedSystemOne(ROUTE);
    const t2 = trace(await createJevRetriever({ store: memoryStore(nodes, relations), systemOne: s1, embedder, ablation: { routing: true } }).search({ scope: SCOPE, query: 'Mira bicycle' }));
    expect(t2.activeViews).toEqual(['semantic', 'temporal', 'causal', 'entity']);
    expect(s1.calls.some((c) => 'semantic' in c.questions)).toBe(false);
    const t3 = trace(await createJevRetriever({ store: memoryStore(nodes, relations), systemOne: scriptedSystemOne(ROUTE), embedder, ablation: { views: ['temporal'] } }).search({ scope: SCOPE, query: 'Mira bicycle' }));
    expect(t3.activeViews).not.toContain('temporal');
  });

  it('no active view → anchors only with a reason', async () => {
    const route = { semantic: 0.01, temporal: 0.01, causal: 0.01, entity: 0.01, multi_hop_need: 0, recency_importance: 0 };
    const t = trace(await createJevRetriever({ store: memoryStore(nodes, relations), systemOne: scriptedSystemOne(route), embedder }).search({ scope: SCOPE, query: 'Mira bicycle' }));
    expect(t.stopReason).toBe('no_active_views');
  });

  it('recency importance favours recent memories between equal candidates', async () => {
    const a = await makeNode(embedder, 'old', 'Tomas went running', { observedAt: '2020-01-01T00:00:00.000Z' });
    const b = await makeNode(embedder, 'new', 'Tomas went running', { observedAt: '2024-05-15T00:00:00.000Z' });
    const route = { ...ROUTE, recency_importance: 1 };
    const res = await createJevRetriever({ store: memoryStore([a, b]), systemOne: scriptedSystemOne(route), embedder }).search({ scope: SCOPE, query: 'Tomas running', now: '2024-05-16T00:00:00Z' });
    const cands = trace(res).candidates;
    expect(cands.find((c) => c.id === 'new')!.score).toBeGreaterThan(cands.find((c) => c.id === 'old')!.score);
  });

  it('rejects bad requests with typed errors', async () => {
    const r = createJevRetriever({ store: memoryStore(nodes), systemOne: scriptedSystemOne(ROUTE), embedder });
    for (const bad of [{ scope: SCOPE, query: '  ' }, { scope: SCOPE, query: 'x', k: 0 }, { scope: SCOPE, query: 'x', now: 'yesterday' }]) {
      const e = await r.search(bad as any).catch((x) => x);
      expect(MemError.isInstance(e)).toBe(true);
    }
    expect(() => createJevRetriever({} as any)).toThrow();
  });
});

describe('createJevRetriever graph reading', () => {
  it('reads neighbours through the store when the snapshot is off, with the same result', async () => {
    const a = createJevRetriever({ store: memoryStore(nodes, relations), systemOne: scriptedSystemOne(ROUTE), embedder, maxAnchors: 3, seedsPerRanking: 0 });
    const storeB = memoryStore(nodes, relations);
    const b = createJevRetriever({ store: storeB, systemOne: scriptedSystemOne(ROUTE), embedder, maxAnchors: 3, seedsPerRanking: 0, snapshotMaxNodes: 0, lemmaLexical: false });
    const q = { scope: SCOPE, query: 'When did Mira buy a new bicycle?', now: '2024-05-16T10:00:00Z' };
    const ra = await a.search(q);
    const rb = await b.search(q);
    expect(storeB.calls.neighbors).toBeGreaterThan(0);
    expect(rb.evidence.map((x) => x.node.id)).toContain('n6');
    expect(ra.evidence.map((x) => x.node.id)).toContain('n6');
  });

  it('episode context: SAME_EPISODE neighbours are reached even when the temporal view is inactive', async () => {
    const route = { ...ROUTE, temporal: 0.01 };
    const t = trace(await createJevRetriever({ store: memoryStore(nodes, relations), systemOne: scriptedSystemOne(route), embedder, maxAnchors: 3, seedsPerRanking: 0 }).search({ scope: SCOPE, query: 'When did Mira buy a new bicycle?' }));
    expect(t.activeViews).not.toContain('temporal');
    expect(t.budgets.given.temporal).toBe(10);
    expect(t.episodeContext).toBe(true);
    expect(t.budgets.spent.temporal).toBeGreaterThanOrEqual(1);
    const off = trace(await createJevRetriever({ store: memoryStore(nodes, relations), systemOne: scriptedSystemOne(route), embedder, maxAnchors: 3, seedsPerRanking: 0, episodeBudget: 0 }).search({ scope: SCOPE, query: 'When did Mira buy a new bicycle?' }));
    expect(off.budgets.spent.temporal).toBe(0);
  });

  it('a neighbour inherits a decayed prior; the next turn more than the previous one', async () => {
    const ns = [
      await makeNode(embedder, 'q', 'what instrument did you pick up'),
      await makeNode(embedder, 'ans', 'the cello last winter'),
      await makeNode(embedder, 'pre', 'good morning friend'),
    ];
    const rels = [rel('q', 'ans', 'SAME_EPISODE'), rel('pre', 'q', 'SAME_EPISODE')];
    const r = createJevRetriever({ store: memoryStore(ns, rels), systemOne: scriptedSystemOne(ROUTE), embedder, maxAnchors: 1, seedsPerRanking: 0, maxDepth: 1 });
    const t = trace(await r.search({ scope: SCOPE, query: 'which instrument did you pick up' }));
    const prior = Object.fromEntries(t.candidates.map((c) => [c.id, c.prior]));
    expect(prior.ans).toBeCloseTo(prior.q * 0.8);
    expect(prior.pre).toBeCloseTo(prior.q * 0.5);
  });
});

describe('createJevRetriever dialogue evidence', () => {
  it('the answer turn after a question turn outranks the question turn; dialogueWeight 0 restores the old order', async () => {
    const ns = [
      await makeNode(embedder, 'ask', 'Ana, what instrument did you pick up this winter?', { speaker: 'Ben', keywords: ['ana', 'instrument', 'pick', 'winter'] }),
      await makeNode(embedder, 'ans', 'The cello, I love it.', { speaker: 'Ana', keywords: ['cello', 'love'] }),
    ];
    const rels = [rel('ask', 'ans', 'SAME_EPISODE')];
    const query = 'What instrument did Ana pick up this winter?';
    const on = await createJevRetriever({ store: memoryStore(ns, rels), systemOne: scriptedSystemOne(ROUTE), embedder, contextLexical: false }).search({ scope: SCOPE, query });
    expect(on.evidence.map((x) => x.node.id)).toEqual(['ans', 'ask']);
    const off = await createJevRetriever({ store: memoryStore(ns, rels), systemOne: scriptedSystemOne(ROUTE), embedder, contextLexical: false, dialogueWeight: 0 }).search({ scope: SCOPE, query });
    expect(off.evidence.map((x) => x.node.id)).toEqual(['ask', 'ans']);
    const d = Object.fromEntries(trace(on).candidates.map((c) => [c.id, c.dialogue]));
    expect(d.ans).toBeGreaterThan(d.ask);
    expect(trace(off).candidates.every((c) => c.dialogue === 0)).toBe(true);
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import type { MemoryNode, Relation } from '@mem/core';
import { EXPANSION_FEATURES, defaultExpansionModel, expansionFeatures, expansionModelFor, sharedEntities } from './expansion.js';
import { createJevRetriever } from './jev.js';
import { hashEmbedder, makeNode, memoryStore, rel, SCOPE, scriptedSystemOne } from './__fixtures__/stubs.js';
import type { RetrievalTrace } from './types.js';
import type { LearnedModel } from '@mem/system-one';

const embedder = hashEmbedder();
const ROUTE = { semantic: 0.9, temporal: 0.6, causal: 0.05, entity: 0.3, multi_hop_need: 0.3, recency_importance: 0 };
const routing = { semantic: 0.9, temporal: 0.6, causal: 0.05, entity: 0.3, multiHopNeed: 0.3, recencyImportance: 0 };
let nodes: MemoryNode[];
let relations: Relation[];

beforeEach(async () => {
  nodes = [
    await makeNode(embedder, 'n1', 'Mira said her old bicycle broke on the way to work', { entities: ['Mira', 'bicycle'] }),
    await makeNode(embedder, 'n2', 'Mira bought a new bicycle yesterday', { entities: ['Mira', 'bicycle'] }),
    await makeNode(embedder, 'n4', 'Tomas planted tomatoes in the garden'),
    // reachable only through the graph: shares no word with the query
    await makeNode(embedder, 'n6', 'She picked the red one at Elm street', { entities: ['Elm street'] }),
  ];
  relations = [rel('n2', 'n6', 'SAME_EPISODE', 0.9), rel('n1', 'n2', 'LEADS_TO', 0.8)];
});

/** A logistic expansion model that answers p = σ(w · x + b) with weight only on `feature`. */
function oneFeatureModel(feature: string, w: number, b: number): LearnedModel {
  return { ...defaultExpansionModel(), weights: [EXPANSION_FEATURES.map((f) => (f === feature ? w : 0))], bias: [b], temperature: 1 };
}

describe('expansion features', () => {
  it('describe the edge, the two memories and the routing', () => {
    const [n1, n2] = nodes;
    const x = expansionFeatures({ relation: rel('n1', 'n2', 'LEADS_TO', 0.8), parent: n1!, neighbour: n2!, parentP: 0.6, parentRank: 1, relP: 0.2, hop: 1, coverage: 0.5, ownCoverage: 0.4, parentCoverage: 0.75, cosine: 0.3, reach: 2 }, routing);
    expect(Object.keys(x)).toEqual([...EXPANSION_FEATURES]);
    expect(x.view_causal).toBe(1);
    expect(x.view_semantic + x.view_temporal + x.view_entity).toBe(0);
    expect(x.sub_leads_to).toBe(1);
    expect(x.out).toBe(1);
    expect(x.parent_rank).toBeCloseTo(0.5);
    expect(x.routing_view).toBe(0.05);
    expect(x.shared_entities).toBeCloseTo(Math.log1p(2));
    // the parent covers the query and shares an entity with the neighbour: a bridge
    expect(x.bridge).toBeCloseTo(0.75);
    expect(sharedEntities(n1!, nodes[3]!)).toBe(0);
  });
  it('the shipped model is a valid mem.learned/1 logistic model over the expansion features, off by default', () => {
    const m = defaultExpansionModel();
    expect(m.kind).toBe('logistic');
    expect(m.features).toEqual([...EXPANSION_FEATURES]);
    expect(expansionModelFor('wink-glove-100d-sif')).toBeNull();
  });
});

describe('learned expansion in jev', () => {
  it('admits a neighbour whose path p clears the cost, keeps its path score, and reports it in the trace', async () => {
    const store = memoryStore(nodes, relations);
    // p high for SAME_EPISODE edges only
    const model = oneFeatureModel('sub_same_episode', 8, -4);
    const r = createJevRetriever({ store, systemOne: scriptedSystemOne(ROUTE), embedder, maxAnchors: 2, seedsPerRanking: 0, expansionModel: model, collectExpansion: true, relevanceModel: null });
    const res = await r.search({ scope: SCOPE, query: 'When did Mira buy a new bicycle?', k: 10, now: '2024-05-16T10:00:00Z' });
    const t = res.trace as RetrievalTrace;
    const n6 = res.evidence.find((e) => e.node.id === 'n6');
    expect(n6?.path.map((p) => p.subtype)).toEqual(['SAME_EPISODE']);
    const edge = t.expansion!.find((e) => e.to === 'n6')!;
    expect(edge.p).toBeGreaterThan(0.95);
    expect(t.rounds[0]!.admitted.temporal).toBeGreaterThanOrEqual(1);
  });
  it('admits nothing when no path is worth its cost, and the hand rounds run with expansionModel null', async () => {
    const store = memoryStore(nodes, relations);
    const never = oneFeatureModel('sub_same_episode', 0, -20);
    const r = createJevRetriever({ store, systemOne: scriptedSystemOne(ROUTE), embedder, maxAnchors: 2, seedsPerRanking: 0, expansionModel: never });
    const t = (await r.search({ scope: SCOPE, query: 'When did Mira buy a new bicycle?', k: 10 })).trace as RetrievalTrace;
    expect(t.rounds.every((x) => Object.values(x.admitted).every((n) => n === 0))).toBe(true);
    expect(t.stopReason).toBe('frontier_empty');
    const hand = createJevRetriever({ store, systemOne: scriptedSystemOne(ROUTE), embedder, maxAnchors: 2, seedsPerRanking: 0, expansionModel: null });
    const th = (await hand.search({ scope: SCOPE, query: 'When did Mira buy a new bicycle?', k: 10 })).trace as RetrievalTrace;
    expect(th.expansion).toBeUndefined();
    expect(th.budgets.given.semantic).toBeGreaterThan(0);
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import type { MemoryNode, Relation } from '@mem/core';
import type { LearnedModel } from '@mem/system-one';
import { createJevRetriever } from './jev.js';
import { LINK_FEATURES, LINK_GROUPS, defaultLinkModel, linkFeatures, linkGroupOf, linkModelFor } from './links.js';
import { hashEmbedder, makeNode, memoryStore, rel, SCOPE, scriptedSystemOne } from './__fixtures__/stubs.js';
import type { RetrievalTrace } from './types.js';

const embedder = hashEmbedder();
// temporal inactive and no episode context: the hand rounds cannot reach a PRECEDES neighbour
const ROUTE = { semantic: 0.9, temporal: 0.01, causal: 0.01, entity: 0.3, multi_hop_need: 0.8, recency_importance: 0 };
// few anchors: n7 (no word of the query) is not one of them
const FEW = { anchorPool: 2, maxAnchors: 2, seedsPerRanking: 0 };
const QUERY = 'When did Mira buy a new bicycle?';
let nodes: MemoryNode[];
let relations: Relation[];

beforeEach(async () => {
  nodes = [
    await makeNode(embedder, 'n1', 'Mira said her old bicycle broke on the way to work'),
    await makeNode(embedder, 'n2', 'Mira bought a new bicycle yesterday'),
    await makeNode(embedder, 'n4', 'Tomas planted tomatoes in the garden'),
    // shares no word with the query: only the PRECEDES edge from n2 reaches it
    await makeNode(embedder, 'n7', 'The red one came with a basket and a bell'),
  ];
  relations = [rel('n2', 'n7', 'PRECEDES', 1)];
});

/** A link model with weight 1 on the own logit and `w` on `feature`. */
function linkModel(feature: string, w: number): LearnedModel {
  return { ...defaultLinkModel(), weights: [LINK_FEATURES.map((f) => (f === 'own_logit' ? 1 : f === feature ? w : 0))], bias: [0], temperature: 1 };
}

const noLinks = Object.fromEntries(LINK_GROUPS.map((g) => [g, 0])) as Record<(typeof LINK_GROUPS)[number], number>;

describe('link features', () => {
  it('group subtypes, and describe own p, rank and the best seed p per group', () => {
    expect(linkGroupOf({ subtype: 'PRECEDES', view: 'temporal' })).toBe('order');
    expect(linkGroupOf({ subtype: 'SAME_EPISODE', view: 'temporal' })).toBe('episode');
    expect(linkGroupOf({ subtype: 'ENTITY_ALIAS', view: 'entity' })).toBe('entity');
    expect(linkGroupOf({ subtype: 'RELATED_TO', view: 'semantic' })).toBe('semantic');
    const x = linkFeatures({ p: 0.5, rank: 0, seed: false, fresh: true, links: { ...noLinks, order: 0.6 }, linkedSeeds: 1, linkedPSum: 0.6, sharedEntities: 0 }, 5, { multiHopNeed: 0.5 });
    const f = Object.fromEntries(LINK_FEATURES.map((k, i) => [k, x[i]]));
    expect(f.own_logit).toBeCloseTo(0, 6);
    expect(f.link_order).toBe(0.6);
    expect(f.link_x_multi_hop).toBeCloseTo(0.3, 6);
    expect(f.linked_seeds).toBeCloseTo(0.2, 6);
    expect(f.fresh).toBe(1);
  });
  it('the shipped model is a logistic model over the link features, off by default', () => {
    expect(defaultLinkModel().features).toEqual([...LINK_FEATURES]);
    expect(linkModelFor('wink-glove-100d-sif')).toBeNull();
  });
});

describe('the link stage in jev', () => {
  it('brings in a top memory’s neighbour over a view the rounds did not open, and its link p lifts it', async () => {
    const store = memoryStore(nodes, relations);
    const base = createJevRetriever({ store, systemOne: scriptedSystemOne(ROUTE), embedder, ...FEW, episodeBudget: 0, linkModel: null });
    const t0 = (await base.search({ scope: SCOPE, query: QUERY, k: 10 })).trace as RetrievalTrace;
    expect(t0.candidates.map((c) => c.id)).not.toContain('n7');
    expect(t0.links).toBeUndefined();

    const r = createJevRetriever({ store, systemOne: scriptedSystemOne(ROUTE), embedder, ...FEW, episodeBudget: 0, linkModel: linkModel('link_order', 200), collectLinks: true });
    const res = await r.search({ scope: SCOPE, query: QUERY, k: 10 });
    const t = res.trace as RetrievalTrace;
    expect(t.links!.admitted).toBe(1);
    expect(res.evidence[0]!.node.id).toBe('n7');
    expect(res.evidence[0]!.path.map((p) => p.subtype)).toEqual(['PRECEDES']);
    expect(t.links!.rows!.every((row) => row.x.length === LINK_FEATURES.length)).toBe(true);

    // a model that reads only the own p keeps the own order: n7 is visited but not lifted
    const own = createJevRetriever({ store, systemOne: scriptedSystemOne(ROUTE), embedder, ...FEW, episodeBudget: 0, linkModel: linkModel('link_order', 0) });
    const ro = await own.search({ scope: SCOPE, query: QUERY, k: 10 });
    expect(ro.evidence[0]!.node.id).not.toBe('n7');
  });
  it('does not run with traversal off', async () => {
    const r = createJevRetriever({ store: memoryStore(nodes, relations), systemOne: scriptedSystemOne(ROUTE), embedder, ...FEW, linkModel: linkModel('link_order', 30), ablation: { traversal: true } });
    const t = (await r.search({ scope: SCOPE, query: QUERY, k: 10 })).trace as RetrievalTrace;
    expect(t.links).toBeUndefined();
    expect(t.candidates.map((c) => c.id)).not.toContain('n7');
  });
});

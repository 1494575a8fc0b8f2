import { describe, expect, it } from 'vitest';
import { MANY_EVIDENCE, breadthFeatureRecord, breadthProbability, defaultBreadthModel } from './breadth.js';
import { createJevRetriever } from './jev.js';
import { hashEmbedder, makeNode, memoryStore, SCOPE, scriptedSystemOne } from './__fixtures__/stubs.js';
import type { RetrievalTrace } from './types.js';

const embedder = hashEmbedder();
const ROUTE = { semantic: 0.9, temporal: 0.6, causal: 0.05, entity: 0.3, multi_hop_need: 0.3, recency_importance: 0 };

describe('breadth: does a question need many memories?', () => {
  it('the shipped model tells an order or a summary from a single fact (our own questions)', () => {
    expect(MANY_EVIDENCE).toBe(4);
    expect(defaultBreadthModel().kind).toBe('logistic');
    const many = ['Can you list the order in which I brought up the steps of my garden project?', 'Can you summarize how my plans for the trip developed across our conversations?'];
    const few = ['What is the name of my cat?', 'When did Ana move to Lisbon?'];
    for (const q of many) expect(breadthProbability(q), q).toBeGreaterThan(0.5);
    for (const q of few) expect(breadthProbability(q), q).toBeLessThan(0.5);
  });
  it('features are the words, the first word and the shape', () => {
    const f = breadthFeatureRecord('List all the places I visited and the dates?');
    expect(f.get('w:list')).toBe(1);
    expect(f.get('first:list')).toBe(1);
    expect(f.get('qmark')).toBe(1);
    expect(f.get('and')).toBeCloseTo(1 / 3);
  });
  it('jev returns a wider set for such a question, the same top k, and marks the result for excerpt packing', async () => {
    const nodes = await Promise.all(Array.from({ length: 30 }, (_, i) => makeNode(embedder, `n${i}`, `Step ${i} of the garden project: we moved the order of the beds again`)));
    const store = memoryStore(nodes, []);
    const q = 'Can you list the order in which I brought up the steps of my garden project?';
    const wide = await createJevRetriever({ store, systemOne: scriptedSystemOne(ROUTE), embedder, breadth: { wideK: 25, excerptTokens: 30 } }).search({ scope: SCOPE, query: q, k: 5 });
    const narrow = await createJevRetriever({ store, systemOne: scriptedSystemOne(ROUTE), embedder, breadth: null }).search({ scope: SCOPE, query: q, k: 5 });
    expect(narrow.evidence).toHaveLength(5);
    expect(wide.evidence).toHaveLength(25);
    expect(wide.evidence.slice(0, 5).map((e) => e.node.id)).toEqual(narrow.evidence.map((e) => e.node.id));
    expect((wide as { wide?: { excerptTokens: number } }).wide?.excerptTokens).toBe(30);
    expect((wide.trace as RetrievalTrace).breadth).toMatchObject({ wide: true, returned: 25 });
    expect((narrow.trace as RetrievalTrace).breadth).toBeUndefined();
  });
});

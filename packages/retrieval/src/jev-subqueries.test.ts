import { describe, expect, it } from 'vitest';
import { createJevRetriever } from './jev.js';
import { resolveJevOptions } from './jev-options.js';
import { contentWords, partSeeds, priorWithParts, questionParts } from './jev-subqueries.js';
import { hashEmbedder, makeNode, memoryStore, SCOPE, scriptedSystemOne } from './__fixtures__/stubs.js';

const embedder = hashEmbedder();
const ROUTE = { semantic: 0.9, temporal: 0.01, causal: 0.01, entity: 0.3, multi_hop_need: 0.8, recency_importance: 0 };

describe('questionParts', () => {
  it('cuts at clause and conjunct boundaries and drops parts with fewer than two content words', () => {
    expect(questionParts('What did Ana cook after the trip to Lisbon and who came?')).toEqual(['What did Ana cook', 'the trip to Lisbon']);
    expect(questionParts('Which band played the song that Ravi hummed all week?')).toEqual(['band played the song', 'Ravi hummed all week']);
  });
  it('returns no parts for a one-part question', () => {
    expect(questionParts('When did Mira buy a new bicycle?')).toEqual([]);
    expect(contentWords('When did Mira buy a bicycle')).toEqual(['mira', 'buy', 'bicycle']);
  });
});

describe('partSeeds and priorWithParts', () => {
  it('take each part ranking round-robin, skip what is there, and stop at the room left', () => {
    const have = new Set(['a']);
    expect(partSeeds([['a', 'b', 'c'], ['d', 'e']], 2, have, 10)).toEqual(['d', 'b', 'e']);
    expect(partSeeds([['x', 'y'], ['z']], 2, new Set(), 2)).toEqual(['x', 'z']);
  });
  it('fuse the part rankings into the prior with their weight', () => {
    const base = priorWithParts([['a', 'b']], [1], [], 1, 30);
    const withParts = priorWithParts([['a', 'b']], [1], [['b']], 0.5, 30);
    expect(withParts.get('b')!).toBeCloseTo(base.get('b')! + 0.5 / 31, 12);
    expect(withParts.get('a')).toBe(base.get('a'));
  });
});

describe('jev with sub-query anchors', () => {
  it('is off by default and brings in a memory only one part of the question matches', async () => {
    expect(resolveJevOptions({} as never).subQueries).toBeNull();
    const nodes = [
      await makeNode(embedder, 'd1', 'Lina visited the harbour city with Oskar, the harbour city market'),
      await makeNode(embedder, 'd2', 'The harbour city: Lina visited it with Oskar after the harbour festival'),
      await makeNode(embedder, 'd3', 'Lina said the harbour city Oskar visited was a city by the sea'),
      await makeNode(embedder, 'd4', 'Oskar and Lina visit the harbour city every year'),
      // only the part "Oskar painted murals" matches it well
      await makeNode(embedder, 'n9', 'Some murals were on the wall'),
    ];
    const q = 'Which harbour city did Lina visit after Oskar painted murals?';
    const few = { anchorPool: 2, maxAnchors: 1, seedsPerRanking: 0, episodeBudget: 0, ablation: { traversal: true } };
    const off = createJevRetriever({ store: memoryStore(nodes), systemOne: scriptedSystemOne(ROUTE), embedder, ...few });
    const on = createJevRetriever({ store: memoryStore(nodes), systemOne: scriptedSystemOne(ROUTE), embedder, ...few, subQueries: { seeds: 1 } });
    const idsOff = (await off.search({ scope: SCOPE, query: q, k: 10 })).evidence.map((e) => e.node.id);
    const idsOn = (await on.search({ scope: SCOPE, query: q, k: 10 })).evidence.map((e) => e.node.id);
    expect(idsOff).not.toContain('n9');
    expect(idsOn).toContain('n9');
  });
});

import { describe, expect, it } from 'vitest';
import { extractKeywords } from '@mem/core';
import { bm25Term, buildLemmaIndex, createSnapshotCache, queryKeywords, snapshotNeighbors } from './lexical.js';
import { hashEmbedder, makeNode, memoryStore, rel, SCOPE } from './__fixtures__/stubs.js';

const e = hashEmbedder(8);

describe('lemma BM25', () => {
  it('bm25Term grows with tf, shrinks with df and length', () => {
    expect(bm25Term(2, 1, 10, 5, 5)).toBeGreaterThan(bm25Term(1, 1, 10, 5, 5));
    expect(bm25Term(1, 5, 10, 5, 5)).toBeLessThan(bm25Term(1, 1, 10, 5, 5));
    expect(bm25Term(1, 1, 10, 20, 5)).toBeLessThan(bm25Term(1, 1, 10, 5, 5));
    expect(bm25Term(0, 1, 10, 5, 5)).toBe(0);
  });
  it('matches lemmas and speakers', async () => {
    const nodes = [
      await makeNode(e, 'a', 'She paints landscapes', { keywords: ['paint', 'landscape'], speaker: 'Ana' }),
      await makeNode(e, 'b', 'He painted a fence', { keywords: ['paint', 'fence'], speaker: 'Ben' }),
      await makeNode(e, 'c', 'Lunch was great', { keywords: ['lunch', 'great'], speaker: 'Ana' }),
    ];
    const ix = buildLemmaIndex(nodes);
    // "painted" lemmatises to "paint"; "Ana" names a speaker
    const hits = ix.search('What has Ana painted?', 3).map((h) => h.node.id);
    expect(hits[0]).toBe('a');
    expect(hits).toContain('b');
    expect(buildLemmaIndex(nodes, { speaker: false }).search('Ana', 3)).toEqual([]);
  });
  it('a query is parsed once for every lemma index that reads it (issue 33 point 2), with the same terms', () => {
    const q = 'What has Ana painted on the old Fence?';
    const terms = queryKeywords(q);
    expect(terms).toEqual(extractKeywords(q).map((t) => t.toLowerCase()));
    expect(queryKeywords(q)).toBe(terms); // the memo: no second parse
    // bounded: after 64 other queries the first one is parsed again (equal terms, a new array)
    for (let i = 0; i < 64; i++) queryKeywords(`filler query number ${i}`);
    const again = queryKeywords(q);
    expect(again).not.toBe(terms);
    expect(again).toEqual(terms);
  });
});

describe('scope snapshot', () => {
  it('neighbours by view, both directions; rebuilt when the scope changes', async () => {
    const nodes = [await makeNode(e, 'a', 'one'), await makeNode(e, 'b', 'two'), await makeNode(e, 'c', 'three')];
    const store = memoryStore(nodes, [rel('a', 'b', 'SAME_EPISODE'), rel('c', 'a', 'RELATED_TO')]);
    const get = createSnapshotCache();
    const s1 = await get(store, SCOPE);
    expect(s1).not.toBeNull();
    expect(snapshotNeighbors(s1!, ['a'], ['temporal']).map((n) => n.node.id)).toEqual(['b']);
    expect(snapshotNeighbors(s1!, ['a'], ['temporal', 'semantic']).map((n) => n.node.id).sort()).toEqual(['b', 'c']);
    expect(snapshotNeighbors(s1!, ['a'], ['temporal', 'semantic'], 1)).toHaveLength(1);
    expect(await get(store, SCOPE)).toBe(s1);
    nodes.push(await makeNode(e, 'd', 'four'));
    expect(await get(store, SCOPE)).not.toBe(s1);
    expect(await createSnapshotCache({ maxNodes: 2 })(store, SCOPE)).toBeNull();
  });
  it('keeps at most maxScopes snapshots, the least recently read dropped first', async () => {
    const store = memoryStore([await makeNode(e, 'a', 'one')], []);
    const get = createSnapshotCache({ maxScopes: 2 });
    const other = (runId: string) => ({ ...SCOPE, runId });
    const s1 = await get(store, SCOPE);
    await get(store, other('x'));
    expect(await get(store, SCOPE)).toBe(s1); // read again: now the most recent
    await get(store, other('y')); // drops x, not SCOPE
    expect(await get(store, SCOPE)).toBe(s1);
    await get(store, other('x'));
    await get(store, other('y')); // drops SCOPE
    expect(await get(store, SCOPE)).not.toBe(s1);
  });
  it('concurrent reads of one scope version share one build', async () => {
    const store = memoryStore([await makeNode(e, 'a', 'one')], []);
    const get = createSnapshotCache();
    const [x, y] = await Promise.all([get(store, SCOPE), get(store, SCOPE)]);
    expect(x).not.toBeNull();
    expect(y).toBe(x);
  });
});

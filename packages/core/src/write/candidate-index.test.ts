import { describe, expect, it } from 'vitest';
import { CandidateIndex, indexedMemory } from './candidate-index.js';

const node = (id: string, entities: string[], keywords: string[]) => ({ id, observedAt: '2024-01-01T00:00:00.000Z', entities, keywords });

describe('CandidateIndex', () => {
  it('finds memories sharing a normalized entity or keyword', () => {
    const ix = new CandidateIndex();
    ix.add(indexedMemory(node('a', ['Mira'], ['bicycle'])));
    ix.add(indexedMemory(node('b', ['Tom'], ['Bicycle', 'shop'])));
    ix.add(indexedMemory(node('c', ['Lena'], ['bread'])));
    const q = indexedMemory(node('q', ['MIRA'], ['bicycle']));
    expect(ix.lookup(q.entities, q.keywords).map((m) => m.id).sort()).toEqual(['a', 'b']);
    expect(ix.lookup(new Set(['lena']), new Set()).map((m) => m.id)).toEqual(['c']);
    expect(ix.lookup(new Set(['nobody']), new Set(['nothing']))).toEqual([]);
    // an entity term does not match a keyword term
    expect(ix.lookup(new Set(['bread']), new Set()).map((m) => m.id)).toEqual([]);
  });
  it('keeps only the cap most recent memories per term (no O(N) lookups)', () => {
    const ix = new CandidateIndex(4);
    for (let i = 0; i < 100; i++) ix.add(indexedMemory(node(`n${String(i).padStart(3, '0')}`, [], ['common'])));
    const hits = ix.lookup(new Set(), new Set(['common'])).map((m) => m.id);
    expect(hits).toEqual(['n096', 'n097', 'n098', 'n099']);
    expect(ix.size).toBe(100);
  });
});

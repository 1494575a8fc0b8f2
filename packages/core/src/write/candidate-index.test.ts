import { describe, expect, it } from 'vitest';
import { CandidateIndex, indexedMemory, NodeCache } from './candidate-index.js';
import type { MemoryNode } from '../types.js';

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

describe('NodeCache', () => {
  const full = (id: string) => ({ id, text: id, obsoleteBy: null }) as unknown as MemoryNode;

  it('evicts the least recently used node beyond its capacity', () => {
    const c = new NodeCache(2);
    c.put(full('a'));
    c.put(full('b'));
    expect(c.get('a')?.id).toBe('a'); // a is now the most recent
    c.put(full('c'));
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')?.id).toBe('a');
    expect(c.get('c')?.id).toBe('c');
    expect(c.size).toBe(2);
  });

  it('keeps copies, so mutating the node handed in does not change the cache; records obsolescence', () => {
    const c = new NodeCache(4);
    const n = full('a');
    c.put(n);
    (n as { text: string }).text = 'changed by a caller';
    expect(c.get('a')?.text).toBe('a');
    c.markObsolete('a', 'b');
    c.markObsolete('missing', 'b');
    expect(c.get('a')?.obsoleteBy).toBe('b');
    expect(c.get('missing')).toBeUndefined();
  });

  it('capacity 0 caches nothing', () => {
    const c = new NodeCache(0);
    c.put(full('a'));
    expect(c.get('a')).toBeUndefined();
  });
});

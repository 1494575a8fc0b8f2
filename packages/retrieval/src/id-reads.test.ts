/**
 * Jev reads its anchor rankings as ids (`vectorSearchIds`, `lexicalSearchIds`) mapped to the scope
 * snapshot; a store without those optional methods is read through `vectorSearch` / `lexicalSearch`.
 * Both must give the same evidence, scores and candidates.
 */
import { describe, expect, it } from 'vitest';
import { resolveScope, type MemoryStore } from '@mem/core';
import { createJevRetriever } from './jev.js';
import { offlineMemory } from './__fixtures__/offline-memory.js';

/** The same store without the id-only reads, counting the full reads. */
function withoutIdReads(store: MemoryStore): { store: MemoryStore; calls: { lexicalSearch: number; vectorSearch: number } } {
  const calls = { lexicalSearch: 0, vectorSearch: 0 };
  const proxy = new Proxy(store, {
    get(target, p) {
      if (p === 'lexicalSearchIds' || p === 'vectorSearchIds') return undefined;
      const v = (target as any)[p];
      if (typeof v !== 'function') return v;
      if (p === 'lexicalSearch' || p === 'vectorSearch') {
        return (...a: unknown[]) => {
          calls[p]++;
          return v.apply(target, a);
        };
      }
      return v.bind(target);
    },
  });
  return { store: proxy, calls };
}

describe('jev id-only anchor reads', () => {
  it('rank exactly as the full reads', { timeout: 120_000 }, async () => {
    const { store, embedder, systemOne, memory } = offlineMemory();
    const scope = { userId: 'ids' };
    try {
      const turns = [
        ['Ana', 'Did you go hiking with the dog last weekend?'],
        ['Ben', 'Yes, we hiked up to the lake near the old mill.'],
        ['Ana', 'I painted a sunrise over that lake once.'],
        ['Ben', 'My sister bought a red bicycle on Friday.'],
        ['Ana', 'Was it expensive? I need a new bicycle too.'],
        ['Ben', 'Not really, the shop on Elm street had a sale.'],
        ['Ana', 'I will go there on Saturday with my dog.'],
        ['Ben', 'The dog loves the lake; he swims every time.'],
      ];
      await memory.add(turns.map(([speaker, text], i) => ({ text, speaker, observedAt: `2024-05-${String(10 + i).padStart(2, '0')}T10:00:00Z`, scope })));
      const plain = withoutIdReads(store);
      const fast = createJevRetriever({ store, systemOne, embedder });
      const full = createJevRetriever({ store: plain.store, systemOne, embedder });
      for (const query of ['Where did Ben hike with the dog?', 'What did Ana paint?', 'Who bought a bicycle and when?']) {
        const req = { scope: resolveScope(scope), query, k: 5, now: '2024-06-01T00:00:00Z' };
        const a = await fast.search(req);
        const b = await full.search(req);
        expect(a.evidence.length, query).toBeGreaterThan(0);
        expect(a.evidence.map((e) => [e.node.id, e.score]), query).toEqual(b.evidence.map((e) => [e.node.id, e.score]));
        expect((a.trace as any).candidates, query).toEqual((b.trace as any).candidates);
      }
      expect(plain.calls.lexicalSearch).toBe(3);
      expect(plain.calls.vectorSearch).toBe(3);
    } finally {
      await memory.close();
    }
  });
});

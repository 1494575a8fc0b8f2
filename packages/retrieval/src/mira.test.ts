/**
 * The "What does Mira drink?" example (root README): with the wink embedder and the offline System One,
 * the shipped relevance model ranks the stated preference above an older turn of the same speaker
 * that matches only her name (the tie the model over absolute features broke the wrong way).
 */
import { describe, expect, it } from 'vitest';
import { resolveScope } from '@mem/core';
import { createJevRetriever } from './jev.js';
import { offlineMemory } from './__fixtures__/offline-memory.js';

describe('What does Mira drink?', () => {
  it('ranks "I prefer tea over coffee." first', { timeout: 120_000 }, async () => {
    const { store, embedder, systemOne, memory } = offlineMemory();
    const scope = { userId: 'mira' };
    try {
      await memory.add([
        { text: 'My old bicycle broke.', speaker: 'Mira', observedAt: '2024-05-14T10:00:00Z', scope },
        { text: 'I prefer tea over coffee.', speaker: 'Mira', observedAt: '2024-05-16T10:05:00Z', scope },
      ]);
      const jev = createJevRetriever({ store, systemOne, embedder });
      const r = await jev.search({ scope: resolveScope(scope), query: 'What does Mira drink?', k: 2, now: '2024-06-01T00:00:00Z' });
      expect(r.evidence.map((e) => e.node.text)).toEqual(['I prefer tea over coffee.', 'My old bicycle broke.']);
    } finally {
      await memory.close();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { createBm25Retriever, createDenseRetriever, createHybridRetriever } from './flat.js';
import { validateRequest } from './jev.js';
import { hashEmbedder, makeNode, memoryStore, SCOPE } from './__fixtures__/stubs.js';

describe('search now is strict ISO-8601 with a zone on every retriever (issue 17)', () => {
  it('validateRequest: zone-less → MISSING_TIMEZONE, loose forms → BAD_DATE, zoned → that instant', () => {
    expect(() => validateRequest({ scope: SCOPE, query: 'x', now: '2025-03-03T10:00:00' })).toThrow(expect.objectContaining({ code: 'MISSING_TIMEZONE' }));
    for (const bad of ['garbage', 'March 3, 2025', 'Mon, 03 Mar 2025 10:00:00', '2025-02-30T00:00:00Z']) {
      expect(() => validateRequest({ scope: SCOPE, query: 'x', now: bad }), bad).toThrow(expect.objectContaining({ code: 'BAD_DATE' }));
    }
    expect(validateRequest({ scope: SCOPE, query: 'x', now: '2025-03-03T10:00:00+02:00' }).nowMs).toBe(Date.UTC(2025, 2, 3, 8));
  });

  it('the flat baselines reject a bad now too (their ranking does not depend on time)', async () => {
    const embedder = hashEmbedder();
    const store = memoryStore([await makeNode(embedder, 'a', 'Alice drinks tea')]);
    for (const r of [createBm25Retriever({ store }), createDenseRetriever({ store, embedder }), createHybridRetriever({ store, embedder })]) {
      await expect(r.search({ scope: SCOPE, query: 'tea', now: 'garbage' })).rejects.toMatchObject({ code: 'BAD_DATE' });
      await expect(r.search({ scope: SCOPE, query: 'tea', now: '2025-03-03T10:00:00' })).rejects.toMatchObject({ code: 'MISSING_TIMEZONE' });
      await expect(r.search({ scope: SCOPE, query: 'tea', now: '2025-03-03T10:00:00Z' })).resolves.toBeTruthy();
    }
  });
});

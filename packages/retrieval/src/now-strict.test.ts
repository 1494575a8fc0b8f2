import { describe, expect, it } from 'vitest';
import { createBm25Retriever, createDenseRetriever, createHybridRetriever } from './flat.js';
import { validateRequest } from './jev.js';
import { hashEmbedder, makeNode, memoryStore, SCOPE } from './__fixtures__/stubs.js';
import { MemValidationError } from '@mem/core';
import { expectMemError } from '@mem/test-utils';

describe('search now is strict ISO-8601 with a zone on every retriever (issue 17)', () => {
  it('validateRequest: zone-less → MISSING_TIMEZONE, loose forms → BAD_DATE, zoned → that instant', async () => {
    await expectMemError(() => validateRequest({ scope: SCOPE, query: 'x', now: '2025-03-03T10:00:00' }), MemValidationError, 'MISSING_TIMEZONE');
    for (const bad of ['garbage', 'March 3, 2025', 'Mon, 03 Mar 2025 10:00:00', '2025-02-30T00:00:00Z']) {
      await expectMemError(() => validateRequest({ scope: SCOPE, query: 'x', now: bad }), MemValidationError, 'BAD_DATE');
    }
    expect(validateRequest({ scope: SCOPE, query: 'x', now: '2025-03-03T10:00:00+02:00' }).nowMs).toBe(Date.UTC(2025, 2, 3, 8));
  });

  it('the flat baselines reject a bad now too (their ranking does not depend on time)', async () => {
    const embedder = hashEmbedder();
    const store = memoryStore([await makeNode(embedder, 'a', 'Alice drinks tea')]);
    for (const r of [createBm25Retriever({ store }), createDenseRetriever({ store, embedder }), createHybridRetriever({ store, embedder })]) {
      await expectMemError(r.search({ scope: SCOPE, query: 'tea', now: 'garbage' }), MemValidationError, 'BAD_DATE');
      await expectMemError(r.search({ scope: SCOPE, query: 'tea', now: '2025-03-03T10:00:00' }), MemValidationError, 'MISSING_TIMEZONE');
      await expect(r.search({ scope: SCOPE, query: 'tea', now: '2025-03-03T10:00:00Z' })).resolves.toBeTruthy();
    }
  });
});

describe("the query's relative dates use the search's timeZone calendar (issue 17: times)", () => {
  it('"yesterday" asked at 02:00 on 25 July in Tokyo is 24 July in Tokyo, not 23 July (the UTC date)', async () => {
    const { queryTimeInterval } = await import('./dialogue.js');
    const now = '2025-07-24T17:00:00.000Z'; // 2025-07-25 02:00 in Tokyo
    const tokyo = queryTimeInterval('What did Ana do yesterday?', now, 'Asia/Tokyo')!;
    expect(new Date(tokyo.start).toISOString()).toBe('2025-07-23T15:00:00.000Z'); // 24 July 00:00 Tokyo
    const utc = queryTimeInterval('What did Ana do yesterday?', now)!;
    expect(new Date(utc.start).toISOString()).toBe('2025-07-23T00:00:00.000Z');
  });

  it('validateRequest refuses an unknown time zone', async () => {
    await expectMemError(() => validateRequest({ scope: SCOPE, query: 'x', timeZone: 'Mars/Olympus' }), MemValidationError, 'INVALID_INPUT');
    expect(() => validateRequest({ scope: SCOPE, query: 'x', timeZone: 'Asia/Tokyo' })).not.toThrow();
  });

  it("createMemory's timeZone reaches the retriever with every search", async () => {
    const { createMemory } = await import('@mem/core');
    const seen: unknown[] = [];
    const memory = createMemory({ timeZone: 'Asia/Tokyo', retriever: () => ({ search: async (req: any) => (seen.push(req.timeZone), { evidence: [] }) }) as any });
    try {
      await memory.search('What did Ana do yesterday?', { scope: { userId: 'ana' }, now: '2025-07-25 02:00' });
      expect(seen).toEqual(['Asia/Tokyo']);
    } finally {
      await memory.close();
    }
  });
});

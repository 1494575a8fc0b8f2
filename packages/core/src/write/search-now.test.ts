import { describe, expect, it } from 'vitest';
import { createSqliteStore } from '../store/index.js';
import type { Retriever, SearchRequest } from '../types.js';
import { createMemory } from './memory.js';
import { scriptedController } from './test-kit.js';
import { MemValidationError } from '../errors.js';
import { expectMemError } from '@mem/test-utils';

const embedder = {
  model: 'test-3',
  dimension: 3,
  async embed(texts: string[]) {
    return texts.map((t) => Float32Array.from([1, (t.length % 7) + 1, 0.5]));
  },
};
const scope = { userId: 'u' };
const mem = (extra: Record<string, unknown> = {}) =>
  createMemory({ store: createSqliteStore({ path: ':memory:' }), embedder, systemOne: scriptedController(() => 0.1).controller, ...extra });

describe('search now is strict on every path (issue 17)', () => {
  it('an unknown search option (a misspelt now or k) is INVALID_INPUT, not a silent default', async () => {
    const m = mem();
    await m.add({ text: 'Alice drinks tea', scope, observedAt: '2025-01-01T00:00:00Z' });
    await expectMemError(m.search('tea', { scope, Now: '2025-03-03T10:00:00Z' } as any), MemValidationError, 'INVALID_INPUT', { unknownKeys: ['Now'] });
    await expectMemError(m.search('tea', { scope, topK: 3 } as any), MemValidationError, 'INVALID_INPUT');
    expect((await m.search('tea', { scope, k: 1, now: undefined })).evidence).toHaveLength(1);
    await m.close();
  });

  it('the dense fallback (no retriever) rejects garbage and zone-less now', async () => {
    const m = mem();
    await m.add({ text: 'Alice drinks tea', scope, observedAt: '2025-01-01T00:00:00Z' });
    await expectMemError(m.search('tea', { scope, now: 'garbage' }), MemValidationError, 'BAD_DATE');
    await expectMemError(m.search('tea', { scope, now: 'March 3, 2025' }), MemValidationError, 'BAD_DATE');
    await expectMemError(m.search('tea', { scope, now: '2025-03-03T10:00:00' }), MemValidationError, 'MISSING_TIMEZONE');
    expect((await m.search('tea', { scope, now: '2025-03-03T10:00:00+02:00' })).evidence).toHaveLength(1);
    await m.close();
  });

  it('a retriever receives now as UTC ISO-8601; a zone-less now is read in the memory timeZone', async () => {
    const seen: (string | undefined)[] = [];
    const retriever: Retriever = {
      name: 'recording',
      async search(req: SearchRequest) {
        seen.push(req.now);
        return { evidence: [] };
      },
    };
    const m = mem({ retriever, timeZone: 'Asia/Tokyo' });
    await m.search('x', { scope, now: '2025-07-25T02:00:00' });
    await m.search('x', { scope, now: '2025-07-25T02:00:00+09:00' });
    await m.search('x', { scope });
    expect(seen).toEqual(['2025-07-24T17:00:00.000Z', '2025-07-24T17:00:00.000Z', undefined]);
    await expectMemError(m.search('x', { scope, now: 'yesterday' }), MemValidationError, 'BAD_DATE');
    expect(seen).toHaveLength(3); // the retriever was not called with a bad now
    await m.close();
  });
});

describe('the memory timeZone sets the calendar of relative dates in texts (issue 17)', () => {
  it('"today" written at 02:00 Tokyo time on 25 July is stored as 25 July (Tokyo)', async () => {
    const m = mem({ timeZone: 'Asia/Tokyo' });
    const r = await m.add({ text: 'I started a new job today', scope, observedAt: '2025-07-25T02:00:00' });
    expect(r.node.observedAt).toBe('2025-07-24T17:00:00.000Z');
    expect(r.node.eventTime).toMatchObject({ start: '2025-07-24T15:00:00.000Z', end: '2025-07-25T15:00:00.000Z' });
    // a per-call timeZone overrides it
    const p = await m.add({ text: 'I went to the market today', scope, observedAt: '2025-07-25T02:00:00+09:00' }, { timeZone: 'Europe/Paris' });
    expect(p.node.eventTime).toMatchObject({ start: '2025-07-23T22:00:00.000Z', end: '2025-07-24T22:00:00.000Z' });
    await m.close();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStack, type Stack } from '../stack.js';
import { createApi } from './app.js';
import { MemValidationError } from '@mem/core';
import { expectMemError } from '@mem/test-utils';

let stack: Stack;
let app: ReturnType<typeof createApi>;

beforeAll(async () => {
  stack = await createStack({ db: ':memory:', scope: { userId: 'default-user' }, systemTwo: null });
  app = createApi({ stack, playground: false });
});
afterAll(async () => {
  await stack?.close();
});

const add = (query: string) =>
  app.request(`/v1/observations${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ observations: [{ text: 'Alice keeps a secret diary.', observedAt: '2025-01-01T00:00:00Z' }] }),
  });

describe('unknown query parameters are a 400 (issue 17: scopes are strict)', () => {
  it('?userid=alice and ?tenant=x are refused and nothing lands in the default user', async () => {
    for (const q of ['?userid=alice', '?tenant=x', '?userId=alice&nameSpace=B', '?user=alice']) {
      const res = await add(q);
      expect(res.status, q).toBe(400);
      expect(((await res.json()) as any).error.code).toBe('INVALID_INPUT');
    }
    const stats = (await (await app.request('/v1/stats')).json()) as any;
    expect(stats.nodes).toBe(0);
    expect((await app.request('/v1/stats?userId=alice')).status).toBe(200);
  });

  it('every GET route refuses an unknown parameter too (and still accepts its own)', async () => {
    for (const path of ['/v1/stats', '/v1/history', '/v1/graph', '/v1/last', '/v1/nodes/x/neighbors']) {
      expect((await app.request(`${path}?userid=alice`)).status, path).toBe(400);
    }
    expect((await app.request('/v1/history?userId=alice&limit=5')).status).toBe(200);
    expect((await app.request('/v1/graph?userId=alice&limit=5')).status).toBe(200);
  });

  it('a correctly spelt scope is used', async () => {
    expect((await add('?userId=alice')).status).toBe(200);
    expect(((await (await app.request('/v1/stats?userId=alice')).json()) as any).nodes).toBe(1);
    expect(((await (await app.request('/v1/stats')).json()) as any).nodes).toBe(0);
  });
});

describe('scope parameters that are present but unusable are a 400 (break-it findings, issue 17)', () => {
  it('an empty scope parameter (?userId=) is SCOPE_INVALID, never the default user', async () => {
    // and one holding only invisible characters: zero-width space, BOM, word joiner (core's resolveScope)
    for (const q of ['?userId=', '?userId=&agentId=bot', '?agentId=', '?runId=', '?namespace=', '?userId=%20', '?userId=%E2%80%8B', '?agentId=%EF%BB%BF', '?userId=alice&runId=%E2%81%A0', '?namespace=%E2%80%8B', '?userId=alice&namespace=%E2%80%8B%20']) {
      const res = await add(q);
      expect(res.status, q).toBe(400);
      expect(((await res.json()) as any).error.code, q).toBe('SCOPE_INVALID');
      expect((await app.request(`/v1/stats${q}`)).status, q).toBe(400);
    }
    expect(((await (await app.request('/v1/stats')).json()) as any).nodes).toBe(0);
  });

  it('a percent-escape that is not UTF-8 (%ff) is refused, not taken literally', async () => {
    for (const q of ['?userId=%ff', '?userId=al%e2%82ice', '?userId=100%', '?%ff=alice']) {
      const res = await add(q);
      expect(res.status, q).toBe(400);
      expect(((await res.json()) as any).error.code, q).toBe('INVALID_INPUT');
    }
    expect((await app.request('/v1/nodes/%ff')).status).toBe(400);
    // valid escapes still decode: "é" is user "é", the same as the unescaped form
    expect((await add('?userId=%C3%A9')).status).toBe(200);
    expect(((await (await app.request('/v1/stats?userId=%C3%A9')).json()) as any).nodes).toBe(1);
    expect(((await (await app.request('/v1/stats?userId=%ff')).json()) as any).error.code).toBe('INVALID_INPUT');
    expect(((await (await app.request('/v1/stats')).json()) as any).nodes).toBe(0);
  });
});

describe('a zone-less `now` is read in the configured time zone (issue 17: times)', () => {
  it('with timeZone Asia/Tokyo, "2025-07-25 02:00" is 2025-07-24T17:00Z; without one it is MISSING_TIMEZONE', async () => {
    const tz = await createStack({ db: ':memory:', scope: { userId: 'tz' }, systemTwo: null, timeZone: 'Asia/Tokyo' });
    try {
      const api = createApi({ stack: tz, playground: false });
      const post = (path: string, body: unknown) => api.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const added = (await (await post('/v1/observations', { observations: [{ text: 'I planted tomatoes today.', observedAt: '2025-07-25 02:00' }] })).json()) as any;
      expect(added.added[0].node.observedAt).toBe('2025-07-24T17:00:00.000Z');
      expect(tz.readNow('2025-07-25 02:00')).toBe('2025-07-24T17:00:00.000Z');
      expect((await post('/v1/search', { query: 'tomatoes', now: '2025-07-25 02:00' })).status).toBe(200);
      expect((await post('/v1/ask', { question: 'tomatoes?', now: '2025-07-25' })).status).toBe(200);
      const bad = await post('/v1/search', { query: 'tomatoes', now: 'tomorrow' });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as any).error.code).toBe('BAD_DATE');
    } finally {
      await tz.close();
    }
    const none = createApi({ stack, playground: false });
    const res = await none.request('/v1/search', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'x', now: '2025-07-25 02:00' }) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe('MISSING_TIMEZONE');
  });

  it('an unknown time zone name is refused when the stack is made', async () => {
    await expectMemError(createStack({ db: ':memory:', scope: { userId: 'tz' }, systemTwo: null, timeZone: 'Mars/Olympus' }), MemValidationError, 'INVALID_INPUT');
  });
});

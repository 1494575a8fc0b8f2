import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStack, type Stack } from '../stack.js';
import { createApi } from './app.js';

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

import { describe, expect, it } from 'vitest';
import { startServer } from './serve.js';

describe('a 413 on a keep-alive connection (issue 17)', () => {
  it('answers 413 with Connection: close, and the next requests of the same client still work', async () => {
    const server = await startServer({ stack: { db: ':memory:', scope: { userId: 'ka' }, systemTwo: null }, port: 0, bodyLimit: 2_000 });
    try {
      // fetch (undici) keeps connections alive; a 1 MB body is refused before it is read, and
      // without closing that connection the next requests failed with UND_ERR_SOCKET
      const big = JSON.stringify({ observations: [{ text: 'x'.repeat(1_000_000), observedAt: '2025-01-01T00:00:00Z' }] });
      for (let round = 0; round < 2; round++) {
        const first = await fetch(`${server.url}/v1/observations`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
        expect(first.status).toBe(413);
        expect(first.headers.get('connection')).toBe('close');
        expect(((await first.json()) as any).error.code).toBe('PAYLOAD_TOO_LARGE');
        for (let i = 0; i < 3; i++) {
          const next = await fetch(`${server.url}/v1/stats`);
          expect(next.status).toBe(200);
          await next.text();
        }
      }
      const ok = await fetch(`${server.url}/v1/observations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ observations: [{ text: 'Small one.', observedAt: '2025-01-01T00:00:00Z' }] }),
      });
      expect(ok.status).toBe(200);
    } finally {
      await server.close();
    }
  }, 60_000);
});

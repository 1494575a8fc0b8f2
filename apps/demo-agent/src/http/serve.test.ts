import { describe, expect, it } from 'vitest';
import { startServer } from './serve.js';

describe('mem serve (real listen)', () => {
  it('listens on a random loopback port and serves the API, the playground and cytoscape', async () => {
    const server = await startServer({ stack: { db: ':memory:', scope: { userId: 'listen' }, systemTwo: null }, port: 0, token: 'tok' });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const auth = { authorization: 'Bearer tok' };
      const add = await fetch(`${server.url}/v1/observations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify({ observations: [{ text: 'The Riverside bridge closed for repairs.', observedAt: '2025-03-03T08:00:00Z' }] }),
      });
      expect(add.status).toBe(200);
      expect((await fetch(`${server.url}/v1/stats`)).status).toBe(401);
      const stats = (await (await fetch(`${server.url}/v1/stats`, { headers: auth })).json()) as any;
      expect(stats.nodes).toBe(1);
      const html = await fetch(`${server.url}/`);
      expect(html.headers.get('content-type')).toMatch(/text\/html/);
      expect(await html.text()).toContain('<script type="module" src="/app.js">');
      const cy = await fetch(`${server.url}/vendor/cytoscape.esm.min.mjs`);
      expect(cy.status).toBe(200);
      expect(cy.headers.get('content-type')).toMatch(/javascript/);
      expect((await fetch(`${server.url}/../package.json`)).status).toBe(404);
      expect((await fetch(`${server.url}/sample-conversation.json`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

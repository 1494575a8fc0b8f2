import { maxHeaderSize } from 'node:http';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { startGateServer } from '../gate/index.js';
import { listenError } from '@mem/gate-service/http';
import { errorBody, exitCodeFor } from '../output.js';
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
      // the plain words shared with the mem CLI (issue 36): served, and imported by the page's module
      const words = await fetch(`${server.url}/wording.js`);
      expect(words.headers.get('content-type')).toMatch(/javascript/);
      expect(await words.text()).toContain("not_useful: 'another step would not help'");
      expect(await (await fetch(`${server.url}/app.js`)).text()).toContain("from '/wording.js'");
    } finally {
      await server.close();
    }
  });
});

describe('requests Node refuses before the app sees them', () => {
  it('a request line + headers over maxHeaderSize get a JSON 431 HEADERS_TOO_LARGE (not a bare 431), on mem serve and mem gate serve', async () => {
    const long = 'x'.repeat(maxHeaderSize + 1024);
    for (const start of [
      () => startServer({ stack: { db: ':memory:', scope: { userId: 'long' }, systemTwo: null }, port: 0 }),
      () => startGateServer({ port: 0, embedder: null }),
    ]) {
      const server = await start();
      try {
        const res = await fetch(`${server.url}/v1/stats?userId=${long}`);
        expect(res.status).toBe(431);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        const body = (await res.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe('HEADERS_TOO_LARGE');
        expect(body.error.message).toContain(String(maxHeaderSize));
        // the server still answers afterwards
        expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      } finally {
        await server.close();
      }
    }
  });

  it('a request that is not HTTP gets a JSON 400 BAD_REQUEST', async () => {
    const server = await startServer({ stack: { db: ':memory:', scope: { userId: 'garbage' }, systemTwo: null }, port: 0 });
    try {
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(server.port, '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
        let got = '';
        socket.on('data', (d) => (got += d.toString('utf8')));
        socket.on('end', () => resolve(got));
        socket.on('error', reject);
      });
      expect(raw).toMatch(/^HTTP\/1\.1 400 /);
      expect(raw).toMatch(/content-type: application\/json/i);
      expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)).error.code).toBe('BAD_REQUEST');
    } finally {
      await server.close();
    }
  });
});

describe('a port that cannot be used', () => {
  it('names the address and what to do (PORT_IN_USE), for mem serve and mem gate serve', async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as net.AddressInfo).port;
    try {
      for (const start of [
        () => startServer({ stack: { db: ':memory:', scope: { userId: 'busy' }, systemTwo: null }, port }),
        () => startGateServer({ port, embedder: null }),
      ]) {
        let err: unknown;
        try {
          await (await start()).close();
        } catch (e) {
          err = e;
        }
        expect(errorBody(err).error).toEqual({ code: 'PORT_IN_USE', message: expect.stringContaining(`cannot listen on 127.0.0.1:${port}: the port is already in use`) });
        expect(errorBody(err).error.message).toMatch(/--port 0/);
        expect(exitCodeFor(err)).toBe(1);
      }
    } finally {
      await new Promise<void>((resolve) => busy.close(() => resolve()));
    }
  });

  it('leaves other listen errors unchanged and maps a privileged port and a foreign address', () => {
    const other = Object.assign(new Error('boom'), { code: 'EWHATEVER' });
    expect(listenError(other, '127.0.0.1', 1)).toBe(other);
    expect(errorBody(listenError(Object.assign(new Error('x'), { code: 'EACCES' }), '127.0.0.1', 80)).error.code).toBe('PORT_NOT_ALLOWED');
    expect(errorBody(listenError(Object.assign(new Error('x'), { code: 'EADDRNOTAVAIL' }), '::2', 8787)).error.message).toContain('cannot listen on [::2]:8787');
  });
});

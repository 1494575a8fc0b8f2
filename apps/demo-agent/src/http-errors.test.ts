import http from 'node:http';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { answerClientErrorsAsJson } from './http-errors.js';

describe('answerClientErrorsAsJson', () => {
  it('replies with a JSON 431 and does not keep a half-open client connection (Node cuts its own replies too)', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    answerClientErrorsAsJson(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const client = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => client.write(`GET /?q=${'x'.repeat(http.maxHeaderSize + 1024)} HTTP/1.1\r\nHost: a\r\n\r\n`));
    try {
      let reply = '';
      client.setEncoding('utf8');
      client.on('data', (d: string) => (reply += d));
      await new Promise<void>((resolve) => client.once('end', () => resolve()));
      expect(reply).toMatch(/^HTTP\/1\.1 431 /);
      expect(JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4)).error.code).toBe('HEADERS_TOO_LARGE');
      // the client never closes its half: the server's side still goes away (poll, no fixed wait)
      const connections = () => new Promise<number>((resolve) => server.getConnections((_e, n) => resolve(n)));
      const deadline = Date.now() + 30_000;
      while ((await connections()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await connections()).toBe(0);
    } finally {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 60_000);
});

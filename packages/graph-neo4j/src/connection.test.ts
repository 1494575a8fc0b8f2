// Real sockets on the loopback interface, no Neo4j: a port nobody listens on (connection refused)
// and a TCP server that accepts but never answers the Bolt handshake (a hung server).
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { MemError } from '@mem/core';
import { createNeo4jStore } from './store.js';

const META = { schemaVersion: 1, embeddingModel: 'm', dimension: 4 };

async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

const sockets: net.Socket[] = [];
const silent = net.createServer((s) => sockets.push(s)); // accepts, never speaks Bolt
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => silent.close(() => r()));
});

describe('unreachable server (real loopback sockets)', () => {
  it('connection refused → StoreUnavailableError within the configured timeout', async () => {
    const port = await closedPort();
    const store = createNeo4jStore({ uri: `bolt://127.0.0.1:${port}`, password: 'secret-pw', connectionTimeoutMs: 1500 });
    const t0 = Date.now();
    const err = await store.open(META).catch((e) => e);
    const elapsed = Date.now() - t0;
    await store.close();
    expect(MemError.isInstance(err)).toBe(true);
    expect(err.name).toBe('StoreUnavailableError');
    expect(err.code).toBe('STORE_UNAVAILABLE');
    expect(err.details.uri).toBe(`bolt://127.0.0.1:${port}`);
    expect(err.message).not.toContain('secret-pw');
    expect(elapsed).toBeLessThan(1500 + 500);
  });

  it('a server that accepts but never answers → StoreUnavailableError within the configured timeout', async () => {
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as net.AddressInfo).port;
    const store = createNeo4jStore({ uri: `bolt://127.0.0.1:${port}`, password: 'pw', connectionTimeoutMs: 800 });
    const t0 = Date.now();
    const err = await store.open(META).catch((e) => e);
    const elapsed = Date.now() - t0;
    await store.close();
    expect(err.code).toBe('STORE_UNAVAILABLE');
    expect(elapsed).toBeGreaterThanOrEqual(700);
    expect(elapsed).toBeLessThan(800 + 700);
    expect(sockets.length).toBeGreaterThan(0); // the driver really connected to our socket
  });
});

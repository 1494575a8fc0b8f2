/**
 * Break-it point 4: tool calls of one client on one scope run in the order they were sent, so a write
 * is visible to every later read from the same client even when the client pipelines them (sends
 * `recall` right after `remember` without awaiting its result). SDK client and server over the SDK's
 * in-memory transport, and over streamable HTTP at /mcp of `mem serve` (in-process).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createStack, type Stack } from '../stack.js';
import { startServer } from '../http/serve.js';
import { createMemMcpServer } from './server.js';
import { createScopeOrder } from './order.js';

type Result = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: any };

let stack: Stack;
beforeAll(async () => {
  stack = await createStack({ db: ':memory:', scope: { userId: 'pip' }, systemTwo: null });
});
afterAll(async () => {
  await stack?.close();
});

async function connected(): Promise<{ client: Client; close: () => Promise<void> }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createMemMcpServer({ stack, scope: { userId: 'pip' } });
  await server.connect(serverSide);
  const client = new Client({ name: 'order-test', version: '0' });
  await client.connect(clientSide);
  return { client, close: async () => (await client.close(), await server.close()) };
}

const call = (client: Client, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<Result>;

describe('MCP tool calls on one scope are ordered (a pipelined read sees the write sent before it)', () => {
  it('remember, then recall / history / stats sent without awaiting: each read sees the memory', async () => {
    const { client, close } = await connected();
    for (let round = 0; round < 3; round++) {
      const text = `Pipelined fact number ${round}: the courier parks the ${['violet', 'amber', 'teal'][round]} van behind the bakery.`;
      const scope = { userId: `pipe-${round}` };
      const [remembered, recalled, history, stats] = await Promise.all([
        call(client, 'remember', { text, scope }),
        call(client, 'recall', { query: 'Where does the courier park the van?', scope }),
        call(client, 'history', { scope }),
        call(client, 'stats', { scope }),
      ]);
      expect(remembered.isError).toBeFalsy();
      const id = remembered.structuredContent.added[0].id;
      expect(recalled.isError).toBeFalsy();
      expect(recalled.structuredContent.evidence.map((e: any) => e.id)).toContain(id);
      expect(history.structuredContent.history.map((h: any) => h.nodeId)).toContain(id);
      expect(stats.structuredContent.nodes).toBe(1);
      // a forget pipelined after a read: the read still sees the memory, a read after the forget does not
      const [seen, forgotten, after] = await Promise.all([
        call(client, 'recall', { query: 'courier van', scope }),
        call(client, 'forget', { id, scope }),
        call(client, 'stats', { scope }),
      ]);
      expect(seen.structuredContent.evidence.map((e: any) => e.id)).toContain(id);
      expect(forgotten.isError).toBeFalsy();
      expect(after.structuredContent.nodes).toBe(0);
    }
    await close();
  });

  it('a failing call does not stop the calls queued after it on the scope', async () => {
    const { client, close } = await connected();
    const scope = { userId: 'pipe-fail' };
    const [bad, good, recalled] = await Promise.all([
      call(client, 'remember', { text: '   ', scope }),
      call(client, 'remember', { text: 'The spare key hangs inside the shed.', scope }),
      call(client, 'recall', { query: 'Where is the spare key?', scope }),
    ]);
    expect(bad.structuredContent.error.code).toBe('TEXT_EMPTY');
    expect(good.isError).toBeFalsy();
    expect(recalled.structuredContent.evidence.map((e: any) => e.text)).toContain('The spare key hangs inside the shed.');
    await close();
  });
});

describe('over streamable HTTP at /mcp (one order shared by every POST)', () => {
  it('a recall sent right after a remember, without awaiting it, sees the memory', async () => {
    const server = await startServer({ stack: { db: ':memory:', scope: { userId: 'pip' }, systemTwo: null }, port: 0, mcpScope: { userId: 'pip' } });
    try {
      const client = new Client({ name: 'order-test', version: '0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
      const [remembered, recalled] = await Promise.all([
        call(client, 'remember', { text: 'The piano tuner comes every second Thursday.' }),
        call(client, 'recall', { query: 'When does the piano tuner come?' }),
      ]);
      expect(recalled.structuredContent.evidence.map((e: any) => e.id)).toContain(remembered.structuredContent.added[0].id);
      await client.close();
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('createScopeOrder', () => {
  const tick = () => new Promise((r) => setTimeout(r, 5));
  it('reads between writes run together; a write waits for every earlier call of its key; other keys do not wait; failures release', async () => {
    const order = createScopeOrder();
    const log: string[] = [];
    const step = (name: string, ms = 20, fail = false) => async () => {
      log.push(`start ${name}`);
      await new Promise((r) => setTimeout(r, ms));
      log.push(`end ${name}`);
      if (fail) throw new Error(name);
      return name;
    };
    const all = Promise.allSettled([
      order.run('a', 'write', step('w1', 30, true)),
      order.run('a', 'read', step('r1')),
      order.run('a', 'read', step('r2')),
      order.run('b', 'read', step('other', 5)),
      order.run('a', 'write', step('w2', 5)),
      order.run('a', 'read', step('r3', 5)),
    ]);
    await tick();
    expect(order.busyKeys).toBe(2);
    const results = await all;
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    const at = (e: string) => log.indexOf(e);
    expect(at('start other')).toBeLessThan(at('end w1')); // another key: not held back
    expect(at('end w1')).toBeLessThan(at('start r1')); // reads wait for the write before them, even a failed one
    expect(at('start r2')).toBeLessThan(at('end r1')); // and run together
    expect(Math.max(at('end r1'), at('end r2'))).toBeLessThan(at('start w2')); // a write waits for the reads before it
    expect(at('end w2')).toBeLessThan(at('start r3'));
    await tick();
    expect(order.busyKeys).toBe(0);
  });
});

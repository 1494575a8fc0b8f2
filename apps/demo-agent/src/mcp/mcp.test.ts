/**
 * The MCP server end to end with the SDK's own Client, over both transports: `mem mcp` as a child
 * process on stdio, and streamable HTTP at /mcp of `mem serve` (in-process server on a random
 * loopback port). Covers the five tools, bad arguments, scope isolation and the missing-scope error.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startServer, type RunningServer } from '../http/serve.js';

const APP = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

type Result = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: any };

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Result> {
  return (await client.callTool({ name, arguments: args })) as Result;
}

/** The error text of a call that must fail: a tool result with isError, or a protocol error. */
async function failure(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  try {
    const r = await call(client, name, args);
    expect(r.isError, `${name} ${JSON.stringify(args)} should fail`).toBe(true);
    return r.content.map((c) => c.text ?? '').join('\n');
  } catch (e) {
    return String((e as Error).message);
  }
}

/** The same checks over any connected client whose default scope is user "alice". */
async function exerciseTools(client: Client) {
  const tools = (await client.listTools()).tools;
  expect(tools.map((t) => t.name).sort()).toEqual(['forget', 'history', 'recall', 'remember', 'stats']);
  const recallTool = tools.find((t) => t.name === 'recall')!;
  expect(Object.keys((recallTool.inputSchema as any).properties)).toEqual(expect.arrayContaining(['query', 'k', 'now', 'scope']));
  expect((recallTool.inputSchema as any).required).toEqual(['query']);

  const a = await call(client, 'remember', { text: 'I switched from espresso to green tea in March.', speaker: 'Alice' });
  expect(a.isError).toBeFalsy();
  expect(a.structuredContent.added).toHaveLength(1);
  expect(a.structuredContent.added[0].action).toBe('add');
  expect(a.structuredContent.scope.userId).toBe('alice');
  const aliceId: string = a.structuredContent.added[0].id;
  await call(client, 'remember', { observations: [{ text: 'My sister Nora lives in Lisbon.', speaker: 'Alice', observedAt: '2024-03-02T10:00:00Z' }] });
  const b = await call(client, 'remember', { text: 'I drink black coffee every morning.', speaker: 'Bob', scope: { userId: 'bob' } });
  expect(b.structuredContent.scope.userId).toBe('bob');

  // recall: evidence in the shared shape + compact trace; scopes do not leak
  const r = await call(client, 'recall', { query: 'What does Alice drink now?', k: 3 });
  expect(r.isError).toBeFalsy();
  const ev = r.structuredContent.evidence;
  expect(ev.find((e: any) => e.id === aliceId)).toMatchObject({ text: 'I switched from espresso to green tea in March.', speaker: 'Alice' });
  expect(Object.keys(ev[0]).sort()).toEqual(['eventTime', 'id', 'observedAt', 'score', 'sourceId', 'speaker', 'status', 'supersededBy', 'text', 'via']);
  expect(ev.map((e: any) => e.text).join(' ')).not.toContain('black coffee');
  expect(r.structuredContent.trace).toMatchObject({ retriever: 'jev' });
  expect(typeof r.structuredContent.trace.stopReason).toBe('string');
  expect(r.content[0].text).toContain('green tea');
  // issue 37: the text the host model reads carries p(evidence) (and says so when memory abstains)
  expect(typeof r.structuredContent.pEvidence).toBe('number');
  expect(r.content[0].text).toContain(`p(evidence) ${r.structuredContent.pEvidence.toFixed(2)}`);
  const rb = await call(client, 'recall', { query: 'What does Alice drink now?', scope: { userId: 'bob' } });
  expect(rb.structuredContent.evidence.map((e: any) => e.text)).toEqual(['I drink black coffee every morning.']);
  // another scope cannot forget alice's memory
  expect(await failure(client, 'forget', { id: aliceId, scope: { userId: 'bob' } })).toContain('NODE_NOT_FOUND');

  // bad arguments are refused, nothing is written
  // arguments that fail a tool's schema, and an unknown tool, come back like every other tool error:
  // isError, text "[CODE] message", structuredContent { error: { code, message } }
  for (const [name, args, code, about] of [
    ['recall', { query: 'x', colour: 'red' }, 'INVALID_INPUT', /colour/],
    // break-it point 1: empty text or query is TEXT_EMPTY, as on every other path (was INVALID_INPUT)
    ['recall', { query: '' }, 'TEXT_EMPTY', /query/i],
    ['remember', { text: '' }, 'TEXT_EMPTY', /text/],
    ['remember', { observations: [{ text: 'ok' }, { text: '  ' }] }, 'TEXT_EMPTY', /text/],
    ['remember', {}, 'INVALID_INPUT', /exactly one of text or observations/],
    ['forget', { id: 7 }, 'INVALID_INPUT', /id/],
    ['no_such_tool', {}, 'UNKNOWN_TOOL', /no_such_tool/],
  ] as const) {
    const r = await call(client, name, args);
    expect(r.isError, name).toBe(true);
    expect(r.structuredContent, name).toEqual({ error: { code, message: expect.stringMatching(about) } });
    expect(r.content[0]!.text, name).toBe(`[${code}] ${r.structuredContent.error.message}`);
  }
  expect(await failure(client, 'recall', { query: 'x', k: 0 })).toMatch(/k|too_small/i);
  expect(await failure(client, 'recall', { query: 'x', colour: 'red' })).toMatch(/colour|unrecognized/i);
  expect(await failure(client, 'remember', { text: 'a', observations: [{ text: 'b' }] })).toMatch(/exactly one of text or observations/);
  expect(await failure(client, 'remember', {})).toMatch(/exactly one of text or observations/);
  expect(await failure(client, 'remember', { text: 'x', scope: { user: 'alice' } })).toMatch(/user|unrecognized/i);
  expect(await failure(client, 'remember', { text: 'x', scope: {} })).toMatch(/at least one of userId, agentId, runId/);
  // a scope value of only invisible characters is not a scope (core's resolveScope): SCOPE_INVALID
  expect(await failure(client, 'remember', { text: 'x', scope: { userId: '\u200b' } })).toContain('SCOPE_INVALID');
  expect(await failure(client, 'stats', { scope: { userId: 'alice', namespace: '\ufeff' } })).toContain('SCOPE_INVALID');
  expect(await failure(client, 'remember', { observations: [{ text: 'x', observedAt: 'not a date' }] })).toContain('BAD_DATE');
  // break-it point 2: year 0000 is out of range (BAD_DATE); a NUL in the text is INVALID_INPUT naming it
  expect(await failure(client, 'remember', { text: 'x', observedAt: '0000-01-01T00:00:00Z' })).toMatch(/^\[BAD_DATE\].*out of range/);
  expect(await failure(client, 'remember', { text: 'a\u0000b' })).toMatch(/^\[INVALID_INPUT\].*U\+0000/);
  // issue 17: times are strict ISO-8601 with a zone; a zone-less one is not read as UTC when no
  // time zone is configured
  expect(await failure(client, 'remember', { observations: [{ text: 'x', observedAt: '2025-04-12 18:00' }] })).toContain('MISSING_TIMEZONE');
  expect(await failure(client, 'recall', { query: 'x', now: '2025-04-12 18:00' })).toContain('MISSING_TIMEZONE');
  expect(await failure(client, 'recall', { query: 'x', now: 'April 12, 2025' })).toContain('BAD_DATE');
  expect(await failure(client, 'recall', { query: 'x', now: '12:00 pm on 12 April, 2025' })).toContain('BAD_DATE');
  expect((await call(client, 'recall', { query: 'x', now: '2025-04-12T18:00:00+02:00' })).isError).toBeFalsy();

  const s1 = await call(client, 'stats', {});
  expect(s1.structuredContent.nodes).toBe(2);
  expect((await call(client, 'stats', { scope: { userId: 'bob' } })).structuredContent.nodes).toBe(1);

  // forget, then it is gone from recall; history keeps the FORGET row
  const f = await call(client, 'forget', { id: aliceId });
  expect(f.structuredContent).toEqual({ id: aliceId, forgotten: true });
  expect(await failure(client, 'forget', { id: aliceId })).toMatch(/forgotten|NODE_NOT_FOUND/);
  const after = await call(client, 'recall', { query: 'What does Alice drink now?' });
  expect(after.structuredContent.evidence.map((e: any) => e.id)).not.toContain(aliceId);
  const h = await call(client, 'history', { nodeId: aliceId });
  expect(h.structuredContent.history.map((x: any) => x.op)).toEqual(expect.arrayContaining(['ADD', 'FORGET']));
  expect((await call(client, 'stats', {})).structuredContent.nodes).toBe(1);

  // forget { all: true, scope }: every memory of the scope named in the call (issue 32); never the default scope
  await call(client, 'remember', { observations: [{ text: 'Carol keeps bees.' }, { text: 'Carol moved to Porto.' }], scope: { userId: 'carol' } });
  expect(await failure(client, 'forget', { all: true })).toMatch(/needs the scope in the call/);
  expect(await failure(client, 'forget', { all: true, id: aliceId, scope: { userId: 'carol' } })).toMatch(/exactly one of id or all/);
  const all = await call(client, 'forget', { all: true, scope: { userId: 'carol' } });
  expect(all.structuredContent).toEqual({ scope: expect.objectContaining({ userId: 'carol' }), forgotten: 2 });
  expect((await call(client, 'stats', { scope: { userId: 'carol' } })).structuredContent.nodes).toBe(0);
  expect((await call(client, 'stats', {})).structuredContent.nodes).toBe(1);
}

describe('mem mcp over stdio (SDK client, child process)', () => {
  let dir: string;
  let client: Client;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'mem-mcp-'));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', '--conditions=@mem/source', 'src/cli.ts', '--db', path.join(dir, 'm.sqlite'), '--user', 'alice', 'mcp'],
      cwd: APP,
      env: { ...(process.env as Record<string, string>), MEM_LLM_BASE_URL: '', MEM_USER: '' },
      stderr: 'pipe',
    });
    client = new Client({ name: 'mem-test', version: '0.0.0' });
    await client.connect(transport);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the five tools with scope isolation and refuses bad arguments', async () => {
    await exerciseTools(client);
  }, 90_000);
});

describe('MCP over streamable HTTP at /mcp of mem serve (SDK client)', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ stack: { db: ':memory:', scope: { userId: 'alice' }, systemTwo: null }, port: 0, mcpScope: { userId: 'alice' }, token: 'sesame' });
  }, 60_000);
  afterAll(async () => server?.close());

  const connect = async (token?: string) => {
    const client = new Client({ name: 'mem-test', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : {} }));
    return client;
  };

  it('serves the five tools with scope isolation and refuses bad arguments', async () => {
    const client = await connect('sesame');
    await exerciseTools(client);
    await client.close();
  }, 90_000);

  it('a body that is not UTF-8 is a JSON-RPC parse error (400), not a memory with U+FFFD in it', async () => {
    const before = (await server.stack.stats()).nodes;
    const body = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember","arguments":{"text":"the caf'), Buffer.from([0xe9]), Buffer.from(' on the corner"}}}')]);
    const res = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { Authorization: 'Bearer sesame', 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toMatchObject({ code: -32700, message: expect.stringMatching(/not UTF-8/) });
    expect((await server.stack.stats()).nodes).toBe(before);
  });

  it('needs the bearer token when the server has one', async () => {
    await expect(connect()).rejects.toThrow(/401|UNAUTHORIZED/);
    await expect(connect('wrong')).rejects.toThrow(/401|UNAUTHORIZED/);
  });

  it('with a configured time zone, zone-less times are read in it (not UTC)', async () => {
    const tz = await startServer({ stack: { db: ':memory:', scope: { userId: 'tz' }, systemTwo: null, timeZone: 'Asia/Tokyo' }, port: 0, mcpScope: { userId: 'tz' } });
    try {
      const client = new Client({ name: 'mem-test', version: '0.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${tz.url}/mcp`)));
      const r = await call(client, 'remember', { observations: [{ text: 'I planted tomatoes today.', observedAt: '2025-07-25 02:00' }] });
      expect(r.isError).toBeFalsy();
      expect((await tz.stack.get(r.structuredContent.added[0].id)).observedAt).toBe('2025-07-24T17:00:00.000Z');
      expect((await call(client, 'recall', { query: 'tomatoes', now: '2025-07-25 09:00' })).isError).toBeFalsy();
      expect(await failure(client, 'recall', { query: 'tomatoes', now: '2025-07-25 25:00' })).toContain('BAD_DATE');
      await client.close();
    } finally {
      await tz.close();
    }
  }, 60_000);

  it('remember takes observedAt and timeZone for one text (issue 36)', async () => {
    const srv = await startServer({ stack: { db: ':memory:', scope: { userId: 'when' }, systemTwo: null }, port: 0, mcpScope: { userId: 'when' } });
    try {
      const client = new Client({ name: 'mem-test', version: '0.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`)));
      const zoned = await call(client, 'remember', { text: 'I ran 18 km.', speaker: 'Maya', observedAt: '2025-04-12T17:45:00Z' });
      expect(zoned.isError).toBeFalsy();
      expect((await srv.stack.get(zoned.structuredContent.added[0].id)).observedAt).toBe('2025-04-12T17:45:00.000Z');
      // a zone-less time in the call's zone; "today" in that zone's calendar
      const local = await call(client, 'remember', { text: 'I planted tomatoes today.', observedAt: '2025-07-25 02:00', timeZone: 'Asia/Tokyo' });
      expect(local.isError).toBeFalsy();
      const node = await srv.stack.get(local.structuredContent.added[0].id);
      expect(node.observedAt).toBe('2025-07-24T17:00:00.000Z');
      expect(node.eventTime?.start).toBe('2025-07-24T15:00:00.000Z'); // 25 July 00:00 in Tokyo
      // timeZone also applies to a list of observations
      const many = await call(client, 'remember', { observations: [{ text: 'I watered them.', observedAt: '2025-07-26 02:00' }], timeZone: 'Asia/Tokyo' });
      expect((await srv.stack.get(many.structuredContent.added[0].id)).observedAt).toBe('2025-07-25T17:00:00.000Z');
      // without a zone anywhere a zone-less time is refused; an unknown zone is a typed error
      expect(await failure(client, 'remember', { text: 'x', observedAt: '2025-07-25 02:00' })).toContain('MISSING_TIMEZONE');
      expect(await failure(client, 'remember', { text: 'x', observedAt: '2025-07-25 02:00', timeZone: 'Mars/Olympus' })).toContain('INVALID_INPUT');
      expect(await failure(client, 'remember', { observations: [{ text: 'x' }], observedAt: '2025-07-25T02:00:00Z' })).toMatch(/go with text/);
      await client.close();
    } finally {
      await srv.close();
    }
  }, 60_000);

  it('without a configured scope every call must name one (no guess)', async () => {
    const bare = await startServer({ stack: { db: ':memory:', scope: { userId: 'default' }, systemTwo: null }, port: 0 });
    try {
      const client = new Client({ name: 'mem-test', version: '0.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${bare.url}/mcp`)));
      expect(await failure(client, 'remember', { text: 'I like rain.' })).toContain('SCOPE_MISSING');
      expect(await failure(client, 'stats', {})).toContain('SCOPE_MISSING');
      const ok = await call(client, 'remember', { text: 'I like rain.', scope: { agentId: 'helper', runId: 'r1' } });
      expect(ok.structuredContent.scope).toMatchObject({ agentId: 'helper', runId: 'r1' });
      expect((await bare.stack.withScope({ userId: 'default' }).stats()).nodes).toBe(0);
      await client.close();
    } finally {
      await bare.close();
    }
  }, 60_000);
});

/**
 * `mem mcp` answers malformed JSON-RPC on stdio as JSON-RPC 2.0 §5.1 says (issue 32 point 5) and
 * stays up: a truncated request gets -32700, JSON that is no JSON-RPC message (`[1,2]`, `{}`) gets
 * -32600 with id null, and a well-formed request sent afterwards is answered. Real child process,
 * raw lines on its stdin (no SDK client, which would never send such lines).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonRpcStdioTransport, readJsonRpcLine } from './stdio.js';

const APP = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('readJsonRpcLine', () => {
  it('parse errors, invalid requests (id null unless readable), batches, and a valid message', () => {
    expect(readJsonRpcLine('{"jsonrpc":"2.0","id":2,"method":"tools/li')).toMatchObject({ reply: { jsonrpc: '2.0', id: null, error: { code: -32700 } } });
    expect(readJsonRpcLine('[1,2]')).toMatchObject({ reply: [{ id: null, error: { code: -32600 } }, { id: null, error: { code: -32600 } }] });
    expect(readJsonRpcLine('[]')).toMatchObject({ reply: { id: null, error: { code: -32600 } } });
    expect(readJsonRpcLine('{}')).toMatchObject({ reply: { id: null, error: { code: -32600 } } });
    expect(readJsonRpcLine('"hello"')).toMatchObject({ reply: { id: null, error: { code: -32600 } } });
    expect(readJsonRpcLine('{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}')).toMatchObject({ reply: { id: null, error: { code: -32600 } } });
    expect(readJsonRpcLine('{"jsonrpc":"2.0","id":7,"method":5}')).toMatchObject({ reply: { id: 7, error: { code: -32600 } } });
    expect(readJsonRpcLine('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toEqual({ message: { jsonrpc: '2.0', id: 1, method: 'ping' } });
  });

  it('an over-long line is answered with -32600 and skipped; the next line is read', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const t = new JsonRpcStdioTransport(input, output, { maxLineBytes: 64 });
    const got: unknown[] = [];
    t.onmessage = (m) => got.push(m);
    await t.start();
    input.write(`{"jsonrpc":"2.0","id":1,"method":"${'x'.repeat(100)}`);
    input.write(`${'y'.repeat(100)}"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n`);
    const lines = String(output.read() ?? '').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/longer than 64 bytes/) } }]);
    expect(got).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
    await t.close();
  });
});

describe('JsonRpcStdioTransport: bytes that are not UTF-8', () => {
  it('a line holding them is answered with -32700 and not run (it reached remember with U+FFFD in the text); the next line is read', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const t = new JsonRpcStdioTransport(input, output);
    const got: unknown[] = [];
    t.onmessage = (m) => got.push(m);
    await t.start();
    input.write(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"remember","arguments":{"text":"caf'), Buffer.from([0xe9]), Buffer.from(' noir"}}}\n{"jsonrpc":"2.0","id":4,"method":"ping"}\n')]));
    const lines = String(output.read() ?? '').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/not UTF-8/) } }]);
    expect(got).toEqual([{ jsonrpc: '2.0', id: 4, method: 'ping' }]);
    await t.close();
  });
});

describe('mem mcp over stdio: malformed JSON-RPC (child process)', () => {
  let dir: string;
  let child: ChildProcessWithoutNullStreams;
  let out = '';
  const lines = () => out.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  /** Wait until stdout holds `n` JSON lines. */
  const until = async (n: number) => {
    const t0 = Date.now();
    while (lines().length < n) {
      if (child.exitCode !== null) throw new Error(`mem mcp exited ${child.exitCode}`);
      if (Date.now() - t0 > 30_000) throw new Error(`timed out waiting for ${n} lines; got:\n${out}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return lines();
  };

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'mem-mcp-rpc-'));
    child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@mem/source', 'src/cli.ts', '--db', path.join(dir, 'm.sqlite'), '--user', 'alice', 'mcp'], {
      cwd: APP,
      env: { ...process.env, MEM_LLM_BASE_URL: '', MEM_USER: '' },
    });
    child.stdout.on('data', (d) => (out += d));
  });
  afterAll(() => {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('-32700 for a truncated request, -32600 (id null) for [1,2] and {}, then still answers a valid request', async () => {
    child.stdin.write('{"jsonrpc":"2.0","id":2,"method":"tools/li\n');
    expect((await until(1))[0]).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    child.stdin.write('[1,2]\n');
    expect((await until(2))[1]).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } },
    ]);
    child.stdin.write('{}\n');
    expect((await until(3))[2]).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    // still up: a well-formed initialize gets its answer
    const init = { jsonrpc: '2.0', id: 3, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } };
    child.stdin.write(`${JSON.stringify(init)}\n`);
    const answer = (await until(4))[3];
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: 3, result: { serverInfo: { name: 'mem' } } });
    expect(child.exitCode).toBe(null);
  }, 90_000);
});

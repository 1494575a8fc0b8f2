import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exitQuietlyOnBrokenPipe } from './output.js';

describe('exitQuietlyOnBrokenPipe', () => {
  it('exits 0 on EPIPE and rethrows other stream errors', () => {
    const stream = new EventEmitter();
    const codes: number[] = [];
    exitQuietlyOnBrokenPipe(stream, (code) => codes.push(code));
    stream.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(codes).toEqual([0]);
    expect(() => stream.emit('error', Object.assign(new Error('boom'), { code: 'EIO' }))).toThrow('boom');
    expect(codes).toEqual([0]);
  });
});

describe('mem … | head (reader closes the pipe)', () => {
  it('exits 0 without an EPIPE stack', async () => {
    const pkg = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
    const run = (args: string[]) =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const child = spawn(process.execPath, args, { cwd: pkg, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (err += d));
        child.on('exit', (code) => resolve({ code, out, err }));
      });
    const tsx = (await run(['--input-type=module', '-e', "console.log(import.meta.resolve('tsx'))"])).out.trim();
    const code = await new Promise<{ code: number | null; err: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', tsx, '--conditions=@mem/source', 'src/cli.ts', '--db', ':memory:', '--user', 'pipe', 'history'], { cwd: pkg, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy(); // like `head` exiting before mem writes
      let err = '';
      child.stderr.on('data', (d) => (err += d));
      child.on('exit', (c) => resolve({ code: c, err }));
    });
    expect(code.err).not.toMatch(/EPIPE/);
    expect(code.code).toBe(0);
  }, 60_000);
});

import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exitQuietlyOnBrokenPipe, relationLines } from './output.js';

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

describe('relationLines (mem inspect, issue 36)', () => {
  const me = 'm';
  const node = (id: string) => ({ id, text: `text of ${id}` });
  const edge = (from: string, to: string, subtype: string, probability: number, origin = 'rule', view = 'temporal') => ({ relation: { from, to, view, subtype, probability, origin }, node: node(from === me ? to : from) });

  it('prints a symmetric link stored twice (rule chain + System One) once, with the higher p, ↔ and the other p', () => {
    const lines = relationLines(me, [edge('a', me, 'SAME_EPISODE', 1), edge(me, 'a', 'CONCURRENT', 1), edge(me, 'a', 'SAME_EPISODE', 0.96, 'controller')]);
    expect(lines).toEqual([
      { view: 'temporal', subtype: 'SAME_EPISODE', probability: 1, arrow: '↔', node: node('a'), also: [{ origin: 'controller', probability: 0.96, from: me }] },
      { view: 'temporal', subtype: 'CONCURRENT', probability: 1, arrow: '→', node: node('a'), also: [] },
    ]);
  });

  it('takes the higher p whichever edge comes first, and keeps the two directions of a directed kind apart', () => {
    const [sem] = relationLines(me, [edge(me, 'b', 'RELATED_TO', 0.7, 'controller', 'semantic'), edge(me, 'b', 'RELATED_TO', 0.9, 'rule', 'semantic')]);
    expect(sem).toMatchObject({ probability: 0.9, arrow: '→', also: [{ origin: 'controller', probability: 0.7 }] });
    const causal = relationLines(me, [edge(me, 'c', 'LEADS_TO', 0.8, 'controller', 'causal'), edge('c', me, 'LEADS_TO', 0.6, 'controller', 'causal')]);
    expect(causal.map((l) => [l.arrow, l.probability])).toEqual([['→', 0.8], ['←', 0.6]]);
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemError } from '@mem/core';
import { checkOutputPath, runEval, runLocomoEval, type PreparedConversation } from './engine.js';
import type { EvalSystemFactory } from './types.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'mem-eval-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function failure(options: Parameters<typeof runLocomoEval>[0]): Promise<MemError> {
  try {
    await runLocomoEval(options);
  } catch (e) {
    expect(MemError.isInstance(e)).toBe(true);
    return e as MemError;
  }
  throw new Error('expected runLocomoEval to fail');
}

describe('runLocomoEval input files', () => {
  it('a missing LoCoMo file: INVALID_INPUT naming the path in plain words, and where the data comes from', async () => {
    const missing = path.join(dir, 'locomo10.json');
    const e = await failure({ data: missing, systems: ['bm25'] });
    expect(e.code).toBe('INVALID_INPUT');
    expect(e.message).toContain(`cannot read LoCoMo data ${missing}: no such file or directory`);
    expect(e.message).toMatch(/not in this repository: pass --data/);
    expect(e.message).not.toMatch(/ENOENT/);
  });

  it('a file that is not JSON, and a missing audit file, are INVALID_INPUT too', async () => {
    const broken = path.join(dir, 'broken.json');
    writeFileSync(broken, '[{"sample_id": ');
    const e = await failure({ data: broken, systems: ['bm25'] });
    expect(e.code).toBe('INVALID_INPUT');
    expect(e.message).toMatch(/cannot read LoCoMo data .*broken\.json: not valid JSON/);
    const audit = await failure({ data: [{ sample_id: 'c', conversation: {}, qa: [] }], systems: ['bm25'], audit: path.join(dir, 'audit.json') });
    expect(audit.code).toBe('INVALID_INPUT');
    expect(audit.message).toMatch(/cannot read audit file .*audit\.json: no such file or directory$/);
  });
});

describe('checkOutputPath (--out / --dump, checked before a run; break-it)', () => {
  it('a missing folder or a folder as the file is INVALID_INPUT naming the flag; a writable path passes', () => {
    const codeOf = (f: () => void) => {
      try {
        f();
      } catch (e) {
        return MemError.isInstance(e) ? `${e.code}: ${e.message}` : 'other';
      }
      return 'none';
    };
    expect(codeOf(() => checkOutputPath(path.join(dir, 'no-such-folder', 'r.json'), '--out'))).toMatch(/^INVALID_INPUT: --out .*does not exist/);
    const sub = path.join(dir, 'a-folder');
    mkdirSync(sub, { recursive: true });
    expect(codeOf(() => checkOutputPath(sub, '--dump'))).toMatch(/^INVALID_INPUT: --dump .* is a folder/);
    expect(codeOf(() => checkOutputPath(path.join(dir, 'r.json'), '--out'))).toBe('none');
    expect(codeOf(() => checkOutputPath(undefined, '--out'))).toBe('none');
  });
});

describe('query timing with an embedding cache', () => {
  // Two systems reading the run's embedder: a cached one (it has `stats`, like createCachedEmbedder) or a plain one.
  function run(cached: boolean) {
    const log: string[] = [];
    const embedder = {
      model: 'fake',
      dimension: 1,
      embed: async (texts: string[]) => {
        log.push(`embed ${texts.join('|')}`);
        return texts.map(() => new Float32Array([1]));
      },
      ...(cached ? { stats: () => ({ hits: 0, misses: 0, entries: 0, file: '' }) } : {}),
    };
    const fake = (name: string): EvalSystemFactory => (ctx) => ({
      name,
      build: async () => {
        ctx.runShared.set('embedder', embedder);
        return { observations: 1, gate: { add: 1, update: 0, noop: 0 } };
      },
      search: async (q) => {
        log.push(`${name} ${q}`);
        return { ids: ['D1:1'] };
      },
      close: async () => {},
    });
    const conv: PreparedConversation = {
      index: 0,
      observations: [],
      questions: ['q1', 'q2', 'q1'].map((question, i) => ({ qaIndex: i, category: 1, groups: ['overall'], answerGroups: [], question, answer: '', evidence: ['D1:1'] })),
    };
    return runEval([conv], { dataset: 't', groups: ['overall'], systems: ['a', 'b'], registry: { a: fake('a'), b: fake('b') }, ks: [1] }).then(() => log);
  }

  it('embeds every distinct question once, one per call, before the first system is timed', async () => {
    expect(await run(true)).toEqual(['embed q1', 'embed q2', 'a q1', 'a q2', 'a q1', 'b q1', 'b q2', 'b q1']);
  });

  it('embeds nothing ahead without a cache (each system pays its own query embedding)', async () => {
    expect(await run(false)).toEqual(['a q1', 'a q2', 'a q1', 'b q1', 'b q2', 'b q1']);
  });
});

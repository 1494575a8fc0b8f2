import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemError } from '@mem/core';
import { runLocomoEval } from './engine.js';

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

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GateError } from '@mem/gate-vmf';
import { readState } from './state.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('readState (break-it: corrupt state files)', () => {
  it('an absent file is no state; an empty, truncated, null or non-object file is BAD_SNAPSHOT naming the file, and is left untouched', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mem-gate-state-'));
    dirs.push(dir);
    expect(await readState(join(dir, 'none.json'))).toBeNull();
    for (const [name, text] of [['empty.json', ''], ['cut.json', '{"format":'], ['null.json', 'null'], ['list.json', '[1,2]'], ['num.json', '3']] as const) {
      const f = join(dir, name);
      await writeFile(f, text);
      const err = await readState(f).then(
        () => null,
        (e) => e,
      );
      expect(GateError.isInstance(err), name).toBe(true);
      expect(err.code, name).toBe('BAD_SNAPSHOT');
      expect(err.message, name).toContain(f);
      expect(await readFile(f, 'utf8')).toBe(text);
    }
  });
});

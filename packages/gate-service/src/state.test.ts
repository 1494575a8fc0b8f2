import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GateError } from '@mem/gate-vmf';
import { readState, removeStaleTempFiles, writeStateAtomic } from './state.js';

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

describe('removeStaleTempFiles (break-it finding 9: a writer SIGKILLed mid-write)', () => {
  it('removes only this state file\'s temporaries whose writer pid is not running; everything else stays', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mem-gate-tmp-'));
    dirs.push(dir);
    const state = join(dir, 'gate.json');
    await writeStateAtomic(state, { format: '@mem/gate-vmf' } as any);
    const dead = 999_001;
    const alive = 999_002;
    const stale = [`.gate.json.${dead}.0a1b2c3d.tmp`, `.gate.json.${dead}.ffffffff.tmp`];
    const kept = [
      `.gate.json.${alive}.0a1b2c3d.tmp`, // its writer is still running
      `.gate.json.${process.pid}.0a1b2c3d.tmp`, // this process's own write in progress
      `.other.json.${dead}.0a1b2c3d.tmp`, // another state file's
      `.gate.json.${dead}.0a1b2c3d.tmp.bak`,
      `.gate.json.${dead}.XYZ.tmp`,
      `gate.json.${dead}.0a1b2c3d.tmp`,
      `.gatexjson.${dead}.0a1b2c3d.tmp`, // the "." of the name is not a wildcard
      'notes.txt',
    ];
    for (const f of [...stale, ...kept]) await writeFile(join(dir, f), '{"half":');
    await mkdir(join(dir, `.gate.json.${dead}.deadbeef.tmp`)); // a directory of that name is not ours
    await symlink(join(dir, 'notes.txt'), join(dir, `.gate.json.${dead}.cafebabe.tmp`));
    const asked: number[] = [];
    const removed = await removeStaleTempFiles(state, {
      isRunning: (pid) => {
        asked.push(pid);
        return pid === alive;
      },
    });
    expect(removed.sort()).toEqual(stale.map((f) => join(dir, f)).sort());
    expect(asked).not.toContain(process.pid);
    const left = await readdir(dir);
    for (const f of stale) expect(left).not.toContain(f);
    for (const f of [...kept, 'gate.json', `.gate.json.${dead}.deadbeef.tmp`, `.gate.json.${dead}.cafebabe.tmp`]) expect(left).toContain(f);
    expect(JSON.parse(await readFile(state, 'utf8'))).toEqual({ format: '@mem/gate-vmf' });
    // a state file in a directory that does not exist yet: nothing to clean
    expect(await removeStaleTempFiles(join(dir, 'none', 'gate.json'))).toEqual([]);
  });
});

import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const APP = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(APP, 'bin', 'mem.js');

describe('the mem bin (bin/mem.js → dist/cli.js)', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'mem-bin-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('answers --version from package.json without loading the bundle', () => {
    const version = JSON.parse(readFileSync(path.join(APP, 'package.json'), 'utf8')).version;
    expect(execFileSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' })).toBe(`${version}\n`);
    expect(execFileSync(process.execPath, [BIN, '-V'], { encoding: 'utf8' })).toBe(`${version}\n`);
  });

  it('without a build, exits 1 and names the commands that build or run the sources', () => {
    // a copy of the launcher in a package folder that has no dist/
    mkdirSync(path.join(tmp, 'bin'));
    copyFileSync(BIN, path.join(tmp, 'bin', 'mem.js'));
    writeFileSync(path.join(tmp, 'package.json'), JSON.stringify({ type: 'module', version: '9.9.9' }));
    const r = spawnSync(process.execPath, [path.join(tmp, 'bin', 'mem.js'), 'stats'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('the CLI is not built');
    expect(r.stderr).toContain('pnpm mem:dev');
  });
});

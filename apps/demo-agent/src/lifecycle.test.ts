// Real processes: `mem gate serve` (no embedder to load, so it starts fast) must exit on SIGTERM /
// SIGHUP and when the process that launched it is killed (what `kill <pid of pnpm>` does).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isAlive, launcherChain } from './lifecycle.js';

const pkg = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const serveArgs = ['--conditions=@mem/source', 'src/cli.ts', 'gate', 'serve', '--port', '0', '--json'];

/** Resolve with the accumulated stdout once `pattern` appears in it. */
function waitFor(child: ChildProcess, pattern: RegExp, ms = 50_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const t = setTimeout(() => reject(new Error(`timeout waiting for ${pattern}; got: ${out}`)), ms);
    child.stdout!.on('data', (d) => {
      out += String(d);
      if (pattern.test(out)) {
        clearTimeout(t);
        resolve(out);
      }
    });
  });
}

const exited = (child: ChildProcess) => new Promise<number | null>((r) => child.once('exit', (code) => r(code)));

async function tsxLoader(): Promise<string> {
  const probe = spawn(process.execPath, ['--input-type=module', '-e', "console.log(import.meta.resolve('tsx'))"], { cwd: pkg, stdio: ['ignore', 'pipe', 'inherit'] });
  return (await waitFor(probe, /\n/)).trim();
}

describe('long-running commands stop cleanly', () => {
  it('the launcher chain starts at the parent', () => {
    expect(launcherChain(process.ppid)[0]).toBe(process.ppid);
    expect(isAlive(process.pid)).toBe(true);
  });

  it('exits 0 on SIGTERM and SIGHUP, and when its launcher is killed', async () => {
    const tsx = await tsxLoader();
    const direct = (['SIGTERM', 'SIGHUP'] as const).map(async (sig) => {
      const child = spawn(process.execPath, ['--import', tsx, ...serveArgs], { cwd: pkg, stdio: ['ignore', 'pipe', 'ignore'] });
      const done = exited(child);
      await waitFor(child, /"url"/);
      child.kill(sig);
      return done;
    });

    // A launcher (like pnpm) that does not forward signals, killed hard.
    const launcherSrc = `import { spawn } from 'node:child_process';
const child = spawn(process.execPath, ['--import', ${JSON.stringify(tsx)}, ...${JSON.stringify(serveArgs)}], { stdio: ['ignore', 'pipe', 'ignore'] });
child.stdout.on('data', (d) => process.stdout.write(String(d).includes('"url"') ? 'child ' + child.pid + ' up\\n' : ''));
setInterval(() => {}, 1000);`;
    const launcher = spawn(process.execPath, ['--input-type=module', '-e', launcherSrc], { cwd: pkg, stdio: ['ignore', 'pipe', 'ignore'] });
    const up = await waitFor(launcher, /child (\d+) up/);
    const childPid = Number(/child (\d+) up/.exec(up)![1]);
    expect(isAlive(childPid)).toBe(true);
    launcher.kill('SIGKILL');
    const t0 = Date.now();
    while (isAlive(childPid) && Date.now() - t0 < 8000) await new Promise((r) => setTimeout(r, 100));
    const alive = isAlive(childPid);
    if (alive) process.kill(childPid, 'SIGKILL');
    expect(alive).toBe(false);

    expect(await Promise.all(direct)).toEqual([0, 0]);
  }, 120_000);
});

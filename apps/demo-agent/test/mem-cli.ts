// Test tooling of the demo agent (not library code): run the `mem` CLI in-process.
import { vi } from 'vitest';
import { main } from '../src/cli.js';

/** Run `mem …args` in-process through `main`; returns what it wrote to stdout and stderr, and its exit code. */
export async function runMem(...args: string[]): Promise<{ out: string; err: string; code: number }> {
  let out = '';
  let err = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: any) => ((out += String(chunk)), true));
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: any) => ((err += String(chunk)), true));
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void (out += `${a.join(' ')}\n`));
  process.exitCode = 0;
  try {
    await main(['node', 'mem', ...args]);
  } finally {
    o.mockRestore();
    e.mockRestore();
    log.mockRestore();
  }
  const code = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  return { out, err, code };
}

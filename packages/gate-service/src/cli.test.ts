// The mem-gate CLI run from its sources in a child process (ours): bad flags exit 2 with the usage.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const CLI = resolve(__dirname, 'cli.ts');

function runCli(args: string[]): Promise<{ code: number | null; err: string }> {
  return new Promise((done) => {
    execFile(process.execPath, ['--import', 'tsx', '--conditions=@mem/source', CLI, ...args], { cwd: resolve(__dirname, '..'), timeout: 60_000 }, (e, _out, err) => {
      done({ code: e ? ((e as { code?: number }).code ?? null) : 0, err });
    });
  });
}

describe('mem-gate serve flags', () => {
  it('a port above 65535 exits 2 naming the range (it was Node\'s ERR_SOCKET_BAD_PORT, exit 1)', async () => {
    const r = await runCli(['serve', '--port', '70000']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('mem-gate: --port must be an integer from 0 to 65535, got "70000"');
  }, 60_000);
});

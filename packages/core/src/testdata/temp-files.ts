// A test file's temporary folder (tests only).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * A temporary folder `<tmp>/<prefix>XXXXXX` for the calling test file, removed in its `afterAll`, and
 * `file()`: a new database path in it on every call (`<letter>-<n>.db`).
 */
export function tempDbFolder(prefix: string, letter: string): { dir: string; file: () => string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  return { dir, file: () => join(dir, `${letter}-${++n}.db`) };
}

/**
 * The bench's "before" baseline (ours): the pre-optimisation controller that used to live in
 * src/reference/, loaded from git history instead of a copy in the tree. `git archive` extracts that
 * commit's packages/system-one/src into node_modules/.cache (ignored) once; the bench imports it from
 * there. Needs the repository's history (a shallow clone lacks it: `git fetch --unshallow`).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Tag (and the commit it names) holding the frozen controller in packages/system-one/src/reference/. */
export const REFERENCE_TAG = 'system-one-reference';
export const REFERENCE_COMMIT = '8c2c84c608013a6f7fcc3701ba21283c2cbc7274';

const pkg = resolve(import.meta.dirname, '..');

/** Directory of the extracted reference sources (controller.ts, offline.ts, lru.ts, ...). */
export function referenceDir(): string {
  const dir = resolve(pkg, 'node_modules/.cache/system-one-reference', REFERENCE_COMMIT.slice(0, 12));
  const src = resolve(dir, 'packages/system-one/src/reference');
  if (existsSync(resolve(src, 'controller.ts'))) return src;
  const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: pkg, encoding: 'utf8' }).trim();
  const rev = REFERENCE_COMMIT;
  try {
    execFileSync('git', ['cat-file', '-e', `${rev}^{commit}`], { cwd: root, stdio: 'ignore' });
  } catch {
    throw new Error(`commit ${rev} (tag ${REFERENCE_TAG}) is not in this clone's history; run \`git fetch --unshallow --tags\` (or the bench with --no-speed)`);
  }
  mkdirSync(dir, { recursive: true });
  const tar = execFileSync('git', ['archive', '--format=tar', rev, 'packages/system-one/src'], { cwd: root, maxBuffer: 64 << 20 });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  return src;
}

/** `createSystemOne` of the pre-optimisation controller. */
export async function loadReferenceController(): Promise<(options?: Record<string, unknown>) => { ask: (...a: any[]) => Promise<any> }> {
  const mod = await import(pathToFileURL(resolve(referenceDir(), 'controller.ts')).href);
  return mod.createSystemOne;
}

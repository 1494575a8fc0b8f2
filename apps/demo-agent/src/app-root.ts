/**
 * The demo-agent package folder (ours), found from this module's location by walking up to the
 * package.json named "@mem/demo-agent": the same answer from the TypeScript sources (src/…) and from
 * the tsup bundle (dist/, where every module is one folder deep). Files the app ships next to its
 * code (public/, data/) are resolved from here.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | null = null;

/** Absolute path of the demo-agent package folder. Throws if it cannot be found (a broken install). */
export function appRoot(): string {
  if (root) return root;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === '@mem/demo-agent') return (root = dir);
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`@mem/demo-agent: no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

/** `path.join(appRoot(), ...parts)`. */
export function appFile(...parts: string[]): string {
  return path.join(appRoot(), ...parts);
}

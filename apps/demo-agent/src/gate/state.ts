/**
 * Persistence of the gate's state (ours): `gate.serialize()` written atomically — to a temporary
 * file in the same directory, fsync'ed, then renamed over the target — so a crash leaves either
 * the old or the new state, never half a file.
 */
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { GateSnapshot } from '@mem/gate-vmf';

/** Write `snapshot` as JSON to `path` atomically (temp file + fsync + rename). */
export async function writeStateAtomic(path: string, snapshot: GateSnapshot): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fh = await open(tmp, 'w', 0o600);
  try {
    await fh.writeFile(JSON.stringify(snapshot));
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

/** Read a state file; null when it does not exist. Throws on unreadable / non-JSON content. */
export async function readState(path: string): Promise<GateSnapshot | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e: any) {
    if (e?.code === 'ENOENT') return null;
    throw e;
  }
  return JSON.parse(text) as GateSnapshot;
}

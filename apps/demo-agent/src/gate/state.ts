/**
 * Persistence of the gate's state (ours): `gate.serialize()` written atomically — to a temporary
 * file in the same directory, fsync'ed, then renamed over the target — so a crash leaves either
 * the old or the new state, never half a file.
 */
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { GateError, type GateSnapshot } from '@mem/gate-vmf';

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

/**
 * Read a state file; null when it does not exist (ours).
 * @throws GateError BAD_SNAPSHOT when the file is empty, not JSON, or not a JSON object (the file
 *   is named and left as it is: it is never treated as "no state" and overwritten). Other read
 *   errors (EACCES, EISDIR, …) are rethrown.
 */
export async function readState(path: string): Promise<GateSnapshot | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e: any) {
    if (e?.code === 'ENOENT') return null;
    throw e;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new GateError('BAD_SNAPSHOT', `The gate state file ${path} is not valid JSON (${(e as Error).message}); repair it, or move it away to start empty`, { cause: e });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new GateError('BAD_SNAPSHOT', `The gate state file ${path} does not hold a gate snapshot (a JSON object); repair it, or move it away to start empty`);
  }
  return parsed as GateSnapshot;
}

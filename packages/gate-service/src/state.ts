/**
 * Persistence of the gate's state (ours): `gate.serialize()` written atomically — to a temporary
 * file in the same directory, fsync'ed, then renamed over the target — so a crash leaves either
 * the old or the new state, never half a file.
 */
import { lstat, mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { GateError, type GateSnapshot } from '@mem/gate-vmf';

/** The temporary file name of a write of `path` by process `pid`: `.<name>.<pid>.<8 hex>.tmp`. */
function tempName(path: string, pid: number): string {
  return `.${basename(path)}.${pid}.${randomBytes(4).toString('hex')}.tmp`;
}

/** Write `snapshot` as JSON to `path` atomically (temp file + fsync + rename). */
export async function writeStateAtomic(path: string, snapshot: GateSnapshot): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, tempName(path, process.pid));
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

/** True when a process with this pid exists (signal 0; EPERM: it exists but is another user's). */
export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e: any) {
    return e?.code === 'EPERM';
  }
}

/**
 * Remove the temporary files a killed writer of `path` left behind (break-it finding 9): regular
 * files next to it named exactly as `writeStateAtomic` names them, `.<name>.<pid>.<8 hex>.tmp`, whose
 * pid is not this process and not a running process. Anything else (other names, other state
 * files' temporaries, a live writer's file, directories, symlinks) is left alone. Returns the
 * removed paths; a missing directory is nothing to clean.
 */
export async function removeStaleTempFiles(path: string, options: { isRunning?: (pid: number) => boolean } = {}): Promise<string[]> {
  const isRunning = options.isRunning ?? isProcessRunning;
  const dir = dirname(path);
  const escaped = basename(path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`^\\.${escaped}\\.(\\d{1,10})\\.[0-9a-f]{8}\\.tmp$`);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (e: any) {
    if (e?.code === 'ENOENT' || e?.code === 'ENOTDIR') return [];
    throw e;
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = pattern.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid || (pid > 0 && isRunning(pid))) continue;
    const file = join(dir, name);
    const st = await lstat(file).catch(() => null);
    if (!st?.isFile()) continue;
    await rm(file, { force: true });
    removed.push(file);
  }
  return removed;
}

/**
 * Files of persisted HNSW graphs (`ann.persist`, ours): cleaning what killed saves left behind in a
 * store's `.ann` folder.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join as joinPath } from 'node:path';

/** Whether a process with this id is running (a signal-0 probe; EPERM = running as another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Remove the leftovers of killed graph saves (`<sid>.hnsw.<pid>.<ms>.tmp[.json]`) from a `.ann`
 * folder, keeping those of a save still running in another live process. Never throws.
 */
export function sweepAnnFolder(folder: string): void {
  try {
    for (const f of readdirSync(folder)) {
      const m = /^\d+\.hnsw\.(\d+)\.\d+\.tmp(\.json)?$/u.exec(f);
      if (!m) continue;
      const pid = Number(m[1]);
      if (pid !== process.pid && processAlive(pid)) continue;
      rmSync(joinPath(folder, f), { force: true });
    }
  } catch {
    // no folder, or not readable: nothing to clean
  }
}

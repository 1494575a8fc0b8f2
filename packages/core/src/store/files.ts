/**
 * Checks of the files that export, import and backup read or write (ours, issue 32): a path that
 * does not exist, is a folder, sits in a missing folder, already exists, or is one of a SQLite
 * store's own files is refused with MemValidationError `INVALID_INPUT` naming the path
 * (`details.path`) and the reason (`details.reason`: the errno-style code `ENOENT`, `EISDIR`,
 * `ENOTDIR`, `EEXIST`, `ENOTREG` (a device, pipe or socket), `EACCES`, or `STORE_FILE`), before anything is read or written.
 */
import { accessSync, constants, existsSync, linkSync, readdirSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve as resolvePath } from 'node:path';
import { MemValidationError } from '../errors.js';
import { processAlive } from './ann-files.js';

/** Suffixes of the files SQLite keeps beside a database (`<db>-wal`, `<db>-shm`, `<db>-journal`). */
export const SQLITE_SIDE_FILES: readonly string[] = ['-wal', '-shm', '-journal'];
/** Suffixes of the folders @mem keeps beside a SQLite store (`<db>.ann/`: saved HNSW graphs; `<db>.waiters/`: the lock queue). */
export const STORE_SIDE_FOLDERS: readonly string[] = ['.ann', '.waiters'];

/** The absolute path with symbolic links of its existing part resolved (a link to a store file is that file). */
export function canonicalPath(file: string): string {
  const abs = resolvePath(file);
  try {
    return realpathSync(abs);
  } catch {
    try {
      return join(realpathSync(dirname(abs)), basename(abs));
    } catch {
      return abs;
    }
  }
}

function refuse(path: string, reason: string, message: string): never {
  throw new MemValidationError('INVALID_INPUT', message, { details: { path, reason } });
}

/**
 * Whether `file` is one of the files of the SQLite store at `db` (the database, its WAL, shared
 * memory or journal, or anything in its `.ann` / `.waiters` folders), or the WAL / shared memory /
 * journal of another existing SQLite file: writing there destroys a store.
 */
export function isStoreFile(file: string, db: string | null): boolean {
  const f = canonicalPath(file);
  if (db) {
    const d = canonicalPath(db);
    if (f === d || SQLITE_SIDE_FILES.some((s) => f === d + s)) return true;
    if (STORE_SIDE_FOLDERS.some((s) => f === d + s || f.startsWith(`${d}${s}/`))) return true;
  }
  for (const s of SQLITE_SIDE_FILES) if (f.endsWith(s) && existsSync(f.slice(0, -s.length))) return true;
  return false;
}

/**
 * Check a file about to be written (the destination of `mem export --out`, `mem backup`): its
 * folder exists, it is not a folder, it is no file of the store `protect` (nor another SQLite
 * file's WAL / shm / journal), and it does not exist unless `overwrite`.
 * @param what how the message names it, e.g. "export file", "backup destination"
 * @param forceHint how the caller replaces an existing file, e.g. "--force"
 * @returns the absolute path
 * @throws MemValidationError INVALID_INPUT with `details.path` and `details.reason` (ENOENT, ENOTDIR, EISDIR, ENOTREG, EEXIST, EACCES, STORE_FILE)
 */
export function checkOutputFile(file: string, options: { what: string; overwrite?: boolean; forceHint?: string; protect?: string | null }): string {
  if (typeof file !== 'string' || !file.trim()) throw new MemValidationError('INVALID_INPUT', `The ${options.what} needs a file path`);
  const dest = resolvePath(file);
  if (isStoreFile(dest, options.protect ?? null)) {
    refuse(dest, 'STORE_FILE', `The ${options.what} ${dest} is a file of a SQLite store (the database, its -wal / -shm / -journal, or its .ann / .waiters folder): writing it would destroy that store; choose another file`);
  }
  const folder = dirname(dest);
  let dirStat;
  try {
    dirStat = statSync(folder);
  } catch {
    refuse(dest, 'ENOENT', `The folder ${folder} of the ${options.what} ${dest} does not exist; create it first`);
  }
  if (!dirStat.isDirectory()) refuse(dest, 'ENOTDIR', `The ${options.what} ${dest} is inside ${folder}, which is not a folder`);
  if (existsSync(dest)) {
    const st = statSync(dest);
    if (st.isDirectory()) refuse(dest, 'EISDIR', `The ${options.what} ${dest} is a folder; name a file (e.g. ${join(dest, 'memories.jsonl')})`);
    // a device, pipe or socket (e.g. /dev/stdout) would be replaced by the rename, never written to
    if (!st.isFile()) refuse(dest, 'ENOTREG', `The ${options.what} ${dest} is not a regular file (a device, pipe or socket); name a file${options.what === 'export file' ? ', or leave out --out to write to stdout' : ''}`);
    // a hard link of the store's database is the database
    if (options.protect && existsSync(options.protect)) {
      const db = statSync(options.protect);
      if (db.ino === st.ino && db.dev === st.dev) refuse(dest, 'STORE_FILE', `The ${options.what} ${dest} is a hard link of the store's database ${options.protect}: writing it would destroy the store; choose another file`);
    }
    if (!options.overwrite) refuse(dest, 'EEXIST', `The ${options.what} ${dest} exists; choose another file or replace it (${options.forceHint ?? 'overwrite: true'})`);
  }
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    refuse(dest, 'EACCES', `Cannot write the ${options.what} ${dest}: the folder ${folder} is not writable`);
  }
  return dest;
}

/**
 * Check a file about to be read (the file of `mem import`): it exists, is a file, and is readable.
 * @returns the absolute path
 * @throws MemValidationError INVALID_INPUT with `details.path` and `details.reason` (ENOENT, EISDIR, EACCES)
 */
export function checkInputFile(file: string, what: string): string {
  if (typeof file !== 'string' || !file.trim()) throw new MemValidationError('INVALID_INPUT', `The ${what} needs a file path`);
  const src = resolvePath(file);
  let st;
  try {
    st = statSync(src);
  } catch {
    refuse(src, 'ENOENT', `Cannot read the ${what} ${src}: no such file`);
  }
  if (st.isDirectory()) refuse(src, 'EISDIR', `Cannot read the ${what} ${src}: it is a folder, not a file`);
  try {
    accessSync(src, constants.R_OK);
  } catch {
    refuse(src, 'EACCES', `Cannot read the ${what} ${src}: permission denied`);
  }
  return src;
}

/**
 * Remove what killed writers of `dest` left beside it: `<dest>.<pid>.<suffix>` files (a backup's
 * `.tmp`, an export's `.partial`, plus SQLite's `-wal` / `-shm` / `-journal` of a temporary
 * database) whose process is no longer running. Files of live processes stay. Never throws.
 */
export function sweepPartialFiles(dest: string, suffix: string): void {
  const folder = dirname(dest);
  const base = basename(dest);
  try {
    for (const f of readdirSync(folder)) {
      if (!f.startsWith(`${base}.`)) continue;
      const m = /^\.(\d+)\.([a-z]+)(-wal|-shm|-journal)?$/u.exec(f.slice(base.length));
      if (!m || m[2] !== suffix) continue;
      const pid = Number(m[1]);
      if (pid === process.pid || processAlive(pid)) continue;
      rmSync(join(folder, f), { force: true });
    }
  } catch {
    // a leftover stays; it never takes the destination's name
  }
}

/**
 * Put a finished temporary file in place under `dest`: renamed over it with `overwrite`, else
 * linked to it (which fails when `dest` appeared since it was checked, e.g. a second backup or
 * export to the same file running at once) and then removed. `tmp` is gone afterwards either way.
 * @throws MemValidationError INVALID_INPUT (`details.reason` EEXIST) when `dest` exists and not `overwrite`
 */
export function placeFile(tmp: string, dest: string, options: { overwrite?: boolean; what: string; forceHint?: string }): void {
  if (options.overwrite) {
    renameSync(tmp, dest);
    return;
  }
  try {
    linkSync(tmp, dest);
  } catch (e) {
    rmSync(tmp, { force: true });
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
      refuse(dest, 'EEXIST', `The ${options.what} ${dest} was created by someone else while this one was written; nothing was replaced (${options.forceHint ?? 'overwrite: true'} replaces it)`);
    }
    throw e;
  }
  rmSync(tmp, { force: true });
}

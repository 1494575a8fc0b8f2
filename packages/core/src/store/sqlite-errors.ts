/** Driver errors of better-sqlite3 as the typed errors of @mem/core (ours). */
import { MemError, StoreError, StoreUnavailableError } from '../errors.js';

/** Map a driver error to a typed MemError (MemErrors pass through). */
export function wrap(e: unknown, what: string): MemError {
  if (MemError.isInstance(e)) return e as MemError;
  const code = (e as { code?: string })?.code ?? '';
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code === 'SQLITE_CANTOPEN') {
    return new StoreUnavailableError(`${what}: ${(e as Error).message}`, { cause: e });
  }
  return new StoreError(`${what}: ${(e as Error)?.message ?? String(e)}`, { cause: e });
}

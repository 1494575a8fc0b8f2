/** Validation of numeric backend options (ours): a bad value throws `INVALID_OPTION` at construction. */
import { SystemOneError } from '../errors.js';

/** An optional integer option >= `min` (counts: retries, concurrency). */
export function checkCount(factory: string, name: string, v: unknown, min: number): void {
  if (v !== undefined && !(typeof v === 'number' && Number.isInteger(v) && v >= min)) {
    throw new SystemOneError('INVALID_OPTION', `${factory}: ${name} must be an integer >= ${min}, got ${String(v)}`);
  }
}

/** An optional finite duration in ms, > 0 (or >= 0 when `zeroOk`). */
export function checkMs(factory: string, name: string, v: unknown, zeroOk: boolean): void {
  if (v !== undefined && !(typeof v === 'number' && Number.isFinite(v) && (zeroOk ? v >= 0 : v > 0))) {
    throw new SystemOneError('INVALID_OPTION', `${factory}: ${name} must be a finite number of ms ${zeroOk ? '>= 0' : '> 0'}, got ${String(v)}`);
  }
}

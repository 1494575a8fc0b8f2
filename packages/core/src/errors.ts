/**
 * One error base for the whole project (ours). Every error thrown by `@mem/*` carries a stable
 * `code` and a coarse `category`. `MemError.isInstance(e)` recognises errors from every `@mem`
 * package (gate-vmf and system-one define their own classes, since they import nothing from
 * `@mem`, but they carry the same `Symbol.for('@mem/error')` marker), and works across
 * duplicated module copies where `instanceof` would not.
 */
export const MEM_ERROR_MARKER: unique symbol = Symbol.for('@mem/error') as any;

export type MemErrorCategory =
  | 'validation' // bad input from the caller; nothing was written
  | 'not_found'
  | 'conflict' // store metadata mismatch, concurrent modification
  | 'unavailable' // a store or backend could not be reached
  | 'internal';

export type MemErrorCode =
  | 'TEXT_EMPTY'
  | 'TEXT_TOO_LONG'
  | 'BAD_DATE'
  | 'MISSING_TIMEZONE'
  | 'SCOPE_MISSING'
  | 'SCOPE_INVALID'
  | 'NON_FINITE_VECTOR'
  | 'ZERO_VECTOR'
  | 'DIMENSION_MISMATCH'
  | 'INVALID_INPUT'
  | 'NODE_NOT_FOUND'
  | 'SCOPE_NOT_FOUND' // a scope filter (export --user x) that names no scope of the store
  | 'AMBIGUOUS_ID' // a short id (start or end of an id) that names more than one memory
  | 'STORE_META_MISMATCH'
  | 'IMPORT_MISMATCH'
  | 'STORE_CONFLICT'
  | 'STORE_UNAVAILABLE'
  | 'STORE_ERROR'
  | 'EMBEDDER_ERROR'
  | 'MODEL_NOT_FOUND'
  | 'WRITE_FAILED'
  | 'INTERNAL';

/**
 * Whether `e` carries `marker` (ours; the vercel/ai pattern). Every error class of `@mem` sets its
 * own `Symbol.for('@mem/error/<ClassName>')` marker, and its static `isInstance` checks that marker,
 * so `StoreConflictError.isInstance(e)` is true only for a StoreConflictError (a subclass check
 * never inherits its parent's answer), across duplicated module copies where `instanceof` fails.
 * `MemError.isInstance(e)` checks the shared `Symbol.for('@mem/error')` marker, set on every error
 * of every `@mem` package. One way to check errors everywhere: `XError.isInstance(e)`, then `e.code`.
 */
export function hasMarker(e: unknown, marker: symbol): boolean {
  return typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[marker] === true;
}

export interface MemErrorOptions {
  cause?: unknown;
  details?: Record<string, unknown>;
}

export class MemError extends Error {
  readonly [MEM_ERROR_MARKER] = true;
  readonly code: MemErrorCode;
  readonly category: MemErrorCategory;
  readonly details?: Record<string, unknown>;

  constructor(code: MemErrorCode, category: MemErrorCategory, message: string, options: MemErrorOptions = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'MemError';
    this.code = code;
    this.category = category;
    this.details = options.details;
  }

  /** True for any `@mem` error (this class, its subclasses, and gate-vmf / system-one errors). */
  static isInstance(e: unknown): e is MemError {
    return hasMarker(e, MEM_ERROR_MARKER);
  }

  toJSON(): { name: string; code: string; category: string; message: string; details?: Record<string, unknown> } {
    return { name: this.name, code: this.code, category: this.category, message: this.message, details: this.details };
  }
}

const MEM_VALIDATION_ERROR_MARKER = Symbol.for('@mem/error/MemValidationError');
/** Bad caller input. Thrown before anything is written. */
export class MemValidationError extends MemError {
  readonly [MEM_VALIDATION_ERROR_MARKER] = true;

  /** True for a `MemValidationError` (also from another copy of this module); false for other `@mem` errors. */
  static override isInstance(e: unknown): e is MemValidationError {
    return hasMarker(e, MEM_VALIDATION_ERROR_MARKER);
  }

  constructor(code: MemErrorCode, message: string, options?: MemErrorOptions) {
    super(code, 'validation', message, options);
    this.name = 'MemValidationError';
  }
}

const MEM_NOT_FOUND_ERROR_MARKER = Symbol.for('@mem/error/MemNotFoundError');
/** A node id that does not exist in the given scope. */
export class MemNotFoundError extends MemError {
  readonly [MEM_NOT_FOUND_ERROR_MARKER] = true;

  /** True for a `MemNotFoundError` (also from another copy of this module); false for other `@mem` errors. */
  static override isInstance(e: unknown): e is MemNotFoundError {
    return hasMarker(e, MEM_NOT_FOUND_ERROR_MARKER);
  }

  constructor(message: string, options?: MemErrorOptions) {
    super('NODE_NOT_FOUND', 'not_found', message, options);
    this.name = 'MemNotFoundError';
  }
}

const SCOPE_NOT_FOUND_ERROR_MARKER = Symbol.for('@mem/error/ScopeNotFoundError');
/**
 * A scope filter (e.g. `exportMemories(store, { match: { userId: 'x' } })`, `mem export --user x`)
 * that names no scope the store has ever written: no memory and no history (ours, issue 32).
 * `details.match` is the filter. A scope whose memories were all forgotten exists (it has history).
 */
export class ScopeNotFoundError extends MemError {
  readonly [SCOPE_NOT_FOUND_ERROR_MARKER] = true;

  /** True for a `ScopeNotFoundError` (also from another copy of this module); false for other `@mem` errors. */
  static override isInstance(e: unknown): e is ScopeNotFoundError {
    return hasMarker(e, SCOPE_NOT_FOUND_ERROR_MARKER);
  }

  constructor(message: string, options?: MemErrorOptions) {
    super('SCOPE_NOT_FOUND', 'not_found', message, options);
    this.name = 'ScopeNotFoundError';
  }
}

const STORE_UNAVAILABLE_ERROR_MARKER = Symbol.for('@mem/error/StoreUnavailableError');
/** A store could not be reached within its timeout (connection refused, DNS, auth). */
export class StoreUnavailableError extends MemError {
  readonly [STORE_UNAVAILABLE_ERROR_MARKER] = true;

  /** True for a `StoreUnavailableError` (also from another copy of this module); false for other `@mem` errors. */
  static override isInstance(e: unknown): e is StoreUnavailableError {
    return hasMarker(e, STORE_UNAVAILABLE_ERROR_MARKER);
  }

  constructor(message: string, options?: MemErrorOptions) {
    super('STORE_UNAVAILABLE', 'unavailable', message, options);
    this.name = 'StoreUnavailableError';
  }
}

const STORE_META_MISMATCH_ERROR_MARKER = Symbol.for('@mem/error/StoreMetaMismatchError');
/** The store was created with another schema version, embedding model or dimension. */
export class StoreMetaMismatchError extends MemError {
  readonly [STORE_META_MISMATCH_ERROR_MARKER] = true;

  /** True for a `StoreMetaMismatchError` (also from another copy of this module); false for other `@mem` errors. */
  static override isInstance(e: unknown): e is StoreMetaMismatchError {
    return hasMarker(e, STORE_META_MISMATCH_ERROR_MARKER);
  }

  constructor(message: string, options?: MemErrorOptions) {
    super('STORE_META_MISMATCH', 'conflict', message, options);
    this.name = 'StoreMetaMismatchError';
  }
}

const STORE_CONFLICT_ERROR_MARKER = Symbol.for('@mem/error/StoreConflictError');
/**
 * A write lost a race with another writer of the same store (ours): a uniqueness constraint
 * refused it, e.g. another process stored the same observation (same scope and content hash)
 * first. Nothing of the batch was written; retrying it after re-reading the store is safe
 * (`Memory.add` does so: the retry finds the stored observation and returns it as a duplicate).
 */
export class StoreConflictError extends MemError {
  readonly [STORE_CONFLICT_ERROR_MARKER] = true;

  /** True for a `StoreConflictError` (also from another copy of this module); false for other `@mem` errors. */
  static override isInstance(e: unknown): e is StoreConflictError {
    return hasMarker(e, STORE_CONFLICT_ERROR_MARKER);
  }

  constructor(message: string, options?: MemErrorOptions) {
    super('STORE_CONFLICT', 'conflict', message, options);
    this.name = 'StoreConflictError';
  }
}

const STORE_ERROR_MARKER = Symbol.for('@mem/error/StoreError');
/** Any other store failure (mapped from the driver's own error, kept as `cause`). */
export class StoreError extends MemError {
  readonly [STORE_ERROR_MARKER] = true;

  /** True for a `StoreError` (also from another copy of this module); false for other `@mem` errors. */
  static override isInstance(e: unknown): e is StoreError {
    return hasMarker(e, STORE_ERROR_MARKER);
  }

  constructor(message: string, options?: MemErrorOptions) {
    super('STORE_ERROR', 'internal', message, options);
    this.name = 'StoreError';
  }
}

/**
 * An export file that this store or build cannot take (ours, issue 32): another export format
 * version, memory-model schema version, embedding model or dimension than the target store (or the
 * embedder the caller asked for). `details.field` names the first differing field, `details.fields`
 * all of them with `{ file, target }`. Nothing was written.
 */
const IMPORT_MISMATCH_ERROR_MARKER = Symbol.for('@mem/error/ImportMismatchError');

export class ImportMismatchError extends MemError {
  readonly [IMPORT_MISMATCH_ERROR_MARKER] = true;

  /** True for an `ImportMismatchError` (also from another copy of this module); false for other `@mem` errors. */
  static override isInstance(e: unknown): e is ImportMismatchError {
    return hasMarker(e, IMPORT_MISMATCH_ERROR_MARKER);
  }

  constructor(message: string, options?: MemErrorOptions) {
    super('IMPORT_MISMATCH', 'conflict', message, options);
    this.name = 'ImportMismatchError';
  }
}

/**
 * One error base for the whole project (ours; lives in `@mem/store-spec`, re-exported by
 * `@mem/core`). Every error thrown by `@mem/*` carries a stable `code` and a coarse `category`. `MemError.isInstance(e)` recognises errors from every `@mem`
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
  | 'AMBIGUOUS_ID' // a short id (start or end of an id) that names more than one memory
  | 'SCOPE_NOT_FOUND' // a scope filter (export --user x) that names no scope of the store
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
 * own `Symbol.for('@mem/error/<ClassName>')` marker (its static `marker`), and the static `isInstance`
 * every class inherits from `MemError` checks the marker of the class it is called on,
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
  /** The marker this class's instances carry (each subclass declares its own). */
  static readonly marker: symbol = MEM_ERROR_MARKER;
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
    // each subclass between new.target and MemError marks the instance with its own marker
    for (let c: unknown = new.target; typeof c === 'function' && c !== MemError; c = Object.getPrototypeOf(c)) {
      if (Object.prototype.hasOwnProperty.call(c, 'marker')) (this as unknown as Record<symbol, boolean>)[(c as typeof MemError).marker] = true;
    }
  }

  /**
   * True when `e` carries the marker of the class it is called on: `MemError.isInstance(e)` for any
   * `@mem` error (also gate-vmf and system-one errors), `StoreConflictError.isInstance(e)` only for a
   * StoreConflictError, also from another copy of this module. Call it on the class
   * (`StoreError.isInstance(e)`); pass it as a callback bound (`(e) => StoreError.isInstance(e)`).
   */
  static isInstance<T>(this: { readonly marker: symbol; readonly prototype: T }, e: unknown): e is T {
    return hasMarker(e, this.marker);
  }

  toJSON(): { name: string; code: string; category: string; message: string; details?: Record<string, unknown> } {
    return { name: this.name, code: this.code, category: this.category, message: this.message, details: this.details };
  }
}

/** Bad caller input. Thrown before anything is written. */
export class MemValidationError extends MemError {
  static override readonly marker: symbol = Symbol.for('@mem/error/MemValidationError');
  constructor(code: MemErrorCode, message: string, options?: MemErrorOptions) {
    super(code, 'validation', message, options);
    this.name = 'MemValidationError';
  }
}

/** A node id that does not exist in the given scope. */
export class MemNotFoundError extends MemError {
  static override readonly marker: symbol = Symbol.for('@mem/error/MemNotFoundError');
  constructor(message: string, options?: MemErrorOptions) {
    super('NODE_NOT_FOUND', 'not_found', message, options);
    this.name = 'MemNotFoundError';
  }
}

/** A store could not be reached within its timeout (connection refused, DNS, auth). */
export class StoreUnavailableError extends MemError {
  static override readonly marker: symbol = Symbol.for('@mem/error/StoreUnavailableError');
  constructor(message: string, options?: MemErrorOptions) {
    super('STORE_UNAVAILABLE', 'unavailable', message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** The store was created with another schema version, embedding model or dimension. */
export class StoreMetaMismatchError extends MemError {
  static override readonly marker: symbol = Symbol.for('@mem/error/StoreMetaMismatchError');
  constructor(message: string, options?: MemErrorOptions) {
    super('STORE_META_MISMATCH', 'conflict', message, options);
    this.name = 'StoreMetaMismatchError';
  }
}

/**
 * A write lost a race with another writer of the same store (ours): a uniqueness constraint
 * refused it, e.g. another process stored the same observation (same scope and content hash)
 * first. Nothing of the batch was written; retrying it after re-reading the store is safe
 * (`Memory.add` does so: the retry finds the stored observation and returns it as a duplicate).
 */
export class StoreConflictError extends MemError {
  static override readonly marker: symbol = Symbol.for('@mem/error/StoreConflictError');
  constructor(message: string, options?: MemErrorOptions) {
    super('STORE_CONFLICT', 'conflict', message, options);
    this.name = 'StoreConflictError';
  }
}

/** Any other store failure (mapped from the driver's own error, kept as `cause`). */
export class StoreError extends MemError {
  static override readonly marker: symbol = Symbol.for('@mem/error/StoreError');
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
export class ImportMismatchError extends MemError {
  static override readonly marker: symbol = Symbol.for('@mem/error/ImportMismatchError');
  constructor(message: string, options?: MemErrorOptions) {
    super('IMPORT_MISMATCH', 'conflict', message, options);
    this.name = 'ImportMismatchError';
  }
}

/**
 * A scope filter (e.g. `exportMemories(store, { match: { userId: 'x' } })`, `mem export --user x`)
 * that names no scope the store has ever written: no memory and no history (ours, issue 32).
 * `details.match` is the filter. A scope whose memories were all forgotten exists (it has history).
 */
export class ScopeNotFoundError extends MemError {
  static override readonly marker: symbol = Symbol.for('@mem/error/ScopeNotFoundError');
  constructor(message: string, options?: MemErrorOptions) {
    super('SCOPE_NOT_FOUND', 'not_found', message, options);
    this.name = 'ScopeNotFoundError';
  }
}

/** Error raised by an embedder backend (bad output, failed call). Code `EMBEDDER_ERROR`, category `internal`. */
export class EmbedderError extends MemError {
  static override readonly marker: symbol = Symbol.for('@mem/error/EmbedderError');
  constructor(message: string, options?: MemErrorOptions) {
    super('EMBEDDER_ERROR', 'internal', message, options);
    this.name = 'EmbedderError';
  }
}

/** A model package or model folder is missing. Code `MODEL_NOT_FOUND`, category `not_found`. */
export class ModelNotFoundError extends MemError {
  static override readonly marker: symbol = Symbol.for('@mem/error/ModelNotFoundError');
  constructor(message: string, options?: MemErrorOptions) {
    super('MODEL_NOT_FOUND', 'not_found', message, options);
    this.name = 'ModelNotFoundError';
  }
}

/** An embedder returned vectors of another length than it declared. Code `DIMENSION_MISMATCH`, category `conflict`. */
export class DimensionMismatchError extends MemError {
  static override readonly marker: symbol = Symbol.for('@mem/error/DimensionMismatchError');
  constructor(message: string, options?: MemErrorOptions) {
    super('DIMENSION_MISMATCH', 'conflict', message, options);
    this.name = 'DimensionMismatchError';
  }
}

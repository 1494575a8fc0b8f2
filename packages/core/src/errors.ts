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
  | 'STORE_META_MISMATCH'
  | 'STORE_CONFLICT'
  | 'STORE_UNAVAILABLE'
  | 'STORE_ERROR'
  | 'EMBEDDER_ERROR'
  | 'MODEL_NOT_FOUND'
  | 'WRITE_FAILED'
  | 'INTERNAL';

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
    return typeof e === 'object' && e !== null && (e as any)[MEM_ERROR_MARKER] === true;
  }

  toJSON(): { name: string; code: string; category: string; message: string; details?: Record<string, unknown> } {
    return { name: this.name, code: this.code, category: this.category, message: this.message, details: this.details };
  }
}

/** Bad caller input. Thrown before anything is written. */
export class MemValidationError extends MemError {
  constructor(code: MemErrorCode, message: string, options?: MemErrorOptions) {
    super(code, 'validation', message, options);
    this.name = 'MemValidationError';
  }
}

/** A node id that does not exist in the given scope. */
export class MemNotFoundError extends MemError {
  constructor(message: string, options?: MemErrorOptions) {
    super('NODE_NOT_FOUND', 'not_found', message, options);
    this.name = 'MemNotFoundError';
  }
}

/** A store could not be reached within its timeout (connection refused, DNS, auth). */
export class StoreUnavailableError extends MemError {
  constructor(message: string, options?: MemErrorOptions) {
    super('STORE_UNAVAILABLE', 'unavailable', message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** The store was created with another schema version, embedding model or dimension. */
export class StoreMetaMismatchError extends MemError {
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
  constructor(message: string, options?: MemErrorOptions) {
    super('STORE_CONFLICT', 'conflict', message, options);
    this.name = 'StoreConflictError';
  }
}

/** Any other store failure (mapped from the driver's own error, kept as `cause`). */
export class StoreError extends MemError {
  constructor(message: string, options?: MemErrorOptions) {
    super('STORE_ERROR', 'internal', message, options);
    this.name = 'StoreError';
  }
}

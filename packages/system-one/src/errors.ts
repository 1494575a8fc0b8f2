/**
 * Typed errors of `@mem/system-one` (ours). `@mem/system-one` imports nothing from `@mem`, so it
 * defines its own class, but it carries the project-wide marker `Symbol.for('@mem/error')`, so
 * `MemError.isInstance(e)` from `@mem/core` recognises it too.
 */
export const SYSTEM_ONE_ERROR_MARKER: unique symbol = Symbol.for('@mem/error') as any;
/** This class's own marker (`Symbol.for('@mem/error/<ClassName>')`, the pattern of every `@mem` error class). */
const SYSTEM_ONE_CLASS_MARKER = Symbol.for('@mem/error/SystemOneError');

export type SystemOneErrorCategory = 'validation' | 'not_found' | 'unavailable' | 'internal';

export type SystemOneErrorCode =
  | 'INVALID_OPTION' // a bad factory option (timeoutMs, model, url, cosineRange …)
  | 'INVALID_QUESTION' // a Noul / Choice that fails its schema
  | 'INVALID_STATE' // state is not a JSON object
  | 'MISSING_STATE_FIELD' // an instruction names a {{path}} the state lacks
  | 'INVALID_ANSWER' // a backend reply that cannot be parsed or fails validation
  | 'BACKEND_ERROR' // a backend failed (HTTP error, thrown exception)
  | 'BACKEND_TIMEOUT' // a backend call exceeded `timeoutMs`
  | 'RATE_LIMITED' // HTTP 429 after all retries
  | 'MODEL_NOT_FOUND' // a local model folder that does not exist or is incomplete
  | 'DEPENDENCY_MISSING' // an optional peer dependency that is not installed
  | 'INVALID_MODEL' // a learned model's weights file, training data or feature vector that does not fit its shape
  | 'INTERNAL';

export interface SystemOneErrorOptions {
  cause?: unknown;
  details?: Record<string, unknown>;
}

const CATEGORY: Record<SystemOneErrorCode, SystemOneErrorCategory> = {
  INVALID_OPTION: 'validation',
  INVALID_QUESTION: 'validation',
  INVALID_STATE: 'validation',
  MISSING_STATE_FIELD: 'validation',
  INVALID_ANSWER: 'internal',
  BACKEND_ERROR: 'unavailable',
  BACKEND_TIMEOUT: 'unavailable',
  RATE_LIMITED: 'unavailable',
  MODEL_NOT_FOUND: 'not_found',
  DEPENDENCY_MISSING: 'not_found',
  INVALID_MODEL: 'validation',
  INTERNAL: 'internal',
};

/** The one error class thrown by `@mem/system-one`. `code` is stable; `category` is coarse. */
export class SystemOneError extends Error {
  readonly [SYSTEM_ONE_ERROR_MARKER] = true;
  readonly [SYSTEM_ONE_CLASS_MARKER] = true;
  readonly code: SystemOneErrorCode;
  readonly category: SystemOneErrorCategory;
  readonly details?: Record<string, unknown>;

  constructor(code: SystemOneErrorCode, message: string, options: SystemOneErrorOptions = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'SystemOneError';
    this.code = code;
    this.category = CATEGORY[code];
    this.details = options.details;
  }

  /** True for a `SystemOneError` from any copy of this package (its own class marker, as every `@mem` error class has). */
  static isInstance(e: unknown): e is SystemOneError {
    return typeof e === 'object' && e !== null && (e as any)[SYSTEM_ONE_CLASS_MARKER] === true;
  }

  toJSON(): { name: string; code: string; category: string; message: string; details?: Record<string, unknown> } {
    return { name: this.name, code: this.code, category: this.category, message: this.message, details: this.details };
  }
}

/** Wrap anything thrown by a backend into a `SystemOneError` (kept as `cause`). */
export function toSystemOneError(e: unknown, fallbackCode: SystemOneErrorCode = 'BACKEND_ERROR'): SystemOneError {
  if (SystemOneError.isInstance(e)) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new SystemOneError(fallbackCode, message, { cause: e });
}

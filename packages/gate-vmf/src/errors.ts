/**
 * Typed errors of `@mem/gate-vmf` (ours). The package imports nothing from `@mem`, so it has its
 * own class, but it carries the shared marker `Symbol.for('@mem/error')`, so `MemError.isInstance`
 * of `@mem/core` recognises it, and `GateError.isInstance` works across duplicated module copies.
 *
 * Every method that throws a `GateError` leaves the gate state unchanged.
 */
const MEM_ERROR_MARKER = Symbol.for('@mem/error');
/** This class's own marker (`Symbol.for('@mem/error/<ClassName>')`, the pattern of every `@mem` error class). */
const GATE_ERROR_MARKER = Symbol.for('@mem/error/GateError');

export type GateErrorCode =
  | 'DIMENSION_MISMATCH' // vector length differs from the scope's (or the gate's) dimension
  | 'NON_FINITE' // NaN or ±Infinity in a vector
  | 'ZERO_VECTOR' // ‖v‖₂ = 0 (cannot be put on the unit sphere)
  | 'NOT_NORMALIZED' // |‖v‖₂ − 1| > normTolerance and `normalize` is off
  | 'UNKNOWN_ID' // replace() of an id that is not in the scope
  | 'DUPLICATE_ID' // commit() of an id that is already in the scope
  | 'BAD_SCOPE' // scope is not a string
  | 'BAD_ID' // id is not a non-empty string
  | 'BAD_OPTIONS' // options fail validation
  | 'BAD_SNAPSHOT'; // state passed to createNoveltyGate({ state }) is not a valid snapshot

export type GateErrorCategory = 'validation' | 'not_found' | 'conflict';

const CATEGORY: Record<GateErrorCode, GateErrorCategory> = {
  DIMENSION_MISMATCH: 'validation',
  NON_FINITE: 'validation',
  ZERO_VECTOR: 'validation',
  NOT_NORMALIZED: 'validation',
  UNKNOWN_ID: 'not_found',
  DUPLICATE_ID: 'conflict',
  BAD_SCOPE: 'validation',
  BAD_ID: 'validation',
  BAD_OPTIONS: 'validation',
  BAD_SNAPSHOT: 'validation',
};

export class GateError extends Error {
  readonly [MEM_ERROR_MARKER] = true;
  readonly [GATE_ERROR_MARKER] = true;
  readonly code: GateErrorCode;
  readonly category: GateErrorCategory;
  readonly details?: Record<string, unknown>;

  constructor(code: GateErrorCode, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'GateError';
    this.code = code;
    this.category = CATEGORY[code];
    this.details = options.details;
  }

  /** True for any `GateError`, also one from another copy of this module. */
  static isInstance(e: unknown): e is GateError {
    return typeof e === 'object' && e !== null && (e as any)[GATE_ERROR_MARKER] === true;
  }

  toJSON(): { name: string; code: string; category: string; message: string; details?: Record<string, unknown> } {
    return { name: this.name, code: this.code, category: this.category, message: this.message, details: this.details };
  }
}

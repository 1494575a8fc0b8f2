/**
 * Shared helpers for every embedder: output validation, L2 normalisation, batching (ours).
 */
import { hasMarker, MemError, MemValidationError } from '../errors.js';

const EMBEDDER_ERROR_MARKER = Symbol.for('@mem/error/EmbedderError');
/** Error raised by an embedder backend (bad output, failed call). Code `EMBEDDER_ERROR`, category `internal`. */
export class EmbedderError extends MemError {
  readonly [EMBEDDER_ERROR_MARKER] = true;

  /** True for a `EmbedderError` (also from another copy of this module); false for other `@mem` errors. */
  static override isInstance(e: unknown): e is EmbedderError {
    return hasMarker(e, EMBEDDER_ERROR_MARKER);
  }

  constructor(message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super('EMBEDDER_ERROR', 'internal', message, options);
    this.name = 'EmbedderError';
  }
}

const MODEL_NOT_FOUND_ERROR_MARKER = Symbol.for('@mem/error/ModelNotFoundError');
/** A model package or model folder is missing. Code `MODEL_NOT_FOUND`, category `not_found`. */
export class ModelNotFoundError extends MemError {
  readonly [MODEL_NOT_FOUND_ERROR_MARKER] = true;

  /** True for a `ModelNotFoundError` (also from another copy of this module); false for other `@mem` errors. */
  static override isInstance(e: unknown): e is ModelNotFoundError {
    return hasMarker(e, MODEL_NOT_FOUND_ERROR_MARKER);
  }

  constructor(message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super('MODEL_NOT_FOUND', 'not_found', message, options);
    this.name = 'ModelNotFoundError';
  }
}

const DIMENSION_MISMATCH_ERROR_MARKER = Symbol.for('@mem/error/DimensionMismatchError');
/** An embedder returned vectors of another length than it declared. Code `DIMENSION_MISMATCH`, category `conflict`. */
export class DimensionMismatchError extends MemError {
  readonly [DIMENSION_MISMATCH_ERROR_MARKER] = true;

  /** True for a `DimensionMismatchError` (also from another copy of this module); false for other `@mem` errors. */
  static override isInstance(e: unknown): e is DimensionMismatchError {
    return hasMarker(e, DIMENSION_MISMATCH_ERROR_MARKER);
  }

  constructor(message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super('DIMENSION_MISMATCH', 'conflict', message, options);
    this.name = 'DimensionMismatchError';
  }
}

/** Throws `INVALID_INPUT` unless `texts` is an array of strings. */
export function assertTexts(texts: unknown): asserts texts is string[] {
  if (!Array.isArray(texts)) throw new MemValidationError('INVALID_INPUT', 'embed(texts): texts must be an array of strings');
  for (let i = 0; i < texts.length; i++) {
    if (typeof texts[i] !== 'string') {
      throw new MemValidationError('INVALID_INPUT', `embed(texts): texts[${i}] is not a string`, { details: { index: i } });
    }
  }
}

/**
 * Validate one raw output vector (length `dimension`, all finite, non-zero) and return a new
 * L2-normalised Float32Array. Throws DIMENSION_MISMATCH or EMBEDDER_ERROR (ours).
 */
export function toUnitVector(raw: ArrayLike<number>, dimension: number, where: string): Float32Array {
  if (!raw || typeof raw.length !== 'number') throw new EmbedderError(`${where}: output is not a vector`);
  if (raw.length !== dimension) {
    throw new DimensionMismatchError(`${where}: expected dimension ${dimension}, got ${raw.length}`, {
      details: { expected: dimension, actual: raw.length },
    });
  }
  let ss = 0;
  for (let i = 0; i < dimension; i++) {
    const x = raw[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      throw new EmbedderError(`${where}: non-finite value at component ${i}`, { details: { component: i } });
    }
    ss += x * x;
  }
  if (!(ss > 0) || !Number.isFinite(ss)) throw new EmbedderError(`${where}: zero or overflowing vector cannot be normalised`);
  const inv = 1 / Math.sqrt(ss);
  const out = new Float32Array(dimension);
  for (let i = 0; i < dimension; i++) out[i] = raw[i] * inv;
  return out;
}

/** Split `items` into consecutive chunks of at most `size`. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const n = Math.max(1, Math.floor(size));
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += n) out.push(items.slice(i, i + n));
  return out;
}

/** Cosine of two unit vectors = their dot product. */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

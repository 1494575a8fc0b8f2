/**
 * Shared helpers for every embedder: output validation, L2 normalisation, batching (ours).
 */
import { DimensionMismatchError, EmbedderError, MemValidationError, ModelNotFoundError } from '../errors.js';

// The embedder error classes live with the others in `@mem/store-spec` (issue 35).
export { EmbedderError, ModelNotFoundError, DimensionMismatchError };

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

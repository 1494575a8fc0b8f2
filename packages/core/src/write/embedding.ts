/** Embedding vectors on the write path (ours): validation to unit norm, and the one dot product behind every candidate cosine. */
import { MemError } from '../errors.js';

/** Dot product in index order (= cosine of unit vectors); the one function behind every candidate cosine, so a restored schedule's cosines are bit-identical. */
export function dot(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
}

/** Validate one embedder output vector (dimension, finite, non-zero) and return it at unit norm. */
export function unitEmbedding(v: ArrayLike<number> | undefined, dimension: number, index: number): Float32Array {
  if (!v || v.length !== dimension) {
    throw new MemError('DIMENSION_MISMATCH', 'internal', `Embedder returned a vector of length ${v?.length ?? 0} for text ${index}; expected ${dimension}`, {
      details: { index, expected: dimension, actual: v?.length ?? 0 },
    });
  }
  let sq = 0;
  let max = 0;
  for (let i = 0; i < dimension; i++) {
    const x = v[i]!;
    if (!Number.isFinite(x)) {
      throw new MemError('NON_FINITE_VECTOR', 'internal', `Embedder returned a non-finite value for text ${index}`, { details: { index } });
    }
    sq += x * x;
    const a = Math.abs(x);
    if (a > max) max = a;
  }
  if (!(max > 0)) throw new MemError('ZERO_VECTOR', 'internal', `Embedder returned a zero vector for text ${index}`, { details: { index } });
  const out = new Float32Array(dimension);
  if (Number.isFinite(sq) && sq > 1e-200) {
    const inv = 1 / Math.sqrt(sq);
    for (let i = 0; i < dimension; i++) out[i] = v[i]! * inv;
    return out;
  }
  // a finite vector whose squared norm over- or underflows (entries like 1e200 or 1e-200): scale by
  // the largest |x| first, so it keeps its direction instead of becoming a zero vector (adversarial.test.ts)
  let sq2 = 0;
  for (let i = 0; i < dimension; i++) sq2 += (v[i]! / max) ** 2;
  const inv = 1 / Math.sqrt(sq2);
  for (let i = 0; i < dimension; i++) out[i] = (v[i]! / max) * inv;
  return out;
}

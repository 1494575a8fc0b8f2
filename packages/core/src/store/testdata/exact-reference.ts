/** Reference k-NN for ScopeVectors tests (ours): a plain one-row scan, and helpers to read the store's float32 copies. */
import type { ScopeVectors } from '../vectors.js';

/** Each alive row's stored float32 copy (as normalised by the index), by rid. */
export function storedRows(sv: ScopeVectors, dim: number): Map<number, Float32Array> {
  const out = new Map<number, Float32Array>();
  const s = sv as unknown as { pos: Map<number, number>; vecs: Float32Array };
  for (const [rid, slot] of s.pos) out.set(rid, s.vecs.slice(slot * dim, (slot + 1) * dim));
  return out;
}

/** Every row, dot summed in coordinate order, best k by score then rid. */
export function plainTopK(rows: Map<number, Float32Array>, q: Float32Array, k: number): { rid: number; score: number }[] {
  const all: { rid: number; score: number }[] = [];
  for (const [rid, v] of rows) {
    let dot = 0;
    for (let j = 0; j < q.length; j++) dot += v[j]! * q[j]!;
    all.push({ rid, score: dot });
  }
  all.sort((a, b) => b.score - a.score || a.rid - b.rid);
  return all.slice(0, k);
}

/** `xs` scaled to unit length, as Float32. */
export function unitF32(xs: ArrayLike<number>): Float32Array {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]! * xs[i]!;
  return Float32Array.from(xs, (x) => x / Math.sqrt(s));
}

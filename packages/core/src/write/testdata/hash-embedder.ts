/**
 * A tiny deterministic embedder for write-path tests (ours): each lower-cased word is hashed
 * (FNV-1a) into one of 16 dimensions with a ± sign; the sum is normalized. Fast, offline and the
 * same in every process, so a reopened store accepts it (model `test-hash-16`).
 */
import type { Embedder } from '../../types.js';

export const HASH_EMBEDDER_DIMENSION = 16;

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** @param d dimension (another `d` is another embedding space: model `test-hash-<d>`, used by the re-embedding tests) */
export function hashEmbedder(d = HASH_EMBEDDER_DIMENSION): Embedder {
  return {
    model: `test-hash-${d}`,
    dimension: d,
    async embed(texts) {
      return texts.map((t) => {
        const v = new Float32Array(d);
        v[0] = 1e-3; // never the zero vector
        for (const w of t.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
          if (!w) continue;
          const h = fnv1a(w);
          v[h % d] += h & 0x10000 ? 1 : -1;
        }
        let n = 0;
        for (const x of v) n += x * x;
        const inv = 1 / Math.sqrt(n);
        for (let i = 0; i < d; i++) v[i] *= inv;
        return v;
      });
    },
  };
}

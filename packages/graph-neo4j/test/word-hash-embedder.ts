// Test embedder of the Neo4j integration tests (test tooling, not library code).
import type { Embedder } from '@mem/core';

/** Deterministic 32-d word-hash embedder (the same vectors in every process). */
export function wordHashEmbedder(): Embedder {
  const d = 32;
  return {
    model: 'test-word-hash-32',
    dimension: d,
    async embed(texts: string[]) {
      return texts.map((t) => {
        const v = new Float32Array(d);
        v[0] = 1e-3;
        for (const w of t.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
          if (!w) continue;
          let h = 0x811c9dc5;
          for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 0x01000193) >>> 0;
          v[h % d] += h & 0x100 ? 1 : -1;
        }
        return v;
      });
    },
  };
}

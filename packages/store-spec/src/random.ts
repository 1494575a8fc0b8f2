/** Deterministic pseudo-random numbers (ours): the one PRNG of `@mem/core` and its test fixtures. */

/**
 * mulberry32: a function returning floats in [0, 1), the same sequence for the same 32-bit seed on
 * every platform (integer arithmetic only).
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

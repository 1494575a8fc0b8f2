/** Deterministic synthetic unit vectors for tests and the bench (ours). */
import { mulberry32 } from './pca.js';
import { createNoveltyGate } from './gate.js';

export function rng(seed: number) {
  const u = mulberry32(seed);
  const gauss = () => {
    let a = 0;
    while (a === 0) a = u();
    return Math.sqrt(-2 * Math.log(a)) * Math.cos(2 * Math.PI * u());
  };
  return { u, gauss };
}

export function normalizeInPlace(v: Float64Array | Float32Array): typeof v {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  const n = Math.sqrt(s);
  for (let i = 0; i < v.length; i++) v[i] /= n;
  return v;
}

export function randomUnit(d: number, r: ReturnType<typeof rng>): Float64Array {
  const v = new Float64Array(d);
  for (let i = 0; i < d; i++) v[i] = r.gauss();
  return normalizeInPlace(v) as Float64Array;
}

/** A unit vector at cosine ≈ `cos` to `centre` (random perpendicular direction). */
export function near(centre: ArrayLike<number>, cos: number, r: ReturnType<typeof rng>): Float64Array {
  const d = centre.length;
  const p = randomUnit(d, r);
  let dot = 0;
  for (let i = 0; i < d; i++) dot += p[i] * centre[i];
  for (let i = 0; i < d; i++) p[i] -= dot * centre[i];
  normalizeInPlace(p);
  const s = Math.sqrt(Math.max(0, 1 - cos * cos));
  const out = new Float64Array(d);
  for (let i = 0; i < d; i++) out[i] = cos * centre[i] + s * p[i];
  return normalizeInPlace(out) as Float64Array;
}

/**
 * A topic mixture on the sphere: `topics` random centres; each vector is a centre plus isotropic
 * noise giving cosine ≈ `spread` to its centre; a decaying spectrum is added so PCA has structure.
 */
export function topicMixture(
  n: number,
  d: number,
  topics: number,
  spread: number,
  seed: number,
  anisotropy = 0.8,
): { vectors: Float32Array; topicOf: Int32Array; centres: Float64Array[] } {
  const r = rng(seed);
  // Sentence embeddings share a common direction (anisotropy): every vector gets `anisotropy`·μ₀
  // before normalization, so R̄ ≈ 0.6 and κ̂ hits the cap of 50 as the seed reports for d ≥ 100.
  const mu0 = randomUnit(d, r);
  const centres = Array.from({ length: topics }, () => {
    const c = randomUnit(d, r);
    for (let j = 0; j < d; j++) c[j] += anisotropy * mu0[j];
    return normalizeInPlace(c) as Float64Array;
  });
  const vectors = new Float32Array(n * d);
  const topicOf = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const t = Math.floor(r.u() * topics);
    topicOf[i] = t;
    const v = near(centres[t], spread, r);
    vectors.set(v, i * d);
  }
  return { vectors, topicOf, centres };
}

/**
 * The same churn on every gate of `gates` (scope 's'): removes `m${i·stride}` for i < `removes`, then
 * replaces `m${i·stride + offset}` for i < `replaces` with one random unit vector each (drawn from `r`).
 */
export function churn(gates: { remove(scope: string, id: string): unknown; replace(scope: string, id: string, v: Float64Array): unknown }[], r: ReturnType<typeof rng>, d: number, stride: number, removes: number, replaces: number, offset: number): void {
  for (let i = 0; i < removes; i++) for (const g of gates) g.remove('s', `m${i * stride}`);
  for (let i = 0; i < replaces; i++) {
    const v = randomUnit(d, r);
    for (const g of gates) g.replace('s', `m${i * stride + offset}`, v);
  }
}

/** `build(opts)`: a gate with options `opts` holding the `n` rows of `vectors` (d each) in scope 's' as `m0`…`m{n−1}`. */
export function gateOver(vectors: Float32Array | Float64Array, n: number, d: number) {
  return (opts: Parameters<typeof createNoveltyGate>[0]) => {
    const g = createNoveltyGate(opts);
    for (let i = 0; i < n; i++) g.commit('s', `m${i}`, vectors.subarray(i * d, i * d + d));
    return g;
  };
}

/**
 * Small dense linear algebra for the density proxy ρ_t (seed 001 App. D), written here because the
 * package allows no runtime dependency beyond zod (ours). Tested against `ml-matrix` in pca.test.ts
 * and timed against it in bench/index.ts.
 *
 * - {@link jacobiEigen}: cyclic Jacobi for small symmetric matrices (the m × m Rayleigh–Ritz problem).
 * - {@link topEigen}: block subspace iteration with Rayleigh–Ritz for the top-k eigenpairs of a
 *   symmetric positive semi-definite operator given only as a block product, warm-startable from the
 *   previous basis. Deterministic (fixed-seed start vectors), so replaying a history refits identically.
 */

/** Eigen-decomposition of a symmetric m × m matrix (row-major, not modified). Values descending; vectors as rows. */
export function jacobiEigen(a: Float64Array, m: number): { values: Float64Array; vectors: Float64Array } {
  const A = Float64Array.from(a);
  const V = new Float64Array(m * m);
  for (let i = 0; i < m; i++) V[i * m + i] = 1;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    let diag = 0;
    for (let p = 0; p < m; p++) {
      diag += A[p * m + p] * A[p * m + p];
      for (let q = p + 1; q < m; q++) off += A[p * m + q] * A[p * m + q];
    }
    if (off <= 1e-24 * diag || off === 0) break;
    for (let p = 0; p < m - 1; p++) {
      for (let q = p + 1; q < m; q++) {
        const apq = A[p * m + q];
        if (apq === 0) continue;
        const app = A[p * m + p];
        const aqq = A[q * m + q];
        const theta = (aqq - app) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < m; k++) {
          const akp = A[k * m + p];
          const akq = A[k * m + q];
          A[k * m + p] = c * akp - s * akq;
          A[k * m + q] = s * akp + c * akq;
        }
        for (let k = 0; k < m; k++) {
          const apk = A[p * m + k];
          const aqk = A[q * m + k];
          A[p * m + k] = c * apk - s * aqk;
          A[q * m + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < m; k++) {
          const vpk = V[p * m + k];
          const vqk = V[q * m + k];
          V[p * m + k] = c * vpk - s * vqk;
          V[q * m + k] = s * vpk + c * vqk;
        }
      }
    }
  }
  const order = Array.from({ length: m }, (_, i) => i).sort((i, j) => A[j * m + j] - A[i * m + i] || i - j);
  const values = new Float64Array(m);
  const vectors = new Float64Array(m * m);
  order.forEach((src, dst) => {
    values[dst] = A[src * m + src];
    vectors.set(V.subarray(src * m, src * m + m), dst * m);
  });
  return { values, vectors };
}

/** One modified Gram–Schmidt sweep: subtract from row `i` of M (row-major, d columns) its projection on each earlier row, in order. */
function projectOutEarlierRows(M: Float64Array, i: number, d: number): void {
  for (let j = 0; j < i; j++) {
    let dot = 0;
    for (let t = 0; t < d; t++) dot += M[i * d + t] * M[j * d + t];
    for (let t = 0; t < d; t++) M[i * d + t] -= dot * M[j * d + t];
  }
}

/** ‖row i of M‖² (row-major, d columns). */
function rowNorm2(M: Float64Array, i: number, d: number): number {
  let s = 0;
  for (let t = 0; t < d; t++) s += M[i * d + t] * M[i * d + t];
  return s;
}

/** Modified Gram–Schmidt on the rows of an r × d matrix, in place. Rows that vanish are replaced by unit axes orthogonal to the rest. */
export function orthonormalizeRows(M: Float64Array, r: number, d: number): void {
  for (let i = 0; i < r; i++) {
    for (let pass = 0; pass < 2; pass++) projectOutEarlierRows(M, i, d);
    let nrm = Math.sqrt(rowNorm2(M, i, d));
    if (nrm < 1e-12) {
      // Degenerate: pick the first axis that stays independent.
      for (let axis = 0; axis < d; axis++) {
        M.fill(0, i * d, i * d + d);
        M[i * d + ((axis + i) % d)] = 1;
        projectOutEarlierRows(M, i, d);
        const n2 = rowNorm2(M, i, d);
        if (n2 > 1e-6) {
          nrm = Math.sqrt(n2);
          break;
        }
      }
    }
    for (let t = 0; t < d; t++) M[i * d + t] /= nrm;
  }
}

/** Deterministic PRNG (mulberry32) for start vectors. */
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

export interface TopEigenOptions {
  /** Extra block vectors beyond k (speeds convergence). Default 8. */
  oversample?: number;
  /** Stop when every Ritz residual ‖C v − λ v‖ ≤ tol · λ₁. Default 1e−6. */
  tol?: number;
  /** Rayleigh–Ritz (and the convergence check) every this many block products. Default 4. */
  rrEvery?: number;
  /** Iteration cap per refit (warm starts carry progress over refits). Default 40. */
  maxIter?: number;
  /** Previous basis (k′ × d rows, orthonormal) to start from. */
  warm?: Float64Array | null;
  warmRows?: number;
}

/**
 * Top-k eigenpairs of a symmetric PSD d × d operator C, given as `apply(V, rows, out)` computing
 * out = V C (rows of V times C) for a rows × d block. Block subspace iteration with Rayleigh–Ritz
 * (ours; standard method, e.g. Saad, "Numerical Methods for Large Eigenvalue Problems", ch. 5).
 * @returns values (k, descending), vectors (k × d rows, orthonormal), iterations used
 */
export function topEigen(
  apply: (V: Float64Array, rows: number, out: Float64Array) => void,
  d: number,
  k: number,
  opts: TopEigenOptions = {},
): { values: Float64Array; vectors: Float64Array; iterations: number; residual: number } {
  const m = Math.min(d, k + (opts.oversample ?? 8));
  const tol = opts.tol ?? 1e-6;
  const maxIter = opts.maxIter ?? 40;
  let V: Float64Array = new Float64Array(m * d);
  const rnd = mulberry32(0x5a6e);
  const warmRows = opts.warm ? Math.min(opts.warmRows ?? k, m) : 0;
  if (opts.warm) V.set(opts.warm.subarray(0, warmRows * d));
  for (let i = warmRows * d; i < m * d; i++) V[i] = rnd() - 0.5;
  orthonormalizeRows(V, m, d);
  let Z: Float64Array = new Float64Array(m * d);
  const H = new Float64Array(m * m);
  let V2: Float64Array = new Float64Array(m * d);
  let Z2: Float64Array = new Float64Array(m * d);
  let values: Float64Array = new Float64Array(m);
  let residual = Infinity;
  let it = 0;
  const rrEvery = opts.rrEvery ?? 4;
  for (; it < maxIter; it++) {
    apply(V, m, Z);
    const last = it === maxIter - 1;
    if (!last && it % rrEvery !== rrEvery - 1) {
      // plain block power step: V ← orth(C V)
      const t = V;
      V = Z;
      Z = t;
      orthonormalizeRows(V, m, d);
      continue;
    }
    // Rayleigh–Ritz on span(V): H = V C Vᵀ, rotate to Ritz vectors, check residuals.
    upperCross(V, Z, m, d, H);
    const eig = jacobiEigen(H, m);
    values = eig.values;
    V2.fill(0);
    Z2.fill(0);
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < m; j++) {
        const q = eig.vectors[i * m + j];
        if (q === 0) continue;
        for (let t = 0; t < d; t++) {
          V2[i * d + t] += q * V[j * d + t];
          Z2[i * d + t] += q * Z[j * d + t];
        }
      }
    }
    residual = 0;
    const scale = Math.max(Math.abs(values[0]), 1e-300);
    for (let i = 0; i < k; i++) {
      let r = 0;
      for (let t = 0; t < d; t++) {
        const e = Z2[i * d + t] - values[i] * V2[i * d + t];
        r += e * e;
      }
      residual = Math.max(residual, Math.sqrt(r) / scale);
    }
    const tv = V;
    V = V2;
    V2 = tv;
    if (residual <= tol || last) {
      it++;
      break;
    }
    // continue from orth(C V) of the Ritz basis
    const tz = Z;
    Z = Z2;
    Z2 = tz;
    const t2 = V;
    V = Z;
    Z = t2;
    orthonormalizeRows(V, m, d);
  }
  const vectors = V.slice(0, k * d);
  // sign convention: the largest-magnitude coordinate of each vector is positive (deterministic output)
  for (let i = 0; i < k; i++) {
    let best = 0;
    for (let t = 1; t < d; t++) if (Math.abs(vectors[i * d + t]) > Math.abs(vectors[i * d + best])) best = t;
    if (vectors[i * d + best] < 0) for (let t = 0; t < d; t++) vectors[i * d + t] = -vectors[i * d + t];
  }
  return { values: values.slice(0, k), vectors, iterations: it, residual };
}

/**
 * The symmetric n × n matrix whose upper triangle is A_i · B_j (j ≥ i) for the rows of A and B (n × d,
 * row-major), written into `out` and returned: AAᵀ (a Gram matrix) when A = B; for A ≠ B the lower
 * triangle mirrors the upper one (the Rayleigh–Ritz H = V C Vᵀ, symmetric up to rounding).
 */
function upperCross(A: ArrayLike<number>, B: ArrayLike<number>, n: number, d: number, out: Float64Array): Float64Array {
  for (let i = 0; i < n; i++) {
    for (let j = i; j < n; j++) {
      let s = 0;
      for (let t = 0; t < d; t++) s += A[i * d + t] * B[j * d + t];
      out[i * n + j] = s;
      out[j * n + i] = s;
    }
  }
  return out;
}

/**
 * Exact top-k principal directions of N ≤ ~64 centred rows via the N × N Gram matrix
 * (G = X_c X_cᵀ, eigenvectors uᵢ ↦ X_cᵀuᵢ/‖·‖). Directions with no variance are completed to an
 * orthonormal set (their projected range is 0 either way). Ours, standard.
 * @param rows N × d row-major (any typed array), mu the mean (length d)
 */
export function gramTopEigen(
  rows: ArrayLike<number>,
  n: number,
  d: number,
  mu: Float64Array,
  k: number,
): { values: Float64Array; vectors: Float64Array } {
  const Xc = new Float64Array(n * d);
  for (let r = 0; r < n; r++) for (let j = 0; j < d; j++) Xc[r * d + j] = rows[r * d + j] - mu[j];
  const G = upperCross(Xc, Xc, n, d, new Float64Array(n * n));
  const eig = jacobiEigen(G, n);
  const vectors = new Float64Array(k * d);
  const values = new Float64Array(k);
  const scale = Math.max(eig.values[0], 0);
  for (let i = 0; i < k; i++) {
    const lam = i < n ? eig.values[i] : 0;
    values[i] = Math.max(lam, 0) / n;
    if (i < n && lam > 1e-12 * scale && lam > 0) {
      for (let r = 0; r < n; r++) {
        const u = eig.vectors[i * n + r];
        if (u === 0) continue;
        for (let j = 0; j < d; j++) vectors[i * d + j] += u * Xc[r * d + j];
      }
    }
  }
  orthonormalizeRows(vectors, k, d);
  for (let i = 0; i < k; i++) {
    let best = 0;
    for (let t = 1; t < d; t++) if (Math.abs(vectors[i * d + t]) > Math.abs(vectors[i * d + best])) best = t;
    if (vectors[i * d + best] < 0) for (let t = 0; t < d; t++) vectors[i * d + t] = -vectors[i * d + t];
  }
  return { values, vectors };
}

import { describe, expect, it } from 'vitest';
import { EigenvalueDecomposition, Matrix } from 'ml-matrix';
import { gramTopEigen, jacobiEigen, topEigen } from './pca.js';
import { createNoveltyGate, pcaLogVolume } from './index.js';
import { randomUnit, rng } from './test-utils.js';

/** Unit vectors with a geometrically decaying, well separated spectrum. */
function spectral(n: number, d: number, seed: number, decay = 0.85): Float64Array {
  const r = rng(seed);
  const X = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < d; j++) {
      const x = (j === 0 ? 2 : 0) + r.gauss() * decay ** j;
      X[i * d + j] = x;
      s += x * x;
    }
    s = Math.sqrt(s);
    for (let j = 0; j < d; j++) X[i * d + j] /= s;
  }
  return X;
}

function covariance(X: Float64Array, n: number, d: number): Float64Array {
  const mu = new Float64Array(d);
  for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) mu[j] += X[i * d + j] / n;
  const C = new Float64Array(d * d);
  for (let i = 0; i < n; i++)
    for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) C[a * d + b] += ((X[i * d + a] - mu[a]) * (X[i * d + b] - mu[b])) / n;
  return C;
}

/** The authors' recipe with a well-kept library: full eigendecomposition, project, box. */
function naiveLogVolume(X: Float64Array, n: number, d: number, k: number): number {
  const C = covariance(X, n, d);
  const rows = Array.from({ length: d }, (_, a) => Array.from(C.subarray(a * d, a * d + d)));
  const e = new EigenvalueDecomposition(new Matrix(rows), { assumeSymmetric: true });
  const vals = e.realEigenvalues;
  const order = vals.map((v, i) => [v, i] as const).sort((a, b) => b[0] - a[0]).slice(0, Math.min(k, n, d));
  const V = e.eigenvectorMatrix;
  const ranges = order.map(([, c]) => {
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < n; i++) {
      let p = 0;
      for (let j = 0; j < d; j++) p += X[i * d + j] * V.get(j, c);
      lo = Math.min(lo, p);
      hi = Math.max(hi, p);
    }
    return hi - lo;
  });
  return pcaLogVolume(ranges, n);
}

describe('eigen solvers vs ml-matrix', () => {
  it('jacobiEigen matches ml-matrix on a random symmetric matrix', () => {
    const r = rng(1);
    const m = 12;
    const A = new Float64Array(m * m);
    for (let i = 0; i < m; i++) for (let j = i; j < m; j++) A[i * m + j] = A[j * m + i] = r.gauss();
    const mine = jacobiEigen(A, m);
    const ref = new EigenvalueDecomposition(new Matrix(Array.from({ length: m }, (_, i) => Array.from(A.subarray(i * m, i * m + m)))), { assumeSymmetric: true });
    const refVals = ref.realEigenvalues.slice().sort((a, b) => b - a);
    refVals.forEach((v, i) => expect(mine.values[i]).toBeCloseTo(v, 10));
    // A v = λ v for each returned vector
    for (let i = 0; i < m; i++) {
      for (let a = 0; a < m; a++) {
        let s = 0;
        for (let b = 0; b < m; b++) s += A[a * m + b] * mine.vectors[i * m + b];
        expect(s).toBeCloseTo(mine.values[i] * mine.vectors[i * m + a], 9);
      }
    }
  });

  it('topEigen (subspace iteration) finds the top-16 eigenpairs that ml-matrix finds', () => {
    const n = 400;
    const d = 40;
    const X = spectral(n, d, 2);
    const C = covariance(X, n, d);
    const apply = (V: Float64Array, rows: number, out: Float64Array) => {
      out.fill(0, 0, rows * d);
      for (let a = 0; a < rows; a++) for (let t = 0; t < d; t++) for (let j = 0; j < d; j++) out[a * d + j] += V[a * d + t] * C[t * d + j];
    };
    const mine = topEigen(apply, d, 16, { maxIter: 300, tol: 1e-10 });
    const ref = new EigenvalueDecomposition(new Matrix(Array.from({ length: d }, (_, a) => Array.from(C.subarray(a * d, a * d + d)))), { assumeSymmetric: true });
    const order = ref.realEigenvalues.map((v, i) => [v, i] as const).sort((a, b) => b[0] - a[0]);
    for (let i = 0; i < 16; i++) {
      expect(mine.values[i]).toBeCloseTo(order[i][0], 9);
      let dot = 0;
      for (let j = 0; j < d; j++) dot += mine.vectors[i * d + j] * ref.eigenvectorMatrix.get(j, order[i][1]);
      expect(Math.abs(dot)).toBeCloseTo(1, 5);
    }
  });

  it('gramTopEigen equals ml-matrix on few rows and completes the basis orthonormally', () => {
    const n = 10;
    const d = 30;
    const X = spectral(n, d, 3);
    const mu = new Float64Array(d);
    for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) mu[j] += X[i * d + j] / n;
    const { values, vectors } = gramTopEigen(X, n, d, mu, 16);
    const C = covariance(X, n, d);
    const ref = new EigenvalueDecomposition(new Matrix(Array.from({ length: d }, (_, a) => Array.from(C.subarray(a * d, a * d + d)))), { assumeSymmetric: true });
    const refVals = ref.realEigenvalues.slice().sort((a, b) => b - a);
    for (let i = 0; i < 9; i++) expect(values[i]).toBeCloseTo(refVals[i], 10);
    for (let a = 0; a < 16; a++)
      for (let b = 0; b < 16; b++) {
        let s = 0;
        for (let j = 0; j < d; j++) s += vectors[a * d + j] * vectors[b * d + j];
        expect(s).toBeCloseTo(a === b ? 1 : 0, 9);
      }
  });
});

describe('density ρ_t (seed 001 App. D)', () => {
  it("with densityRefit: 'always' the gate's log V equals the ml-matrix recipe", () => {
    const d = 24;
    const n = 150;
    const X = spectral(n, d, 4);
    const g = createNoveltyGate({ densityRefit: 'always' });
    for (let i = 0; i < n; i++) {
      g.commit('s', `m${i}`, X.subarray(i * d, i * d + d));
      if (i === 5 || i === 40 || i === 100 || i === n - 1) {
        const F = Float64Array.from(Float32Array.from(X.subarray(0, (i + 1) * d)));
        expect(g.stats('s')!.logVolume).toBeCloseTo(naiveLogVolume(F, i + 1, d, 16), 5);
      }
    }
  });

  it('with the fixed schedule (refitMaxScale 1), periodic refits decide like per-change refits: same τ_t at every step; |Δ log V| ≤ 1.5 for N < 150 and ≤ 0.5 above', () => {
    const d = 24;
    const n = 500;
    const X = spectral(n, d, 5, 0.9);
    const a = createNoveltyGate({ refitMaxScale: 1 });
    const b = createNoveltyGate({ densityRefit: 'always' });
    let worstLogV = 0;
    let worstSmall = 0;
    let worstTau = 0;
    for (let i = 0; i < n; i++) {
      const v = X.subarray(i * d, i * d + d);
      a.commit('s', `m${i}`, v);
      b.commit('s', `m${i}`, v);
      if (i % 7 === 6) {
        a.remove('s', `m${i - 3}`);
        b.remove('s', `m${i - 3}`);
      }
      const sa = a.stats('s')!;
      const sb = b.stats('s')!;
      if (sa.n < 150) worstSmall = Math.max(worstSmall, Math.abs(sa.logVolume - sb.logVolume));
      else worstLogV = Math.max(worstLogV, Math.abs(sa.logVolume - sb.logVolume));
      worstTau = Math.max(worstTau, Math.abs(sa.tau! - sb.tau!));
    }
    console.log(
      `density: fixed periodic vs per-change refits over ${n} steps: refits ${a.stats('s')!.refits} vs ${b.stats('s')!.refits}, ` +
        `max |Δτ| ${worstTau}, max |Δ log V| ${worstSmall.toFixed(2)} (N < 150) / ${worstLogV.toFixed(2)} (N ≥ 150)`,
    );
    expect(a.stats('s')!.refits).toBeLessThan(b.stats('s')!.refits / 3);
    expect(worstTau).toBeLessThanOrEqual(1e-15);
    expect(worstSmall).toBeLessThanOrEqual(1.5);
    expect(worstLogV).toBeLessThanOrEqual(0.5);
  });

  it('the adaptive interval (default) decides like per-change refits: same τ_t and actions; stale log V error ≤ margin/2 at every step', () => {
    const d = 24;
    const n = 600;
    const X = spectral(n, d, 5, 0.9);
    const a = createNoveltyGate();
    const f = createNoveltyGate({ refitMaxScale: 1 });
    const b = createNoveltyGate({ densityRefit: 'always' });
    const r = rng(77);
    let worstTau = 0;
    let worstLogV = 0;
    let worstRatio = 0;
    let decisions = 0;
    for (let i = 0; i < n; i++) {
      const v = X.subarray(i * d, i * d + d);
      for (const g of [a, f, b]) g.commit('s', `m${i}`, v);
      if (i % 7 === 6) for (const g of [a, f, b]) g.remove('s', `m${i - 3}`);
      const sa = a.stats('s')!;
      const sb = b.stats('s')!;
      worstTau = Math.max(worstTau, Math.abs(sa.tau! - sb.tau!));
      if (sa.n > 32) {
        // margin = ln(λρ/x*): how far log ρ may fall before τ* leaves τ_min (x* = ln(τ₀/(τ_min·2⁻⁵⁴)), defaults)
        const margin = Math.log(2 * sb.density) - Math.log(Math.log(0.25 / (0.025 * 2 ** -54)));
        const err = Math.abs(sa.logVolume - sb.logVolume);
        worstLogV = Math.max(worstLogV, err);
        worstRatio = Math.max(worstRatio, err / margin);
      }
      if (i % 10 === 9) {
        for (let t = 0; t < 3; t++) {
          const j = Math.floor(r.u() * i);
          const q = t === 0 ? randomUnit(d, r) : X.subarray(j * d, j * d + d);
          const da = a.route('s', q);
          const db = b.route('s', q);
          expect(da.action).toBe(db.action);
          expect(da.threshold).toBe(db.threshold);
          decisions++;
        }
      }
    }
    console.log(
      `density: adaptive vs fixed periodic vs per-change refits over ${n} steps: refits ${a.stats('s')!.refits} / ${f.stats('s')!.refits} / ${b.stats('s')!.refits}, ` +
        `max |Δτ| ${worstTau}, ${decisions} routes identical, max |Δ log V| ${worstLogV.toFixed(2)} = ${worstRatio.toFixed(2)} of the margin`,
    );
    expect(a.stats('s')!.refits).toBeLessThan(f.stats('s')!.refits);
    expect(worstTau).toBeLessThanOrEqual(1e-15);
    expect(worstRatio).toBeLessThanOrEqual(0.5);
  });

  it('in the sparse regime (λρ < 296) every change refits, so ρ equals the per-change value', () => {
    const d = 24;
    // few, widely spread memories: large box, small ρ
    const X = spectral(60, d, 7, 1.0);
    const a = createNoveltyGate({ lambda: 1e-4 });
    const b = createNoveltyGate({ lambda: 1e-4, densityRefit: 'always' });
    for (let i = 0; i < 60; i++) {
      a.commit('s', `m${i}`, X.subarray(i * d, i * d + d));
      b.commit('s', `m${i}`, X.subarray(i * d, i * d + d));
      expect(a.stats('s')!.logVolume).toBe(b.stats('s')!.logVolume);
    }
  });

  it('ranges after removing an extreme point equal a fresh box (rescan)', () => {
    const d = 16;
    const X = spectral(300, d, 6);
    const g = createNoveltyGate({ refitMin: 1000, refitFraction: 1 });
    for (let i = 0; i < 300; i++) g.commit('s', `m${i}`, X.subarray(i * d, i * d + d));
    const snap = g.serialize();
    // remove many points; the box must equal the one recomputed from the basis on restore
    for (let i = 0; i < 100; i++) g.remove('s', `m${i * 3}`);
    const restored = createNoveltyGate({ state: g.serialize() });
    expect(g.stats('s')!.logVolume).toBe(restored.stats('s')!.logVolume);
    expect(snap.scopes[0].ids.length).toBe(300);
  });
});

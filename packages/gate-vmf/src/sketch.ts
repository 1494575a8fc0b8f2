/**
 * Certified-decision fast path (ours): `mode: 'fast', fastCertify: 'decision'`.
 *
 * The gate only needs the *band* the score falls in (Add / Update / Noop, seed 001 §3.4), not the
 * score to 1e−3. This module keeps, for every row mᵢ of a scope, its coordinates zᵢ = W mᵢ on a
 * fixed orthonormal basis W (r × d, the top-r eigenvectors of the uncentred second moment
 * (1/N) Σ mᵢmᵢᵀ at build time; r = `sketchDims`) and its residual norm εᵢ = ‖mᵢ − Wᵀzᵢ‖. For a unit
 * candidate c with z_c = W c and residual norm ε_c = ‖c − Wᵀz_c‖, the residuals are orthogonal to the
 * span of W, so by Cauchy–Schwarz
 *
 *   | mᵢᵀc − zᵢᵀz_c | = | (mᵢ − Wᵀzᵢ)ᵀ(c − Wᵀz_c) | ≤ εᵢ · ε_c          (sketch bound)
 *
 * for ANY orthonormal W (a stale basis only loosens the bound). One pass of r-dimensional dot
 * products (r ≈ d/4; a WebAssembly SIMD kernel, kernel.ts, in f32 with a slack covering its
 * rounding) gives every row an interval [lᵢ, uᵢ] for its cosine. Rows whose upper bound
 * reaches the best exact cosine found are then re-scored exactly (the same arithmetic as the exact
 * pass), so `nearest` is exactly the exact pass's nearest (id and cosine, bit for bit). The other
 * rows' terms of S = Σ exp(κ cᵢ) are bracketed by rounding uᵢ up / lᵢ down to a grid of width w
 * (≤ 1/512 in cosine) and counting rows per cell (no exp per row), which gives
 *
 *   s_vMF ∈ [lo, hi] = [m + log(S_lo/N)/κ, m + log(S_hi/N)/κ].
 *
 * When routing every score in [lo − 1e−9, hi + 1e−9] gives one action (routing is monotone in the
 * score), that action IS the exact pass's action; the midpoint is returned as the score with
 * `scoreError` = half the width (+1e−9; the slack covers the rounding of the exact pass itself). Else
 * more rows are re-scored exactly (the largest upper bounds first, doubling the count) up to
 * `fastScanBudget · N`, and past that the caller runs the exact pass. Cost: N·r multiply-adds plus
 * the re-scored rows, instead of N·d and N exps.
 *
 * Where WebAssembly SIMD is unavailable no sketch is kept and fast mode runs the exact pass.
 *
 * Upkeep: a commit or replace projects one row (r·d); a remove moves one row; the basis is rebuilt
 * (a cold subspace iteration on the scatter, then every row re-projected) when N doubles or halves
 * since the last build, like the cluster index. Deterministic in the history of changes.
 */
import { clampUnit } from './math.js';
import { topEigen } from './pca.js';
import type { ScopeState } from './scope.js';
import type { FastSearchResult } from './ivf.js';
import { DATA_OFFSET, HI_OFFSET, HIST_CELLS, instantiateKernel, kernelModule, LO_OFFSET, Q_OFFSET, type KernelInstance } from './kernel.js';

/**
 * Slack added to every sketch bound (cosine units): covers the f32 rounding of zᵢ, z_c, the kernel's
 * multiply-adds (≤ rp·2⁻²⁴ ≈ 4e−6 for rp ≤ 64) and of the stored uᵢ, lᵢ.
 */
const BOUND_SLACK = 1e-5;
/** Slack on the score interval (score units): covers the rounding of the exact pass's own score. */
const SCORE_SLACK = 1e-9;
/** |mᵢᵀc| ≤ ‖mᵢ‖ ≤ 1 + 1e−7 for rows stored as Float32 (rounded unit vectors): bounds are clipped to ±COS_MAX. */
const COS_MAX = 1 + 1e-6;
const PAGE = 65_536;

export interface SketchParts {
  r: number;
  builtAt: number;
  /** r × d, orthonormal rows (Float64). */
  basis: Float64Array;
}


export interface Band {
  /** Maps a score to the action the gate would take (monotone in the score). */
  actionOf: (score: number) => string;
}

/** Whether this runtime can keep sketches (WebAssembly SIMD). */
export function sketchSupported(): boolean {
  return kernelModule() !== null;
}

export class SketchIndex {
  readonly r: number;
  /** r padded to a multiple of 4 (the kernel's row stride in floats). */
  readonly rp: number;
  readonly d: number;
  readonly builtAt: number;
  readonly basis: Float64Array;
  private readonly k: KernelInstance;
  private cap = 0;
  private zOff = 0;
  private epsOff = 0;
  private ubOff = 0;
  private lbOff = 0;
  private z!: Float32Array;
  private eps!: Float32Array;
  private ub!: Float32Array;
  private lb!: Float32Array;
  private q!: Float32Array;
  private hiH!: Int32Array;
  private loH!: Int32Array;
  private stamp: Int32Array = new Int32Array(0);
  private gen = 0;

  /** @throws Error when WebAssembly SIMD is unavailable (check {@link sketchSupported} first) */
  constructor(s: ScopeState, p: SketchParts) {
    this.r = p.r;
    this.rp = Math.ceil(p.r / 4) * 4;
    const k = instantiateKernel(this.rp);
    if (!k) throw new Error('WebAssembly SIMD is not available');
    this.k = k;
    this.d = s.d;
    this.builtAt = p.builtAt;
    this.basis = p.basis;
    this.layout(Math.max(16, s.capacity));
    for (let i = 0; i < s.n; i++) this.project(s, i);
  }

  /** Lay the per-row arrays out for `cap` rows (keeping the first `keep` rows). */
  private layout(cap: number, keep = 0): void {
    const rp = this.rp;
    const old = keep > 0 ? { z: this.z.slice(0, keep * rp), eps: this.eps.slice(0, keep) } : null;
    this.cap = cap;
    this.zOff = DATA_OFFSET;
    this.epsOff = this.zOff + 4 * cap * rp;
    this.ubOff = this.epsOff + 4 * cap;
    this.lbOff = this.ubOff + 4 * cap;
    const need = this.lbOff + 4 * cap;
    const mem = this.k.memory;
    if (mem.buffer.byteLength < need) mem.grow(Math.ceil((need - mem.buffer.byteLength) / PAGE));
    this.views();
    if (old) {
      this.z.set(old.z);
      this.eps.set(old.eps);
    }
    const st = new Int32Array(cap);
    st.set(this.stamp.subarray(0, Math.min(cap, this.stamp.length)));
    this.stamp = st;
  }

  private views(): void {
    const buf = this.k.memory.buffer;
    const cap = this.cap;
    this.z = new Float32Array(buf, this.zOff, cap * this.rp);
    this.eps = new Float32Array(buf, this.epsOff, cap);
    this.ub = new Float32Array(buf, this.ubOff, cap);
    this.lb = new Float32Array(buf, this.lbOff, cap);
    this.q = new Float32Array(buf, Q_OFFSET, this.rp);
    this.hiH = new Int32Array(buf, HI_OFFSET, HIST_CELLS);
    this.loH = new Int32Array(buf, LO_OFFSET, HIST_CELLS);
  }

  /** Build from the scope's current rows (top-r eigenvectors of Σ mᵢmᵢᵀ/N, uncentred). */
  static build(s: ScopeState, r: number): SketchIndex {
    const d = s.d;
    const n = s.n;
    const k = Math.min(r, d, 64);
    const S = s.scatter;
    const x = s.data;
    let apply: (V: Float64Array, rows: number, out: Float64Array) => void;
    if (S) {
      const M = new Float64Array(d * d);
      for (let i = 0; i < d; i++) {
        for (let j = i; j < d; j++) {
          M[i * d + j] = S[i * d + j] / n;
          M[j * d + i] = S[i * d + j] / n;
        }
      }
      apply = (V, rows, out) => {
        for (let a = 0; a < rows; a++) {
          for (let j = 0; j < d; j++) {
            let t = 0;
            for (let u = 0; u < d; u++) t += V[a * d + u] * M[j * d + u];
            out[a * d + j] = t;
          }
        }
      };
    } else {
      apply = (V, rows, out) => {
        out.fill(0, 0, rows * d);
        for (let i = 0; i < n; i++) {
          const base = i * d;
          for (let a = 0; a < rows; a++) {
            let t = 0;
            for (let j = 0; j < d; j++) t += V[a * d + j] * x[base + j];
            t /= n;
            for (let j = 0; j < d; j++) out[a * d + j] += t * x[base + j];
          }
        }
      };
    }
    const eig = topEigen(apply, d, k, { tol: 1e-3, maxIter: 40 });
    return new SketchIndex(s, { r: k, builtAt: n, basis: eig.vectors });
  }

  needsRebuild(n: number): boolean {
    return n >= 2 * this.builtAt || n * 2 <= this.builtAt;
  }

  private ensure(rows: number): void {
    if (rows <= this.cap) return;
    let cap = this.cap;
    while (cap < rows) cap *= 2;
    this.layout(cap, this.cap);
  }

  /** (Re)compute zᵢ and εᵢ of row i (i ≤ N − 1 of the scope). */
  project(s: ScopeState, i: number): void {
    this.ensure(Math.max(i + 1, s.n));
    if (this.z.buffer !== this.k.memory.buffer) this.views();
    const d = this.d;
    const r = this.r;
    const rp = this.rp;
    const B = this.basis;
    const x = s.data;
    const base = i * d;
    let nz = 0;
    let nx = 0;
    for (let j = 0; j < d; j++) nx += x[base + j] * x[base + j];
    for (let c = 0; c < r; c++) {
      let t = 0;
      for (let j = 0; j < d; j++) t += B[c * d + j] * x[base + j];
      this.z[i * rp + c] = t;
      nz += t * t;
    }
    for (let c = r; c < rp; c++) this.z[i * rp + c] = 0;
    // ‖residual‖² = ‖x‖² − ‖z‖² (W orthonormal), padded, then rounded up to f32
    const e = Math.sqrt(Math.max(0, nx - nz) + 1e-12);
    const f = Math.fround(e);
    this.eps[i] = f < e ? f * (1 + 2 ** -23) : f;
  }

  /** Row r was removed and row `moved` (or −1) now lives at r. */
  onRemove(r: number, moved: number): void {
    if (moved < 0) return;
    if (this.z.buffer !== this.k.memory.buffer) this.views();
    const rp = this.rp;
    this.z.copyWithin(r * rp, moved * rp, moved * rp + rp);
    this.eps[r] = this.eps[moved];
  }

  /**
   * Certified routing decision (see the file comment), or null when it would need more than
   * `budget · N` exact re-scorings (the caller then runs the exact pass).
   */
  search(s: ScopeState, q: Float64Array, kappa: number, band: Band, budget: number, nearestAlways = true): FastSearchResult | null {
    const n = s.n;
    if (n > this.cap) return null;
    if (this.z.buffer !== this.k.memory.buffer) this.views();
    const d = this.d;
    const r = this.r;
    const B = this.basis;
    let nq = 0;
    const zq = this.q;
    zq.fill(0);
    for (let c = 0; c < r; c++) {
      let t = 0;
      for (let j = 0; j < d; j++) t += B[c * d + j] * q[j];
      zq[c] = t;
      nq += t * t;
    }
    const eq = Math.fround(Math.sqrt(Math.max(0, 1 - nq) + 1e-12) * (1 + 1e-6));
    // grid of the sum's bounds: cells [b·w − 2, (b+1)·w − 2), w = 2^−k with 1/2048 ≤ w ≤ 1/512 and w ≤ 0.05/κ if possible
    let w = 1 / 512;
    while (w > 1 / 2048 && w * kappa > 0.05) w /= 2;
    const inv = 1 / w;
    const cells = Math.ceil(4.5 * inv) + 1;
    const last = cells - 1;
    const hiH = this.hiH;
    const loH = this.loH;
    hiH.fill(0, 0, cells);
    loH.fill(0, 0, cells);
    const ub = this.ub;
    const lb = this.lb;
    const bestRow = this.k.pass(this.zOff, this.epsOff, this.ubOff, this.lbOff, n, this.rp, eq, BOUND_SLACK, inv, last, HI_OFFSET, LO_OFFSET);
    this.gen++;
    if (this.gen > 2e9) {
      this.stamp.fill(0);
      this.gen = 1;
    }
    const gen = this.gen;
    const stamp = this.stamp;
    const limit = Math.max(64, budget * n);
    const f = Math.fround;
    const cellOf = (x: number) => {
      // the kernel's f32 arithmetic: clamp(trunc((x + 2)·inv), 0, last)
      const y = f(f(x + 2) * inv);
      return y <= 0 ? 0 : y >= last ? last : Math.trunc(y);
    };
    /** Rows not yet re-scored whose upper bound may be ≥ x (an over-count: x's whole cell is included). */
    const countAbove = (x: number) => {
      let c = 0;
      for (let b = cellOf(x); b <= last; b++) c += hiH[b];
      return c;
    };
    let scanned = 0;
    let broken = false;
    const cosOf: number[] = [];
    let m = -Infinity;
    let arg = -1;
    // exact re-scoring of row i: its exact term replaces its two grid counts
    const rescore = (i: number): void => {
      stamp[i] = gen;
      const x = s.dotRowExact(i, q);
      cosOf.push(x);
      if (--hiH[cellOf(ub[i])] < 0) broken = true;
      if (--loH[cellOf(lb[i])] < 0) broken = true;
      scanned++;
      if (x > m || (x === m && i < arg)) {
        m = x;
        arg = i;
      }
    };
    /** Every row with uᵢ ≥ t is re-scored after this (false: over budget). */
    let done = Infinity;
    const rescoreAbove = (t: number): boolean => {
      if (t >= done) return true;
      for (let i = 0; i < n; i++) {
        if (ub[i] < t || stamp[i] === gen) continue;
        rescore(i);
        if (scanned > limit) return false;
      }
      done = t;
      return true;
    };
    /** Threshold on uᵢ above which about `want` rows not yet re-scored lie (read off the grid). */
    const topThreshold = (want: number) => {
      let acc = 0;
      for (let b = last; b >= 0; b--) {
        acc += hiH[b];
        if (acc >= want) return b * w - 2;
      }
      return -Infinity;
    };
    rescore(bestRow);
    // the nearest is certified once every row with uᵢ ≥ m is re-scored (the others lie below m;
    // ties go to the lowest row, as in the exact pass)
    const nearestDone = () => done <= m;
    const certifyNearest = (): boolean => {
      while (!nearestDone()) {
        if (scanned + countAbove(m) > limit + 64) return false; // hopeless within the budget: skip the work
        if (!rescoreAbove(m)) return false;
      }
      return true;
    };
    if (nearestAlways && !certifyNearest()) return null;
    if (!nearestAlways && !rescoreAbove(Math.max(m, topThreshold(64)))) return null;
    for (;;) {
      if (broken) return null; // the grid bookkeeping disagrees with the kernel: never certify on it
      let exactSum = 0;
      for (let k = 0; k < cosOf.length; k++) exactSum += Math.exp(kappa * (cosOf[k] - m));
      let sHi = exactSum;
      let sLo = exactSum;
      for (let b = 0; b < cells; b++) {
        if (hiH[b] > 0) sHi += hiH[b] * Math.exp(kappa * (Math.min(COS_MAX, (b + 1) * w - 2) - m));
        if (loH[b] > 0) sLo += loH[b] * Math.exp(kappa * (Math.max(-COS_MAX, b * w - 2) - m));
      }
      const lo = clampUnit(m + Math.log(sLo / n) / kappa - SCORE_SLACK);
      const hi = clampUnit(m + Math.log(sHi / n) / kappa + SCORE_SLACK);
      const action = band.actionOf(lo);
      if (action === band.actionOf(hi)) {
        // re-scoring more rows only narrows [lo, hi]: the action stays certified
        let nearestExact = nearestDone();
        if (!nearestExact && (action !== 'add' || nearestAlways)) {
          if (!certifyNearest()) return null;
          nearestExact = true;
        }
        if (!nearestExact && certifyNearestCheap()) nearestExact = true;
        return { max: m, arg, score: (lo + hi) / 2, error: (hi - lo) / 2, scanned, nearestExact };
      }
      if (scanned >= limit || scanned >= n) return null;
      // re-score about max(64, scanned) more rows: the largest remaining upper bounds
      if (!rescoreAbove(topThreshold(Math.min(n - scanned, Math.max(64, scanned))))) return null;
    }
    /** For an Add with fastNearest 'update-noop': certify the nearest too when it costs ≤ 64 more rows. */
    function certifyNearestCheap(): boolean {
      if (countAbove(m) > 64) return false;
      return rescoreAbove(m) && nearestDone();
    }
  }

  toParts(): SketchParts {
    return { r: this.r, builtAt: this.builtAt, basis: this.basis };
  }
}

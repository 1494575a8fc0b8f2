/**
 * Per-scope state of the novelty gate (ours): the memories of one scope as one contiguous
 * Float32Array (N × d, row-major, grown by doubling; from {@link WASM_MIN_BYTES} on it lives in the
 * scope's own WebAssembly memory, 64-byte aligned, where the SIMD exact kernel reads it) plus an id index, the running sum Σ mᵢ (for
 * R̄ and κ̂), and the incremental PCA box that gives the density ρ_t of seed 001 App. D.
 *
 * Density upkeep (ours; the authors refit PCA on every change):
 * - the scatter matrix Σ mᵢmᵢᵀ (d × d) is updated in O(d²) per commit/remove once N ≥ d/2 (below
 *   that, refits work on the data directly, O(N·d) per block product, and no d × d matrix is kept);
 * - the principal basis (top d′ eigenvectors of the covariance) is refit when the number of changes
 *   since the last fit reaches max(refitMin, ⌈refitFraction · N⌉); on every change while N ≤ 32,
 *   while λρ < 296 (where τ* is sensitive to ρ, see SENSITIVE_LAMBDA_RHO), or with
 *   `densityRefit: 'always'` (the authors' behaviour);
 * - every row's projection on the current basis is kept (N × d′), so the per-component min/max are
 *   exact for the current basis at all times (a remove that held an extreme rescans N × d′ numbers).
 * So V_t is exact for the basis of the last refit; the only approximation is the basis' age, bounded
 * by the refit schedule and measured against per-change refits in scope.test.ts and the bench.
 */
import { gramTopEigen, topEigen } from './pca.js';
import { dotExact, EXACT_BLOCK, exactPassJs, WasmRowStore, type ExactPassResult } from './exact.js';
import { estimateKappa, meanResultantLength, pcaLogVolume, type KappaClips } from './math.js';

/**
 * Rows move into a WebAssembly memory (and the exact pass runs in the SIMD kernel of exact.ts) once
 * the row block would fill one memory page; smaller scopes keep a plain Float32Array and run the
 * same arithmetic in JS (bit-identical), so a process with many tiny scopes does not pay 64 KiB each.
 */
export const WASM_MIN_BYTES = 65_536;

/** Up to this N the basis is computed exactly from the N × N Gram matrix. */
const GRAM_MAX_N = 32;

export interface DensityOptions {
  pcaDims: number;
  rangeFloor: number;
  densityRefit: 'periodic' | 'always';
  refitFraction: number;
  refitMin: number;
  /** λ of τ* (seed 001 §3.4): below ρ = SENSITIVE_LAMBDA_RHO/λ the density is refit on every change. */
  lambda: number;
  /** τ₀, τ_min of τ* (seed 001 §3.4), for the margin of the adaptive refit interval. */
  tau0: number;
  tauMin: number;
  /** Largest multiplier of the scheduled refit interval (1 = fixed schedule). */
  refitMaxScale: number;
}

/**
 * τ* = τ_min + τ₀e^{−λρ} equals τ_min in double precision once λρ ≥ 40 (e^{−40}·τ₀ is below half an ulp
 * of τ_min = 0.025). While λρ < 40·e² ≈ 296, a ρ that is off by less than a factor e² could still
 * move τ*, so the basis is refit on every change there (the authors' behaviour); above it a stale
 * basis can only change τ* if its log V error exceeds 2, far above what is measured (ours).
 */
const SENSITIVE_LAMBDA_RHO = 40 * Math.E ** 2;

/**
 * Residual tolerance (relative, ‖Cv − λv‖/λ₁) of the scheduled periodic refits outside the sensitive
 * range (ours). There τ* = τ_min whatever ρ is, and the basis is already up to max(refitMin, 5 % N)
 * changes old between refits, so the warm-started solver may stop at its first Rayleigh–Ritz check
 * (4 block products instead of 8) once the residual is below 1e−2 (with 8 it ends near 1e−4 on
 * 100-d text embeddings, not at 1e−6 either). In one trial on 3 LoCoMo conversations (wink vectors)
 * this cut commit CPU by ~35 % with identical decisions and τ and |Δ log V| ≤ 0.18. Per-change refits
 * (N ≤ 32, the sensitive range, `densityRefit: 'always'`) keep the solver's default 1e−6.
 */
const PERIODIC_TOL = 1e-2;

export class ScopeState {
  readonly d: number;
  n = 0;
  data: Float32Array;
  ids: string[] = [];
  index = new Map<string, number>();
  /** Σ mᵢ over stored rows (Float64). */
  sum: Float64Array;
  /** Upper triangle of Σ mᵢmᵢᵀ (d × d, Float64), or null while N < d/2. */
  scatter: Float64Array | null = null;
  /** Principal basis: kEff × d rows, orthonormal; null when N < 2. */
  basis: Float64Array | null = null;
  kEff = 0;
  /** Projections of every row on the basis (capacity × pcaDims). */
  proj: Float64Array;
  lo: Float64Array;
  hi: Float64Array;
  changesSinceFit = 0;
  /** Multiplier of the scheduled refit interval (1, 2, 4, … ≤ refitMaxScale), see adaptScale (ours). */
  refitScale = 1;
  logVolume = 0;
  /** τ_{t} of the last commit (EMA state, seed 001 §3.4), null before the first commit. */
  tau: number | null = null;
  /** Commits so far (t). */
  commits = 0;
  /** Refits done (stats). */
  refits = 0;
  /** The WebAssembly memory holding `data` (null while the rows are a plain Float32Array). */
  private store: WasmRowStore | null = null;
  /** Block scratch of the JS exact pass. */
  private scratch: Float64Array | null = null;

  constructor(d: number, private readonly opt: DensityOptions, capacity = 16) {
    this.d = d;
    this.data = new Float32Array(0);
    this.allocateRows(capacity);
    this.sum = new Float64Array(d);
    this.proj = new Float64Array(capacity * opt.pcaDims);
    this.lo = new Float64Array(opt.pcaDims);
    this.hi = new Float64Array(opt.pcaDims);
  }

  /**
   * Room for `cap` rows, keeping the first n: the WebAssembly memory grows in place; a plain array
   * is copied, into a WebAssembly memory once it reaches {@link WASM_MIN_BYTES} (if the runtime has
   * SIMD and the memory can be had; otherwise it stays a plain array).
   */
  private allocateRows(cap: number): void {
    const keep = this.data.subarray(0, this.n * this.d);
    if (this.store) {
      if (this.store.grow(cap)) {
        this.data = this.store.rows;
        return;
      }
      this.store = null;
    } else if (4 * cap * this.d >= WASM_MIN_BYTES) {
      const st = WasmRowStore.create(this.d, cap);
      if (st) {
        st.rows.set(keep);
        this.store = st;
        this.data = st.rows;
        return;
      }
    }
    const rows = new Float32Array(cap * this.d);
    rows.set(keep);
    this.data = rows;
  }

  get capacity(): number {
    return this.data.length / this.d;
  }

  ensureCapacity(n: number): void {
    if (n <= this.capacity) return;
    let cap = Math.max(16, this.capacity);
    while (cap < n) cap *= 2;
    this.allocateRows(cap);
    const proj = new Float64Array(cap * this.opt.pcaDims);
    proj.set(this.proj.subarray(0, this.n * this.opt.pcaDims));
    this.proj = proj;
  }

  /** Append a unit row (already validated). Returns its row number. */
  append(id: string, v: Float64Array): number {
    this.ensureCapacity(this.n + 1);
    const r = this.n;
    const d = this.d;
    this.data.set(v, r * d); // rounds to Float32
    this.n++;
    this.ids.push(id);
    this.index.set(id, r);
    this.accumulate(r, +1);
    this.projectRow(r);
    this.extendBox(r);
    return r;
  }

  /** Append many rows and refit once (for `seed`). */
  appendBulk(list: { id: string; v: Float64Array }[]): void {
    this.ensureCapacity(this.n + list.length);
    for (const { id, v } of list) {
      const r = this.n;
      this.data.set(v, r * this.d);
      this.n++;
      this.ids.push(id);
      this.index.set(id, r);
      this.accumulate(r, +1);
    }
    if (this.scatter === null && this.n * 2 >= this.d) this.buildScatter();
    if (this.n < 2) {
      this.basis = null;
      this.kEff = 0;
      this.logVolume = 0;
    } else this.refit(Math.min(this.opt.pcaDims, this.d, this.n));
    this.changesSinceFit = 0;
  }

  /** Remove row r by moving the last row into its place. Returns the row that moved (or -1). */
  removeRow(r: number): number {
    const d = this.d;
    const k = this.opt.pcaDims;
    this.accumulate(r, -1);
    const last = this.n - 1;
    const id = this.ids[r];
    const heldExtreme = this.basis !== null && this.holdsExtreme(r);
    this.index.delete(id);
    if (r !== last) {
      this.data.copyWithin(r * d, last * d, last * d + d);
      this.proj.copyWithin(r * k, last * k, last * k + k);
      const movedId = this.ids[last];
      this.ids[r] = movedId;
      this.index.set(movedId, r);
    }
    this.ids.pop();
    this.n--;
    if (heldExtreme) this.rescanBox();
    return r !== last ? last : -1;
  }

  /** Overwrite row r with a new unit vector. */
  overwrite(r: number, v: Float64Array): void {
    const heldExtreme = this.basis !== null && this.holdsExtreme(r);
    this.accumulate(r, -1);
    this.data.set(v, r * this.d);
    this.accumulate(r, +1);
    this.projectRow(r);
    if (heldExtreme) this.rescanBox();
    else this.extendBox(r);
  }

  /** Add (sign = +1) or subtract (−1) row r to the sum and scatter. */
  private accumulate(r: number, sign: 1 | -1): void {
    const d = this.d;
    const base = r * d;
    const x = this.data;
    for (let j = 0; j < d; j++) this.sum[j] += sign * x[base + j];
    const S = this.scatter;
    if (S) {
      for (let i = 0; i < d; i++) {
        const xi = sign * x[base + i];
        if (xi === 0) continue;
        const off = i * d;
        let j = i;
        for (; j + 3 < d; j += 4) {
          S[off + j] += xi * x[base + j];
          S[off + j + 1] += xi * x[base + j + 1];
          S[off + j + 2] += xi * x[base + j + 2];
          S[off + j + 3] += xi * x[base + j + 3];
        }
        for (; j < d; j++) S[off + j] += xi * x[base + j];
      }
    }
  }

  private projectRow(r: number): void {
    if (!this.basis) return;
    const d = this.d;
    const k = this.opt.pcaDims;
    const B = this.basis;
    const x = this.data;
    const base = r * d;
    for (let c = 0; c < this.kEff; c++) {
      const off = c * d;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let j = 0;
      for (; j + 3 < d; j += 4) {
        s0 += B[off + j] * x[base + j];
        s1 += B[off + j + 1] * x[base + j + 1];
        s2 += B[off + j + 2] * x[base + j + 2];
        s3 += B[off + j + 3] * x[base + j + 3];
      }
      for (; j < d; j++) s0 += B[off + j] * x[base + j];
      this.proj[r * k + c] = s0 + s1 + (s2 + s3);
    }
  }

  private holdsExtreme(r: number): boolean {
    const k = this.opt.pcaDims;
    for (let c = 0; c < this.kEff; c++) {
      const p = this.proj[r * k + c];
      if (p <= this.lo[c] || p >= this.hi[c]) return true;
    }
    return false;
  }

  private extendBox(r: number): void {
    if (!this.basis) return;
    const k = this.opt.pcaDims;
    for (let c = 0; c < this.kEff; c++) {
      const p = this.proj[r * k + c];
      if (p < this.lo[c]) this.lo[c] = p;
      if (p > this.hi[c]) this.hi[c] = p;
    }
    this.logVolume = this.computeLogVolume();
  }

  private rescanBox(): void {
    const k = this.opt.pcaDims;
    this.lo.fill(Infinity);
    this.hi.fill(-Infinity);
    for (let r = 0; r < this.n; r++) {
      for (let c = 0; c < this.kEff; c++) {
        const p = this.proj[r * k + c];
        if (p < this.lo[c]) this.lo[c] = p;
        if (p > this.hi[c]) this.hi[c] = p;
      }
    }
    this.logVolume = this.computeLogVolume();
  }

  /** max − min per component (length kEff). */
  ranges(): Float64Array {
    const out = new Float64Array(this.kEff);
    for (let c = 0; c < this.kEff; c++) out[c] = this.n > 0 ? this.hi[c] - this.lo[c] : 0;
    return out;
  }

  private computeLogVolume(): number {
    if (this.n < 2 || !this.basis) return 0;
    return pcaLogVolume(this.ranges(), this.n, this.opt.rangeFloor);
  }

  /**
   * Bookkeeping after one change (commit, remove or replace): count it and refit when the schedule
   * says so. Deterministic in the history of changes, so a replay rebuilds the same state.
   */
  afterChange(): void {
    this.changesSinceFit++;
    const d = this.d;
    if (this.scatter === null && this.n * 2 >= d) this.buildScatter();
    if (this.n < 2) {
      this.basis = null;
      this.kEff = 0;
      this.logVolume = 0;
      this.changesSinceFit = 0;
      return;
    }
    const kWant = Math.min(this.opt.pcaDims, d, this.n);
    const exactDue =
      this.basis === null ||
      kWant !== this.kEff ||
      this.opt.densityRefit === 'always' ||
      this.n <= GRAM_MAX_N ||
      this.opt.lambda * this.n * Math.exp(-this.logVolume) < SENSITIVE_LAMBDA_RHO;
    if (exactDue) {
      this.refit(kWant);
      this.refitScale = 1;
    } else if (this.changesSinceFit >= this.refitScale * Math.max(this.opt.refitMin, Math.ceil(this.opt.refitFraction * this.n))) {
      const before = this.logVolume;
      this.refit(kWant, PERIODIC_TOL);
      this.adaptScale(Math.abs(this.logVolume - before));
    }
  }

  /**
   * Adaptive refit interval outside the sensitive range (ours). `drift` = |log V(stale basis) −
   * log V(refit basis)| observed at this refit; `margin` = ln(λρ / x*), how far log ρ may fall
   * before τ* = τ_min + τ₀e^{−λρ} differs from τ_min in double precision (x* = ln(τ₀/(τ_min·2⁻⁵⁴))
   * ≈ 39.7 with the defaults). While the drift stays ≤ margin/8 the interval doubles (up to
   * `refitMaxScale`×); above margin/4 it halves. So the stale basis' log V error stays well inside
   * the range where it cannot move τ_t, and every decision equals the one with a fresh basis.
   */
  private adaptScale(drift: number): void {
    const margin = this.tauMargin();
    if (drift <= margin / 8) this.refitScale = Math.min(this.refitScale * 2, this.opt.refitMaxScale);
    else if (drift > margin / 4) this.refitScale = Math.max(1, this.refitScale / 2);
  }

  /** ln(λρ/x*) (see {@link adaptScale}); +∞ when λ = 0 or τ₀ = 0 (τ* is then constant). */
  tauMargin(): number {
    const { lambda, tau0, tauMin } = this.opt;
    if (lambda === 0 || tau0 === 0) return Infinity;
    const xStar = tauMin > 0 ? Math.log(tau0 / (tauMin * 2 ** -54)) : 40;
    if (!(xStar > 0)) return Infinity;
    return Math.log(lambda * this.n) - this.logVolume - Math.log(xStar);
  }

  private buildScatter(): void {
    const d = this.d;
    this.scatter = new Float64Array(d * d);
    const S = this.scatter;
    const x = this.data;
    for (let r = 0; r < this.n; r++) {
      const base = r * d;
      for (let i = 0; i < d; i++) {
        const xi = x[base + i];
        if (xi === 0) continue;
        const off = i * d;
        for (let j = i; j < d; j++) S[off + j] += xi * x[base + j];
      }
    }
  }

  /**
   * The covariance C = (1/N) Σ (xᵣ − μ)(xᵣ − μ)ᵀ as a block product `apply(V, rows, out)`: out = V C
   * (from the scatter when it is kept, else straight from the rows).
   */
  private covarianceApply(): (V: Float64Array, rows: number, out: Float64Array) => void {
    const d = this.d;
    const n = this.n;
    const mu = new Float64Array(d);
    for (let j = 0; j < d; j++) mu[j] = this.sum[j] / n;
    if (this.scatter) {
      // C = S/N − μμᵀ as a full symmetric matrix.
      const S = this.scatter;
      const C = new Float64Array(d * d);
      for (let i = 0; i < d; i++) {
        for (let j = i; j < d; j++) {
          const c = S[i * d + j] / n - mu[i] * mu[j];
          C[i * d + j] = c;
          C[j * d + i] = c;
        }
      }
      // out_a = C v_a as dot products (C is symmetric): no stores in the inner loop.
      return (V, rows, out) => {
        for (let a = 0; a < rows; a++) {
          const vo = a * d;
          for (let j = 0; j < d; j++) {
            const co = j * d;
            let s0 = 0;
            let s1 = 0;
            let t = 0;
            for (; t + 1 < d; t += 2) {
              s0 += V[vo + t] * C[co + t];
              s1 += V[vo + t + 1] * C[co + t + 1];
            }
            if (t < d) s0 += V[vo + t] * C[co + t];
            out[vo + j] = s0 + s1;
          }
        }
      };
    }
    // C V = (1/N) Σᵣ (xᵣ − μ)(xᵣ − μ)ᵀ V, straight from the rows.
    const x = this.data;
    const xc = new Float64Array(d);
    return (V, rows, out) => {
      out.fill(0, 0, rows * d);
      for (let r = 0; r < n; r++) {
        const base = r * d;
        for (let j = 0; j < d; j++) xc[j] = x[base + j] - mu[j];
        for (let a = 0; a < rows; a++) {
          const vo = a * d;
          let s = 0;
          for (let j = 0; j < d; j++) s += V[vo + j] * xc[j];
          s /= n;
          for (let j = 0; j < d; j++) out[vo + j] += s * xc[j];
        }
      }
    };
  }

  /**
   * How far the current basis is from being invariant under the current covariance (ours): the
   * largest residual ‖C bᵢ − θᵢ bᵢ‖ (θᵢ = bᵢᵀC bᵢ) over the basis rows, relative to the largest θᵢ —
   * the stopping test of the warm-started refit (topEigen) applied to the basis as it is. One block
   * product (kEff × d²), about 1/16 of a scheduled refit. Infinity without a basis.
   */
  basisResidual(): number {
    if (!this.basis || this.kEff === 0 || this.n < 2) return Infinity;
    const d = this.d;
    const k = this.kEff;
    const B = this.basis;
    const Z = new Float64Array(k * d);
    this.covarianceApply()(B, k, Z);
    let top = 0;
    const theta = new Float64Array(k);
    for (let i = 0; i < k; i++) {
      let t = 0;
      for (let j = 0; j < d; j++) t += B[i * d + j] * Z[i * d + j];
      theta[i] = t;
      if (t > top) top = t;
    }
    let worst = 0;
    for (let i = 0; i < k; i++) {
      let r = 0;
      for (let j = 0; j < d; j++) {
        const e = Z[i * d + j] - theta[i] * B[i * d + j];
        r += e * e;
      }
      if (r > worst) worst = r;
    }
    return Math.sqrt(worst) / Math.max(top, 1e-300);
  }

  /** Refit the principal basis (top kWant eigenvectors of the covariance) and every projection. */
  refit(kWant: number, tol?: number): void {
    const d = this.d;
    const n = this.n;
    if (n <= GRAM_MAX_N) {
      const mu = new Float64Array(d);
      for (let j = 0; j < d; j++) mu[j] = this.sum[j] / n;
      this.basis = gramTopEigen(this.data, n, d, mu, kWant).vectors;
      this.kEff = kWant;
      this.finishRefit();
      return;
    }
    const apply = this.covarianceApply();
    const warm = this.basis !== null && this.kEff === kWant;
    const eig = topEigen(apply, d, kWant, { warm: this.basis, warmRows: Math.min(this.kEff, kWant), maxIter: warm ? 8 : 40, tol });
    this.basis = eig.vectors;
    this.kEff = kWant;
    this.finishRefit();
  }

  private finishRefit(): void {
    const n = this.n;
    const kWant = this.kEff;
    const k = this.opt.pcaDims;
    this.proj.fill(0);
    for (let r = 0; r < n; r++) this.projectRow(r);
    this.lo.fill(Infinity);
    this.hi.fill(-Infinity);
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < kWant; c++) {
        const p = this.proj[r * k + c];
        if (p < this.lo[c]) this.lo[c] = p;
        if (p > this.hi[c]) this.hi[c] = p;
      }
    }
    this.logVolume = this.computeLogVolume();
    this.changesSinceFit = 0;
    this.refits++;
  }

  /** Rebuild projections and box from the stored basis (after restoring a snapshot). */
  reproject(): void {
    const k = this.opt.pcaDims;
    this.lo.fill(Infinity);
    this.hi.fill(-Infinity);
    for (let r = 0; r < this.n; r++) {
      this.projectRow(r);
      for (let c = 0; c < this.kEff; c++) {
        const p = this.proj[r * k + c];
        if (p < this.lo[c]) this.lo[c] = p;
        if (p > this.hi[c]) this.hi[c] = p;
      }
    }
    this.logVolume = this.computeLogVolume();
  }

  /** κ̂ of the current memories (seed 001 §3.3), or the fixed κ. */
  kappa(fixed: number | null, clips: KappaClips): number {
    if (fixed !== null) return fixed;
    return estimateKappa(meanResultantLength(this.sum, this.n), this.d, clips);
  }

  /**
   * The exact pass (exact.ts): the largest cosine with q (unit, Float64), its first row, and
   * S = Σ exp(κ(cᵢ − max)) over all N ≥ 1 rows — in the SIMD kernel when the rows live in a
   * WebAssembly memory, else in the bit-identical JS version.
   */
  exactPass(q: Float64Array, kappa: number): ExactPassResult {
    if (this.store) return this.store.run(this.n, q, kappa);
    this.scratch ??= new Float64Array(EXACT_BLOCK);
    return exactPassJs(this.data, this.n, this.d, q, kappa, this.scratch);
  }

  /** Whether the exact pass runs in the WebAssembly SIMD kernel (the rows live in its memory). */
  get kernelBacked(): boolean {
    return this.store !== null;
  }

  /** Cosine of row r with q in exactly the arithmetic of {@link exactPass} (bit-identical to it). */
  dotRowExact(r: number, q: Float64Array): number {
    return dotExact(this.data, r * this.d, this.d, q);
  }

  /** Cosine of row r with q. */
  dotRow(r: number, q: Float64Array): number {
    const d = this.d;
    const x = this.data;
    const base = r * d;
    let s0 = 0;
    let s1 = 0;
    let j = 0;
    for (; j + 1 < d; j += 2) {
      s0 += x[base + j] * q[j];
      s1 += x[base + j + 1] * q[j + 1];
    }
    if (j < d) s0 += x[base + j] * q[j];
    return s0 + s1;
  }
}

/**
 * The SAGE equations, one named function each (seed 001 = SAGE, "Spherical Adaptive Gate for
 * Memory Evolution"; section numbers refer to it). All cosines are inner products of unit vectors,
 * in [−1, 1]; nothing here allocates more than O(1) besides its inputs.
 */

/** Default hyper-parameters of SAGE (seed 001 §4 "SAGE uses the following hyperparameters", §3.5, App. G). */
export const SAGE_DEFAULTS = Object.freeze({
  /** PCA projection dimension d′ for the density proxy (§4, App. D). */
  pcaDims: 16,
  /** Base threshold τ₀ (§3.4). */
  tau0: 0.25,
  /** Threshold floor τ_min (§3.4). */
  tauMin: 0.025,
  /** Density decay λ (§3.4). */
  lambda: 2.0,
  /** EMA smoothing α (§3.4). */
  alpha: 0.9,
  /** Width δ of the Update band (§3.4). */
  delta: 0.025,
  /** Fixed Noop threshold of the drop-in pre-filter on s_vMF (§3.5, calibrated in App. G). */
  tauNoop: 0.572,
  /** κ̂ clips of the authors' code: R̄ ≤ 1 − 1e−6, κ ∈ [1e−3, 50]. */
  rBarMax: 1 - 1e-6,
  kappaMin: 1e-3,
  kappaMax: 50,
  /** Floor of each projected range in the volume (App. D). */
  rangeFloor: 1e-3,
});

/**
 * s_vMF(c | M) = (1/κ) · log( (1/N) Σᵢ exp(κ · mᵢᵀc) )  — seed 001 §3.3.
 *
 * Computed as a log-sum-exp shifted by the largest cosine, so it neither overflows nor underflows
 * for κ up to 1e4 and beyond and N up to 1e6 and beyond: every shifted term is in (0, 1], the sum
 * is in [1, N]. The result is clamped to [−1, 1] (the exact value lies there by Cauchy–Schwarz,
 * App. E; the clamp only removes Float32 rounding of stored vectors).
 *
 * @param cosines mᵢᵀc for every stored memory of the scope, N ≥ 1 (cosine, not distance)
 * @param kappa concentration κ > 0
 * @returns the score on the cosine scale, in [−1, 1]
 * @throws RangeError if `cosines` is empty or κ ≤ 0 / not finite
 */
export function vmfScore(cosines: ArrayLike<number>, kappa: number): number {
  const n = cosines.length;
  if (n === 0) throw new RangeError('vmfScore: N = 0 (the gate emits Add without scoring)');
  if (!(kappa > 0) || !Number.isFinite(kappa)) throw new RangeError(`vmfScore: kappa must be finite and > 0, got ${kappa}`);
  let m = -Infinity;
  for (let i = 0; i < n; i++) if (cosines[i] > m) m = cosines[i];
  let s = 0;
  for (let i = 0; i < n; i++) s += Math.exp(kappa * (cosines[i] - m));
  return clampUnit(m + Math.log(s / n) / kappa);
}

/**
 * The same score from a shifted sum: s = m + log(sum / N) / κ where sum = Σ exp(κ(cᵢ − m)).
 * Used by the gate's scan loops, which build `sum` themselves (seed 001 §3.3).
 */
export function vmfScoreFromShiftedSum(maxCosine: number, shiftedSum: number, n: number, kappa: number): number {
  return clampUnit(maxCosine + Math.log(shiftedSum / n) / kappa);
}

/** ν(c) = (1 − s_vMF(c | M)) / 2 — seed 001 §3.3. Larger = more novel; in [0, 1]. */
export function novelty(score: number): number {
  return (1 - score) / 2;
}

/**
 * R̄ = ‖(1/N) Σᵢ mᵢ‖₂ — the mean resultant length, seed 001 §3.3.
 * @param sum Σᵢ mᵢ (length d)
 * @param n N ≥ 1
 * @returns R̄ ∈ [0, 1] (0 for N = 0)
 */
export function meanResultantLength(sum: ArrayLike<number>, n: number): number {
  if (n <= 0) return 0;
  let s = 0;
  for (let j = 0; j < sum.length; j++) s += sum[j] * sum[j];
  return Math.min(1, Math.sqrt(s) / n);
}

export interface KappaClips {
  /** Upper clip of R̄ before the formula (authors' code: 1 − 1e−6). */
  rBarMax?: number;
  /** Lower clip of κ̂ (authors' code: 1e−3). */
  kappaMin?: number;
  /** Upper clip of κ̂ (authors' code: 50; with d ≥ 100 it is usually hit). `Infinity` disables it. */
  kappaMax?: number;
}

/**
 * κ̂ = R̄ (d − R̄²) / (1 − R̄²) — Banerjee et al. (2005), used in seed 001 §3.3; R̄ is clipped to
 * ≤ rBarMax and κ̂ to [kappaMin, kappaMax] as in the authors' code.
 * @param rBar mean resultant length in [0, 1]
 * @param d embedding dimension
 */
export function estimateKappa(rBar: number, d: number, clips: KappaClips = {}): number {
  const rBarMax = clips.rBarMax ?? SAGE_DEFAULTS.rBarMax;
  const kMin = clips.kappaMin ?? SAGE_DEFAULTS.kappaMin;
  const kMax = clips.kappaMax ?? SAGE_DEFAULTS.kappaMax;
  const r = Math.min(Math.max(rBar, 0), rBarMax);
  const k = (r * (d - r * r)) / (1 - r * r);
  return Math.min(Math.max(k, kMin), kMax);
}

/**
 * V_t = exp( Σⱼ log max(max_i u_ij − min_i u_ij, floor) ) — the PCA box volume, seed 001 App. D
 * (u_ij = projection of memory i on principal component j; floor = 1e−3).
 * @param ranges max − min of the projections, one per component (d′ of them)
 * @param n N; V = 1 when N < 2
 */
export function pcaVolume(ranges: ArrayLike<number>, n: number, floor: number = SAGE_DEFAULTS.rangeFloor): number {
  return Math.exp(pcaLogVolume(ranges, n, floor));
}

/** log V_t of {@link pcaVolume} (seed 001 App. D), kept separately because V under/overflows less in log form. */
export function pcaLogVolume(ranges: ArrayLike<number>, n: number, floor: number = SAGE_DEFAULTS.rangeFloor): number {
  if (n < 2) return 0;
  let s = 0;
  for (let j = 0; j < ranges.length; j++) s += Math.log(Math.max(ranges[j], floor));
  return s;
}

/** ρ_t = N_t / V_t — the density proxy, seed 001 App. D (memories per unit PCA box volume). */
export function density(n: number, logVolume: number): number {
  return n * Math.exp(-logVolume);
}

export interface ThresholdParams {
  tau0?: number;
  tauMin?: number;
  lambda?: number;
}

/** τ*_t = τ_min + τ₀ · exp(−λ ρ_t) — the density-adapted target threshold, seed 001 §3.4. */
export function targetThreshold(rho: number, p: ThresholdParams = {}): number {
  const tau0 = p.tau0 ?? SAGE_DEFAULTS.tau0;
  const tauMin = p.tauMin ?? SAGE_DEFAULTS.tauMin;
  const lambda = p.lambda ?? SAGE_DEFAULTS.lambda;
  return tauMin + tau0 * Math.exp(-lambda * rho);
}

/**
 * τ_t = α τ_{t−1} + (1 − α) τ*_t, with τ₁ = τ*₁ (`previous = null`) — seed 001 §3.4.
 */
export function emaThreshold(previous: number | null, target: number, alpha: number = SAGE_DEFAULTS.alpha): number {
  return previous === null ? target : alpha * previous + (1 - alpha) * target;
}

export type GateAction = 'add' | 'update' | 'noop';

/**
 * The routing band of seed 001 §3.4: ν ≥ τ + δ → Add; τ ≤ ν < τ + δ → Update; ν < τ → Noop.
 */
export function routeByNovelty(nu: number, tau: number, delta: number = SAGE_DEFAULTS.delta): GateAction {
  if (nu >= tau + delta) return 'add';
  if (nu >= tau) return 'update';
  return 'noop';
}

/** The drop-in pre-filter of seed 001 §3.5 (τ_noop from App. G): Noop iff s_vMF > τ_noop. */
export function isNoopByScore(score: number, tauNoop: number = SAGE_DEFAULTS.tauNoop): boolean {
  return score > tauNoop;
}

/**
 * Upper bound of mᵀc for every unit m within angle θ of a unit centre μ, when cos∠(c, μ) = `cosToCentre`:
 * mᵀc ≤ cos(max(0, ∠(c, μ) − θ)) (triangle inequality of the angular metric on the sphere). Ours,
 * used by fast mode. `cosRadius` = cos θ = the smallest member cosine to μ.
 */
export function cosineUpperBound(cosToCentre: number, cosRadius: number): number {
  const phi = Math.acos(clampUnit(cosToCentre));
  const theta = Math.acos(clampUnit(cosRadius)) + ANGLE_ROUNDING_MARGIN;
  return phi <= theta ? 1 : Math.cos(phi - theta);
}

/**
 * Slack (radians) added to a cap's angular radius in `cosineUpperBound` (ours). acos is
 * ill-conditioned near ±1: a cosine rounded by one ulp of a double (≈1.1e−16) moves the angle by up
 * to ≈1.5e−8, so without slack a bound computed from rounded cosines could undercut the true cosine
 * by ~1e−8. 1e−7 rad covers both angles with room to spare and loosens the bound by at most 1e−7.
 */
export const ANGLE_ROUNDING_MARGIN = 1e-7;

/**
 * The error certificate of fast mode (ours). With S_T = Σ_{scanned} exp(κ(cᵢ − m)) ≥ 1 (m = the
 * largest scanned cosine) and an upper bound U = Σ_{unscanned} exp(κ(bᵢ − m)) ≥ the unscanned terms,
 * the exact score lies in [m + log(S_T/N)/κ, m + log((S_T+U)/N)/κ]; the midpoint is reported and its
 * error is at most half the width: (1/2κ) · log(1 + U/S_T).
 */
export function fastModeErrorBound(scannedShiftedSum: number, unscannedShiftedBound: number, kappa: number): number {
  return Math.log1p(unscannedShiftedBound / scannedShiftedSum) / (2 * kappa);
}

/** Clamp to [−1, 1]. */
export function clampUnit(x: number): number {
  return x > 1 ? 1 : x < -1 ? -1 : x;
}

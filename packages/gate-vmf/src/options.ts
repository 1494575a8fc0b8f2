import { z } from 'zod';
import { SAGE_DEFAULTS } from './math.js';
import { GateError } from './errors.js';

const pos = z.number().finite().positive();
const nonNeg = z.number().finite().nonnegative();
const unitOpen = z.number().finite().gt(0).lt(1);

/** Options of {@link createNoveltyGate}; every field is optional, defaults from seed 001 unless marked "ours". */
export const gateOptionsSchema = z
  .object({
    /** Fix the dimension d for every scope (otherwise each scope takes it from its first commit). */
    dimension: z.number().int().positive().optional(),
    /** Normalize input vectors to unit length instead of rejecting unnormalized ones (ours). Default false. */
    normalize: z.boolean().default(false),
    /** Accepted |‖v‖₂ − 1| when `normalize` is off (ours). Default 1e−3. Accepted vectors are renormalized exactly. */
    normTolerance: nonNeg.default(1e-3),
    /** A fixed κ, or 'auto' for κ̂ from R̄ (seed 001 §3.3). Default 'auto'. */
    kappa: z.union([z.literal('auto'), pos.max(1e6)]).default('auto'),
    /** κ̂ lower clip (authors' code 1e−3). */
    kappaMin: pos.default(SAGE_DEFAULTS.kappaMin),
    /** κ̂ upper clip (authors' code 50); `Infinity` is not JSON-safe, use e.g. 1e4 to effectively lift it. */
    kappaMax: pos.max(1e6).default(SAGE_DEFAULTS.kappaMax),
    /** R̄ upper clip (authors' code 1 − 1e−6). */
    rBarMax: unitOpen.default(SAGE_DEFAULTS.rBarMax),
    /** τ₀ (§3.4). */
    tau0: nonNeg.default(SAGE_DEFAULTS.tau0),
    /** τ_min (§3.4). */
    tauMin: nonNeg.default(SAGE_DEFAULTS.tauMin),
    /** λ (§3.4). */
    lambda: nonNeg.default(SAGE_DEFAULTS.lambda),
    /** EMA α (§3.4), in [0, 1). */
    alpha: z.number().finite().min(0).lt(1).default(SAGE_DEFAULTS.alpha),
    /** Update band width δ (§3.4). */
    delta: nonNeg.default(SAGE_DEFAULTS.delta),
    /** d′ principal components for ρ (§4, App. D). */
    pcaDims: z.number().int().positive().max(256).default(SAGE_DEFAULTS.pcaDims),
    /** Floor of each projected range (App. D). */
    rangeFloor: pos.default(SAGE_DEFAULTS.rangeFloor),
    /** 'always' refits PCA on every change, as the authors do; 'periodic' per the schedule below (ours). */
    densityRefit: z.enum(['periodic', 'always']).default('periodic'),
    /** Refit after max(refitMin, ⌈refitFraction·N⌉) changes (ours). Default 0.05. */
    refitFraction: z.number().finite().min(0).max(1).default(0.05),
    /** See refitFraction (ours). Default 8. */
    refitMin: z.number().int().min(1).default(8),
    /**
     * Largest multiplier of that interval (ours): outside the range where ρ can move τ*, the interval
     * doubles while the log V drift seen at refits stays ≤ 1/8 of the margin before τ* could change
     * (halves above 1/4). 1 = the fixed schedule. Default 8.
     */
    refitMaxScale: z.number().int().min(1).max(1024).default(8),
    /** 'exact' scans every memory; 'fast' uses the cluster index with a certified error for scopes with N ≥ fastMinN (ours). */
    mode: z.enum(['exact', 'fast']).default('exact'),
    /** Smallest scope that uses the index in fast mode (ours). Default 20 000. */
    fastMinN: z.number().int().min(64).default(20_000),
    /** Largest error of s_vMF that fast mode may report, else it scans more or falls back to exact (ours). Default 1e−3. */
    fastMaxError: pos.default(1e-3),
    /** Share of N that fast mode scans (score) or re-scores exactly (decision) before it gives up and runs the exact pass (ours). Default 0.1. */
    fastScanBudget: z.number().finite().gt(0).max(1).default(0.1),
    /**
     * What fast mode certifies (ours). 'score': |score − exact| ≤ fastMaxError, via the cluster index.
     * 'decision': the action and `nearest` equal exact mode's (certified by a low-dimensional sketch
     * bound), the score is the midpoint of a certified interval with `scoreError` its half-width.
     * Default 'score'.
     */
    fastCertify: z.enum(['score', 'decision']).default('score'),
    /**
     * With fastCertify 'decision': 'always' certifies `nearest` for every action (falls back to the
     * exact pass when that needs more than the budget); 'update-noop' only for Update and Noop (the
     * actions that use it) — an Add may then report the best of the rows it re-scored, with
     * `nearestExact: false` (ours). Default 'always'.
     */
    fastNearest: z.enum(['always', 'update-noop']).default('always'),
    /** Dimension r (≤ 64, and ≤ d) of the sketch used by fastCertify 'decision' (ours). Default 24. */
    sketchDims: z.number().int().min(1).max(64).default(24),
  })
  .strict();

export type GateOptions = z.input<typeof gateOptionsSchema>;
export type ResolvedGateOptions = z.output<typeof gateOptionsSchema>;

export function resolveGateOptions(input: unknown): ResolvedGateOptions {
  const r = gateOptionsSchema.safeParse(input ?? {});
  if (!r.success) {
    throw new GateError('BAD_OPTIONS', `Invalid gate options: ${z.prettifyError(r.error)}`, { details: { issues: r.error.issues } });
  }
  if (r.data.kappaMin > r.data.kappaMax) throw new GateError('BAD_OPTIONS', 'kappaMin must be ≤ kappaMax');
  return r.data;
}

/**
 * The drop-in Noop pre-filter of seed 001 §3.5: for an existing memory system, skip a candidate
 * when its s_vMF against the scope exceeds a fixed τ_noop (0.572 in the paper, calibrated in App. G
 * at the 80th percentile of s_vMF on synthetic data); everything else passes through unchanged.
 */
import { GateError } from './errors.js';
import { isNoopByScore, SAGE_DEFAULTS } from './math.js';
import { createNoveltyGate, type NoveltyGate } from './gate.js';
import type { GateOptions } from './options.js';
import type { GateSnapshot } from './snapshot.js';

export interface NoopDecision {
  /** 'noop' iff score > tauNoop; 'pass' otherwise (also for an empty scope). */
  action: 'noop' | 'pass';
  noop: boolean;
  /** s_vMF ∈ [−1, 1]; −1 when the scope is empty. */
  score: number;
  tauNoop: number;
  kappa: number;
  nearest: { id: string; cosine: number } | null;
  n: number;
}

export interface NoopFilter {
  /** Decide for a candidate (read-only). @throws GateError on bad input */
  check(scope: string, vector: ArrayLike<number>): NoopDecision;
  /** Record a memory the wrapped system stored. */
  commit(scope: string, id: string, vector: ArrayLike<number>): void;
  remove(scope: string, id: string): boolean;
  replace(scope: string, id: string, vector: ArrayLike<number>): void;
  size(scope: string): number;
  has(scope: string, id: string): boolean;
  serialize(): GateSnapshot;
  readonly tauNoop: number;
  /** The underlying gate (its scores and state). */
  readonly gate: NoveltyGate;
}

export interface NoopFilterOptions extends GateOptions {
  /** τ_noop on s_vMF (seed 001 §3.5, App. G). Default 0.572. */
  tauNoop?: number;
  /** Use an existing gate's memories instead of a new one. */
  gate?: NoveltyGate;
  state?: GateSnapshot;
}

/** Create the fixed-threshold pre-filter: Noop iff s_vMF > tauNoop (seed 001 §3.5). */
export function createNoopFilter(options: NoopFilterOptions = {}): NoopFilter {
  const { tauNoop = SAGE_DEFAULTS.tauNoop, gate: given, ...gateOptions } = options;
  if (typeof tauNoop !== 'number' || !Number.isFinite(tauNoop)) {
    throw new GateError('BAD_OPTIONS', `tauNoop must be a finite number, got ${String(tauNoop)}`);
  }
  const gate = given ?? createNoveltyGate(gateOptions);
  return {
    tauNoop,
    gate,
    check(scope, vector) {
      let d = gate.route(scope, vector);
      // a fast-mode score is only known within ±scoreError (fastCertify 'decision' certifies the
      // gate's own band, not τ_noop): when τ_noop lies inside that interval, decide on the exact pass
      if (d.scoreError > 0 && d.score - d.scoreError <= tauNoop && tauNoop < d.score + d.scoreError) d = gate.route(scope, vector, { mode: 'exact' });
      const noop = d.n > 0 && isNoopByScore(d.score, tauNoop);
      return { action: noop ? 'noop' : 'pass', noop, score: d.score, tauNoop, kappa: d.kappa, nearest: d.nearest, n: d.n };
    },
    commit: (s, id, v) => gate.commit(s, id, v),
    remove: (s, id) => gate.remove(s, id),
    replace: (s, id, v) => gate.replace(s, id, v),
    size: (s) => gate.size(s),
    has: (s, id) => gate.has(s, id),
    serialize: () => gate.serialize(),
  };
}

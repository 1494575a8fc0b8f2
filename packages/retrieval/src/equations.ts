/**
 * The read-path equations of Jev-Mem, one named function per equation.
 * Source: Jev-Mem (seed 000) §4 "Closed-loop retrieval" and docs/design.md "Read path"
 * (the authors' active profile). Every function is pure and deterministic.
 */
import type { RelationView } from '@mem/core';

/** Routing answers on `{query}`: one probability per relation view plus h(q) and r(q). */
export interface RoutingProbabilities {
  semantic: number;
  temporal: number;
  causal: number;
  entity: number;
  /** h(q): multi-hop requirement in [0, 1]. */
  multiHopNeed: number;
  /** r(q): recency importance in [0, 1]. */
  recencyImportance: number;
  /**
   * p that the question asks for an earlier state (what was true before a change: "used to",
   * "originally", "in 2023") rather than the present one (ours, issue 37). Absent = 0.
   */
  pastState?: number;
  /** p that the question asks for the present state of something that can change (ours, issue 37). Absent = 0. */
  presentState?: number;
}

export const VIEW_ORDER: readonly RelationView[] = ['semantic', 'temporal', 'causal', 'entity'];

/**
 * Active relation views A(q) = { g : p_g ≥ θ_act } (seed 000 §4, θ_act = 0.10), in the fixed
 * order semantic, temporal, causal, entity. `disabled` views are never active (ablations).
 */
export function activeViews(
  routing: Pick<RoutingProbabilities, RelationView>,
  thetaAct = 0.1,
  disabled: readonly RelationView[] = [],
): RelationView[] {
  return VIEW_ORDER.filter((g) => !disabled.includes(g) && clamp01(routing[g]) >= thetaAct);
}

/**
 * Largest-remainder (Hamilton) rounding: integers summing to `total` (≥ 0) proportional to
 * `weights` (non-negative). Ties in remainders go to the earlier index (stable). Ours.
 */
export function largestRemainder(total: number, weights: readonly number[]): number[] {
  const n = weights.length;
  if (n === 0) return [];
  const t = Math.max(0, Math.floor(total));
  const sum = weights.reduce((a, w) => a + Math.max(0, w), 0);
  const shares = weights.map((w) => (sum > 0 ? (t * Math.max(0, w)) / sum : t / n));
  const floors = shares.map(Math.floor);
  let left = t - floors.reduce((a, b) => a + b, 0);
  const order = shares
    .map((s, i) => ({ i, r: s - Math.floor(s) }))
    .sort((a, b) => b.r - a.r || a.i - b.i);
  for (let j = 0; left > 0; j = (j + 1) % n, left--) floors[order[j].i] += 1;
  return floors;
}

/**
 * Budget weights w_g = p_g^γ / Σ_{j∈A} p_j^γ (seed 000 eq. budget, γ = 1.0).
 * Returns weights in the order of `views`; uniform when every p is 0.
 */
export function budgetWeights(probabilities: readonly number[], gamma = 1.0): number[] {
  const powered = probabilities.map((p) => Math.pow(clamp01(p), gamma));
  const sum = powered.reduce((a, b) => a + b, 0);
  return powered.map((x) => (sum > 0 ? x / sum : 1 / Math.max(1, probabilities.length)));
}

/**
 * Per-view expansion budgets b_g = m + round_LR[(B − m|A|) w_g] (seed 000; B = 80, m = 1, γ = 1.0,
 * largest-remainder rounding so Σ b_g = B exactly). If m|A| > B the views with the highest need p_g
 * are kept (⌊B/m⌋ of them, ties by view order) and the others get 0 (docs/design.md). B ≤ 0 → all 0.
 */
export function allocateBudgets(
  need: Partial<Record<RelationView, number>>,
  active: readonly RelationView[],
  total = 80,
  minimum = 1,
  gamma = 1.0,
): Record<RelationView, number> {
  const out: Record<RelationView, number> = { semantic: 0, temporal: 0, causal: 0, entity: 0 };
  const B = Math.max(0, Math.floor(total));
  const m = Math.max(0, Math.floor(minimum));
  let kept = [...active];
  if (m > 0 && m * kept.length > B) {
    const capacity = Math.floor(B / m);
    kept = [...kept]
      .map((g, i) => ({ g, i, p: clamp01(need[g] ?? 0) }))
      .sort((a, b) => b.p - a.p || a.i - b.i)
      .slice(0, capacity)
      .sort((a, b) => a.i - b.i)
      .map((x) => x.g);
  }
  if (kept.length === 0) return out;
  const weights = budgetWeights(kept.map((g) => need[g] ?? 0), gamma);
  const extra = largestRemainder(B - m * kept.length, weights);
  kept.forEach((g, i) => (out[g] = m + extra[i]));
  return out;
}

/** Traversal depth D(q) = min(D_max, max(1, ⌈D_max · h(q)⌉)) (seed 000, D_max = 8). */
export function traversalDepth(multiHopNeed: number, maxDepth = 8): number {
  return Math.min(maxDepth, Math.max(1, Math.ceil(maxDepth * clamp01(multiHopNeed) - 1e-9)));
}

/**
 * Reciprocal-rank fusion (Cormack et al. 2009; seed 000 anchors, k = 60): score(d) = Σ_r 1/(k + rank_r(d)),
 * ranks 1-based. Returns ids by fused score (desc), ties by first appearance. Optional `weights[r]`
 * (default 1) scale ranking r's term: Σ_r w_r/(k + rank_r(d)) (weighted RRF, ours).
 */
export function reciprocalRankFusion(
  rankings: readonly (readonly string[])[],
  k = 60,
  weights?: readonly number[],
): { id: string; score: number }[] {
  const score = new Map<string, number>();
  const first = new Map<string, number>();
  let seen = 0;
  for (const [r, ranking] of rankings.entries()) {
    const w = weights?.[r] ?? 1;
    ranking.forEach((id, idx) => {
      score.set(id, (score.get(id) ?? 0) + w / (k + idx + 1));
      if (!first.has(id)) first.set(id, seen++);
    });
  }
  return [...score.entries()]
    .map(([id, s]) => ({ id, score: s }))
    .sort((a, b) => b.score - a.score || first.get(a.id)! - first.get(b.id)!);
}

/** The stopping Nouls' answers on `{query, evidence, depth}`. */
export interface StoppingAnswers {
  /** s: evidence_sufficient */
  sufficient: number;
  /** u: continue_useful */
  continueUseful: number;
  /** m: missing_evidence */
  missing: number;
  /** c: contradiction */
  contradiction: number;
}

export interface StoppingThresholds {
  /** s ≥ this (0.95) */
  sufficient: number;
  /** m < this (0.15) */
  missing: number;
  /** c < this (0.15) */
  contradiction: number;
  /** u < this (0.15) */
  continueUseful: number;
}

export const DEFAULT_STOPPING: StoppingThresholds = { sufficient: 0.95, missing: 0.15, contradiction: 0.15, continueUseful: 0.15 };

/**
 * Stopping rule (seed 000 §4): stop if (s ≥ 0.95 ∧ m < 0.15 ∧ c < 0.15) — reason `sufficient` —
 * or u < 0.15 — reason `not_useful`. Otherwise continue.
 */
export function stoppingDecision(
  a: StoppingAnswers,
  t: StoppingThresholds = DEFAULT_STOPPING,
): { stop: boolean; reason: 'sufficient' | 'not_useful' | null } {
  if (a.sufficient >= t.sufficient && a.missing < t.missing && a.contradiction < t.contradiction) {
    return { stop: true, reason: 'sufficient' };
  }
  if (a.continueUseful < t.continueUseful) return { stop: true, reason: 'not_useful' };
  return { stop: false, reason: null };
}

/** The λ weights of the candidate score (seed 000; Σλ = 1 by default). */
export interface ScoreWeights {
  /** λ_z on z = clipped cosine to the query (0.25) */
  cosine: number;
  /** λ_a on relevance a (0.35) */
  relevance: number;
  /** λ_ℓ on p_g · relation_usefulness ℓ (0.15) */
  relation: number;
  /** λ_n on new_information n (0.15) */
  novelty: number;
  /** λ_e on (π_e + supports_current_evidence c)/2 (0.10) */
  edge: number;
}

export const DEFAULT_SCORE_WEIGHTS: ScoreWeights = { cosine: 0.25, relevance: 0.35, relation: 0.15, novelty: 0.15, edge: 0.1 };

export interface CandidateFeatures {
  /** z: cosine to the query, clipped to [0, 1] by this function. */
  cosine: number;
  /** a: relevance Noul */
  relevance: number;
  /** p_g: routing probability of the view the candidate was reached through */
  viewProbability: number;
  /** ℓ: relation_usefulness Noul */
  relationUsefulness: number;
  /** n: new_information Noul */
  newInformation: number;
  /** π_e: probability of the edge followed (anchors: see JevRetrieverOptions.anchorEdgeProbability) */
  edgeProbability: number;
  /** c: supports_current_evidence Noul */
  supportsEvidence: number;
}

/**
 * Candidate score s = [λ_z z + λ_a a + λ_ℓ p_g ℓ + λ_n n + λ_e (π_e + c)/2] / Σλ (seed 000),
 * z = max(0, min(1, cosine)). All inputs are clamped to [0, 1]. Result in [0, 1].
 */
export function candidateScore(f: CandidateFeatures, w: ScoreWeights = DEFAULT_SCORE_WEIGHTS): number {
  const sum = w.cosine + w.relevance + w.relation + w.novelty + w.edge;
  if (!(sum > 0)) return 0;
  const s =
    w.cosine * clamp01(f.cosine) +
    w.relevance * clamp01(f.relevance) +
    w.relation * clamp01(f.viewProbability) * clamp01(f.relationUsefulness) +
    w.novelty * clamp01(f.newInformation) +
    (w.edge * (clamp01(f.edgeProbability) + clamp01(f.supportsEvidence))) / 2;
  return s / sum;
}

const DAY_MS = 86_400_000;

/**
 * Recency ρ_v = 1 / (1 + max(0, τ* − τ_v) / 1 day) (seed 000), τ* the reference time and τ_v the
 * memory's time, both epoch ms. A memory in the future of τ* gets ρ = 1. Non-finite → 0.
 */
export function recencyScore(referenceMs: number, memoryMs: number, unitMs = DAY_MS): number {
  if (!Number.isFinite(referenceMs) || !Number.isFinite(memoryMs)) return 0;
  return 1 / (1 + Math.max(0, referenceMs - memoryMs) / unitMs);
}

/** Recency-adjusted score s̃ = (s + β r ρ_v) / (1 + β r) (seed 000, β = 0.1). */
export function recencyAdjustedScore(score: number, recencyImportance: number, recency: number, beta = 0.1): number {
  const r = clamp01(recencyImportance);
  return (score + beta * r * clamp01(recency)) / (1 + beta * r);
}

/** Clip to [0, 1]; NaN → 0. */
export function clamp01(x: number): number {
  if (!(x > 0)) return 0;
  return x > 1 ? 1 : x;
}

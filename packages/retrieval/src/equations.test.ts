import { describe, expect, it } from 'vitest';
import {
  activeViews,
  allocateBudgets,
  budgetWeights,
  candidateScore,
  largestRemainder,
  reciprocalRankFusion,
  recencyAdjustedScore,
  recencyScore,
  stoppingDecision,
  traversalDepth,
} from './equations.js';

describe('routing → active views', () => {
  it('keeps views with p ≥ θ_act in fixed order', () => {
    expect(activeViews({ semantic: 0.9, temporal: 0.1, causal: 0.09, entity: 0.5 })).toEqual(['semantic', 'temporal', 'entity']);
    expect(activeViews({ semantic: 0.9, temporal: 0.1, causal: 0.09, entity: 0.5 }, 0.5)).toEqual(['semantic', 'entity']);
  });
  it('drops disabled views and NaN probabilities', () => {
    expect(activeViews({ semantic: 0.9, temporal: NaN, causal: 0.4, entity: 0.5 }, 0.1, ['entity'])).toEqual(['semantic', 'causal']);
  });
});

describe('budget allocation', () => {
  it('largest remainder sums exactly and breaks ties by order', () => {
    expect(largestRemainder(10, [1, 1, 1])).toEqual([4, 3, 3]);
    expect(largestRemainder(7, [0.5, 0.3, 0.2])).toEqual([4, 2, 1]);
    expect(largestRemainder(0, [1, 2])).toEqual([0, 0]);
    expect(largestRemainder(5, [0, 0])).toEqual([3, 2]);
    expect(largestRemainder(3, [])).toEqual([]);
  });
  it('w_g = p^γ / Σ p^γ', () => {
    const [x, y] = budgetWeights([0.2, 0.6]);
    expect(x).toBeCloseTo(0.25);
    expect(y).toBeCloseTo(0.75);
    const [a, b] = budgetWeights([0.2, 0.6], 2);
    expect(a).toBeCloseTo(0.04 / 0.4);
    expect(b).toBeCloseTo(0.36 / 0.4);
  });
  it('b_g = m + LR[(B − m|A|) w_g] sums to B', () => {
    const b = allocateBudgets({ semantic: 0.8, temporal: 0.4, causal: 0.2, entity: 0.6 }, ['semantic', 'temporal', 'causal', 'entity']);
    expect(b.semantic + b.temporal + b.causal + b.entity).toBe(80);
    // (80 − 4) · 0.8/2 = 30.4 → 30, 0.4/2 → 15.2, 0.2/2 → 7.6, 0.6/2 → 22.8; remainders give 1 to causal
    expect(b).toEqual({ semantic: 31, temporal: 16, causal: 9, entity: 24 });
  });
  it('inactive views get nothing; every active view at least m', () => {
    const b = allocateBudgets({ semantic: 1, temporal: 0.0001, causal: 0, entity: 0 }, ['semantic', 'temporal'], 80, 5);
    expect(b.temporal).toBe(5);
    expect(b.semantic).toBe(75);
    expect(b.causal + b.entity).toBe(0);
  });
  it('m|A| > B keeps the highest-need views', () => {
    const b = allocateBudgets({ semantic: 0.3, temporal: 0.9, causal: 0.5, entity: 0.2 }, ['semantic', 'temporal', 'causal', 'entity'], 5, 2);
    expect(b).toEqual({ semantic: 0, temporal: 3, causal: 2, entity: 0 });
  });
  it('B = 0 or no active view → all zero', () => {
    expect(allocateBudgets({ semantic: 1 }, ['semantic'], 0)).toEqual({ semantic: 0, temporal: 0, causal: 0, entity: 0 });
    expect(allocateBudgets({ semantic: 1 }, [], 80)).toEqual({ semantic: 0, temporal: 0, causal: 0, entity: 0 });
  });
  it('all-zero needs split uniformly', () => {
    expect(allocateBudgets({ semantic: 0, temporal: 0 }, ['semantic', 'temporal'], 9, 1)).toEqual({ semantic: 5, temporal: 4, causal: 0, entity: 0 });
  });
});

describe('depth', () => {
  it('D(q) = min(D_max, max(1, ⌈D_max h⌉))', () => {
    expect(traversalDepth(0)).toBe(1);
    expect(traversalDepth(0.01)).toBe(1);
    expect(traversalDepth(0.125)).toBe(1);
    expect(traversalDepth(0.3)).toBe(3);
    expect(traversalDepth(1)).toBe(8);
    expect(traversalDepth(2)).toBe(8);
    expect(traversalDepth(0.5, 3)).toBe(2);
  });
});

describe('RRF', () => {
  it('sums 1/(k + rank) and orders by score then first appearance', () => {
    const f = reciprocalRankFusion([
      ['a', 'b', 'c'],
      ['b', 'd'],
    ]);
    expect(f.map((x) => x.id)).toEqual(['b', 'a', 'd', 'c']);
    expect(f[0].score).toBeCloseTo(1 / 62 + 1 / 61);
    expect(f[1].score).toBeCloseTo(1 / 61);
  });
});

describe('stopping', () => {
  const base = { sufficient: 0.96, continueUseful: 0.9, missing: 0.1, contradiction: 0.1 };
  it('stops when sufficient and nothing missing or contradictory', () => {
    expect(stoppingDecision(base)).toEqual({ stop: true, reason: 'sufficient' });
  });
  it('does not stop on sufficiency if missing or contradiction is high', () => {
    expect(stoppingDecision({ ...base, missing: 0.15 }).stop).toBe(false);
    expect(stoppingDecision({ ...base, contradiction: 0.2 }).stop).toBe(false);
    expect(stoppingDecision({ ...base, sufficient: 0.94 }).stop).toBe(false);
  });
  it('stops when another round is not useful', () => {
    expect(stoppingDecision({ ...base, sufficient: 0.2, continueUseful: 0.14 })).toEqual({ stop: true, reason: 'not_useful' });
  });
});

describe('candidate score and recency', () => {
  const f = { cosine: 0.8, relevance: 0.6, viewProbability: 0.5, relationUsefulness: 0.4, newInformation: 0.2, edgeProbability: 1, supportsEvidence: 0.5 };
  it('s = Σ λ·feature / Σλ', () => {
    expect(candidateScore(f)).toBeCloseTo(0.25 * 0.8 + 0.35 * 0.6 + 0.15 * 0.5 * 0.4 + 0.15 * 0.2 + 0.1 * 0.75);
    expect(candidateScore({ ...f, cosine: -0.5 })).toBeCloseTo(0.35 * 0.6 + 0.15 * 0.2 + 0.03 + 0.075);
    const w = { cosine: 1, relevance: 1, relation: 0, novelty: 0, edge: 0 };
    expect(candidateScore(f, w)).toBeCloseTo(0.7);
  });
  it('ρ_v = 1/(1 + Δdays⁺); s̃ = (s + 0.1 r ρ)/(1 + 0.1 r)', () => {
    const now = Date.parse('2024-05-16T10:00:00Z');
    expect(recencyScore(now, Date.parse('2024-05-14T10:00:00Z'))).toBeCloseTo(1 / 3);
    expect(recencyScore(now, now + 1e9)).toBe(1);
    expect(recencyScore(now, NaN)).toBe(0);
    expect(recencyAdjustedScore(0.5, 1, 1)).toBeCloseTo(0.6 / 1.1);
    expect(recencyAdjustedScore(0.5, 0, 1)).toBe(0.5);
  });
});

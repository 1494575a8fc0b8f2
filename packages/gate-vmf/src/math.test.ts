import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  density,
  emaThreshold,
  estimateKappa,
  isNoopByScore,
  meanResultantLength,
  novelty,
  pcaLogVolume,
  pcaVolume,
  routeByNovelty,
  targetThreshold,
  vmfScore,
  cosineUpperBound,
  fastModeErrorBound,
} from './math.js';

const cosArb = fc.double({ min: -1, max: 1, noNaN: true });
const kappaArb = fc.double({ min: 1e-3, max: 1e4, noNaN: true });

describe('vmfScore (seed 001 §3.3)', () => {
  it('hand-computed small cases', () => {
    // N = 1: s = cosine for every κ
    expect(vmfScore([0.3], 7)).toBeCloseTo(0.3, 14);
    // two memories, κ = 1: s = log((e^1 + e^0)/2)
    expect(vmfScore([1, 0], 1)).toBeCloseTo(Math.log((Math.E + 1) / 2), 14);
    // κ = 2, cosines 0.5, −0.5: (1/2) log(cosh(1))
    expect(vmfScore([0.5, -0.5], 2)).toBeCloseTo(0.5 * Math.log(Math.cosh(1)), 14);
    // equal cosines: s = that cosine
    expect(vmfScore([0.2, 0.2, 0.2], 50)).toBeCloseTo(0.2, 14);
  });

  it('tends to the mean cosine as κ → 0 and to the max as κ → ∞ (N fixed)', () => {
    const c = [0.9, 0.1, -0.4];
    expect(vmfScore(c, 1e-3)).toBeCloseTo((0.9 + 0.1 - 0.4) / 3, 3);
    expect(vmfScore(c, 1e4)).toBeCloseTo(0.9 + Math.log(1 / 3) / 1e4, 10);
  });

  it('does not overflow or underflow for κ = 1e4 and N = 1e6', () => {
    const n = 1_000_000;
    const c = new Float64Array(n);
    for (let i = 0; i < n; i++) c[i] = -1 + (2 * i) / (n - 1);
    const s = vmfScore(c, 1e4);
    expect(Number.isFinite(s)).toBe(true);
    // only the top end matters: Σ exp(κ(c−1)) ≈ 1/(1 − exp(−κ·Δ)) with Δ = 2/(n−1)
    const delta = 2 / (n - 1);
    const expected = 1 + Math.log(1 / (1 - Math.exp(-1e4 * delta)) / n) / 1e4;
    expect(s).toBeCloseTo(expected, 9);
    // all equal at −1 with large κ: exactly −1 (a naive mean of exp(−1e4) would give log(0))
    expect(vmfScore(new Float64Array(n).fill(-1), 1e4)).toBe(-1);
  });

  it('property: s ∈ [−1, 1] and between the mean and the max cosine', () => {
    fc.assert(
      fc.property(fc.array(cosArb, { minLength: 1, maxLength: 50 }), kappaArb, (c, k) => {
        const s = vmfScore(c, k);
        const max = Math.max(...c);
        const mean = c.reduce((a, b) => a + b, 0) / c.length;
        expect(s).toBeGreaterThanOrEqual(-1);
        expect(s).toBeLessThanOrEqual(1);
        expect(s).toBeLessThanOrEqual(max + 1e-12);
        expect(s).toBeGreaterThanOrEqual(mean - 1e-9);
      }),
    );
  });

  it('property: permutation invariance', () => {
    fc.assert(
      fc.property(fc.array(cosArb, { minLength: 1, maxLength: 40 }), kappaArb, fc.integer(), (c, k, seed) => {
        const p = c.slice();
        let x = seed >>> 0;
        for (let i = p.length - 1; i > 0; i--) {
          x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
          const j = x % (i + 1);
          [p[i], p[j]] = [p[j], p[i]];
        }
        expect(vmfScore(p, k)).toBeCloseTo(vmfScore(c, k), 12);
      }),
    );
  });

  it('property: raising any cosine never makes the candidate more novel (monotone in every mᵢᵀc)', () => {
    // This is what holds in general. "Closer to the nearest memory" alone does NOT imply lower ν:
    // see the counterexample test in gate.test.ts.
    fc.assert(
      fc.property(fc.array(cosArb, { minLength: 1, maxLength: 30 }), fc.nat(), fc.double({ min: 0, max: 2, noNaN: true }), kappaArb, (c, i, up, k) => {
        const j = i % c.length;
        const c2 = c.slice();
        c2[j] = Math.min(1, c2[j] + up);
        expect(novelty(vmfScore(c2, k))).toBeLessThanOrEqual(novelty(vmfScore(c, k)) + 1e-12);
      }),
    );
  });
});

describe('novelty, κ̂, R̄ (seed 001 §3.3)', () => {
  it('ν = (1 − s)/2', () => {
    expect(novelty(1)).toBe(0);
    expect(novelty(-1)).toBe(1);
    expect(novelty(0.5)).toBe(0.25);
  });
  it('R̄ of hand-made sums', () => {
    expect(meanResultantLength([2, 0, 0], 2)).toBe(1);
    expect(meanResultantLength([0, 0], 2)).toBe(0);
    expect(meanResultantLength([3, 4], 10)).toBeCloseTo(0.5, 15);
    expect(meanResultantLength([1], 0)).toBe(0);
  });
  it('κ̂ = R̄(d − R̄²)/(1 − R̄²) with the authors’ clips', () => {
    expect(estimateKappa(0.5, 3, { kappaMax: 1e9 })).toBeCloseTo((0.5 * (3 - 0.25)) / 0.75, 14);
    expect(estimateKappa(0.5, 100)).toBe(50); // cap hit with d ≥ 100
    expect(estimateKappa(0, 100)).toBe(1e-3); // floor
    expect(estimateKappa(1, 100, { kappaMax: Infinity })).toBeCloseTo(((1 - 1e-6) * (100 - (1 - 1e-6) ** 2)) / (1 - (1 - 1e-6) ** 2), 3);
  });
});

describe('density and thresholds (seed 001 App. D, §3.4)', () => {
  it('V = exp Σ log max(range, 1e−3); V = 1 when N < 2; ρ = N/V', () => {
    expect(pcaVolume([2, 0.5], 5)).toBeCloseTo(1, 14);
    expect(pcaVolume([0, 0.5], 5)).toBeCloseTo(5e-4, 16);
    expect(pcaVolume([0.1, 0.1], 1)).toBe(1);
    expect(density(10, pcaLogVolume([2, 0.5], 10))).toBeCloseTo(10, 12);
    expect(density(3, Math.log(0.5))).toBeCloseTo(6, 12);
  });
  it('τ* = τ_min + τ₀ e^{−λρ} and the EMA', () => {
    expect(targetThreshold(0)).toBeCloseTo(0.275, 15);
    expect(targetThreshold(1)).toBeCloseTo(0.025 + 0.25 * Math.exp(-2), 15);
    expect(targetThreshold(1e6)).toBe(0.025);
    expect(emaThreshold(null, 0.2)).toBe(0.2);
    expect(emaThreshold(0.2, 0.1)).toBeCloseTo(0.9 * 0.2 + 0.1 * 0.1, 15);
  });
  it('routing band: all three outcomes and the band edges', () => {
    expect(routeByNovelty(0.2, 0.1, 0.025)).toBe('add');
    expect(routeByNovelty(0.125, 0.1, 0.025)).toBe('add'); // ν = τ + δ → Add
    expect(routeByNovelty(0.11, 0.1, 0.025)).toBe('update');
    expect(routeByNovelty(0.1, 0.1, 0.025)).toBe('update'); // ν = τ → Update
    expect(routeByNovelty(0.09, 0.1, 0.025)).toBe('noop');
  });
  it('Noop pre-filter: noop iff s > τ_noop (strict)', () => {
    expect(isNoopByScore(0.6)).toBe(true);
    expect(isNoopByScore(0.572)).toBe(false);
    expect(isNoopByScore(0.5)).toBe(false);
  });
});

describe('fast-mode bound helpers (ours)', () => {
  it('cosine upper bound holds for members of a cap (property, d = 3)', () => {
    const unit = fc.tuple(fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true }))
      .filter(([a, b, c]) => a * a + b * b + c * c > 1e-6)
      .map(([a, b, c]) => {
        const n = Math.hypot(a, b, c);
        return [a / n, b / n, c / n];
      });
    const dot = (x: number[], y: number[]) => x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    fc.assert(
      fc.property(unit, unit, unit, (mu, m, c) => {
        const b = cosineUpperBound(dot(c, mu), dot(m, mu));
        expect(dot(m, c)).toBeLessThanOrEqual(b + 1e-9);
      }),
    );
  });
  it('error bound is half the log-width of the interval', () => {
    expect(fastModeErrorBound(1, 0, 10)).toBe(0);
    expect(fastModeErrorBound(2, 2, 1)).toBeCloseTo(Math.log(2) / 2, 15);
  });
});

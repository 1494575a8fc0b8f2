import { describe, expect, it } from 'vitest';
import { createNoveltyGate } from './index.js';
import { churn, gateOver, near, randomUnit, rng, topicMixture } from './test-utils.js';

describe('fast mode (cluster index with a certified error, ours)', () => {
  const d = 48;
  const n = 6000;
  const { vectors } = topicMixture(n, d, 60, 0.97, 21);
  const build = gateOver(vectors, n, d);
  const exact = build({});
  const fast = build({ mode: 'fast', fastMinN: 1000 });

  it('builds an index and matches exact mode within the reported bound (near-duplicates and novel candidates)', () => {
    expect(fast.stats('s')!.index).not.toBeNull();
    const r = rng(22);
    let fastCount = 0;
    let nearDup = 0;
    for (let t = 0; t < 60; t++) {
      const i = Math.floor(r.u() * n);
      const q = t % 2 === 0 ? near(vectors.subarray(i * d, i * d + d), 0.97, r) : randomUnit(d, r);
      const a = exact.route('s', q);
      const b = fast.route('s', q);
      expect(b.scoreError).toBeLessThanOrEqual(1e-3);
      expect(Math.abs(a.score - b.score)).toBeLessThanOrEqual(b.scoreError + 1e-12);
      expect(b.kappa).toBe(a.kappa);
      expect(b.threshold).toBe(a.threshold);
      expect(b.nearest!.id).toBe(a.nearest!.id);
      if (b.mode === 'fast') fastCount++;
      if (b.mode === 'fast' && t % 2 === 0) nearDup++;
    }
    // near-duplicates are resolved by the index; novel candidates may fall back to the exact pass
    expect(nearDup).toBeGreaterThanOrEqual(25);
    expect(fastCount).toBeGreaterThanOrEqual(nearDup);
  });

  it('stays within the bound after removes and replaces, and a restored gate decides identically', () => {
    const r = rng(23);
    churn([exact, fast], r, d, 7, 300, 50, 1);
    const restored = createNoveltyGate({ state: JSON.parse(JSON.stringify(fast.serialize())) });
    for (let t = 0; t < 30; t++) {
      const i = 1 + Math.floor(r.u() * (n - 1));
      const id = `m${i}`;
      const q = exact.has('s', id) ? near(vectors.subarray(i * d, i * d + d), 0.98, r) : randomUnit(d, r);
      const a = exact.route('s', q);
      const b = fast.route('s', q);
      expect(Math.abs(a.score - b.score)).toBeLessThanOrEqual(b.scoreError + 1e-12);
      expect(b.nearest!.id).toBe(a.nearest!.id);
      expect(restored.route('s', q)).toEqual(b);
    }
  });

  it('with a large κ (fixed 500) the far clusters are negligible and almost every close candidate is fast', () => {
    const g = createNoveltyGate({ mode: 'fast', fastMinN: 1000, kappa: 500 });
    const e = createNoveltyGate({ kappa: 500 });
    for (let i = 0; i < 3000; i++) {
      g.commit('s', `m${i}`, vectors.subarray(i * d, i * d + d));
      e.commit('s', `m${i}`, vectors.subarray(i * d, i * d + d));
    }
    const r = rng(24);
    let fastCount = 0;
    for (let t = 0; t < 30; t++) {
      const i = Math.floor(r.u() * 3000);
      const q = near(vectors.subarray(i * d, i * d + d), 0.95, r);
      const a = e.route('s', q);
      const b = g.route('s', q);
      expect(Math.abs(a.score - b.score)).toBeLessThanOrEqual(b.scoreError + 1e-12);
      if (b.mode === 'fast') fastCount++;
    }
    expect(fastCount).toBeGreaterThanOrEqual(15); // measured 22 of 30 with this seed
  });

  it('an exact-mode snapshot restored in fast mode builds its index and routes within the bound', () => {
    const g = createNoveltyGate({ mode: 'fast', fastMinN: 1000, state: JSON.parse(JSON.stringify(exact.serialize())) });
    expect(g.stats('s')!.index).not.toBeNull();
    const r = rng(26);
    const q = near(vectors.subarray(5 * d, 6 * d), 0.98, r);
    const a = exact.route('s', q);
    const b = g.route('s', q);
    expect(Math.abs(a.score - b.score)).toBeLessThanOrEqual(b.scoreError + 1e-12);
  });

  it('a tiny error budget forces the exact fallback', () => {
    const g = createNoveltyGate({ mode: 'fast', fastMinN: 1000, fastMaxError: 1e-12, fastScanBudget: 0.05 });
    for (let i = 0; i < 2000; i++) g.commit('s', `m${i}`, vectors.subarray(i * d, i * d + d));
    const dec = g.route('s', randomUnit(d, rng(25)));
    expect(dec.mode).toBe('exact');
    expect(dec.scoreError).toBe(0);
  });
});

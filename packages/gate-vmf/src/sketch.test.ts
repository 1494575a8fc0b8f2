import { describe, expect, it } from 'vitest';
import { createNoopFilter, createNoveltyGate } from './index.js';
import { instantiateKernel, kernelBytes, DATA_OFFSET, HI_OFFSET, LO_OFFSET, Q_OFFSET, HIST_CELLS } from './kernel.js';
import { churn, gateOver, near, randomUnit, rng, topicMixture } from './test-utils.js';

describe('sketch kernel (WebAssembly SIMD, ours)', () => {
  it('validates, and its bounds bracket every f64 dot product; grid counts and best row match a JS reference', () => {
    const wasm = (globalThis as unknown as { WebAssembly: { validate(b: Uint8Array): boolean } }).WebAssembly;
    for (const w of [4, 12, 24, 64]) expect(wasm.validate(kernelBytes(w))).toBe(true);
    expect(() => kernelBytes(10)).toThrow(RangeError);
    const r = rng(5);
    const n = 301;
    const rp = 12;
    const k = instantiateKernel(rp)!;
    expect(k).not.toBeNull();
    k.memory.grow(2);
    const buf = k.memory.buffer;
    const z = new Float32Array(buf, DATA_OFFSET, n * rp);
    const eps = new Float32Array(buf, DATA_OFFSET + 4 * n * rp, n);
    const ub = new Float32Array(buf, DATA_OFFSET + 4 * n * (rp + 1), n);
    const lb = new Float32Array(buf, DATA_OFFSET + 4 * n * (rp + 2), n);
    const q = new Float32Array(buf, Q_OFFSET, rp);
    for (let i = 0; i < z.length; i++) z[i] = (r.u() - 0.5) * 0.6;
    for (let i = 0; i < n; i++) eps[i] = r.u() * 0.5;
    for (let c = 0; c < rp; c++) q[c] = (r.u() - 0.5) * 0.6;
    const eq = 0.3;
    const slack = 1e-5;
    const inv = 1024;
    const last = Math.ceil(4.5 * inv);
    const hi = new Int32Array(buf, HI_OFFSET, HIST_CELLS).fill(0);
    const lo = new Int32Array(buf, LO_OFFSET, HIST_CELLS).fill(0);
    const best = k.pass(DATA_OFFSET, DATA_OFFSET + 4 * n * rp, DATA_OFFSET + 4 * n * (rp + 1), DATA_OFFSET + 4 * n * (rp + 2), n, rp, eq, slack, inv, last, HI_OFFSET, LO_OFFSET);
    const refHi = new Int32Array(HIST_CELLS);
    const refLo = new Int32Array(HIST_CELLS);
    let refBest = 0;
    for (let i = 0; i < n; i++) {
      let t = 0;
      for (let c = 0; c < rp; c++) t += z[i * rp + c] * q[c];
      const e = eps[i] * eq;
      expect(ub[i]).toBeGreaterThanOrEqual(t + e);
      expect(lb[i]).toBeLessThanOrEqual(t - e);
      expect(ub[i] - (t + e)).toBeLessThan(2 * slack);
      expect(t - e - lb[i]).toBeLessThan(2 * slack);
      refHi[Math.min(last, Math.max(0, Math.trunc(Math.fround(Math.fround(ub[i] + 2) * inv))))]++;
      refLo[Math.min(last, Math.max(0, Math.trunc(Math.fround(Math.fround(lb[i] + 2) * inv))))]++;
      if (ub[i] > ub[refBest]) refBest = i;
    }
    expect(best).toBe(refBest);
    expect(Array.from(hi)).toEqual(Array.from(refHi));
    expect(Array.from(lo)).toEqual(Array.from(refLo));
  });
});

describe("fastCertify 'decision' (sketch bound, ours)", () => {
  const d = 40;
  const n = 5000;
  const { vectors } = topicMixture(n, d, 50, 0.95, 31);
  const build = gateOver(vectors, n, d);
  // τ_min near the candidates' novelty (0.09–0.42 here) so all three actions occur
  const band = { tauMin: 0.105, delta: 0.03 };
  const exact = build(band);
  const fast = build({ ...band, mode: 'fast', fastCertify: 'decision', fastMinN: 1000, sketchDims: 12 });

  /** Candidates over the whole score range: near-duplicates at several distances, mixtures, random directions. */
  const candidates = (seed: number, count: number) => {
    const r = rng(seed);
    const out: Float64Array[] = [];
    for (let t = 0; t < count; t++) {
      const i = Math.floor(r.u() * n);
      const base = vectors.subarray(i * d, i * d + d);
      const kind = t % 4;
      out.push(kind === 3 ? randomUnit(d, r) : near(base, [0.999, 0.97, 0.9][kind], r));
    }
    return out;
  };

  it('keeps a sketch and decides exactly like exact mode (action, nearest id and cosine), score within scoreError', () => {
    expect(fast.stats('s')!.sketch).toEqual({ dims: 12, builtAt: 1000 * 4 });
    let certified = 0;
    const actions = new Set<string>();
    for (const q of candidates(32, 160)) {
      const a = exact.route('s', q);
      const b = fast.route('s', q);
      expect(b.action).toBe(a.action);
      expect(b.nearest).toEqual(a.nearest);
      expect(b.threshold).toBe(a.threshold);
      expect(b.kappa).toBe(a.kappa);
      expect(Math.abs(b.score - a.score)).toBeLessThanOrEqual(b.scoreError);
      if (b.mode === 'fast') certified++;
      actions.add(a.action);
    }
    expect(actions.size).toBe(3);
    expect(certified).toBeGreaterThanOrEqual(80); // the sketch path is actually taken
  });

  it('certifies only right decisions when τ moves the band edges across the candidates', () => {
    for (const tauMin of [0.09, 0.12, 0.14]) {
      const e = build({ tauMin, delta: 0.02 });
      const f = build({ tauMin, delta: 0.02, mode: 'fast', fastCertify: 'decision', fastMinN: 1000, sketchDims: 12 });
      const counts: Record<string, number> = {};
      for (const q of candidates(33 + tauMin * 100, 40)) {
        const a = e.route('s', q);
        const b = f.route('s', q);
        expect(b.action).toBe(a.action);
        expect(b.nearest).toEqual(a.nearest);
        counts[a.action] = (counts[a.action] ?? 0) + 1;
      }
      expect(Object.keys(counts).length).toBeGreaterThanOrEqual(2);
    }
  });

  it('stays exact after removes and replaces; a restored gate decides bit for bit alike; a tiny budget falls back to exact', () => {
    const r = rng(34);
    churn([exact, fast], r, d, 11, 400, 60, 3);
    for (let i = 0; i < 30; i++) {
      const v = near(vectors.subarray(i * d, i * d + d), 0.99, r);
      exact.commit('s', `x${i}`, v);
      fast.commit('s', `x${i}`, v);
    }
    const restored = createNoveltyGate({ state: JSON.parse(JSON.stringify(fast.serialize())) });
    expect(restored.stats('s')!.sketch).toEqual(fast.stats('s')!.sketch);
    for (const q of candidates(35, 60)) {
      const a = exact.route('s', q);
      const b = fast.route('s', q);
      expect(b.action).toBe(a.action);
      expect(b.nearest).toEqual(a.nearest);
      expect(Math.abs(b.score - a.score)).toBeLessThanOrEqual(b.scoreError);
      expect(restored.route('s', q)).toEqual(b);
    }
    const tight = createNoveltyGate({ state: fast.serialize(), fastScanBudget: 1e-6 });
    const q = near(vectors.subarray(0, d), 0.9, r);
    const c = tight.route('s', q);
    const a = exact.route('s', q);
    // with a budget of 64 rows the candidate either certifies on the sketch alone or runs the exact pass
    if (c.mode === 'exact') expect(c).toEqual({ ...a });
    else expect(c.action).toBe(a.action);
  });

  it("fastNearest 'update-noop': same actions; nearest certified for Update/Noop (and flagged exact only when it is)", () => {
    const g = createNoveltyGate({ ...band, mode: 'fast', fastCertify: 'decision', fastMinN: 1000, sketchDims: 12, fastNearest: 'update-noop', state: fast.serialize() });
    const seen: Record<string, number> = {};
    let approx = 0;
    for (const q of candidates(37, 120)) {
      const a = exact.route('s', q);
      const b = g.route('s', q);
      expect(b.action).toBe(a.action);
      expect(Math.abs(b.score - a.score)).toBeLessThanOrEqual(b.scoreError);
      if (b.action !== 'add') expect(b.nearestExact).toBe(true);
      if (b.nearestExact) expect(b.nearest).toEqual(a.nearest);
      else {
        approx++;
        expect(b.nearest!.cosine).toBeLessThanOrEqual(a.nearest!.cosine);
      }
      seen[b.action] = (seen[b.action] ?? 0) + 1;
    }
    expect(Object.keys(seen).length).toBe(3);
    expect(approx).toBeGreaterThan(0); // some Adds skip the nearest certification
  });

  it('novel candidates far outside the sketch span fall back to the exact pass under fastNearest always', () => {
    // candidates orthogonal to the stored data's leading directions: wide sketch bounds, many rows tie for nearest
    const r = rng(38);
    let exactRuns = 0;
    for (let t = 0; t < 20; t++) {
      const q = randomUnit(d, r);
      const a = exact.route('s', q);
      const b = fast.route('s', q);
      expect(b.action).toBe(a.action);
      expect(b.nearest).toEqual(a.nearest);
      expect(b.nearestExact).toBe(true);
      if (b.mode === 'exact') {
        exactRuns++;
        expect(b).toEqual(a);
      }
    }
    // deterministic data: with r = 12 of d = 40 every random direction needs the exact pass here
    expect(exactRuns).toBe(20);
  });

  it('new memories are covered while N sits between fastMinN/2 and builtAt/2 (no rebuild, no drop): both fast modes', () => {
    const base = createNoveltyGate({ ...band, state: exact.serialize() });
    const size = base.size('s');
    for (const certify of ['decision', 'score'] as const) {
      const g = createNoveltyGate({ ...band, mode: 'fast', fastCertify: certify, fastMinN: 1000, sketchDims: 12, state: base.serialize() });
      const e = createNoveltyGate({ ...band, state: base.serialize() });
      const stat = () => (certify === 'decision' ? g.stats('s')!.sketch : g.stats('s')!.index);
      expect(stat()!.builtAt).toBe(size);
      const ids = g.ids('s');
      // remove until N ≤ builtAt/2 (a rebuild is "due") while N < fastMinN (none is built) and ≥ fastMinN/2 (kept)
      let i = 0;
      while (!(2 * g.size('s') <= stat()!.builtAt && g.size('s') < 1000)) {
        g.remove('s', ids[i]);
        e.remove('s', ids[i]);
        i++;
      }
      // … and 25 further, so the 20 commits below all land inside that window
      const stop = Math.max(500, g.size('s') - 25);
      while (g.size('s') > stop) {
        g.remove('s', ids[i]);
        e.remove('s', ids[i]);
        i++;
      }
      expect(2 * (g.size('s') + 20)).toBeLessThanOrEqual(stat()!.builtAt);
      const r = rng(39);
      const fresh: Float64Array[] = [];
      for (let i = 0; i < 20; i++) {
        // in-distribution newcomers (next to a stored memory), so the sketch bound is what certifies them
        const j = 4000 + i * 37;
        const v = near(vectors.subarray(j * d, j * d + d), 0.98, r);
        fresh.push(v);
        g.commit('s', `new${i}`, v);
        e.commit('s', `new${i}`, v);
      }
      let certified = 0;
      for (const v of fresh) {
        const q = near(v, 0.999, r);
        const a = e.route('s', q);
        const b = g.route('s', q);
        if (b.mode === 'fast') certified++;
        expect(b.action).toBe(a.action);
        // the cluster index ('score') sums cosines in another order: same id, cosine to rounding
        if (certify === 'decision') expect(b.nearest).toEqual(a.nearest);
        else expect(b.nearest!.id).toBe(a.nearest!.id);
        expect(Math.abs(b.score - a.score)).toBeLessThanOrEqual(b.scoreError + 1e-12);
      }
      expect(certified).toBeGreaterThanOrEqual(10);
    }
  });

  it('the Noop pre-filter on a decision-mode gate decides like on an exact gate, also with τ_noop right at a score', () => {
    const qs = candidates(40, 12);
    for (const q of qs.slice(0, 6)) {
      const s0 = exact.route('s', q).score;
      for (const tauNoop of [s0 - 1e-7, s0 + 1e-7]) {
        const a = createNoopFilter({ tauNoop, gate: exact }).check('s', q);
        const b = createNoopFilter({ tauNoop, gate: fast }).check('s', q);
        expect(b.action).toBe(a.action);
      }
    }
  });

  it('a snapshot from exact mode restored in decision mode builds its sketch deterministically', () => {
    const opts = { mode: 'fast', fastCertify: 'decision', fastMinN: 1000, sketchDims: 12 } as const;
    const a = createNoveltyGate({ ...opts, state: exact.serialize() });
    const b = createNoveltyGate({ ...opts, state: exact.serialize() });
    expect(a.stats('s')!.sketch).not.toBeNull();
    const q = candidates(36, 1)[0];
    expect(a.route('s', q)).toEqual(b.route('s', q));
    expect(a.route('s', q).action).toBe(exact.route('s', q).action);
  });
});

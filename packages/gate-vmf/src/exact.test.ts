import { describe, expect, it, vi } from 'vitest';
import { dotExact, EXACT_BLOCK, EXP_FLOOR, exactKernelBytes, exactKernelModule, exactPassJs, expBounded, WasmRowStore } from './exact.js';
import { createNoveltyGate, vmfScore } from './index.js';
import { near, randomUnit, rng } from './test-utils.js';

const wasm = (globalThis as unknown as { WebAssembly: { validate(b: Uint8Array): boolean } }).WebAssembly;

/** N unit rows (Float32) in a few topics, so maxima, ties and far rows all occur. */
function rows(n: number, d: number, seed: number): Float32Array {
  const r = rng(seed);
  const centres = Array.from({ length: 5 }, () => randomUnit(d, r));
  const x = new Float32Array(n * d);
  for (let i = 0; i < n; i++) x.set(r.u() < 0.3 ? randomUnit(d, r) : near(centres[i % 5], 0.6 + 0.39 * r.u(), r), i * d);
  return x;
}

/** The float64 reference: cosines summed in order in Float64, then vmfScore over Math.exp. */
function referenceScore(x: Float32Array, n: number, d: number, q: Float64Array, kappa: number): { score: number; max: number } {
  const cos = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let t = 0;
    for (let j = 0; j < d; j++) t += x[i * d + j] * q[j];
    cos[i] = t;
  }
  let max = -Infinity;
  for (const c of cos) if (c > max) max = c;
  return { score: vmfScore(cos, kappa), max };
}

describe('exact pass (WebAssembly SIMD kernel and its JS twin, ours)', () => {
  it('expBounded is within 1e−15 relative of Math.exp on [−700, 0] and floors below', () => {
    const r = rng(1);
    let worst = 0;
    for (let i = 0; i < 200_000; i++) {
      const x = i < 100_000 ? -r.u() * 700 : -r.u() * 2; // the whole range, and the range that carries S
      worst = Math.max(worst, Math.abs(expBounded(x) / Math.exp(x) - 1));
    }
    for (const x of [0, -0, -1e-300, -Math.LN2 / 2, -Math.LN2, -1, -50, -699.9999, EXP_FLOOR]) {
      worst = Math.max(worst, Math.abs(expBounded(x) / Math.exp(x) - 1));
    }
    expect(worst).toBeLessThanOrEqual(1e-15);
    expect(expBounded(-1e4)).toBe(expBounded(EXP_FLOOR));
    expect(expBounded(-Infinity)).toBe(expBounded(EXP_FLOOR));
    expect(expBounded(EXP_FLOOR)).toBeGreaterThan(0);
    expect(expBounded(0)).toBe(1);
  });

  it('the kernel validates and returns the JS version’s bits (max, row, S) for every d, N and κ tried', () => {
    expect(exactKernelModule(100)).not.toBeNull();
    let cases = 0;
    for (const d of [1, 3, 4, 7, 24, 100, 384]) {
      expect(wasm.validate(exactKernelBytes(d))).toBe(true);
      for (const n of [1, 2, 3, 5, EXACT_BLOCK - 1, EXACT_BLOCK, EXACT_BLOCK + 1, 2 * EXACT_BLOCK + 3, 1500]) {
        const x = rows(n, d, d * 7919 + n);
        const st = WasmRowStore.create(d, n)!;
        st.rows.set(x);
        const r = rng(n + d);
        const scratch = new Float64Array(EXACT_BLOCK);
        for (const kappa of [1e-3, 1, 50, 1e4]) {
          const q = n > 3 && r.u() < 0.5 ? Float64Array.from(x.subarray(2 * d, 3 * d)) : randomUnit(d, r); // a stored row: the max is exact
          const a = st.run(n, q, kappa);
          const b = exactPassJs(x, n, d, q, kappa, scratch);
          expect(a).toEqual(b);
          expect(Object.is(a.shifted, b.shifted) && Object.is(a.max, b.max)).toBe(true);
          cases++;
        }
      }
    }
    expect(cases).toBe(7 * 9 * 4);
  });

  it('ties: the first row holding the largest cosine is reported, across blocks', () => {
    const d = 8;
    const n = 3 * EXACT_BLOCK;
    const x = rows(n, d, 3);
    const q = randomUnit(d, rng(4));
    const qq = Float32Array.from(q);
    for (const i of [EXACT_BLOCK + 5, 2 * EXACT_BLOCK + 9, 2 * EXACT_BLOCK + 10]) x.set(qq, i * d);
    const st = WasmRowStore.create(d, n)!;
    st.rows.set(x);
    const a = st.run(n, q, 50);
    expect(a.arg).toBe(EXACT_BLOCK + 5);
    expect(a.max).toBe(dotExact(x, (EXACT_BLOCK + 5) * d, d, q));
    expect(exactPassJs(x, n, d, q, 50, new Float64Array(EXACT_BLOCK)).arg).toBe(EXACT_BLOCK + 5);
  });

  it('the score is within 1e−12 + 1e−14/κ of the float64 reference (Math.exp, one pass) for κ from 1e−3 to 1e4', () => {
    let worst = 0;
    let worstScaled = 0;
    for (const [d, n] of [
      [100, 3000],
      [384, 700],
      [13, 5000],
    ]) {
      const x = rows(n, d, n);
      const st = WasmRowStore.create(d, n)!;
      st.rows.set(x);
      const r = rng(d);
      for (const kappa of [1e-3, 0.5, 5, 50, 500, 1e4]) {
        for (let t = 0; t < 4; t++) {
          const q = randomUnit(d, r);
          const { max, shifted } = st.run(n, q, kappa);
          const score = Math.min(1, Math.max(-1, max + Math.log(shifted / n) / kappa));
          const ref = referenceScore(x, n, d, q, kappa);
          worst = Math.max(worst, Math.abs(score - ref.score));
          worstScaled = Math.max(worstScaled, Math.abs(score - ref.score) / (1e-12 + 1e-14 / kappa));
          expect(Math.abs(max - ref.max)).toBeLessThanOrEqual(1e-14);
        }
      }
    }
    // S carries a relative rounding of ~1e−15 (both here and in the reference), which log(S/N)/κ divides by κ
    expect(worstScaled).toBeLessThanOrEqual(1);
    expect(worst).toBeLessThan(1e-9); // ≪ the 1e−6 the gate promises
  });

  it('a gate whose scope crosses into WebAssembly memory routes exactly like the JS pass and a float64 reference', () => {
    const d = 100;
    const r = rng(9);
    const gate = createNoveltyGate();
    const centre = randomUnit(d, r);
    const stored: Float64Array[] = [];
    for (let i = 0; i < 400; i++) {
      const v = near(centre, 0.5 + 0.45 * r.u(), r);
      stored.push(v);
      gate.commit('s', `m${i}`, v);
      if (i % 37 === 0 || i === 399) {
        const q = near(centre, 0.8, r);
        const dec = gate.route('s', q);
        const x = new Float32Array(stored.length * d);
        stored.forEach((v2, k) => x.set(v2, k * d));
        const js = exactPassJs(x, stored.length, d, q, dec.kappa, new Float64Array(EXACT_BLOCK));
        expect(dec.nearest!.id).toBe(`m${js.arg}`);
        expect(dec.score).toBe(Math.min(1, Math.max(-1, js.max + Math.log(js.shifted / stored.length) / dec.kappa)));
        expect(Math.abs(dec.score - referenceScore(x, stored.length, d, q, dec.kappa).score)).toBeLessThanOrEqual(1e-12);
      }
    }
  });

  it('without a WebAssembly memory (none to be had, or no SIMD) every decision is the same, bit for bit', () => {
    const d = 64;
    const r = rng(21);
    const centre = randomUnit(d, r);
    const vs = Array.from({ length: 700 }, () => near(centre, 0.4 + 0.55 * r.u(), r));
    const qs = Array.from({ length: 30 }, (_, i) => (i % 2 ? randomUnit(d, r) : near(centre, 0.9, r)));
    const run = () => {
      const gate = createNoveltyGate();
      const out: unknown[] = [];
      vs.forEach((v, i) => {
        gate.commit('s', `m${i}`, v);
        if (i % 50 === 49) for (const q of qs.slice(0, 5)) out.push(gate.route('s', q));
      });
      gate.remove('s', 'm3');
      gate.replace('s', 'm10', qs[0]);
      for (const q of qs) out.push(gate.route('s', q));
      return { out, kernel: gate.stats('s')!.n };
    };
    const withKernel = run();
    const spy = vi.spyOn(WasmRowStore, 'create').mockReturnValue(null);
    try {
      const without = run();
      expect(spy).toHaveBeenCalled();
      expect(without.out).toEqual(withKernel.out);
    } finally {
      spy.mockRestore();
    }
  });
});

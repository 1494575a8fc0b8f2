import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createNoveltyGate, createNoopFilter, GateError, type GateErrorCode, vmfScore, estimateKappa, meanResultantLength } from './index.js';
import { near, randomUnit, rng } from './test-utils.js';
import { expectMemError } from '@mem/test-utils';

const d = 8;

function fillScope(gate: ReturnType<typeof createNoveltyGate>, scope: string, n: number, seed: number) {
  const r = rng(seed);
  const vs: Float64Array[] = [];
  for (let i = 0; i < n; i++) {
    const v = randomUnit(d, r);
    vs.push(v);
    gate.commit(scope, `m${i}`, v);
  }
  return vs;
}

describe('createNoveltyGate: routing (seed 001 §3.3–3.4)', () => {
  it('N = 0 → Add without scoring', () => {
    const g = createNoveltyGate();
    const dec = g.route('u1', randomUnit(d, rng(1)));
    expect(dec.action).toBe('add');
    expect(dec.nearest).toBeNull();
    expect(dec.n).toBe(0);
    expect(dec.threshold).toBeCloseTo(0.275, 12); // τ₁ = τ*(ρ = 0)
  });

  it('score equals the closed form on the stored vectors (hand check against vmfScore + κ̂)', () => {
    const g = createNoveltyGate();
    const vs = fillScope(g, 's', 5, 2);
    const q = randomUnit(d, rng(3));
    const dec = g.route('s', q);
    const f32 = vs.map((v) => Float32Array.from(v));
    const sum = new Float64Array(d);
    for (const v of f32) for (let j = 0; j < d; j++) sum[j] += v[j];
    const kappa = estimateKappa(meanResultantLength(sum, 5), d);
    const cos = f32.map((v) => v.reduce((a, x, j) => a + x * q[j], 0));
    expect(dec.kappa).toBeCloseTo(kappa, 12);
    expect(dec.score).toBeCloseTo(vmfScore(cos, kappa), 12);
    expect(dec.novelty).toBeCloseTo((1 - dec.score) / 2, 15);
    const best = cos.indexOf(Math.max(...cos));
    expect(dec.nearest).toEqual({ id: `m${best}`, cosine: expect.closeTo(cos[best], 12) });
  });

  it('produces all three outcomes with the default band', () => {
    const g = createNoveltyGate({ kappa: 50 });
    const r = rng(4);
    const centre = randomUnit(64, r);
    g.commit('s', 'a', centre);
    // N = 1: s = cosine, ν = (1 − cos)/2. τ₁ = τ*(0) = 0.275 on the first commit; route now uses
    // τ = 0.9·0.275 + 0.1·τ*(ρ = 1) with ρ = N/V = 1 (V = 1 for N < 2).
    const tau = 0.9 * 0.275 + 0.1 * (0.025 + 0.25 * Math.exp(-2));
    const at = (nu: number) => g.route('s', near(centre, 1 - 2 * nu, r));
    const add = at(tau + 0.025 + 0.01);
    const upd = at(tau + 0.0125);
    const noop = at(tau - 0.01);
    expect(add.threshold).toBeCloseTo(tau, 12);
    expect([add.action, upd.action, noop.action]).toEqual(['add', 'update', 'noop']);
    expect(upd.nearest?.id).toBe('a');
  });

  it('the τ EMA advances on commit only; the decision threshold is what a commit stores', () => {
    const g = createNoveltyGate();
    const vs = fillScope(g, 's', 30, 5);
    const q = randomUnit(d, rng(6));
    const before = g.stats('s')!.tau;
    const dec = g.route('s', q);
    g.route('s', q);
    expect(g.stats('s')!.tau).toBe(before);
    g.commit('s', 'new', q);
    expect(g.stats('s')!.tau).toBe(dec.threshold);
    expect(vs.length).toBe(30);
  });

  it('counterexample: a candidate closer to its nearest memory can be MORE novel (support matters)', () => {
    // Memory: a tight pair around e1 and one isolated point e2. c1 is at cos 0.95 to e2 (isolated),
    // c2 at cos 0.9 to the pair: c2 is further from its nearest, yet better supported.
    const g = createNoveltyGate({ kappa: 20 });
    const e = (i: number) => Array.from({ length: 4 }, (_, j) => (j === i ? 1 : 0));
    const r = rng(7);
    g.commit('s', 'p1', near(e(0), 0.999, r));
    g.commit('s', 'p2', near(e(0), 0.999, r));
    g.commit('s', 'p3', near(e(0), 0.999, r));
    g.commit('s', 'iso', e(1));
    const c1 = near(e(1), 0.95, r);
    const c2 = near(e(0), 0.9, r);
    const d1 = g.route('s', c1);
    const d2 = g.route('s', c2);
    expect(d1.nearest!.cosine).toBeGreaterThan(d2.nearest!.cosine);
    expect(d1.novelty).toBeGreaterThan(d2.novelty);
  });

  it('property: with one memory, a closer candidate is never more novel', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), fc.double({ min: -0.99, max: 0.99, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (seed, c, step) => {
        const r = rng(seed);
        const g = createNoveltyGate();
        const m = randomUnit(16, r);
        g.commit('s', 'm', m);
        const c2 = Math.min(0.999, c + step * (1 - c));
        const a = g.route('s', near(m, c, r));
        const b = g.route('s', near(m, c2, r));
        expect(b.novelty).toBeLessThanOrEqual(a.novelty + 1e-6);
      }),
      { numRuns: 50 },
    );
  });

  it('property: the score is invariant to the commit order of the memories', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), (seed) => {
        const r = rng(seed);
        const vs = Array.from({ length: 12 }, () => randomUnit(d, r));
        const q = randomUnit(d, r);
        const g1 = createNoveltyGate();
        const g2 = createNoveltyGate();
        vs.forEach((v, i) => g1.commit('s', `m${i}`, v));
        [...vs.keys()].reverse().forEach((i) => g2.commit('s', `m${i}`, vs[i]));
        const a = g1.route('s', q);
        const b = g2.route('s', q);
        expect(b.score).toBeCloseTo(a.score, 10);
        expect(b.kappa).toBeCloseTo(a.kappa, 10);
        expect(b.nearest!.id).toBe(a.nearest!.id);
      }),
      { numRuns: 30 },
    );
  });

  it('scopes never leak', () => {
    const g = createNoveltyGate();
    const v = randomUnit(d, rng(8));
    g.commit('alice', 'x', v);
    expect(g.route('bob', v).action).toBe('add');
    expect(g.route('alice', v).action).toBe('noop');
    expect(g.has('bob', 'x')).toBe(false);
    expect(g.scopes()).toEqual(['alice']);
  });
});

describe('commit / remove / replace', () => {
  it('remove and replace keep the state equal to a gate built directly', () => {
    const g = createNoveltyGate();
    const vs = fillScope(g, 's', 40, 9);
    const r = rng(10);
    const v2 = randomUnit(d, r);
    expect(g.remove('s', 'm3')).toBe(true);
    expect(g.remove('s', 'm3')).toBe(false);
    g.replace('s', 'm7', v2);
    expect(g.size('s')).toBe(39);
    expect(g.has('s', 'm3')).toBe(false);
    const q = randomUnit(d, r);
    const dec = g.route('s', q);
    const stored = vs.map((v, i) => (i === 7 ? v2 : v)).filter((_, i) => i !== 3);
    const f32 = stored.map((v) => Float32Array.from(v));
    const sum = new Float64Array(d);
    for (const v of f32) for (let j = 0; j < d; j++) sum[j] += v[j];
    const kappa = estimateKappa(meanResultantLength(sum, 39), d);
    expect(dec.kappa).toBeCloseTo(kappa, 10);
    expect(dec.score).toBeCloseTo(vmfScore(f32.map((v) => v.reduce((a, x, j) => a + x * q[j], 0)), kappa), 10);
  });

  it('dropScope forgets a scope', () => {
    const g = createNoveltyGate();
    fillScope(g, 's', 3, 11);
    expect(g.dropScope('s')).toBe(true);
    expect(g.size('s')).toBe(0);
    expect(g.scopes()).toEqual([]);
  });
});

describe('bad input → typed errors, state unchanged', () => {
  const cases: [string, (g: ReturnType<typeof createNoveltyGate>) => unknown, string][] = [
    ['dimension mismatch', (g) => g.commit('s', 'z', new Array(d + 1).fill(1 / Math.sqrt(d + 1))), 'DIMENSION_MISMATCH'],
    ['NaN', (g) => g.commit('s', 'z', [NaN, ...new Array(d - 1).fill(0)]), 'NON_FINITE'],
    ['Infinity', (g) => g.route('s', [Infinity, ...new Array(d - 1).fill(0)]), 'NON_FINITE'],
    ['zero vector', (g) => g.commit('s', 'z', new Array(d).fill(0)), 'ZERO_VECTOR'],
    ['not normalized', (g) => g.commit('s', 'z', new Array(d).fill(1)), 'NOT_NORMALIZED'],
    ['duplicate id', (g) => g.commit('s', 'm0', randomUnit(d, rng(1))), 'DUPLICATE_ID'],
    ['unknown id', (g) => g.replace('s', 'nope', randomUnit(d, rng(1))), 'UNKNOWN_ID'],
    ['replace with bad vector', (g) => g.replace('s', 'm1', new Array(d).fill(0)), 'ZERO_VECTOR'],
    ['bad scope', (g) => g.route(42 as any, randomUnit(d, rng(1))), 'BAD_SCOPE'],
    ['bad id', (g) => g.commit('s', '', randomUnit(d, rng(1))), 'BAD_ID'],
  ];
  for (const [name, fn, code] of cases) {
    it(name, async () => {
      const g = createNoveltyGate();
      fillScope(g, 's', 20, 12);
      const before = JSON.stringify(g.serialize());
      const err = await expectMemError(() => fn(g), GateError, code as GateErrorCode);
      expect((err as any)[Symbol.for('@mem/error')]).toBe(true);
      expect(JSON.stringify(g.serialize())).toBe(before);
    });
  }

  it('normalize: true accepts and normalizes unnormalized vectors', async () => {
    const g = createNoveltyGate({ normalize: true });
    g.commit('s', 'a', [3, 4, 0]);
    const dec = g.route('s', [6, 8, 0]);
    expect(dec.nearest!.cosine).toBeCloseTo(1, 6);
    await expectMemError(() => g.commit('s', 'b', [0, 0, 0]), GateError, 'ZERO_VECTOR');
  });

  it('bad options → BAD_OPTIONS', async () => {
    await expectMemError(() => createNoveltyGate({ alpha: 1 }), GateError, 'BAD_OPTIONS');
    await expectMemError(() => createNoveltyGate({ bogus: 1 } as any), GateError, 'BAD_OPTIONS');
    expect(() => createNoveltyGate({ kappaMin: 10, kappaMax: 5 })).toThrow(expect.objectContaining({ category: 'validation' }));
  });

  it('bad snapshots → BAD_SNAPSHOT', async () => {
    const g = createNoveltyGate();
    fillScope(g, 's', 5, 13);
    const snap = JSON.parse(JSON.stringify(g.serialize()));
    await expectMemError(() => createNoveltyGate({ state: { ...snap, version: 2 } }), GateError, 'BAD_SNAPSHOT');
    const broken = JSON.parse(JSON.stringify(snap));
    broken.scopes[0].ids.pop();
    await expectMemError(() => createNoveltyGate({ state: broken }), GateError, 'BAD_SNAPSHOT');
    const dup = JSON.parse(JSON.stringify(snap));
    dup.scopes[0].ids[1] = dup.scopes[0].ids[0];
    await expectMemError(() => createNoveltyGate({ state: dup }), GateError, 'BAD_SNAPSHOT');
  });
});

describe('serialize / restore', () => {
  it('property: a restored gate decides bit for bit like the original, now and after more commits', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), fc.integer({ min: 1, max: 120 }), (seed, n) => {
        const r = rng(seed);
        const g = createNoveltyGate();
        for (let i = 0; i < n; i++) {
          const v = i > 0 && r.u() < 0.3 ? near(randomUnit(d, r), 0.9, r) : randomUnit(d, r);
          g.commit(i % 3 === 0 ? 'a' : 'b', `m${i}`, v);
          if (i % 17 === 16) g.remove('b', `m${i - 1}`);
        }
        const h = createNoveltyGate({ state: JSON.parse(JSON.stringify(g.serialize())) });
        for (let t = 0; t < 5; t++) {
          const q = randomUnit(d, r);
          expect(h.route('a', q)).toEqual(g.route('a', q));
          expect(h.route('b', q)).toEqual(g.route('b', q));
          g.commit('b', `x${t}`, q);
          h.commit('b', `x${t}`, q);
        }
        expect(JSON.stringify(h.serialize())).toBe(JSON.stringify(g.serialize()));
      }),
      { numRuns: 25 },
    );
  });

  it('property: a snapshot without vectors plus the committed vectors restores bit for bit (exact and fast, any scope subset)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), fc.integer({ min: 1, max: 400 }), fc.boolean(), (seed, n, fast) => {
        const r = rng(seed);
        const opts = fast ? ({ mode: 'fast', normalize: true } as const) : ({ normalize: true } as const);
        const g = createNoveltyGate(opts);
        const committed = new Map<string, number[]>();
        for (let i = 0; i < n; i++) {
          // raw (not unit) vectors: the restore must normalise them exactly as commit did
          const v = Array.from(randomUnit(d, r), (x) => x * (1 + 3 * r.u()));
          g.commit(i % 4 === 0 ? 'a' : 'b', `m${i}`, v);
          committed.set(`m${i}`, v);
          if (i % 23 === 22) {
            g.remove('b', `m${i - 1}`);
            committed.delete(`m${i - 1}`);
          }
        }
        const slim = JSON.parse(JSON.stringify(g.serialize({ vectors: false, scopes: ['b'] })));
        expect(slim.scopes.map((x: { scope: string }) => x.scope)).toEqual(g.scopes().includes('b') ? ['b'] : []);
        for (const sc of slim.scopes) expect(sc.vectors).toBeNull();
        const asked: string[] = [];
        const h = createNoveltyGate({
          state: slim,
          vectors: (scope, ids) => {
            asked.push(scope);
            return ids.map((id) => committed.get(id)!);
          },
        });
        expect(asked).toEqual(slim.scopes.map((x: { scope: string }) => x.scope));
        expect(JSON.stringify(h.serialize())).toBe(JSON.stringify(g.serialize({ scopes: ['b'] })));
        for (let t = 0; t < 5; t++) {
          const q = randomUnit(d, r);
          expect(h.route('b', q)).toEqual(g.route('b', q));
          g.commit('b', `x${t}`, q);
          h.commit('b', `x${t}`, q);
        }
        expect(JSON.stringify(h.serialize())).toBe(JSON.stringify(g.serialize({ scopes: ['b'] })));
      }),
      { numRuns: 20 },
    );
  });

  it('a snapshot without vectors is refused (BAD_SNAPSHOT) without a source, a miscounted, failing or invalid one', async () => {
    const r = rng(41);
    const g = createNoveltyGate();
    const vs = Array.from({ length: 40 }, () => randomUnit(d, r));
    vs.forEach((v, i) => g.commit('s', `m${i}`, v));
    const slim = g.serialize({ vectors: false });
    await expectMemError(() => createNoveltyGate({ state: slim }), GateError, 'BAD_SNAPSHOT');
    await expectMemError(() => createNoveltyGate({ state: slim, vectors: () => vs.slice(1) }), GateError, 'BAD_SNAPSHOT');
    await expectMemError(() =>
      createNoveltyGate({
        state: slim,
        vectors: () => {
          throw new Error('store closed');
        },
      }), GateError, 'BAD_SNAPSHOT');
    await expectMemError(() => createNoveltyGate({ state: slim, vectors: () => vs.map((v, i) => (i === 7 ? v.slice(1) : v)) }), GateError, 'BAD_SNAPSHOT');
    await expectMemError(() => createNoveltyGate({ state: slim, vectors: () => vs.map((v, i) => (i === 3 ? v.map(() => NaN) : v)) }), GateError, 'BAD_SNAPSHOT');
    // and the full snapshot still needs no source
    expect(createNoveltyGate({ state: g.serialize(), vectors: () => [] }).size('s')).toBe(40);
  });

  it('replaying the commits of a scope in order rebuilds identical state', () => {
    const r = rng(14);
    const vs = Array.from({ length: 300 }, () => randomUnit(d, r));
    const g1 = createNoveltyGate();
    const g2 = createNoveltyGate();
    vs.forEach((v, i) => g1.commit('s', `m${i}`, v));
    vs.forEach((v, i) => g2.commit('s', `m${i}`, v));
    expect(JSON.stringify(g1.serialize())).toBe(JSON.stringify(g2.serialize()));
  });
});

describe('createNoopFilter (seed 001 §3.5)', () => {
  it('noop iff s_vMF > τ_noop; empty scope passes', () => {
    const f = createNoopFilter({ tauNoop: 0.572 });
    const r = rng(15);
    const m = randomUnit(32, r);
    expect(f.check('s', m).action).toBe('pass');
    f.commit('s', 'm', m);
    // N = 1: s = cosine
    expect(f.check('s', near(m, 0.6, r))).toMatchObject({ action: 'noop', noop: true });
    expect(f.check('s', near(m, 0.55, r))).toMatchObject({ action: 'pass', noop: false });
    expect(f.check('s', near(m, 0.6, r)).score).toBeCloseTo(0.6, 6);
  });
  it('default τ_noop is 0.572 and a bad one is rejected', async () => {
    expect(createNoopFilter().tauNoop).toBe(0.572);
    await expectMemError(() => createNoopFilter({ tauNoop: NaN }), GateError, 'BAD_OPTIONS');
  });
});

describe('seed (bulk load, ours)', () => {
  it('gives the same score, κ and nearest as committing the same vectors, and is all-or-nothing', async () => {
    const r = rng(30);
    const vs = Array.from({ length: 200 }, () => randomUnit(d, r));
    const a = createNoveltyGate();
    const b = createNoveltyGate();
    vs.forEach((v, i) => a.commit('s', `m${i}`, v));
    b.seed('s', vs.map((v, i) => ({ id: `m${i}`, vector: v })));
    const q = randomUnit(d, r);
    const x = a.route('s', q);
    const y = b.route('s', q);
    expect(y.score).toBe(x.score);
    expect(y.kappa).toBe(x.kappa);
    expect(y.nearest).toEqual(x.nearest);
    expect(b.size('s')).toBe(200);
    const before = JSON.stringify(b.serialize());
    await expectMemError(() => b.seed('s', [{ id: 'ok', vector: q }, { id: 'bad', vector: new Array(d).fill(0) }]), GateError, 'ZERO_VECTOR');
    await expectMemError(() => b.seed('s', [{ id: 'x', vector: q }, { id: 'x', vector: q }]), GateError, 'DUPLICATE_ID');
    expect(JSON.stringify(b.serialize())).toBe(before);
  });
});

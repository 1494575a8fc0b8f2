/**
 * Adversarial equivalence of fast mode with `fastCertify: 'decision'` and exact mode (tester, ours):
 * on degenerate vector sets (duplicates, all-equal, antipodal pairs, two points, a tight cluster,
 * d = 1 and 2, near-duplicates at 1e−7) and topic mixtures, with removes, replaces and
 * serialize/restore interleaved, every route's action — and for Update / Noop its nearest id —
 * must equal exact mode's. fastMinN is the schema's minimum (64), so tiny scopes cross it.
 */
import { describe, expect, it } from 'vitest';
import { createNoveltyGate, type GateOptions } from './index.js';
import { near, randomUnit, rng, topicMixture } from './test-utils.js';

type Vec = Float64Array | Float32Array;
type Op = { kind: 'commit' | 'route' | 'remove' | 'replace' | 'restore'; id?: string; v?: Vec };

function run(opts: GateOptions, ops: Op[]): { out: string[]; certified: number } {
  let g = createNoveltyGate(opts);
  const out: string[] = [];
  let certified = 0;
  for (const op of ops) {
    if (op.kind === 'commit') g.commit('s', op.id!, op.v!);
    else if (op.kind === 'remove') g.remove('s', op.id!);
    else if (op.kind === 'replace') g.replace('s', op.id!, op.v!);
    else if (op.kind === 'restore') g = createNoveltyGate({ ...opts, state: JSON.parse(JSON.stringify(g.serialize())) });
    else {
      const r = g.route('s', op.v!);
      if (r.scoreError !== undefined) certified++;
      out.push(r.action === 'add' ? 'add' : `${r.action}:${r.nearest?.id}`);
    }
  }
  return { out, certified };
}

const FAST: GateOptions = { mode: 'fast', fastCertify: 'decision', fastNearest: 'update-noop', fastMinN: 64, normalize: true };
const EXACT: GateOptions = { mode: 'exact', normalize: true };
const id = (i: number) => `m${String(i).padStart(5, '0')}`;

function ops(d: number, n: number, seed: number, gen: (i: number, r: ReturnType<typeof rng>, prev: Vec[]) => Vec): Op[] {
  const r = rng(seed);
  const out: Op[] = [];
  const vs: Vec[] = [];
  for (let i = 0; i < n; i++) {
    const v = gen(i, r, vs);
    vs.push(v);
    if (i >= 64 && i % 3 === 0) out.push({ kind: 'route', v });
    out.push({ kind: 'commit', id: id(i), v });
    if (i > 70 && i % 17 === 0) out.push({ kind: 'remove', id: id(i - 5) });
    if (i > 70 && i % 23 === 0 && (i - 7) % 17 !== 12) out.push({ kind: 'replace', id: id(i - 7), v: gen(i + 1, r, vs) });
    if (i % 97 === 0) out.push({ kind: 'restore' });
  }
  for (let j = 0; j < 40; j++) out.push({ kind: 'route', v: gen(n + j, r, vs) });
  if (d > 1) {
    for (let j = 0; j < 150; j++) out.push({ kind: 'route', v: near(vs[Math.floor(r.u() * vs.length)]!, 0.5 + 0.5 * r.u(), r) });
    for (let j = 0; j < 50; j++) out.push({ kind: 'route', v: near(vs[Math.floor(r.u() * vs.length)]!, 1 - 1e-4 * r.u(), r) });
  }
  return out;
}

const axis = (d: number, k: number) => {
  const v = new Float64Array(d);
  v[k] = 1;
  return v;
};
const mixture = topicMixture(800, 32, 8, 0.97, 7);
const scenarios: [string, number, number, (i: number, r: ReturnType<typeof rng>, prev: Vec[]) => Vec][] = [
  ['exact duplicates', 32, 300, (i, r, prev) => (i % 4 && prev.length ? prev[Math.floor(r.u() * prev.length)]! : randomUnit(32, r))],
  ['all equal', 16, 200, () => axis(16, 0)],
  ['antipodal pairs', 24, 200, (i, r, prev) => (i % 2 && prev.length ? (prev[prev.length - 1]!.map((x) => -x) as Float64Array) : randomUnit(24, r))],
  ['two points', 8, 200, (i) => axis(8, i % 2)],
  ['tight cluster', 48, 250, (_i, r) => near(axis(48, 0), 0.999, r)],
  ['d = 2', 2, 200, (_i, r) => randomUnit(2, r)],
  ['d = 1', 1, 150, (_i, r) => Float64Array.of(r.u() < 0.5 ? -1 : 1)],
  ['near-duplicates at 1e-7', 64, 250, (i, r, prev) => (i % 2 && prev.length ? near(prev[prev.length - 1]!, 1 - 1e-7, r) : randomUnit(64, r))],
  ['topic mixture', 32, 700, (i) => mixture.vectors.subarray(i * 32, i * 32 + 32)],
];

describe("fastCertify 'decision' equals exact mode on adversarial vector sets", () => {
  for (const extra of [{ kappa: 300 }, { kappaMax: 1000, sketchDims: 4 }] as GateOptions[]) {
    for (const [name, d, n, gen] of scenarios) {
      it(`${name} (${JSON.stringify(extra)})`, () => {
        const o = ops(d, n, n + d, gen);
        const fast = run({ ...FAST, ...extra }, o);
        const exact = run({ ...EXACT, ...extra }, o);
        expect(fast.certified).toBeGreaterThan(0); // the fast path really ran
        expect(fast.out).toEqual(exact.out);
      });
    }
  }
  it('a scope oscillating around fastMinN (commit / remove / replace / restore at N = 63…66) routes like exact mode', () => {
    for (const extra of [{ kappa: 300 }, { kappaMax: 1000 }] as GateOptions[]) {
      const r = rng(99);
      const o: Op[] = [];
      const base = randomUnit(16, r);
      let next = 0;
      const live: string[] = [];
      const add = () => {
        const v = near(base, 0.9 + 0.1 * r.u(), r);
        o.push({ kind: 'commit', id: id(next), v });
        live.push(id(next++));
      };
      for (let i = 0; i < 64; i++) add();
      for (let step = 0; step < 120; step++) {
        const x = r.u();
        if (x < 0.35 && live.length > 62) o.push({ kind: 'remove', id: live.splice(Math.floor(r.u() * live.length), 1)[0]! });
        else if (x < 0.7 && live.length < 67) add();
        else if (x < 0.8) o.push({ kind: 'replace', id: live[Math.floor(r.u() * live.length)]!, v: near(base, 0.8 + 0.2 * r.u(), r) });
        else if (x < 0.85) o.push({ kind: 'restore' });
        o.push({ kind: 'route', v: near(base, 0.7 + 0.3 * r.u(), r) });
      }
      const fast = run({ ...FAST, ...extra }, o);
      expect(fast.certified).toBeGreaterThan(0);
      expect(fast.out).toEqual(run({ ...EXACT, ...extra }, o).out);
    }
  });

  it('the scenarios are not all one action', () => {
    const all = scenarios.flatMap(([, d, n, gen]) => run({ ...EXACT, kappa: 300 }, ops(d, n, n + d, gen)).out.map((x) => x.split(':')[0]));
    expect(new Set(all)).toEqual(new Set(['add', 'update', 'noop']));
  });
});

describe('serialize / restore mid-stream equals a gate never restored (scores and thresholds bit for bit)', () => {
  for (const extra of [{}, { mode: 'fast', fastCertify: 'decision', fastNearest: 'update-noop', fastMinN: 64 }, { mode: 'fast', fastMinN: 64 }, { refitMaxScale: 1 }, { refitMaxScale: 64 }] as GateOptions[]) {
    it(JSON.stringify(extra), () => {
      const opts: GateOptions = { ...extra, normalize: true, kappaMax: 1000 };
      const r = rng(4);
      const a = createNoveltyGate(opts);
      let b = createNoveltyGate(opts);
      const outA: string[] = [];
      const outB: string[] = [];
      for (let i = 0; i < 700; i++) {
        const v = mixture.vectors.subarray((i % 800) * 32, (i % 800) * 32 + 32);
        if (i % 5 === 0 && i > 0) {
          const q = near(v, 0.8 + 0.2 * r.u(), r);
          for (const [g, out] of [[a, outA], [b, outB]] as const) {
            const d = g.route('s', q);
            out.push(`${d.action}:${d.nearest?.id}:${d.threshold}:${d.score}:${d.kappa}`);
          }
        }
        a.commit('s', id(i), v);
        b.commit('s', id(i), v);
        if (i % 9 === 0 && i > 10) {
          a.remove('s', id(i - 3));
          b.remove('s', id(i - 3));
        }
        if (i % 37 === 0) b = createNoveltyGate({ ...opts, state: JSON.parse(JSON.stringify(b.serialize())) });
      }
      expect(outB).toEqual(outA);
    });
  }
});

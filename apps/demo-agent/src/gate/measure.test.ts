import { describe, expect, it } from 'vitest';
import { createNoopFilter, createNoveltyGate } from '@mem/gate-vmf';
import { calibrateTauNoop, gatedSystem, routeTurns } from './measure.js';
import type { EvalObservation } from '../eval/locomo.js';
import type { EvalSystem } from '../eval/types.js';

function unit(v: number[]): Float32Array {
  const n = Math.hypot(...v);
  return Float32Array.from(v, (x) => x / n);
}
const turn = (i: number): EvalObservation => ({ conversation: 0, session: 1, turn: i, sourceId: `D1:${i}`, speaker: 'A', text: `turn ${i}`, observedAt: '2024-01-01T00:00:00.000Z' });

// 6 distinct directions, then exact repeats of the first three
const dirs = [0, 1, 2, 3, 4, 5].map((i) => unit(Array.from({ length: 8 }, (_, j) => (j === i ? 1 : 0.05))));
const stream = [...dirs, dirs[0], dirs[1], dirs[2]];
const turns = stream.map((_, i) => turn(i + 1));

describe('routeTurns (SAGE drop semantics)', () => {
  it('all keeps everything', () => {
    expect(routeTurns('all', turns, []).every((d) => !d.skipped)).toBe(true);
  });

  it('noop filter skips iff s_vMF > τ against the kept turns only', () => {
    const out = routeTurns('noop-filter', turns, stream, 0.5);
    // replay by hand: a skipped turn is not committed
    const f = createNoopFilter({ tauNoop: 0.5, normalize: true });
    const want = stream.map((v, i) => {
      const d = f.check('conversation', v);
      if (!d.noop) f.commit('conversation', String(i), v);
      return d.noop;
    });
    expect(out.map((d) => d.skipped)).toEqual(want);
    expect(out.slice(0, 6).some((d) => d.skipped)).toBe(false);
    expect(out.slice(6).every((d) => d.skipped)).toBe(true);
    // a threshold above every score skips nothing
    expect(routeTurns('noop-filter', turns, stream, 1).some((d) => d.skipped)).toBe(false);
  });

  it('adaptive skips exactly the gate\'s noops and commits add/update', () => {
    const out = routeTurns('adaptive', turns, stream);
    const g = createNoveltyGate({ normalize: true });
    const want = stream.map((v, i) => {
      const d = g.route('conversation', v);
      if (d.action !== 'noop') g.commit('conversation', String(i), v);
      return d.action;
    });
    expect(out.map((d) => d.action)).toEqual(want);
    expect(out.map((d) => d.skipped)).toEqual(want.map((a) => a === 'noop'));
  });
});

describe('calibrateTauNoop (App. G: 80th percentile of s_vMF)', () => {
  it('is the interpolated quantile of the sequential scores', () => {
    const g = createNoveltyGate({ normalize: true });
    const scores: number[] = [];
    stream.forEach((v, i) => {
      if (i > 0) scores.push(g.route('c', v).score);
      g.commit('c', String(i), v);
    });
    scores.sort((a, b) => a - b);
    expect(calibrateTauNoop(stream, 0)).toBe(scores[0]);
    expect(calibrateTauNoop(stream, 1)).toBe(scores.at(-1));
    const tau = calibrateTauNoop(stream);
    expect(tau).toBeGreaterThanOrEqual(scores[Math.floor(0.8 * (scores.length - 1))]);
    expect(tau).toBeLessThanOrEqual(scores[Math.ceil(0.8 * (scores.length - 1))]);
    expect(() => calibrateTauNoop([stream[0]])).toThrow();
  });
});

describe('gatedSystem', () => {
  it('builds the wrapped system on the kept turns only', async () => {
    const built: string[][] = [];
    const base = (): EvalSystem => ({
      name: 'x',
      build: async (obs) => {
        built.push(obs.map((o) => o.sourceId));
        return { observations: obs.length, gate: { add: 0, update: 0, noop: 0 } };
      },
      search: async () => ({ ids: [] }),
      close: async () => {},
    });
    const embedder = { model: 'table', dimension: 8, embed: async (texts: string[]) => texts.map((t) => stream[Number(t.split(' ')[1]) - 1]) };
    const runShared = new Map<string, unknown>([['wink', embedder]]);
    const ctx = { name: 'x|noop-filter', conversation: 99, shared: new Map(), runShared, defer: () => {} };
    const sys = await gatedSystem('noop-filter', base, 0.5)(ctx);
    const stats = await sys.build(turns);
    expect(built[0]).toEqual(turns.slice(0, 6).map((t) => t.sourceId));
    expect(stats.observations).toBe(6);
  });
});

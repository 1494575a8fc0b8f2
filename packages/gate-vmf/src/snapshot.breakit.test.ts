/**
 * Break-it tests of gate snapshots (ours): every number a restored gate decides with must be finite
 * (vectors were already checked; the running sum, scatter, PCA basis, sketch basis and cluster index
 * were not), else BAD_SNAPSHOT, with or without the vectors in the snapshot.
 */
import { describe, expect, it } from 'vitest';
import { createNoveltyGate } from './index.js';
import { randomUnit, rng } from './test-utils.js';
import { GateError } from './errors.js';
import { expectMemError } from '@mem/test-utils';

const d = 8;

/** A base64 Float64 array with element `at` set to `v`. */
function poisonF64(b64: string, v: number, at = 0): string {
  const a = new Float64Array(new Uint8Array(Buffer.from(b64, 'base64')).buffer);
  a[at] = v;
  return Buffer.from(a.buffer).toString('base64');
}

describe('gate snapshots: hidden non-finite numbers', () => {
  it('NaN / ±Infinity in sum, scatter, basis, sketch basis or index arrays → BAD_SNAPSHOT', async () => {
    const r = rng(7);
    // fast mode with a small fastMinN keeps a cluster index; fastCertify 'decision' keeps a sketch
    const variants = [
      { mode: 'fast', fastMinN: 64 },
      { mode: 'fast', fastMinN: 64, fastCertify: 'decision' },
    ] as const;
    for (const opts of variants) {
      const g = createNoveltyGate(opts);
      const vs = Array.from({ length: 200 }, () => randomUnit(d, r));
      vs.forEach((v, i) => g.commit('s', `m${i}`, v));
      for (const withVectors of [true, false]) {
        const snap = JSON.parse(JSON.stringify(g.serialize({ vectors: withVectors })));
        const sc = snap.scopes[0];
        const source = withVectors ? undefined : () => vs;
        // the untouched snapshot restores
        expect(JSON.stringify(createNoveltyGate({ state: snap, vectors: source }).serialize())).toBe(JSON.stringify(g.serialize()));
        const fields: [string, (x: number) => unknown][] = [
          ['sum', (x) => ({ ...sc, sum: poisonF64(sc.sum, x) })],
          ['scatter', (x) => ({ ...sc, scatter: poisonF64(sc.scatter, x, 3) })],
          ['basis', (x) => ({ ...sc, basis: poisonF64(sc.basis, x, 5) })],
        ];
        if (sc.sketch) fields.push(['sketch basis', (x) => ({ ...sc, sketch: { ...sc.sketch, basis: poisonF64(sc.sketch.basis, x, 2) } })]);
        if (sc.index) {
          fields.push(['index centroids', (x) => ({ ...sc, index: { ...sc.index, centroids: poisonF64(sc.index.centroids, x, 1) } })]);
          fields.push(['index top', (x) => ({ ...sc, index: { ...sc.index, top: poisonF64(sc.index.top, x, 1) } })]);
          fields.push(['index cosRadius', (x) => ({ ...sc, index: { ...sc.index, cosRadius: poisonF64(sc.index.cosRadius, x, 0) } })]);
        }
        expect(fields.length).toBeGreaterThanOrEqual(4);
        for (const [, forge] of fields) {
          for (const x of [NaN, Infinity, -Infinity]) {
            const state = { ...snap, scopes: [forge(x)] };
            await expectMemError(() => createNoveltyGate({ state, vectors: source }), GateError, 'BAD_SNAPSHOT');
          }
        }
      }
    }
  });
});

describe('serialize options', () => {
  it('a scopes string or a non-boolean vectors flag is BAD_OPTIONS (not read as characters / as true)', async () => {
    const g = createNoveltyGate();
    g.commit('ab', 'm0', randomUnit(d, rng(1)));
    g.commit('b', 'm1', randomUnit(d, rng(2)));
    for (const so of [{ scopes: 'ab' }, { scopes: [1] }, { scopes: null }, { vectors: 'false' }, { vectors: 0 }]) {
      await expectMemError(() => g.serialize(so as never), GateError, 'BAD_OPTIONS');
    }
    expect(g.serialize({ scopes: ['ab'], vectors: false }).scopes.map((s) => [s.scope, s.vectors])).toEqual([['ab', null]]);
    expect(g.serialize({ scopes: [] }).scopes).toEqual([]);
    expect(g.serialize().scopes).toHaveLength(2);
  });
});

describe('gate snapshots: a forged dimension', () => {
  it('is refused (BAD_SNAPSHOT) before N × d floats are allocated for the supplied rows', async () => {
    const r = rng(3);
    const g = createNoveltyGate();
    const vs = Array.from({ length: 150 }, () => randomUnit(d, r));
    vs.forEach((v, i) => g.commit('s', `m${i}`, v));
    const slim = JSON.parse(JSON.stringify(g.serialize({ vectors: false })));
    let asked = 0;
    for (const dimension of [1 << 20, 2 ** 28, 2 ** 31 - 1]) {
      const state = { ...slim, scopes: [{ ...slim.scopes[0], dimension }] };
      await expectMemError(() => createNoveltyGate({ state, vectors: () => (asked++, vs) }), GateError, 'BAD_SNAPSHOT');
    }
    expect(asked).toBe(0); // refused from the sum's length, before the source is asked
  });
});

describe('gate snapshots: random corruption', () => {
  it('cluster ranges (childStart) out of order → BAD_SNAPSHOT, not a scan over billions of clusters', async () => {
    const r = rng(5);
    const g = createNoveltyGate({ mode: 'fast', fastMinN: 64 });
    const vs = Array.from({ length: 150 }, () => randomUnit(d, r));
    vs.forEach((v, i) => g.commit('s', `m${i}`, v));
    const snap = JSON.parse(JSON.stringify(g.serialize()));
    const cs = new Int32Array(new Uint8Array(Buffer.from(snap.scopes[0].index.childStart, 'base64')).buffer);
    expect(cs.length).toBeGreaterThan(2);
    for (const [at, v] of [
      [1, 1 << 28],
      [1, -3],
      [0, 1],
    ] as const) {
      const forged = cs.slice();
      forged[at] = v;
      const sc = { ...snap.scopes[0], index: { ...snap.scopes[0].index, childStart: Buffer.from(forged.buffer).toString('base64') } };
      await expectMemError(() => createNoveltyGate({ state: { ...snap, scopes: [sc] } }), GateError, 'BAD_SNAPSHOT');
    }
  });

  it('a corrupted snapshot is refused (GateError) or restores a gate that routes and commits with finite decisions', () => {
    const r = rng(99);
    const variants = [
      { mode: 'fast', fastMinN: 64 },
      { mode: 'fast', fastMinN: 64, fastCertify: 'decision' },
      {},
    ] as const;
    const failures: string[] = [];
    let refused = 0;
    let restored = 0;
    for (const opts of variants) {
      const g = createNoveltyGate(opts);
      const vs = Array.from({ length: 150 }, () => randomUnit(d, r));
      vs.forEach((v, i) => g.commit('s', `m${i}`, v));
      const base = JSON.parse(JSON.stringify(g.serialize()));
      const b64Fields = (sc: Record<string, any>): [Record<string, any>, string][] => {
        const out: [Record<string, any>, string][] = [];
        for (const k of ['vectors', 'sum', 'scatter', 'basis']) if (typeof sc[k] === 'string') out.push([sc, k]);
        if (sc.index) for (const k of ['top', 'childStart', 'centroids', 'cosRadius', 'members', 'counts']) out.push([sc.index, k]);
        if (sc.sketch) out.push([sc.sketch, 'basis']);
        return out;
      };
      const ints = (sc: Record<string, any>): [Record<string, any>, string][] => {
        const out: [Record<string, any>, string][] = [];
        for (const k of ['pcaComponents', 'changesSinceFit', 'refitScale', 'refits', 'commits', 'dimension']) out.push([sc, k]);
        if (sc.index) out.push([sc.index, 'builtAt']);
        if (sc.sketch) out.push([sc.sketch, 'builtAt'], [sc.sketch, 'dims']);
        return out;
      };
      for (let t = 0; t < 100; t++) {
        const snap = JSON.parse(JSON.stringify(base));
        const sc = snap.scopes[0];
        const what: string[] = [];
        for (let m = 0; m < 1 + Math.floor(r.u() * 2); m++) {
          if (r.u() < 0.6) {
            const fs = b64Fields(sc);
            const [obj, k] = fs[Math.floor(r.u() * fs.length)]!;
            const bytes = new Uint8Array(Buffer.from(obj[k], 'base64'));
            if (bytes.length === 0) continue;
            const i = Math.floor(r.u() * bytes.length);
            bytes[i] = Math.floor(r.u() * 256);
            obj[k] = Buffer.from(bytes).toString('base64');
            what.push(`${k}[byte ${i}]`);
          } else {
            const fs = ints(sc);
            const [obj, k] = fs[Math.floor(r.u() * fs.length)]!;
            const choices = [0, 1, 2, obj[k] + 1, obj[k] - 1, 1 << 20, 2 ** 31];
            obj[k] = choices[Math.floor(r.u() * choices.length)];
            what.push(`${k}=${obj[k]}`);
          }
        }
        let h;
        try {
          h = createNoveltyGate({ state: snap });
        } catch (e) {
          if ((e as { code?: string }).code === 'BAD_SNAPSHOT' || (e as { code?: string }).code === 'BAD_OPTIONS') refused++;
          else failures.push(`${JSON.stringify(opts)} ${what.join(', ')}: restore threw ${String(e)}`);
          continue;
        }
        restored++;
        try {
          for (let q = 0; q < 3; q++) {
            const v = randomUnit(d, r);
            const dec = h.route('s', v);
            const ok = ['add', 'update', 'noop'].includes(dec.action) && [dec.score, dec.novelty, dec.threshold, dec.kappa].every(Number.isFinite);
            if (!ok) failures.push(`${JSON.stringify(opts)} ${what.join(', ')}: decision ${JSON.stringify(dec)}`);
            h.commit('s', `q${t}-${q}`, v);
          }
        } catch (e) {
          failures.push(`${JSON.stringify(opts)} ${what.join(', ')}: ${String(e)}`);
        }
      }
    }
    expect(failures.slice(0, 10)).toEqual([]);
    expect(refused).toBeGreaterThan(0);
    expect(restored).toBeGreaterThan(0);
  });
});

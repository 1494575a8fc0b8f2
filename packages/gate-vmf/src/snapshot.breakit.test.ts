/**
 * Break-it tests of gate snapshots (ours): every number a restored gate decides with must be finite
 * (vectors were already checked; the running sum, scatter, PCA basis, sketch basis and cluster index
 * were not), else BAD_SNAPSHOT, with or without the vectors in the snapshot.
 */
import { describe, expect, it } from 'vitest';
import { createNoveltyGate } from './index.js';
import { randomUnit, rng } from './test-utils.js';

const d = 8;

/** A base64 Float64 array with element `at` set to `v`. */
function poisonF64(b64: string, v: number, at = 0): string {
  const a = new Float64Array(new Uint8Array(Buffer.from(b64, 'base64')).buffer);
  a[at] = v;
  return Buffer.from(a.buffer).toString('base64');
}

describe('gate snapshots: hidden non-finite numbers', () => {
  it('NaN / ±Infinity in sum, scatter, basis, sketch basis or index arrays → BAD_SNAPSHOT', () => {
    const r = rng(7);
    // fast mode with a small fastMinN keeps a cluster index; fastCertify 'decision' keeps a sketch
    const variants = [
      { mode: 'fast', fastMinN: 64 },
      { mode: 'fast', fastMinN: 64, fastCertify: 'decision' },
    ] as const;
    const bad = expect.objectContaining({ code: 'BAD_SNAPSHOT' });
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
        for (const [name, forge] of fields) {
          for (const x of [NaN, Infinity, -Infinity]) {
            const state = { ...snap, scopes: [forge(x)] };
            expect(() => createNoveltyGate({ state, vectors: source }), `${name} = ${x}`).toThrow(bad);
          }
        }
      }
    }
  });
});

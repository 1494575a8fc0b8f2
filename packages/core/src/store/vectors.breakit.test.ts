/**
 * Break-it tests of ScopeVectors.exact (four rows at a time, tail Cauchy–Schwarz prune) on
 * structured inputs random vectors rarely produce: exact ties, rows whose head coordinates are all
 * zero (everything in the pruned tail), near-duplicates that differ in the last float32 bit, dead
 * slots at every position of a group of four, a query orthogonal to the head, compaction with dead
 * rows. The reference is a plain one-row scan over the stored float32 copies.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../testing/index.js';
import { ScopeVectors } from './vectors.js';
import { plainTopK as plain, storedRows as stored, unitF32 as unit } from './testdata/exact-reference.js';


describe('ScopeVectors.exact on structured inputs', () => {
  it('many exact ties (identical rows): the k lowest rids, as a plain scan, for every k and every alignment to the groups of four', () => {
    for (const dim of [1, 2, 3, 7, 16]) {
      for (const n of [1, 3, 4, 5, 8, 9, 13]) {
        const sv = new ScopeVectors(dim, null, 4);
        const v = Array.from({ length: dim }, (_, j) => (j % 2 ? 0.5 : 1));
        for (let i = 0; i < n; i++) sv.upsert(100 - i * 3, v); // rids descending in slot order
        const q = unit(v);
        for (let k = 1; k <= n + 1; k++) expect(sv.exact(q, k), `dim ${dim} n ${n} k ${k}`).toEqual(plain(stored(sv, dim), q, k));
      }
    }
  });

  it('rows living only in the tail coordinates (head all zero) and a query only in the tail are never pruned away', () => {
    const dim = 10;
    const rnd = seededRandom(3);
    const sv = new ScopeVectors(dim, null, 4);
    for (let i = 0; i < 200; i++) {
      const v = new Array(dim).fill(0);
      if (i % 3 === 0) for (let j = 5; j < dim; j++) v[j] = rnd() - 0.5; // tail only
      else for (let j = 0; j < dim; j++) v[j] = rnd() - 0.5;
      if (v.every((x) => x === 0)) v[dim - 1] = 1;
      sv.upsert(i + 1, v);
    }
    for (let t = 0; t < 50; t++) {
      const q = new Array(dim).fill(0);
      for (let j = t % 2 ? 5 : 0; j < dim; j++) q[j] = rnd() - 0.5;
      const u = unit(q);
      for (const k of [1, 3, 10]) expect(sv.exact(u, k)).toEqual(plain(stored(sv, dim), u, k));
    }
  });

  it('near-duplicates one float32 ulp apart in the tail, with dead slots at each position of a group, after compaction', () => {
    const dim = 8;
    const sv = new ScopeVectors(dim, null, 4);
    const base = unit([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]);
    let rid = 1;
    for (let i = 0; i < 64; i++) {
      const v = Float32Array.from(base);
      const bits = new Uint32Array(v.buffer);
      bits[7]! += i % 5; // a few ulps in the last coordinate
      bits[4]! -= i % 3;
      sv.upsert(rid++, v);
    }
    for (let victim = 1; victim <= 64; victim += 5) sv.remove(victim);
    for (let i = 0; i < 40; i++) sv.upsert(rid++, base); // grows / compacts
    for (let victim = 70; victim <= 100; victim += 7) sv.remove(victim);
    const q = unit(base);
    for (const k of [1, 2, 4, 5, 17, 200]) expect(sv.exact(q, k)).toEqual(plain(stored(sv, dim), q, k));
  });

  it('a negative-only neighbourhood (every cosine < 0) still returns the k least negative rows', () => {
    const dim = 6;
    const sv = new ScopeVectors(dim, null, 4);
    const rnd = seededRandom(11);
    for (let i = 0; i < 37; i++) sv.upsert(i + 1, Array.from({ length: dim }, () => -rnd() - 0.01));
    const q = unit([1, 1, 1, 1, 1, 1]);
    for (const k of [1, 4, 5, 37, 50]) {
      const got = sv.exact(q, k);
      expect(got).toEqual(plain(stored(sv, dim), q, k));
      expect(got.length).toBe(Math.min(k, 37));
    }
  });
});

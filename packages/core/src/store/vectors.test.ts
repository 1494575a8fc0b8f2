/** ScopeVectors.exact: grouped, pruned scan = a plain one-row scan, bit for bit. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ScopeVectors } from './vectors.js';
import { plainTopK, storedRows, unitF32 as unit } from './testdata/exact-reference.js';


describe('ScopeVectors.exact', () => {
  it('equals a plain scan (same rids, same scores to the bit) with deletions, updates and any dimension', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 19 }),
        fc.integer({ min: 0, max: 70 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        (dim, n, k, seed) => {
          let x = seed || 1;
          const rnd = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
          const vec = () => {
            const xs: number[] = Array.from({ length: dim }, () => rnd());
            if (!xs.some((y) => y !== 0)) xs[0] = 1;
            return xs;
          };
          const sv = new ScopeVectors(dim, null, 4);
          const rows = new Map<number, Float32Array>();
          for (let i = 0; i < n; i++) {
            const v = vec();
            sv.upsert(i + 1, v);
            rows.set(i + 1, unit(v));
            // some rows are removed or rewritten, leaving dead slots and changed tails
            if (rnd() > 0.7) {
              const victim = 1 + Math.floor(Math.abs(rnd()) * (i + 1));
              sv.remove(victim);
              rows.delete(victim);
            }
            if (rnd() > 0.85 && rows.has(i + 1)) {
              const w = vec();
              sv.upsert(i + 1, w);
              rows.set(i + 1, unit(w));
            }
          }
          const q = unit(vec());
          // the store's copies are Float32 normalised by normalizeInto: compare against those exact values
          const stored = storedRows(sv, dim);
          expect([...stored.keys()].sort((a, b) => a - b)).toEqual([...rows.keys()].sort((a, b) => a - b));
          expect(sv.exact(q, k)).toEqual(plainTopK(stored, q, k));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('prunes: a query equal to one stored row finds it first among many', () => {
    const dim = 32;
    const sv = new ScopeVectors(dim, null);
    let x = 7;
    const rnd = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    const rows: number[][] = [];
    for (let i = 0; i < 500; i++) {
      const v = Array.from({ length: dim }, rnd);
      rows.push(v);
      sv.upsert(i + 1, v);
    }
    const hits = sv.exact(unit(rows[321]!), 5);
    expect(hits[0]!.rid).toBe(322);
    expect(hits[0]!.score).toBeCloseTo(1, 6);
    expect(hits).toHaveLength(5);
  });
});

import { describe, expect, it } from 'vitest';
import { mulberry32 } from './random.js';

// mulberry32 is kept once per leaf package (docs/architecture.md "Seeded random numbers"); the three
// copies (core/src/random.ts, gate-vmf/src/pca.ts, system-one/src/learned/train.ts) must give the
// same sequence: this known-answer vector (seed 42, as 32-bit integers) is the same in all three tests.
describe('mulberry32 known-answer vector', () => {
  it('seed 42 gives the shared sequence', () => {
    const next = mulberry32(42);
    expect([next(), next(), next()].map((x) => Math.round(x * 4294967296))).toEqual([2581720956, 1925393290, 3661312704]);
  });
});

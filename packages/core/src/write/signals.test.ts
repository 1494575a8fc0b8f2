import { describe, expect, it } from 'vitest';
import { candidateScore, DAY_MS, entitySignal, keywordSignal, positiveCosine, timeSignal, vectorSignal } from './signals.js';

describe('candidate signals (seed 000 write path)', () => {
  it('2·cos⁺ only for top vector hits', () => {
    expect(vectorSignal(0.5, true)).toBe(1);
    expect(vectorSignal(-0.5, true)).toBe(0);
    expect(vectorSignal(0.9, false)).toBe(0);
    expect(positiveCosine(-0.1)).toBe(0);
  });
  it('2·[shared entity]', () => {
    expect(entitySignal(true)).toBe(2);
    expect(entitySignal(false)).toBe(0);
  });
  it('|kw ∩ kw′| / max(1, |kw|) is relative to the new node', () => {
    expect(keywordSignal(new Set(['a', 'b', 'c', 'd']), new Set(['a', 'b', 'x']))).toBe(0.5);
    expect(keywordSignal(new Set(['a']), new Set(['a', 'b', 'c']))).toBe(1);
    expect(keywordSignal(new Set(), new Set(['a']))).toBe(0);
  });
  it('0.25 / (1 + |Δt| / 1 day)', () => {
    expect(timeSignal(0)).toBe(0.25);
    expect(timeSignal(DAY_MS)).toBe(0.125);
    expect(timeSignal(-3 * DAY_MS)).toBeCloseTo(0.0625);
  });
  it('sums the four terms', () => {
    expect(candidateScore({ vector: 1.2, entity: 2, keyword: 0.5, time: 0.25 })).toBeCloseTo(3.95);
  });
});

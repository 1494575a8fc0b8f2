/** Regression tests from an adversarial pass over extraction (hostile / careless inputs). */
import { describe, expect, it } from 'vitest';
import { MemError } from '../errors.js';
import { extractEntities, extractKeywords, resolveEventTime } from './index.js';

describe('extraction on hostile text', () => {
  it('a long token (base64 blob, hash) does not stall the parser: 64 KB in under 2 s of CPU', () => {
    extractEntities('warm up the model.');
    const blob = 'aGVsbG8gd29ybGQ1'.repeat(4096); // 64 KB, one token (took minutes: wink-nlp is quadratic in token length)
    const t0 = process.cpuUsage();
    const ents = extractEntities(`Caroline sent ${blob} to Melanie.`);
    const kws = extractKeywords(`Caroline sent ${blob} yesterday.`);
    const cpuMs = (process.cpuUsage(t0).user + process.cpuUsage(t0).system) / 1000;
    expect(cpuMs).toBeLessThan(2000);
    expect(ents).toEqual(expect.arrayContaining(['caroline', 'melanie']));
    expect(ents.every((e) => e.length < 100)).toBe(true);
    expect(kws).toContain('caroline');
    expect(kws.every((k) => k.length < 100)).toBe(true);
  });

  it('zero-width spaces and soft hyphens inside words do not split names', () => {
    expect(extractEntities('Zo\u200Be went to Pa\u200Bris with Ana\u00ADbel.')).toEqual(['zoe', 'paris', 'anabel']);
    expect(extractKeywords('Zo\u200Be visited Pa\u200Bris')).toEqual(expect.arrayContaining(['zoe', 'paris']));
  });

  it('full-width letters are names too (NFKC before parsing)', () => {
    expect(extractEntities('Ｍｅｌａｎｉｅ went to Ｐａｒｉｓ.')).toEqual(['melanie', 'paris']);
  });
});

describe('resolveEventTime at calendar edges', () => {
  it('"the past month" / "the past year" clamp to the end of a shorter month (no day overflow)', () => {
    // 31 March - 1 month = 29 February 2024 (leap year), not 2 March
    expect(resolveEventTime('in the past month', '2024-03-31T10:00:00Z')?.start).toBe('2024-02-29T00:00:00.000Z');
    expect(resolveEventTime('in the past month', '2023-03-31T10:00:00Z')?.start).toBe('2023-02-28T00:00:00.000Z');
    expect(resolveEventTime('in the past month', '2024-05-31T10:00:00Z')?.start).toBe('2024-04-30T00:00:00.000Z');
    // leap day - 1 year = 28 February 2023, not 1 March
    expect(resolveEventTime('over the past year', '2024-02-29T10:00:00Z')?.start).toBe('2023-02-28T00:00:00.000Z');
  });

  it('an observation time at the ends of the Date range is BAD_DATE, not a RangeError', () => {
    for (const o of [8.64e15, -8.64e15, '+275760-09-13T00:00:00Z']) {
      let err: unknown;
      try {
        resolveEventTime('next year, or two weekends ago', o);
      } catch (e) {
        err = e;
      }
      expect(MemError.isInstance(err), String(err)).toBe(true);
      expect((err as MemError).code).toBe('BAD_DATE');
    }
    expect(resolveEventTime('yesterday', '9999-01-02T00:00:00Z')?.start).toBe('9999-01-01T00:00:00.000Z');
  });
});

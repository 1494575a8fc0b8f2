/**
 * Break-it tests of event-time resolution at the ends of the JavaScript Date range: a relative
 * expression with a huge count ("in 273737 years", "99980515 days later") lands on or next to
 * +275760-09-13, the last representable instant. The resolver checks the observation time's range
 * but not the resolved interval's: the period end (start + 1 day / 1 year) is past the range and
 * `new Date(end).toISOString()` throws an untyped RangeError ("Invalid time value").
 */
import { describe, expect, it } from 'vitest';
import { extract } from './extract.js';
import { resolveEventTimes } from './time.js';

const OBSERVED = '2023-05-08T00:00:00Z';
/** Days from OBSERVED to the last representable instant (8.64e15 ms). */
const LAST_DAY = (8.64e15 - Date.parse(OBSERVED)) / 86_400_000; // 99 980 515

/** Texts whose resolved period ends past the Date range (the period start itself is representable). */
const EDGE = [`in ${275_760 - 2023} years`, `${LAST_DAY} days later`, `in ${LAST_DAY} days`, `+${LAST_DAY} days`, `${LAST_DAY} days from now`];

describe('event times at the end of the Date range', () => {
  it('control: one day earlier, and the far past, resolve to valid ISO strings', () => {
    for (const t of [`${LAST_DAY - 1} days later`, `${LAST_DAY} days ago`, `${LAST_DAY * 24} hours later`, 'in 9999999 years', `in ${275_760 - 2023 - 1} years`]) {
      for (const r of resolveEventTimes(t, OBSERVED)) {
        expect(Number.isNaN(Date.parse(r.start)), t).toBe(false);
        if (r.end) expect(Number.isNaN(Date.parse(r.end)), t).toBe(false);
      }
    }
  });

  // Was a bug (time.ts resolveEventTimes threw RangeError "Invalid time value"): such an interval is now
  // dropped, and no start / end outside the years 0000–9999 is returned.
  it.each(EDGE)("%j resolves without an untyped RangeError (dropped: outside the years 0000–9999)", (t) => {
    const got = resolveEventTimes(t, OBSERVED);
    for (const r of got) {
      expect(Number.isNaN(Date.parse(r.start))).toBe(false);
      if (r.end) expect(Number.isNaN(Date.parse(r.end))).toBe(false);
    }
    expect(got.every((r) => /^\d{4}-/.test(r.start) && (r.end === null || /^\d{4}-/.test(r.end)))).toBe(true);
  });

  it('extract() of a chat line mentioning "in 273737 years" does not throw', () => {
    expect(() => extract('Our robots will still be here in 273737 years, I bet.', OBSERVED)).not.toThrow();
  });
});

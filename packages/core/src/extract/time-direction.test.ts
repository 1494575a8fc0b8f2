import { describe, expect, it } from 'vitest';
import { resolveEventTime, tenseAround } from './time.js';
import { MemValidationError } from '../errors.js';
import { expectMemError } from '@mem/test-utils';

const SAT = '2025-04-12T10:00:00Z'; // a Saturday
const day = (t: string, at = SAT, tz?: string) => resolveEventTime(t, at, tz ? { timeZone: tz } : {})?.start.slice(0, 10);

describe('weekdays and year-less dates follow the tense (issue 17)', () => {
  it('a past-tense weekday is the most recent one, a future-tense one the next', () => {
    expect(day('The bridge reopened on Monday')).toBe('2025-04-07');
    expect(day('We had dinner with Lena on Thursday')).toBe('2025-04-10');
    expect(day('I saw her on Friday')).toBe('2025-04-11');
    expect(day("I'll fly to Oslo on Monday")).toBe('2025-04-14');
    expect(day('The shop will open on Thursday')).toBe('2025-04-17');
    expect(day("I'm meeting Tom on Wednesday")).toBe('2025-04-16');
    expect(day('What did Maya do on Monday?')).toBe('2025-04-07');
  });

  it('explicit last / next / this keep their meaning whatever the tense', () => {
    expect(day('I went there last Monday')).toBe('2025-04-07');
    expect(day('I will go next Monday')).toBe('2025-04-14');
  });

  it('a month or date without a year: past tense → the last one, future tense → the next one', () => {
    expect(day('We went to Rome in May')).toBe('2024-05-01');
    expect(day('We will go to Rome in March')).toBe('2026-03-01');
    expect(day('I met Anna on March 3')).toBe('2025-03-03');
    expect(day('The course starts on March 3 and I will attend')).toBe('2026-03-03');
    expect(day('I visited Paris in December', '2025-01-10T00:00:00Z')).toBe('2024-12-01');
    expect(day('I will visit Paris in December', '2025-01-10T00:00:00Z')).toBe('2025-12-01');
  });

  it('without a tense marker the reading is unchanged (nearest day)', () => {
    expect(day('Monday')).toBe('2025-04-14');
    expect(day('Friday')).toBe('2025-04-11');
  });

  it('"this weekend" in a past clause said before the weekend is the weekend just gone', () => {
    expect(day('I went hiking this weekend', '2025-04-09T10:00:00Z')).toBe('2025-04-05');
    expect(day('I will go hiking this weekend', '2025-04-09T10:00:00Z')).toBe('2025-04-12');
  });

  it('tenseAround reads the nearest marker of the clause; adjectives in -ed after "be" are not past', () => {
    expect(tenseAround("I'm excited about Monday", 16, 6)).toBe('unknown');
    expect(tenseAround('He needed it by Friday', 16, 6)).toBe('past');
    expect(tenseAround('Yesterday was fine. I will call on Monday', 35, 6)).toBe('future');
  });
});

describe('timeZone sets the calendar of relative dates (issue 17)', () => {
  it('"today" at 02:00 Tokyo time on 25 July is 25 July in Tokyo', () => {
    const r = resolveEventTime('today', '2025-07-25T02:00:00+09:00', { timeZone: 'Asia/Tokyo' })!;
    expect(r).toMatchObject({ start: '2025-07-24T15:00:00.000Z', end: '2025-07-25T15:00:00.000Z', granularity: 'day' });
    // without a zone the UTC calendar is used: 24 July
    expect(resolveEventTime('today', '2025-07-25T02:00:00+09:00')!.start).toBe('2025-07-24T00:00:00.000Z');
  });

  it('clock times are read on the zone\'s wall clock; weeks and months follow its calendar', () => {
    expect(resolveEventTime('at 3pm yesterday', '2025-07-25T02:00:00+09:00', { timeZone: 'Asia/Tokyo' })!.start).toBe('2025-07-24T06:00:00.000Z');
    expect(resolveEventTime('last month', '2025-08-01T01:00:00+02:00', { timeZone: 'Europe/Paris' })).toMatchObject({
      start: '2025-06-30T22:00:00.000Z',
      end: '2025-07-31T22:00:00.000Z',
    });
    expect(resolveEventTime('yesterday', '2025-03-10T00:30:00-04:00', { timeZone: 'America/New_York' })!.start).toBe('2025-03-09T05:00:00.000Z');
  });

  it('an unknown zone is a typed error', async () => {
    await expectMemError(() => resolveEventTime('today', SAT, { timeZone: 'Mars/Olympus' }), MemValidationError, 'INVALID_INPUT');
  });
});

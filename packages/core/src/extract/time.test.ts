import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolveEventTime, resolveEventTimes, ruleCueCheck } from './time.js';
import { MemValidationError } from '../errors.js';
import { expectMemError } from '@mem/test-utils';

// Monday 2023-05-08 13:56 UTC (ISO week starts Mon 05-08; previous week Mon 05-01).
const OBS = '2023-05-08T13:56:00Z';
const iv = (text: string, obs = OBS) => {
  const r = resolveEventTime(text, obs);
  return r && [r.start.slice(0, 10), r.end?.slice(0, 10) ?? null, r.granularity];
};

describe('resolveEventTime (hand-computed, observed Monday 2023-05-08)', () => {
  const cases: [string, [string, string | null, string] | null][] = [
    ['I went there yesterday.', ['2023-05-07', '2023-05-08', 'day']],
    ['We hiked last Saturday.', ['2023-05-06', '2023-05-07', 'day']],
    ['We hiked this past Saturday.', ['2023-05-06', '2023-05-07', 'day']],
    ['I painted last weekend.', ['2023-05-06', '2023-05-08', 'weekend']],
    ['I painted this past weekend.', ['2023-05-06', '2023-05-08', 'weekend']],
    ['We went camping two weekends ago.', ['2023-04-29', '2023-05-01', 'weekend']],
    ['We went camping the weekend before last.', ['2023-04-29', '2023-05-01', 'weekend']],
    ['Three weekends ago we moved.', ['2023-04-22', '2023-04-24', 'weekend']],
    ['Are you free this weekend?', ['2023-05-13', '2023-05-15', 'weekend']],
    ['See you next weekend.', ['2023-05-20', '2023-05-22', 'weekend']],
    ['It happened the week before last.', ['2023-04-24', '2023-05-01', 'week']],
    ['It happened last week.', ['2023-05-01', '2023-05-08', 'week']],
    ['It happened two weeks ago.', ['2023-04-24', '2023-05-01', 'week']],
    ['We talked earlier this week.', ['2023-05-08', '2023-05-15', 'week']],
    ['I met her a few days ago.', ['2023-05-05', '2023-05-06', 'day']],
    ['I met her a couple of days ago.', ['2023-05-06', '2023-05-07', 'day']],
    ['I met her three days ago.', ['2023-05-05', '2023-05-06', 'day']],
    ['I met her 10 days ago.', ['2023-04-28', '2023-04-29', 'day']],
    ['I met her the day before yesterday.', ['2023-05-06', '2023-05-07', 'day']],
    ['I started running last year.', ['2022-01-01', '2023-01-01', 'year']],
    ['I started running two years ago.', ['2021-01-01', '2022-01-01', 'year']],
    ['That was the year before last.', ['2021-01-01', '2022-01-01', 'year']],
    ['We are moving next month.', ['2023-06-01', '2023-07-01', 'month']],
    ['We moved last month.', ['2023-04-01', '2023-05-01', 'month']],
    ['We moved three months ago.', ['2023-02-01', '2023-03-01', 'month']],
    ['We went to Spain last summer.', ['2022-06-01', '2022-09-01', 'season']],
    ['We go to Spain this summer.', ['2023-06-01', '2023-09-01', 'season']],
    ['It snowed a lot last winter.', ['2022-12-01', '2023-03-01', 'season']],
    ['I graduated in 2019.', ['2019-01-01', '2020-01-01', 'year']],
    ['The appointment is tomorrow at 5pm.', ['2023-05-09', null, 'instant']],
    ['The party was on May 1st.', ['2023-05-01', '2023-05-02', 'day']],
    ['We adopted Oscar on 2022-11-20.', ['2022-11-20', '2022-11-21', 'day']],
    ['We moved there last August.', ['2022-08-01', '2022-09-01', 'month']],
    ['Next June we fly home.', ['2023-06-01', '2023-07-01', 'month']],
    ['Next March we fly home.', ['2024-03-01', '2024-04-01', 'month']],
    ['I started painting a few years back.', ['2020-01-01', '2021-01-01', 'year']],
    ['We met a couple of weeks back.', ['2023-04-24', '2023-05-01', 'week']],
    ['I am now a teacher.', null],
    ["I've known these friends for 4 years.", null],
    ['We sat by the lake and watched the sun go down.', null],
    ['It was an awesome night with great music.', null],
    ['Any plans for the weekend?', null],
    ['I love ice cream after a day of hiking.', null],
    ['I have two kids and a dog.', null],
    ['May told me a story.', null],
  ];
  for (const [text, want] of cases) {
    it(`${JSON.stringify(text)} -> ${want ? want.join(' .. ') : 'null'}`, () => {
      expect(iv(text)).toEqual(want);
    });
  }

  it('returns the expression as written and an exact instant for clock times', () => {
    const r = resolveEventTime('The appointment is tomorrow at 5pm.', OBS)!;
    expect(r.expression).toBe('tomorrow at 5pm');
    expect(r.start).toBe('2023-05-09T17:00:00.000Z');
    expect(resolveEventTime('We went camping two weekends ago.', OBS)!.expression).toBe('two weekends ago');
  });

  it('is anchored to the observation time, not to the clock', () => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2031-02-17T08:00:00Z'));
    expect(iv('I went there yesterday.')).toEqual(['2023-05-07', '2023-05-08', 'day']);
    expect(iv('two weekends ago')).toEqual(['2023-04-29', '2023-05-01', 'weekend']);
    expect(iv('last year')).toEqual(['2022-01-01', '2023-01-01', 'year']);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('uses UTC: a local evening observation is already the next UTC day', () => {
    // 2023-05-08 23:30 at -05:00 = 2023-05-09 04:30 UTC
    expect(iv('I went there yesterday.', '2023-05-08T23:30:00-05:00')).toEqual(['2023-05-08', '2023-05-09', 'day']);
  });

  it('handles year boundaries and Sunday observations', () => {
    // Monday 2023-01-02
    expect(iv('last year', '2023-01-02T10:00:00Z')).toEqual(['2022-01-01', '2023-01-01', 'year']);
    expect(iv('last weekend', '2023-01-02T10:00:00Z')).toEqual(['2022-12-31', '2023-01-02', 'weekend']);
    expect(iv('last month', '2023-01-15T10:00:00Z')).toEqual(['2022-12-01', '2023-01-01', 'month']);
    // Sunday 2023-05-14: "last weekend" is the previous one, "last Friday" the 12th
    expect(iv('last weekend', '2023-05-14T12:00:00Z')).toEqual(['2023-05-06', '2023-05-08', 'weekend']);
    expect(iv('last Friday', '2023-05-14T12:00:00Z')).toEqual(['2023-05-12', '2023-05-13', 'day']);
    // January observation: "last winter" is the one that began in December two years back
    expect(iv('last winter', '2023-01-20T12:00:00Z')).toEqual(['2021-12-01', '2022-03-01', 'season']);
  });

  it('lists every expression in text order', () => {
    const all = resolveEventTimes('Last week I ran, and two weekends ago I swam; next month I bike.', OBS);
    expect(all.map((r) => r.expression)).toEqual(['Last week', 'two weekends ago', 'next month']);
  });

  it('rejects invalid or zone-less observation times with BAD_DATE', async () => {
    await expectMemError(() => resolveEventTime('yesterday', 'not a date'), MemValidationError, 'BAD_DATE');
    await expectMemError(() => resolveEventTime('yesterday', '2023-05-08T13:56:00'), MemValidationError, 'BAD_DATE');
    // epoch seconds are refused as observedAt is by the write path; epoch ms work
    expect((await expectMemError(() => resolveEventTime('yesterday', 1_700_000_000), MemValidationError, 'BAD_DATE')).message).toContain('epoch seconds');
    expect(resolveEventTime('yesterday', Date.UTC(2023, 10, 14, 12))?.start.slice(0, 10)).toBe('2023-11-13');
    expect(resolveEventTime('yesterday', new Date(OBS))!.start).toBe('2023-05-07T00:00:00.000Z');
    expect(resolveEventTime('yesterday', Date.parse(OBS))!.start).toBe('2023-05-07T00:00:00.000Z');
    expect(resolveEventTime('', OBS)).toBeNull();
  });
});

describe('rule cues (a rule runs only when its literal cues are in the text)', () => {
  it('no rule matches a text that lacks one of its cues, over 4 000 built phrases that exercise every rule', () => {
    const before = ['', 'the ', 'earlier ', 'later ', 'this past ', 'this coming ', 'the coming ', 'the following ', 'last ', 'previous ', 'past ',
      'this ', 'next ', 'a couple of ', 'a few ', 'few ', 'several ', 'an ', 'a ', 'two ', '3 ', 'twenty ', 'in ', 'since ', 'back in '];
    const nouns = ['weekend', 'weekends', 'week', 'weeks', 'day', 'days', 'month', 'months', 'year', 'years', 'summer', 'winter', 'august', 'may', '2022', '1999'];
    const after = ['', ' ago', ' back', ' before last', '.'];
    const seen = new Set<number>();
    let n = 0;
    for (const b of before) for (const w of nouns) for (const a of after) for (const upper of [false, true]) {
      const phrase = `We met ${b}${w}${a}`;
      const text = upper ? phrase.toUpperCase() : phrase;
      const { matched, violations } = ruleCueCheck(text);
      expect(violations, text).toEqual([]);
      for (const i of matched) seen.add(i);
      n++;
    }
    expect(n).toBe(4000);
    expect(seen.size).toBe(16); // every rule matched some phrase, so each cue was put to the test
  });
});

import * as chrono from 'chrono-node';
import { describe, expect, it } from 'vitest';
import { gatedChronoParse, gateInfo, possibleParsers } from './chrono-gate.js';

const REF = { instant: new Date('2023-05-08T13:56:00Z'), timezone: 0 };

/** Everything chrono reports about a result, as plain data. */
function dump(results: chrono.ParsedResult[]) {
  const comps = (c: chrono.ParsedComponents | null) =>
    c && {
      date: c.date().toISOString(),
      values: (['year', 'month', 'day', 'weekday', 'hour', 'minute', 'second', 'millisecond', 'meridiem', 'timezoneOffset'] as const).map(
        (k) => [k, c.get(k), c.isCertain(k)],
      ),
      tags: [...c.tags()].sort(),
    };
  return results.map((r) => ({ index: r.index, text: r.text, start: comps(r.start), end: comps(r.end ?? null) }));
}

/** Gated parse = chrono.parse, and no parser whose gate is closed matches the text at all. */
function check(text: string) {
  expect(dump(gatedChronoParse(text, REF)), text).toEqual(dump(chrono.parse(text, REF)));
  const mask = possibleParsers(text);
  chrono.casual.parsers.forEach((p, i) => {
    if (mask & (1 << i)) return;
    const ctx = new chrono.ParsingContext(text, REF);
    expect(p.pattern(ctx).exec(text), `${(p as object).constructor.name} on ${JSON.stringify(text)}`).toBeNull();
  });
}

// Own sentences: chat-style text with and without time expressions, and near misses.
const SENTENCES = [
  'I went there yesterday.',
  'We hiked last Saturday and it was lovely.',
  'My friend showed me her new painting.',
  'She decided to save more money for the trip.',
  'The market was busy, maybe because of the summary sale.',
  'A knight in shining armour, said the insight card.',
  'We moved from Chicago a few years ago.',
  'See you tomorrow at 3pm!',
  'I got it on May 3rd, 2022.',
  'It is due 2023-05-10T10:00:00Z or 5/11/2023.',
  'Tonight we eat out.',
  'this morning I ran 5 km',
  'Last night was great; the night before was not.',
  'We have been together for 3 years and 2 months.',
  'Within a couple of days it was done.',
  'In the end of the month we pay rent.',
  'Two weeks later she called.',
  'I will be back in half an hour.',
  'Next week is busy, this week is calm, past week was fun.',
  'The weekend before last we went camping.',
  'On Friday, (Sat) and sun.',
  'Friends met on mondaynextweek to talk.',
  'the 5th of June, June 5, 5 June 2021, 2021 June',
  'He said +2 days and -1 week.',
  'Nowhere to go, know what I mean?',
  'The sun was out all afternoon and the evening was cool.',
  'Autumn leaves, spring flowers and summer heat.',
  'Hey Mel! How are you doing? I adopted a puppy named Oscar.',
  'Yeah, painting is my therapy. I did this one after my divorce.',
  'Thanks! It took me a while but I finally finished the mural.',
  'Sept. was rough; Dec. was better; Jan.1 was a new start.',
  'I’ll see you in 10 min or so, maybe 2 hrs.',
  'The meeting is at noon, not midnight.',
  'midday sun and a mid-day break',
  'Over the past year I learned a lot.',
  'Several weeks before the show we rehearsed daily.',
  'forthe record, inthe morning, forty years',
  'Ｍａｙ ５ and ＭＯＮＤＡＹ in full width, İstanbul on Monday',
  'We met in the week before. I will be back within the hour; in the d.',
  'thismorning was odd, so thisevening we rest; see you onmonday or lastfriday',
  'for a while, for the day, in a sec, in one hr, for several years, in a couple of weeks',
  '',
  '   ',
  'ok',
];

describe('gatedChronoParse', () => {
  it('uses the gates for the installed chrono-node (else re-derive them from its parsers)', () => {
    expect(gateInfo()).toEqual({ active: true, installed: gateInfo().expected, expected: gateInfo().expected });
  });

  it('equals chrono.parse on hand-written sentences, and closed gates never hide a pattern match', () => {
    for (const s of SENTENCES) check(s);
  });

  it('falls back to chrono.parse when chrono.casual gains a parser at run time, and with forwardDate', () => {
    const text = 'My friend showed me her new painting.';
    const dummy: chrono.Parser = { pattern: () => /painting/i, extract: () => ({ day: 1, month: 2, year: 2020 }) };
    chrono.casual.parsers.push(dummy);
    try {
      expect(dump(gatedChronoParse(text, REF))).toEqual(dump(chrono.parse(text, REF)));
      expect(gatedChronoParse(text, REF).map((r) => r.text)).toEqual(['painting']);
    } finally {
      chrono.casual.parsers.pop();
    }
    expect(gatedChronoParse(text, REF)).toEqual([]);
    const t2 = 'See you in 3 days, we leave Friday.';
    expect(dump(gatedChronoParse(t2, REF, { forwardDate: true }))).toEqual(dump(chrono.parse(t2, REF, { forwardDate: true })));
  });

  it('skips chrono or most of its parsers on text without time cues', () => {
    expect(possibleParsers('My friend showed me her new painting.')).toBe(0);
    expect(gatedChronoParse('My friend showed me her new painting.', REF)).toEqual([]);
    const open = (t: string) => possibleParsers(t).toString(2).replace(/0/g, '').length;
    expect(open('She decided to save more money for the trip.')).toBeLessThanOrEqual(2);
    expect(open('See you tomorrow at 3pm!')).toBeGreaterThan(0);
  });

  it('equals chrono.parse on every pair of cue words, glued and spaced', () => {
    const vocab = [
      'in', 'for', 'within', 'on', 'this', 'last', 'past', 'next', 'after', 'the', 'a', 'an', 'couple', 'few', 'half', 'one', 'twelve',
      'of', 'end', 'morning', 'night', 'noon', 'now', 'today', 'yesterday', 'monday', 'mon', 'fri', 'weekend', 'may', 'june', 'sept',
      'dec', 'first', 'twentieth', 'day', 'week', 'month', 'year', 'hr', 'm', 's', 'ago', 'before', 'later', 'out', '5', '2023', '-', '+', 'x',
    ];
    for (const a of vocab) for (const b of vocab) for (const sep of ['', ' ']) check(a + sep + b);
  });

  it('equals chrono.parse on every "number unit keyword" and "modifier number unit" phrase', () => {
    const numbers = ['3', 'a', 'an', 'the', 'one', 'twelve', 'few', 'a few', 'half', 'half an', 'couple', 'a couple of', 'several', 'about 2'];
    const units = ['s', 'sec', 'second', 'seconds', 'm', 'min', 'mins', 'minute', 'minutes', 'h', 'hr', 'hrs', 'hour', 'hours', 'd', 'day', 'days',
      'w', 'week', 'weeks', 'mo', 'mon', 'mos', 'month', 'months', 'qtr', 'quarter', 'quarters', 'y', 'yr', 'year', 'years'];
    const keywords = ['ago', 'before', 'earlier', 'later', 'after', 'from now', 'henceforth', 'forward', 'out'];
    const modifiers = ['this', 'last', 'past', 'next', 'after', '+', '-', 'in', 'for', 'within', 'x'];
    for (const n of numbers) for (const u of units) {
      for (const k of keywords) check(`so ${n} ${u} ${k}.`);
      for (const m of modifiers) check(`so ${m} ${n} ${u}.`);
    }
  });

  it('equals chrono.parse on 8 000 random sequences of cue words, glued, spaced or punctuated (seeded)', () => {
    // Word classes from chrono's English patterns; a class is drawn first so that neighbours from
    // different classes ("on" + "monday", "in" + "the" + "day", "this" + "morning") are frequent.
    const classes = [
      ['jan', 'january', 'feb', 'mar', 'march', 'apr', 'may', 'jun', 'june', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'december'],
      ['sun', 'sunday', 'mon', 'monday', 'tue', 'tues', 'wed', 'thu', 'thur', 'thurs', 'fri', 'friday', 'sat', 'weekend', 'weekday', 'week'],
      ['now', 'today', 'tonight', 'tomorrow', 'tmr', 'tmrw', 'overmorrow', 'yesterday', 'night', 'morning', 'afternoon', 'evening', 'midnight', 'midday', 'noon'],
      ['this', 'last', 'past', 'next', 'after', 'before', 'earlier', 'later', 'ago', 'out', 'forward', 'from now', 'henceforth'],
      ['within', 'in', 'for', 'about', 'around', 'roughly', 'just', 'of', 'on', 'at', 'end', 'and', 'to', 'until', 'the'],
      ['the', 'a', 'an', 'few', 'several', 'couple', 'half', 'one', 'two', 'three', 'six', 'seven', 'ten', 'twelve'],
      ['first', 'second', 'third', 'fifth', 'twenty', 'twentieth', 'thirty', 'thirtieth', 'am', 'pm', 'o', 'clock', 'T', 'Z', 'BC', 'AD'],
      ['s', 'sec', 'm', 'min', 'mins', 'minute', 'h', 'hr', 'hrs', 'hour', 'd', 'day', 'days', 'w', 'mo', 'mos', 'month', 'months', 'qtr', 'quarter', 'y', 'yr', 'year', 'years'],
      ['3', '12', '31', '2023', '5th', '1st', '10:30', '7.15', '2023-05-01', '5/11', '11/2023', '+', '-', '~'],
      ['friend', 'showed', 'money', 'decided', 'knight', 'chicago', 'insight', 'summary', 'market', 'maybe', 'so', 'we', 'went', 'i'],
    ];
    const seps = [', ', ',', '-', '/', '.', '\n', '(', ')', '（', '）', "'", 'é', '\u00a0', '  '];
    let seed = 0x9e3779b9;
    const rand = (n: number) => {
      seed = (Math.imul(seed ^ (seed >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
      return seed % n;
    };
    const pick = <T>(xs: T[]) => xs[rand(xs.length)]!;
    for (let k = 0; k < 8000; k++) {
      const len = 1 + rand(6);
      let t = '';
      for (let i = 0; i < len; i++) {
        const w = pick(pick(classes));
        const sep = i === 0 ? '' : rand(3) === 0 ? '' : rand(2) ? ' ' : pick(seps);
        t += sep + (rand(4) === 0 ? w.toUpperCase() : rand(3) === 0 ? w[0]!.toUpperCase() + w.slice(1) : w);
      }
      check(t);
    }
  });
});

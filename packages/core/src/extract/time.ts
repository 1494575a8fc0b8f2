/**
 * Event-time resolution: relative and absolute time expressions in a text, resolved against the
 * OBSERVATION time (never "now"), in UTC. chrono-node does the bulk; the rules below add what it
 * misses or resolves to a point where the expression names a period (ours).
 */
import type * as chrono from 'chrono-node';
import { MemValidationError } from '../errors.js';
import { looksLikeEpochSeconds, timeZoneOffsetMs, zonedWallTimeToUtc } from '../time/zone.js';
import { gatedChronoParse } from './chrono-gate.js';

/** Size of the period an expression names. */
export type TimeGranularity = 'instant' | 'day' | 'weekend' | 'week' | 'month' | 'season' | 'year';

/**
 * A resolved expression. `start` inclusive, `end` exclusive (UTC ISO-8601): "yesterday" observed
 * 2023-05-08 → [2023-05-07T00:00Z, 2023-05-08T00:00Z). For a clock time (`instant`) `end` is null
 * unless the text gives a range.
 */
export interface ResolvedEventTime {
  start: string;
  end: string | null;
  /** The matched text, as written. */
  expression: string;
  granularity: TimeGranularity;
  /** Character offset of the expression in the text. */
  index: number;
}

const DAY = 86_400_000;

/** Options of `resolveEventTimes` / `resolveEventTime`. */
export interface ResolveTimeOptions {
  /**
   * IANA zone whose calendar relative expressions use ("today" at 02:00 Tokyo time on 25 July is
   * 25 July in Tokyo: [2025-07-24T15:00Z, 2025-07-25T15:00Z)). Default: UTC's calendar.
   */
  timeZone?: string;
}

/** Grammatical tense around an expression: which way a bare "Monday" or "in March" points. */
export type Tense = 'past' | 'future' | 'unknown';

// Tense markers (English grammar, ours): auxiliaries and past forms. Past: past-tense auxiliaries,
// regular "-ed" verbs, common irregular past forms. Future: will/shall/'ll, going to, be + -ing
// (an arrangement: "I'm meeting her on Monday"), plan/hope/want to.
const IRREGULAR_PAST =
  'went|came|got|saw|did|was|were|had|made|took|met|left|said|told|bought|sold|found|gave|ran|ate|drank|began|wrote|felt|kept|thought|brought|spent|lost|won|sat|stood|paid|heard|flew|drove|rode|slept|taught|caught|fell|broke|chose|forgot|wore|swam|sang|built|sent|held|knew|became|threw|grew|drew|hung|led|lit|meant|rang|rose|shook|shot|shut|sold|spoke|stole|struck|swore|took|tore|understood|woke|wove|quit|read|let|put|set|hit|cut|hurt|cost|fed|fought|bit|hid|slid|spun|stuck|sunk|sank|sprang|swung|wept|bled|bred|dug|fled|lay|laid|lent|sought|sped|split|spread|sprung';
const PAST_RE = new RegExp(`\\b(?:${IRREGULAR_PAST}|wasn't|weren't|didn't|hadn't|used to|[a-z]{2,}ed)\\b`, 'gi');
/** Words ending in "ed" that are not past verbs. */
const NOT_PAST = new Set(['need', 'seed', 'feed', 'speed', 'breed', 'indeed', 'exceed', 'succeed', 'proceed', 'shed', 'weed', 'embed', 'hundred', 'sacred', 'naked', 'wicked', 'kindred', 'bed', 'red', 'greed', 'deed', 'reed', 'steed', 'tweed', 'bleed']);
const FUTURE_RE = /\b(?:will|won't|shall|gonna|going to|plan(?:s|ning)? to|hope to|want to|about to|(?:i'm|we're|you're|they're|he's|she's|am|is|are)\s+(?:[a-z]+ing))\b|'ll\b/gi;
// "-ed" words after a present form of "be" are adjectives ("I'm excited about Monday"), not a past verb
const BE_PRESENT_BEFORE = /(?:\b(?:am|is|are|i'm|we're|you're|they're|he's|she's|it's|so|very|really|get|getting)\s+)$/i;
const CLAUSE_END = /[.!?;\n]/;

/**
 * The tense of the clause around `text[index, index + length)` (ours): the nearest tense marker
 * before the expression in its sentence, else the nearest after it, else 'unknown'.
 */
export function tenseAround(text: string, index: number, length: number): Tense {
  let from = index;
  while (from > 0 && !CLAUSE_END.test(text[from - 1]!)) from--;
  let to = index + length;
  while (to < text.length && !CLAUSE_END.test(text[to]!)) to++;
  const marks: { at: number; tense: Tense }[] = [];
  const sentence = text.slice(from, to);
  for (const [re, tense] of [[PAST_RE, 'past'], [FUTURE_RE, 'future']] as const) {
    re.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(sentence))) {
      const at = from + m.index;
      if (at >= index && at < index + length) continue; // inside the expression itself
      if (tense === 'past' && /ed$/i.test(m[0]) && (NOT_PAST.has(m[0].toLowerCase()) || BE_PRESENT_BEFORE.test(sentence.slice(0, m.index)))) continue;
      marks.push({ at, tense });
    }
  }
  const before = marks.filter((m) => m.at < index).sort((a, b) => b.at - a.at)[0];
  if (before) return before.tense;
  const after = marks.filter((m) => m.at >= index + length).sort((a, b) => a.at - b.at)[0];
  return after ? after.tense : 'unknown';
}

const NUMBER_WORDS: Record<string, number> = {
  a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18,
  nineteen: 19, twenty: 20, thirty: 30, forty: 40, fifty: 50,
  'a couple of': 2, 'a couple': 2, 'couple of': 2, 'a few': 3, few: 3, several: 3,
};
const NUM = `(\\d{1,3}|a couple of|a couple|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty)`;

function parseCount(s: string): number {
  const t = s.toLowerCase().replace(/\s+/g, ' ').trim();
  if (/^\d+$/.test(t)) return Number(t);
  return NUMBER_WORDS[t] ?? NaN;
}

/** 00:00 UTC of the day containing `t` (ms). */
export function utcDayStart(t: number): number {
  return Math.floor(t / DAY) * DAY;
}

/** Monday 00:00 UTC of the ISO week containing `t` (ms). Weeks start on Monday (ISO 8601). */
export function utcWeekStart(t: number): number {
  const d = utcDayStart(t);
  const dow = (new Date(d).getUTCDay() + 6) % 7; // Monday = 0
  return d - dow * DAY;
}

function monthStart(year: number, month: number): number {
  return Date.UTC(year, month, 1);
}

/** 00:00 UTC of day `day` of a month, clamped to the month's last day (31 March − 1 month = 29 February, not 2 March). */
function clampedDay(year: number, month: number, day: number): number {
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(year, month, Math.min(day, last));
}

type Interval = { start: number; end: number | null; granularity: TimeGranularity };
/**
 * `cues`: literal text `re` cannot match without (each a mandatory part of `re`, flag `i`); a rule
 * whose cues are not all in the text is not run (same matches, less work on most texts).
 */
type Rule = { re: RegExp; cues: RegExp[]; resolve: (m: RegExpExecArray, ref: number) => Interval | null };

const AGO = /ago|back/i;
const WEEKEND = /weekend/i;
const WEEK = /week/i;
const DAYS = /day/i;
const MONTH = /month/i;
const YEAR = /year/i;

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const SEASON_START: Record<string, number> = { spring: 2, summer: 5, fall: 8, autumn: 8, winter: 11 }; // meteorological, N. hemisphere

/** The season (meteorological, northern hemisphere) containing `t`, as [start, end). */
function seasonOf(t: number, name: string, yearOffsetFromCurrent: number): Interval {
  const d = new Date(t);
  const m0 = SEASON_START[name];
  // the season instance whose start is in the current "season year": for winter Dec(y)..Feb(y+1)
  let y = d.getUTCFullYear();
  if (name === 'winter' && d.getUTCMonth() < 2) y -= 1;
  y += yearOffsetFromCurrent;
  return { start: monthStart(y, m0), end: monthStart(y, m0 + 3), granularity: 'season' };
}

function weekendOfWeek(weekStart: number): Interval {
  return { start: weekStart + 5 * DAY, end: weekStart + 7 * DAY, granularity: 'weekend' };
}

const RULES: Rule[] = [
  // --- weekends: the weekend of an ISO week; "last weekend" = weekend of the previous ISO week ---
  {
    re: /\b(?:the\s+)?weekend\s+before\s+last\b/gi,
    cues: [WEEKEND],
    resolve: (_m, ref) => weekendOfWeek(utcWeekStart(ref) - 14 * DAY),
  },
  {
    re: new RegExp(`\\b${NUM}\\s+weekends?\\s+(?:ago|back)\\b`, 'gi'),
    cues: [WEEKEND, AGO],
    resolve: (m, ref) => {
      const n = parseCount(m[1]);
      return Number.isFinite(n) ? weekendOfWeek(utcWeekStart(ref) - 7 * n * DAY) : null;
    },
  },
  {
    re: /\b(this\s+past|last|previous|past|this|this\s+coming|the\s+coming|next|the\s+following)\s+weekend\b/gi,
    cues: [WEEKEND],
    resolve: (m, ref) => {
      const w = m[1].toLowerCase().replace(/\s+/g, ' ');
      const off = w === 'this' || w === 'this coming' || w === 'the coming' ? 0 : w === 'next' || w === 'the following' ? 1 : -1;
      return weekendOfWeek(utcWeekStart(ref) + 7 * off * DAY);
    },
  },
  // --- weeks (ISO, Monday start) ---
  {
    re: /\b(?:the\s+)?week\s+before\s+last\b/gi,
    cues: [WEEK],
    resolve: (_m, ref) => ({ start: utcWeekStart(ref) - 14 * DAY, end: utcWeekStart(ref) - 7 * DAY, granularity: 'week' }),
  },
  {
    re: new RegExp(`\\b${NUM}\\s+weeks?\\s+(?:ago|back)\\b`, 'gi'),
    cues: [WEEK, AGO],
    resolve: (m, ref) => {
      const n = parseCount(m[1]);
      if (!Number.isFinite(n)) return null;
      const s = utcWeekStart(ref - 7 * n * DAY);
      return { start: s, end: s + 7 * DAY, granularity: 'week' };
    },
  },
  {
    re: /\b(?:(earlier|later)\s+)?(last|previous|past|this|next|the\s+following|the\s+coming)\s+week\b/gi,
    cues: [WEEK],
    resolve: (m, ref) => {
      const w = m[2].toLowerCase().replace(/\s+/g, ' ');
      if (w === 'past') return { start: utcDayStart(ref) - 7 * DAY, end: utcDayStart(ref) + DAY, granularity: 'week' };
      const off = w === 'this' ? 0 : w === 'next' || w === 'the following' || w === 'the coming' ? 1 : -1;
      const s = utcWeekStart(ref) + 7 * off * DAY;
      return { start: s, end: s + 7 * DAY, granularity: 'week' };
    },
  },
  // --- days counted back (number words chrono may miss) ---
  {
    re: new RegExp(`\\b${NUM}\\s+days?\\s+(?:ago|back)\\b`, 'gi'),
    cues: [DAYS, AGO],
    resolve: (m, ref) => {
      const n = parseCount(m[1]);
      if (!Number.isFinite(n)) return null;
      const s = utcDayStart(ref) - n * DAY;
      return { start: s, end: s + DAY, granularity: 'day' };
    },
  },
  // --- months ---
  {
    re: /\b(?:the\s+)?month\s+before\s+last\b/gi,
    cues: [MONTH],
    resolve: (_m, ref) => {
      const d = new Date(ref);
      return { start: monthStart(d.getUTCFullYear(), d.getUTCMonth() - 2), end: monthStart(d.getUTCFullYear(), d.getUTCMonth() - 1), granularity: 'month' };
    },
  },
  {
    re: new RegExp(`\\b${NUM}\\s+months?\\s+(?:ago|back)\\b`, 'gi'),
    cues: [MONTH, AGO],
    resolve: (m, ref) => {
      const n = parseCount(m[1]);
      if (!Number.isFinite(n)) return null;
      const d = new Date(ref);
      return { start: monthStart(d.getUTCFullYear(), d.getUTCMonth() - n), end: monthStart(d.getUTCFullYear(), d.getUTCMonth() - n + 1), granularity: 'month' };
    },
  },
  {
    re: /\b(?:(earlier|later)\s+)?(last|previous|past|this|next|the\s+following|the\s+coming)\s+month\b/gi,
    cues: [MONTH],
    resolve: (m, ref) => {
      const w = m[2].toLowerCase().replace(/\s+/g, ' ');
      const d = new Date(ref);
      if (w === 'past') return { start: clampedDay(d.getUTCFullYear(), d.getUTCMonth() - 1, d.getUTCDate()), end: utcDayStart(ref) + DAY, granularity: 'month' };
      const off = w === 'this' ? 0 : w === 'next' || w === 'the following' || w === 'the coming' ? 1 : -1;
      return { start: monthStart(d.getUTCFullYear(), d.getUTCMonth() + off), end: monthStart(d.getUTCFullYear(), d.getUTCMonth() + off + 1), granularity: 'month' };
    },
  },
  // --- "last August", "this past March", "next June": the named calendar month ---
  {
    re: /\b(this\s+past|last|this|next)\s+(january|february|march|april|may|june|july|august|september|october|november|december)\b/gi,
    cues: [/last|this|next/i, /january|february|march|april|may|june|july|august|september|october|november|december/i],
    resolve: (m, ref) => {
      const w = m[1].toLowerCase().replace(/\s+/g, ' ');
      const month = MONTHS.indexOf(m[2].toLowerCase());
      const d = new Date(ref);
      const cur = d.getUTCMonth();
      let y = d.getUTCFullYear();
      if (w === 'last' || w === 'this past') {
        if (month >= cur) y -= 1; // the most recent such month that ended before this month
      } else if (w === 'next') {
        if (month <= cur) y += 1;
      }
      return { start: monthStart(y, month), end: monthStart(y, month + 1), granularity: 'month' };
    },
  },
  // --- seasons ---
  {
    re: /\b(this\s+past|last|this|next|the\s+coming|this\s+coming)\s+(spring|summer|fall|autumn|winter)\b/gi,
    cues: [/spring|summer|fall|autumn|winter/i],
    resolve: (m, ref) => {
      const w = m[1].toLowerCase().replace(/\s+/g, ' ');
      const name = m[2].toLowerCase();
      const cur = seasonOf(ref, name, 0);
      if (w === 'this' || w === 'this coming' || w === 'the coming') {
        // "this summer" = this year's; "the coming summer" = the next one that has not ended
        if (w !== 'this' && cur.end! <= ref) return seasonOf(ref, name, 1);
        return cur;
      }
      if (w === 'next') return cur.start > ref ? cur : seasonOf(ref, name, 1);
      // last / this past: the most recent such season that has started before the reference and is not the current one
      return cur.start < ref && cur.end! <= ref ? cur : seasonOf(ref, name, -1);
    },
  },
  // --- years ---
  {
    re: /\b(?:the\s+)?year\s+before\s+last\b/gi,
    cues: [YEAR],
    resolve: (_m, ref) => {
      const y = new Date(ref).getUTCFullYear() - 2;
      return { start: Date.UTC(y, 0, 1), end: Date.UTC(y + 1, 0, 1), granularity: 'year' };
    },
  },
  {
    re: new RegExp(`\\b${NUM}\\s+years?\\s+(?:ago|back)\\b`, 'gi'),
    cues: [YEAR, AGO],
    resolve: (m, ref) => {
      const n = parseCount(m[1]);
      if (!Number.isFinite(n)) return null;
      const y = new Date(ref).getUTCFullYear() - n;
      return { start: Date.UTC(y, 0, 1), end: Date.UTC(y + 1, 0, 1), granularity: 'year' };
    },
  },
  {
    re: /\b(?:(earlier|later)\s+)?(last|previous|past|this|next|the\s+following|the\s+coming)\s+year\b/gi,
    cues: [YEAR],
    resolve: (m, ref) => {
      const w = m[2].toLowerCase().replace(/\s+/g, ' ');
      if (w === 'past') {
        const d = new Date(ref);
        return { start: clampedDay(d.getUTCFullYear() - 1, d.getUTCMonth(), d.getUTCDate()), end: utcDayStart(ref) + DAY, granularity: 'year' };
      }
      const off = w === 'this' ? 0 : w === 'next' || w === 'the following' || w === 'the coming' ? 1 : -1;
      const y = new Date(ref).getUTCFullYear() + off;
      return { start: Date.UTC(y, 0, 1), end: Date.UTC(y + 1, 0, 1), granularity: 'year' };
    },
  },
  // --- a bare year after a preposition: "in 2022", "since 2019", "back in 1999" ---
  {
    re: /\b(?:in|during|since|back\s+in|around|until|till|by|of|from)\s+((?:19|20)\d{2})\b(?![-/:.]\d)/gi,
    cues: [/(?:19|20)\d\d/],
    resolve: (m) => {
      const y = Number(m[1]);
      return { start: Date.UTC(y, 0, 1), end: Date.UTC(y + 1, 0, 1), granularity: 'year' };
    },
  },
];

// chrono matches that do not locate an event (ours, from false positives seen in chat text):
// "now"; bare part-of-day or "weekend" ("an awesome night", "plans for the weekend"); weekday
// abbreviations that are common words ("the sun", "we sat"); durations and anchors relative to
// another event ("for 3 years", "after a day", "within a week").
const CHRONO_SKIP = /^(now|right now|currently|today's|at the moment|night|morning|evening|afternoon|noon|midnight|weekend|sun|sat|mon|tue|tues|wed|thu|thur|thurs|fri)\.?$/i;
const CHRONO_SKIP_PREFIX = /^(for|after|within|over|during|since|until|till)\b/i;

const MIN_REFERENCE = Date.parse('0000-01-01T00:00:00Z');
const MAX_REFERENCE = Date.parse('9999-12-31T00:00:00Z'); // leaves room for "next month" in 9999

// The last valid string observedAt and its time (ms): consecutive observations usually share one.
let lastObservedAt: string | null = null;
let lastReference = 0;

function toReference(observedAt: string | Date | number): number {
  if (typeof observedAt === 'string' && observedAt === lastObservedAt) return lastReference;
  let t: number;
  if (observedAt instanceof Date) t = observedAt.getTime();
  else if (typeof observedAt === 'number') {
    if (looksLikeEpochSeconds(observedAt)) {
      throw new MemValidationError('BAD_DATE', `resolveEventTime: observedAt ${observedAt} looks like epoch seconds; pass epoch milliseconds, a Date or an ISO-8601 string`);
    }
    t = observedAt;
  } else if (typeof observedAt === 'string') {
    if (!/(Z|[+-]\d{2}:?\d{2})$/i.test(observedAt.trim())) {
      throw new MemValidationError('BAD_DATE', `resolveEventTime: observedAt "${observedAt}" has no time zone (use Z or ±hh:mm)`);
    }
    t = Date.parse(observedAt);
  } else t = NaN;
  if (!Number.isFinite(t)) throw new MemValidationError('BAD_DATE', `resolveEventTime: invalid observedAt ${String(observedAt)}`);
  // Years 0000–9999 (ISO 8601 four-digit years): near the ends of the Date range, "next year" or
  // "a month ago" would fall outside it (an untyped RangeError from toISOString).
  if (t < MIN_REFERENCE || t >= MAX_REFERENCE) {
    throw new MemValidationError('BAD_DATE', `resolveEventTime: observedAt ${String(observedAt)} is outside the years 0000–9999`);
  }
  if (typeof observedAt === 'string') {
    lastObservedAt = observedAt;
    lastReference = t;
  }
  return t;
}

function fromChrono(r: chrono.ParsedResult): Interval {
  const s = r.start;
  const start = s.date().getTime();
  if (r.end) {
    const end = r.end.date().getTime();
    if (s.isCertain('hour')) return { start, end, granularity: 'instant' };
    return { start: utcDayStart(start), end: utcDayStart(end) + DAY, granularity: 'day' };
  }
  if (s.isCertain('hour') || s.isCertain('minute')) return { start, end: null, granularity: 'instant' };
  if (s.isCertain('day') || s.isCertain('weekday')) return { start: utcDayStart(start), end: utcDayStart(start) + DAY, granularity: 'day' };
  if (s.isCertain('month')) {
    const d = new Date(start);
    return { start: monthStart(d.getUTCFullYear(), d.getUTCMonth()), end: monthStart(d.getUTCFullYear(), d.getUTCMonth() + 1), granularity: 'month' };
  }
  if (s.isCertain('year')) {
    const y = new Date(start).getUTCFullYear();
    return { start: Date.UTC(y, 0, 1), end: Date.UTC(y + 1, 0, 1), granularity: 'year' };
  }
  // Implied-only components ("tonight", "this morning", "a month ago"): the day it lands on.
  return { start: utcDayStart(start), end: utcDayStart(start) + DAY, granularity: 'day' };
}

function shiftYears(t: number, years: number): number {
  const d = new Date(t);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.getTime();
}

/**
 * A chrono result whose direction the words leave open — a bare weekday ("on Monday") or a month
 * or date without a year ("in March", "on 3 March") — turned to the clause's tense (ours; chrono
 * picks the nearest such day): in a past-tense clause it is the most recent one not after the
 * observation day, in a future-tense clause the next one from it. With "this / last / next" in
 * the expression, or no tense marker, chrono's reading stands.
 */
function directed(iv: Interval, r: chrono.ParsedResult, text: string, ref: number): Interval {
  if (r.end || /\b(?:this|last|past|next|coming|following)\b/i.test(r.text)) return iv;
  const s = r.start;
  const today = utcDayStart(ref);
  const weekdayOnly = s.isCertain('weekday') && !s.isCertain('day');
  const yearless = !weekdayOnly && s.isCertain('month') && !s.isCertain('year');
  if (!weekdayOnly && !yearless) return iv;
  const tense = tenseAround(text, r.index, r.text.length);
  if (tense === 'unknown') return iv;
  if (weekdayOnly) {
    const by = tense === 'past' && iv.start >= today + DAY ? -7 * DAY : tense === 'future' && iv.start < today ? 7 * DAY : 0;
    return by ? { ...iv, start: iv.start + by, end: iv.end === null ? null : iv.end + by } : iv;
  }
  const years = tense === 'past' && iv.start > ref ? -1 : tense === 'future' && (iv.end ?? iv.start + DAY) <= today ? 1 : 0;
  return years ? { ...iv, start: shiftYears(iv.start, years), end: iv.end === null ? null : shiftYears(iv.end, years) } : iv;
}

/**
 * Every time expression in `text`, resolved against `observedAt`, in text order. See
 * `resolveEventTime`. Throws BAD_DATE for an invalid or zone-less `observedAt`.
 */
export function resolveEventTimes(text: string, observedAt: string | Date | number, options: ResolveTimeOptions = {}): ResolvedEventTime[] {
  const utcRef = toReference(observedAt);
  if (typeof text !== 'string' || text.trim() === '') return [];
  const timeZone = options?.timeZone;
  // the calendar of `timeZone`: every rule and chrono work on wall-clock time (ms as if UTC), and
  // the interval's bounds are turned back into UTC instants at the end
  const ref = timeZone ? utcRef + timeZoneOffsetMs(timeZone, utcRef) : utcRef;
  const toUtc = (wall: number): number => (timeZone ? zonedWallTimeToUtc(wall, timeZone) : wall);
  const found: Found[] = [];
  CUE_STATE.fill(-1);
  for (let ri = 0; ri < RULES.length; ri++) {
    const rule = RULES[ri]!;
    if (!hasCues(ri, text)) continue;
    rule.re.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = rule.re.exec(text))) {
      let iv = rule.resolve(m, ref);
      // "this weekend" in a past-tense clause said before it: the weekend just gone
      if (iv && iv.granularity === 'weekend' && /^this\s+weekend$/i.test(m[0]) && iv.start > ref && tenseAround(text, m.index, m[0].length) === 'past') {
        iv = { ...iv, start: iv.start - 7 * DAY, end: iv.end! - 7 * DAY };
      }
      if (iv) found.push({ index: m.index, length: m[0].length, expression: m[0], iv });
    }
  }
  // Rule matches win over overlapping chrono results; among rules, the longest match at a position wins.
  found.sort(byIndexThenLongest);
  const kept: Found[] = [];
  for (const f of found) {
    const last = kept[kept.length - 1];
    if (last && f.index < last.index + last.length) continue;
    kept.push(f);
  }
  const results = gatedChronoParse(text, { instant: new Date(ref), timezone: 0 });
  const fromC: Found[] = [];
  for (const r of results) {
    const t = r.text.trim();
    if (CHRONO_SKIP.test(t) || CHRONO_SKIP_PREFIX.test(t)) continue;
    if (overlapsAny(kept, r.index, r.text.length)) continue;
    fromC.push({ index: r.index, length: r.text.length, expression: r.text, iv: directed(fromChrono(r), r, text, ref), zoned: r.start.isCertain('timezoneOffset') });
  }
  const all = kept.concat(fromC).sort(byIndex);
  const out: ResolvedEventTime[] = [];
  for (let i = 0; i < all.length; i++) {
    const f = all[i]!;
    // "in 273737 years", "99980515 days later": an interval outside the years 0000–9999 is not an
    // event time we can store (its ISO string would need an extended year, or not exist): dropped
    if (!inIsoYears(f.iv.start) || (f.iv.end !== null && !inIsoYears(f.iv.end))) continue;
    // an explicit zone in the text ("3pm EST") already gave chrono the instant
    const absolute = f.iv.granularity === 'instant' && f.zoned === true;
    const start = absolute ? f.iv.start : toUtc(f.iv.start);
    const end = f.iv.end === null ? null : absolute ? f.iv.end : toUtc(f.iv.end);
    if (!inIsoYears(start) || (end !== null && !inIsoYears(end))) continue;
    out.push({
      start: new Date(start).toISOString(),
      end: end === null ? null : new Date(end).toISOString(),
      expression: f.expression,
      granularity: f.iv.granularity,
      index: f.index,
    });
  }
  return out;
}

const YEAR_10000 = Date.UTC(10000, 0, 1);
/** Whether a time (ms) lies in the ISO 8601 four-digit years 0000–9999 (so `toISOString` exists and has no extended year). */
function inIsoYears(t: number): boolean {
  return Number.isFinite(t) && t >= MIN_REFERENCE && t < YEAR_10000;
}

type Found = { index: number; length: number; expression: string; iv: Interval; zoned?: boolean };

function byIndexThenLongest(a: Found, b: Found): number {
  return a.index - b.index || b.length - a.length;
}

function byIndex(a: Found, b: Found): number {
  return a.index - b.index;
}

/** Whether [i, i + len) overlaps a kept match. */
function overlapsAny(kept: Found[], i: number, len: number): boolean {
  for (const k of kept) if (i < k.index + k.length && k.index < i + len) return true;
  return false;
}

/** The distinct cue expressions of all rules; `CUE_STATE[k]` caches cue k's test on the current text (-1 unknown). */
const CUES: RegExp[] = [...new Set(RULES.flatMap((r) => r.cues))];
const CUE_STATE = new Int8Array(CUES.length);
const RULE_CUES: number[][] = RULES.map((r) => r.cues.map((c) => CUES.indexOf(c)));

/** All cues of rule `ri` are in `text` (cue tests cached in CUE_STATE, reset per text). */
function hasCues(ri: number, text: string): boolean {
  for (const k of RULE_CUES[ri]!) {
    let v = CUE_STATE[k]!;
    if (v < 0) CUE_STATE[k] = v = CUES[k]!.test(text) ? 1 : 0;
    if (v === 0) return false;
  }
  return true;
}

/**
 * For tests: the rules whose expression matches `text`, and among them those with a cue missing
 * from `text` (`violations`, always empty when the cues are right).
 * @internal
 */
export function ruleCueCheck(text: string): { matched: number[]; violations: number[] } {
  const matched: number[] = [];
  const violations: number[] = [];
  RULES.forEach((rule, i) => {
    rule.re.lastIndex = 0;
    if (rule.re.test(text)) {
      matched.push(i);
      if (!rule.cues.every((c) => c.test(text))) violations.push(i);
    }
    rule.re.lastIndex = 0;
  });
  return { matched, violations };
}

/**
 * `resolveEventTime(text, observedAt)` → the first time expression of `text` resolved against the
 * observation time, as a UTC half-open interval `[start, end)` with the matched `expression`, or
 * null. Relative expressions ("yesterday", "last Saturday", "two weekends ago", "the week before
 * last", "a few days ago", "last summer", "next month", "in 2022") are anchored to `observedAt`,
 * never to the current clock (Jev-Mem write path, step 1). Weeks are ISO weeks (Monday start),
 * "last weekend" is the Saturday–Sunday of the previous ISO week, seasons are meteorological
 * (northern hemisphere), "a few" = 3, "a couple" = 2 (ours). A bare weekday or a year-less month
 * or date follows the clause's tense: "The bridge reopened on Monday" said on Saturday 2025-04-12
 * is 2025-04-07, "I'll fly on Monday" is 2025-04-14 (`tenseAround`). Days, weeks and months are
 * those of `options.timeZone`'s calendar (default UTC), returned as UTC instants. Parsing:
 * chrono-node 2 (English), `timezone: 0` on wall-clock time, plus the rules above. Throws
 * BAD_DATE for an invalid or zone-less `observedAt`, INVALID_INPUT for an unknown time zone.
 */
export function resolveEventTime(text: string, observedAt: string | Date | number, options: ResolveTimeOptions = {}): ResolvedEventTime | null {
  return resolveEventTimes(text, observedAt, options)[0] ?? null;
}

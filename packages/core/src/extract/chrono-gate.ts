/**
 * `gatedChronoParse(text, ref)` = `chrono.parse(text, ref)` (English, casual), cheaper (ours).
 *
 * chrono runs 18 parsers over every text, each a large regular expression, then its refiners. A
 * parser can only return a result where its pattern matches, and every pattern needs some literal
 * text: a digit, a month or weekday name, one of a few casual words. Before parsing, one small
 * "gate" expression per parser checks for that text; parsers whose gate fails are left out of
 * this call (they would have returned nothing), and when every gate fails chrono is not called.
 * Leaving out a parser that returns nothing changes nothing: chrono concatenates the parsers'
 * results in parser order, sorts them stably by index and hands them to the same refiners (which
 * only filter, merge or adjust results; none creates one from an empty list).
 *
 * Each gate is a necessary condition read off that parser's pattern in chrono-node 2.10.3
 * (node_modules/chrono-node/dist/esm/locales/en/parsers/, constants.js, common/parsers/): every
 * pattern is `(\W|^)` + its inner pattern with flag `i` and no `u`, so only ASCII letters match
 * pattern letters and `\W`/`\b` mean ASCII word characters. A gate may accept texts the parser
 * rejects, never the reverse. For another chrono-node version or parser list the gates are not
 * used (plain `chrono.parse`), so an upgrade can only make this slower, not different; `gateInfo()`
 * says which applies (a test checks the gates are active for the installed version).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
// the English locale only: the same `casual` / `parse` / `Chrono` objects as the package root, without
// loading the ten other locales (~2/3 of chrono-node's import time)
import * as chrono from 'chrono-node/en';

/** chrono-node version the gates below were derived from. */
export const GATED_CHRONO_VERSION = '2.10.3';

const MONTH = 'january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec';
const WEEKDAY = 'sunday|monday|tuesday|wednesday|thursday|friday|saturday|thurs|thur|thu|sun|mon|tue|wed|fri|sat|weekend|weekday';
const ORDINAL_WORD = 'first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty|thirtieth|thirty';
const DIGIT = /[0-9]/;
// TIME_UNIT_DICTIONARY keys (constants.js): the unit that ends every TIME_UNITS match.
const UNIT = 'seconds|second|sec|s|minutes|minute|mins|min|m|hours|hour|hrs|hr|h|days|day|d|weeks|week|w|months|month|mos|mon|mo|quarters|quarter|qtr|years|year|yr|y';
// How a NUMBER_PATTERN can begin (a digit, one … twelve, half, a/an/"a few"/"a couple", few,
// several, the, couple), or TIME_UNITS' leading "about"/"around" (both begin with "a").
const NUMBER_START = '[0-9]|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|half|a|few|several|the|couple';
// A month name followed by what the four month parsers allow after it: a non-letter or the end
// (separators, a year, a day number, `(?=\W|$)`), "of" (`… of 2023`), or a glued ordinal word
// (middle-endian "May-first" with an empty separator).
const MONTH_GATE = new RegExp(`(?:${MONTH})(?:[^a-z]|$|of|${ORDINAL_WORD})`, 'i');

/**
 * Gate per parser (constructor name), each with the pattern fact it rests on. Parsers absent here
 * always run.
 */
const GATES: Record<string, RegExp> = {
  // `([0-9]{4})[-./\s]…`
  ENYearMonthDayParser: DIGIT,
  // `([0-9]{4})\-([0-9]{1,2})\-…`
  ISOFormatParser: DIGIT,
  // `([^\d]|^)([0-3]{0,1}[0-9]{1})[/.-]…`
  SlashDateFormatParser: DIGIT,
  // `(\W|^)(?:within|in|for)\s*(?:(?:about|around|roughly|approximately|just)\s*(?:~\s*)?)?` +
  // TIME_UNITS, which opens with `(?:(?:about|around)\s{0,3})?` and a NUMBER_PATTERN: a digit,
  // one … twelve, half, a/an (also "a couple", "a few"), few, several, the, couple (forwardDate,
  // which makes the prefix optional, is never set by our callers).
  ENTimeUnitWithinFormatParser:
    /\b(?:within|in|for)\s*(?:[0-9]|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|half|a|few|several|the|couple|roughly|just)/i,
  // ORDINAL … MONTH (…)(?=\W|$)
  ENMonthNameLittleEndianParser: MONTH_GATE,
  // `(MONTH)(?:-|/|\s*,?\s*)(ORDINAL)…`
  ENMonthNameMiddleEndianParser: MONTH_GATE,
  // `(?:(?:,|\(|（)\s*)?(?:on\s*?)?(?:(this|last|past|next)\s*)?(WEEKDAY|weekend|weekday)` then
  // optional `\s*[,)）]` and `\s*(?:of\s*)?(this|last|past|next)\s*week`, then `(?=\W|$)`: before the
  // name a non-letter, the start, "on" or a modifier word; after it a non-letter, the end, "of" or
  // a modifier word.
  ENWeekdayParser: new RegExp(`(?:^|[^a-z]|on|this|last|past|next)(?:${WEEKDAY})(?:[^a-z]|$|of|this|last|past|next)`, 'i'),
  // `([0-9]|0[1-9]|1[012])/([0-9]{4})`
  ENSlashMonthFormatParser: DIGIT,
  // primary time pattern `(^|\s|T|\b)(?:(?:at|from)\s*)??(\d{1,4})…`
  ENTimeExpressionParser: DIGIT,
  // TIME_UNITS `\s{0,5}(?:ago|before|earlier)(?=\W|$)`: TIME_UNITS ends with a unit
  ENTimeUnitAgoFormatParser: new RegExp(`(?:${UNIT})\\s{0,5}(?:ago|before|earlier)(?![a-z0-9_])`, 'i'),
  // TIME_UNITS `\s{0,5}(?:later|after|from now|henceforth|forward|out)(?=(?:\W|$))`
  ENTimeUnitLaterFormatParser: new RegExp(`(?:${UNIT})\\s{0,5}(?:later|after|from now|henceforth|forward|out)(?![a-z0-9_])`, 'i'),
  // `(YEAR)(?:\s*[-./,]?\s*|\s+of\s+)(MONTH)(?=[^\s\w]|\s+[^0-9]|\s+$|$)`
  ENYearMonthNameParser: MONTH_GATE,
  // `(\W|^)(now|today|tonight|tomorrow|overmorrow|tmr|tmrw|yesterday|last\s*night)(?=\W|$)`
  ENCasualDateParser: /\b(?:now|today|tonight|tomorrow|overmorrow|tmrw?|yesterday)(?![a-z0-9_])|\blast\s*night(?![a-z0-9_])/i,
  // `(\W|^)(?:this)?\s{0,3}(morning|afternoon|evening|night|midnight|midday|noon)(?=\W|$)`
  ENCasualTimeParser: /(?:^|[^a-z0-9_]|this)(?:morning|afternoon|evening|night|midnight|midday|noon)(?![a-z0-9_])/i,
  // `(?:last\s+day|end)\s+of\s+(?:the\s+)?month(?=\W|$)`
  ENEndOfCurrentMonthParser: /month/i,
  // `((?:in)\s*)?(MONTH)\s*(?:(?:,|-|of)?\s*(YEAR)?)?(?=[^\s\w]|\s+[^0-9]|\s+$|$)`
  ENMonthNameParser: MONTH_GATE,
  // `(\W|^)(this|last|past|next|after\s*this)\s*(TIME_UNIT)…`
  ENRelativeDateFormatParser: /\b(?:this|last|past|next|after)/i,
  // `(\W|^)(this|last|past|next|after|\+|-)\s*(TIME_UNITS)(?=\W|$)`, TIME_UNITS opening with
  // "about"/"around" or a NUMBER_PATTERN
  ENTimeUnitCasualRelativeFormatParser: new RegExp(`(?:\\b(?:this|last|past|next|after)|(?:^|[^a-z0-9_])[+-])\\s*(?:${NUMBER_START})`, 'i'),
};

/** The casual English parsers of chrono-node 2.10.3, in order. */
const EXPECTED_PARSERS = [
  'ENYearMonthDayParser', 'ISOFormatParser', 'SlashDateFormatParser', 'ENTimeUnitWithinFormatParser',
  'ENMonthNameLittleEndianParser', 'ENMonthNameMiddleEndianParser', 'ENWeekdayParser', 'ENSlashMonthFormatParser',
  'ENTimeExpressionParser', 'ENTimeUnitAgoFormatParser', 'ENTimeUnitLaterFormatParser', 'ENYearMonthNameParser',
  'ENCasualDateParser', 'ENCasualTimeParser', 'ENEndOfCurrentMonthParser', 'ENMonthNameParser',
  'ENRelativeDateFormatParser', 'ENTimeUnitCasualRelativeFormatParser',
];

function installedChronoVersion(): string | null {
  try {
    // chrono-node's `exports` hides package.json; find it from the resolved entry point.
    let dir = path.dirname(createRequire(import.meta.url).resolve('chrono-node'));
    for (let i = 0; i < 5; i++) {
      try {
        const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'chrono-node') return pkg.version ?? null;
      } catch {
        // not here; go up
      }
      dir = path.dirname(dir);
    }
  } catch {
    // unresolvable: no gates
  }
  return null;
}

interface GateState {
  parsers: chrono.Parser[];
  /** Distinct gate expressions, each tested once per text, and the parsers each one opens (bit mask). */
  gates: RegExp[];
  opens: number[];
  /** Parsers without a gate (always run). */
  ungated: number;
  refiners: chrono.Refiner[];
  byMask: Map<number, chrono.Chrono>;
}

let state: GateState | null | undefined;

function gateState(): GateState | null {
  if (state !== undefined) return state;
  const casual = chrono.casual;
  const names = casual.parsers.map((p) => (p as object).constructor.name);
  const ok =
    installedChronoVersion() === GATED_CHRONO_VERSION &&
    names.length === EXPECTED_PARSERS.length &&
    names.every((n, i) => n === EXPECTED_PARSERS[i]);
  if (!ok) return (state = null);
  const gates: RegExp[] = [];
  const opens: number[] = [];
  let ungated = 0;
  names.forEach((n, i) => {
    const g = GATES[n];
    if (!g) {
      ungated |= 1 << i;
      return;
    }
    const k = gates.indexOf(g);
    if (k >= 0) opens[k]! |= 1 << i;
    else {
      gates.push(g);
      opens.push(1 << i);
    }
  });
  state = { parsers: [...casual.parsers], gates, opens, ungated, refiners: [...casual.refiners], byMask: new Map() };
  return state;
}

/** Whether the gates are in use, and why not. */
export function gateInfo(): { active: boolean; installed: string | null; expected: string } {
  return { active: gateState() !== null, installed: installedChronoVersion(), expected: GATED_CHRONO_VERSION };
}

/** Bit i set = parser i may match `text` (all bits set when the gates are not in use). */
export function possibleParsers(text: string): number {
  const s = gateState();
  if (!s) return -1;
  let mask = s.ungated;
  for (let k = 0; k < s.gates.length; k++) if (s.gates[k]!.test(text)) mask |= s.opens[k]!;
  return mask;
}

/**
 * Same results as `chrono.parse(text, ref, option)` (chrono-node casual English), with the parsers
 * that cannot match `text` left out. `option.forwardDate` turns the gates off (it changes one
 * parser's pattern).
 */
export function gatedChronoParse(text: string, ref: chrono.ParsingReference | Date, option?: chrono.ParsingOption): chrono.ParsedResult[] {
  const s = gateState();
  const casual = chrono.casual;
  // No gates with forwardDate, or if someone changed chrono's casual parsers or refiners since.
  if (!s || option?.forwardDate || casual.parsers.length !== s.parsers.length || casual.refiners.length !== s.refiners.length) {
    return chrono.parse(text, ref, option);
  }
  const mask = possibleParsers(text);
  if (mask === 0) return [];
  const all = (1 << s.parsers.length) - 1;
  if (mask === all) return casual.parse(text, ref, option);
  let c = s.byMask.get(mask);
  if (!c) {
    c = new chrono.Chrono({ parsers: s.parsers.filter((_, i) => mask & (1 << i)), refiners: s.refiners });
    if (s.byMask.size < 4096) s.byMask.set(mask, c);
  }
  return c.parse(text, ref, option);
}

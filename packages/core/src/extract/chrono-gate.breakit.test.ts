/**
 * Break-it tests of the chrono gates (chrono-gate.ts), the cue-gated time rules (time.ts) and the
 * ASCII fast paths of the NLP layer: texts built to defeat a literal cue (Unicode digits, zero-width
 * joiners, soft hyphens, unusual spaces, case-folding oddities, hyphenation, very long texts) must
 * give exactly what the un-gated code gives. The un-gated reference is a second copy of time.ts
 * whose `gatedChronoParse` is plain `chrono.parse`.
 */
import * as chrono from 'chrono-node';
import { describe, expect, it, vi } from 'vitest';
import { gatedChronoParse, gateInfo } from './chrono-gate.js';
import { extract } from './extract.js';
import { maskExtendedLatin, sanitizeForParse, MAX_TOKEN_CHARS } from './nlp.js';
import * as gatedTime from './time.js';

const REF = { instant: new Date('2023-05-08T13:56:00Z'), timezone: 0 };
const OBSERVED = '2023-05-08T13:56:00Z';

/** Calls of the un-gated stand-in (proves the copy of time.ts really uses it). */
const ungatedCalls = { n: 0 };
/** time.ts with the gate removed: gatedChronoParse = chrono.parse (the un-gated behaviour). */
async function ungatedTime(): Promise<typeof gatedTime> {
  vi.resetModules();
  vi.doMock('./chrono-gate.js', () => ({
    gatedChronoParse: (t: string, r: chrono.ParsingReference, o?: chrono.ParsingOption) => (ungatedCalls.n++, chrono.parse(t, r, o)),
  }));
  try {
    return (await import('./time.js')) as typeof gatedTime;
  } finally {
    vi.doUnmock('./chrono-gate.js');
  }
}

function dump(results: chrono.ParsedResult[]) {
  const comps = (c: chrono.ParsedComponents | null) =>
    c && {
      date: c.date().toISOString(),
      values: (['year', 'month', 'day', 'weekday', 'hour', 'minute', 'second', 'meridiem', 'timezoneOffset'] as const).map((k) => [k, c.get(k), c.isCertain(k)]),
    };
  return results.map((r) => ({ index: r.index, text: r.text, start: comps(r.start), end: comps(r.end ?? null) }));
}

/** Sentences with a time expression each (own text). */
const BASE = [
  'I went there yesterday.',
  'We met last Saturday at 7pm.',
  'See you tomorrow morning!',
  'It happened 12 days ago.',
  'Two weeks later she called me.',
  'My birthday is on May 12, 2021.',
  'The deadline is 2023-05-10 at noon.',
  'We moved in 2019 and left three years ago.',
  'I will be back in 10 minutes.',
  'Last night was fun, tonight will be better.',
  'The week before last we went hiking.',
  'This past weekend I painted.',
  'Next month, on the 3rd, we fly.',
  'At 10:30 on Friday the shop opens.',
  'Call me at 5/11/2023 or later this week.',
  'It was a few days back, maybe a couple of weeks ago.',
  'Since 2020 I have run every weekend.',
];

/** Each perturbation rewrites a text in a way a literal cue might not expect. */
const ZW = ['\u200d', '\u200b', '\u200c', '\u2060', '\u00ad', '\ufeff', '\u034f'];
const SPACES = ['\u00a0', '\u2009', '\u202f', '\u3000', '\u2028', '\ufeff', '\u180e', '\u0085', '\t', '\v'];
const FULLWIDTH_DIGITS = (s: string) => s.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d)));
const ARABIC_DIGITS = (s: string) => s.replace(/[0-9]/g, (d) => String.fromCharCode(0x0660 + Number(d)));
const DEVANAGARI_DIGITS = (s: string) => s.replace(/[0-9]/g, (d) => String.fromCharCode(0x0966 + Number(d)));
const FULLWIDTH_LETTERS = (s: string) => s.replace(/[A-Za-z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
const KELVIN_LONG_S = (s: string) => s.replace(/k/g, '\u212a').replace(/s/g, '\u017f');
const DOTLESS = (s: string) => s.replace(/i/g, '\u0131').replace(/I/g, '\u0130');
const COMBINING = (s: string) => s.replace(/([aeiou])/g, '$1\u0301');
const MIXED_CASE = (s: string) => [...s].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join('');
const HYPHENATE = (s: string) => s.replace(/\b(yester|to|last|mid|week|to)(day|morrow|night|end|week)\b/gi, '$1-$2').replace(/(\w{3})(\w{3,})/g, '$1-$2');
const LIGATURES = (s: string) => s.replace(/fi/g, '\ufb01').replace(/ff/g, '\ufb00');
const SPLIT_ZW = (s: string, z: string) => s.replace(/([a-z])([a-z])/gi, `$1${z}$2`);
const SPACE_SWAP = (s: string, sp: string) => s.replace(/ /g, sp);

function perturbations(t: string): string[] {
  const out = [t, FULLWIDTH_DIGITS(t), ARABIC_DIGITS(t), DEVANAGARI_DIGITS(t), FULLWIDTH_LETTERS(t), KELVIN_LONG_S(t), DOTLESS(t), COMBINING(t), MIXED_CASE(t), t.toUpperCase(), HYPHENATE(t), LIGATURES(t)];
  for (const z of ZW) out.push(SPLIT_ZW(t, z), t.replace(/(\w)(\w*)$/, `$1${z}$2`), z + t);
  for (const sp of SPACES) out.push(SPACE_SWAP(t, sp));
  // the ASCII fast paths: ASCII up to one final non-ASCII character
  for (const tail of ['é', '\u0301', '😀', 'ß', 'İ', '\u200d', '１', '\u00a0']) out.push(t + tail, t.replace(/\.$/, '') + tail);
  return out;
}

/** `rand(n)`: a seeded integer in [0, n) (a small xorshift-multiply step; the same sequence on every run). */
function seededInt(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state % n;
  };
}

describe('chrono gate vs un-gated chrono on cue-defeating texts', () => {
  it('the gates are active (else this file tests nothing)', () => {
    expect(gateInfo().active).toBe(true);
  });

  it('gatedChronoParse = chrono.parse, and the time rules’ cues never hide a match, on ~1 000 perturbed sentences', () => {
    let n = 0;
    for (const b of BASE) {
      for (const t of perturbations(b)) {
        n++;
        expect(dump(gatedChronoParse(t, REF)), JSON.stringify(t)).toEqual(dump(chrono.parse(t, REF)));
        expect(gatedTime.ruleCueCheck(t).violations, JSON.stringify(t)).toEqual([]);
      }
    }
    expect(n).toBeGreaterThan(900);
  });

  it('extract().eventTime and resolveEventTimes equal the un-gated time module on the same texts', async () => {
    const ungated = await ungatedTime();
    expect(ungated.resolveEventTimes).not.toBe(gatedTime.resolveEventTimes);
    const before = ungatedCalls.n;
    ungated.resolveEventTimes('nothing here', OBSERVED);
    expect(ungatedCalls.n).toBe(before + 1);
    for (const b of BASE) {
      for (const t of perturbations(b)) {
        const want = ungated.resolveEventTimes(t, OBSERVED);
        expect(gatedTime.resolveEventTimes(t, OBSERVED), JSON.stringify(t)).toEqual(want);
        expect(extract(t, OBSERVED).eventTime, JSON.stringify(t)).toEqual(want[0] ?? null);
      }
    }
  });

  it('very long texts: a cue at the very end of 200 KB, cue words split across a long run, 10 000 near-miss words', async () => {
    const ungated = await ungatedTime();
    const filler = 'the quick brown fox jumps over the lazy dog and '.repeat(4200);
    const texts = [
      `${filler}yesterday`,
      `yesterday ${filler}`,
      `${filler}12 days ago`,
      `${'yester '.repeat(10_000)}day`,
      `${'monthly weekly yearly daily nowhere knowledge '.repeat(2000)}`,
      `${'a'.repeat(MAX_TOKEN_CHARS * 40)} tomorrow`,
      `${'in '.repeat(20_000)}2022`,
    ];
    for (const t of texts) {
      const t0 = performance.now();
      const got = gatedTime.resolveEventTimes(t, OBSERVED);
      const ms = performance.now() - t0;
      expect(got, t.slice(-40)).toEqual(ungated.resolveEventTimes(t, OBSERVED));
      expect(ms, `gated run on ${t.length} chars`).toBeLessThan(5000);
    }
  }, 60_000);

  it('random mixes of cue fragments with zero-width characters, soft hyphens and Unicode digits (seeded, 3 000 texts)', () => {
    const parts = ['yester', 'day', 'to', 'morrow', 'last', 'night', 'week', 'end', 'mon', 'th', 'ago', 'in', 'for', 'two', '12', '１２', '١٢', '2023', ':', '30', 'pm', 'may', 'jun', 'e', ' ', '-', '.', '/', '\u200d', '\u00ad', '\u00a0', '\ufeff', 'Ｍａｙ', 'ſ', '\u212a'];
    const rand = seededInt(12345);
    for (let k = 0; k < 3000; k++) {
      let t = '';
      const len = 1 + rand(8);
      for (let i = 0; i < len; i++) {
        const p = parts[rand(parts.length)]!;
        t += rand(3) === 0 ? p.toUpperCase() : p;
      }
      expect(dump(gatedChronoParse(t, REF)), JSON.stringify(t)).toEqual(dump(chrono.parse(t, REF)));
      expect(gatedTime.ruleCueCheck(t).violations, JSON.stringify(t)).toEqual([]);
    }
  });
});

describe('ASCII fast paths of the NLP layer', () => {
  const INVISIBLE = /[\u00AD\u200B\u2060\uFEFF]/g;
  const LONG_RUN = new RegExp(`\\S{${MAX_TOKEN_CHARS + 1},}`, 'g');
  /** sanitizeForParse without its ASCII shortcut. */
  const slowSanitize = (text: string) => {
    let t = text.replace(INVISIBLE, '').normalize('NFKC');
    if (t.length > MAX_TOKEN_CHARS) t = t.replace(LONG_RUN, ' ');
    return t;
  };

  it('sanitizeForParse and maskExtendedLatin are the identity / the slow path on random ASCII (control characters and DEL included)', () => {
    const rand = seededInt(99);
    for (let k = 0; k < 2000; k++) {
      let t = '';
      const len = rand(k % 50 === 0 ? 600 : 60);
      for (let i = 0; i < len; i++) t += String.fromCharCode(rand(4) ? 32 + rand(95) : rand(128));
      expect(sanitizeForParse(t)).toBe(slowSanitize(t));
      expect(maskExtendedLatin(sanitizeForParse(t))).toBe(sanitizeForParse(t));
      // one non-ASCII character at the end takes the slow path
      for (const tail of ['\u00ad', '\ufeff', 'ﬁ', 'é']) expect(sanitizeForParse(t + tail)).toBe(slowSanitize(t + tail));
    }
  });

  it('keywords / entities of an ASCII text and of the same text with an invisible character appended agree', () => {
    for (const b of [...BASE, 'Caroline met Melanie in Boston; they talked about painting and LGBTQ support groups.', 'Dr. Smith’s 3 kids love NASA and NYC-based startups (co-op, e-mail).']) {
      const a = extract(b, OBSERVED);
      for (const tail of ['\u200b', '\u00ad', '\ufeff']) {
        const x = extract(b + tail, OBSERVED);
        expect(x.keywords, JSON.stringify(b + tail)).toEqual(a.keywords);
        expect(x.entities, JSON.stringify(b + tail)).toEqual(a.entities);
      }
    }
  });
});

/**
 * Text features for the offline backend (ours): tokenisation, light stemming, stop words, entity
 * candidates, cue lexicons and relative-time arithmetic. Everything is deterministic and memoised
 * per text, because one read-path call scores the same query or memory many times.
 */
import { LruMap } from './lru-map.js';

export const STOP = new Set(
  (
    'a an the and or but if then else of to in on at by for with from into onto about as is am are was were be been being ' +
    'do does did doing done have has had having i me my mine myself we us our ours you your yours he him his she her hers ' +
    'it its they them their theirs this that these those there here what which who whom whose when where why how ' +
    'not no nor so than too very can could will would shall should may might must just also only own same such ' +
    'all any both each few more most other some up down out over under again further once s t d ll m o re ve y ' +
    "isn aren wasn weren hasn haven hadn doesn don didn won wouldn shan shouldn can't cannot " +
    'get got go went gone going really like oh yeah yes okay ok well hey hi thanks thank one ever kind sort lot ' +
    'something anything thing things think know say said tell told make made let'
  ).split(/\s+/),
);

/** Words that are capitalised at a sentence start without being names. */
const NOT_NAMES = new Set(
  (
    'i im ive id ill a an the and or but if then when where why how what which who whom whose yes no oh hey hi hello thanks ' +
    'my your our their his her its we you they he she it this that these those there here so well yeah okay ok wow ' +
    'yesterday today tomorrow last next this every after before during since because although though while ' +
    'monday tuesday wednesday thursday friday saturday sunday january february march april may june july august ' +
    'september october november december did does do is are was were have has had would could should will can might ' +
    'also just really great good nice sure maybe please sorry congrats congratulations love lol haha first then finally ' +
    'add mix preheat bake stir pour cut put take turn open close click press run install use make remember always never ' +
    'once anyway besides in on at for with from to of by as about not dear mr mrs ms dr'
  ).split(/\s+/),
);

const IRREGULAR: Record<string, string> = {
  went: 'go', gone: 'go', goes: 'go', bought: 'buy', broke: 'break', broken: 'break', made: 'make', took: 'take', taken: 'take',
  got: 'get', gotten: 'get', saw: 'see', seen: 'see', ran: 'run', ate: 'eat', eaten: 'eat', had: 'have', has: 'have',
  did: 'do', done: 'do', met: 'meet', felt: 'feel', found: 'find', gave: 'give', given: 'give', left: 'leave', lost: 'lose',
  paid: 'pay', sold: 'sell', told: 'tell', thought: 'think', wrote: 'write', written: 'write', drove: 'drive', flew: 'fly',
  began: 'begin', begun: 'begin', came: 'come', became: 'become', kept: 'keep', slept: 'sleep', spent: 'spend',
  taught: 'teach', caught: 'catch', brought: 'bring', built: 'build', won: 'win', swam: 'swim', sang: 'sing', drew: 'draw',
  fell: 'fall', fallen: 'fall', losing: 'lose', lose: 'lose', moving: 'move', making: 'make', taking: 'take', having: 'have', hurt: 'hurt', read: 'read', heard: 'hear', held: 'hold', sent: 'send', moved: 'move',
  children: 'child', kids: 'kid', people: 'person', men: 'man', women: 'woman', mom: 'mother', mum: 'mother', dad: 'father',
  bike: 'bicycle', bikes: 'bicycle', car: 'car', pup: 'puppy', doggy: 'dog', kitty: 'cat', pics: 'picture', photo: 'picture',
  photos: 'picture', pic: 'picture', movie: 'film', movies: 'film', job: 'work', jobs: 'work', working: 'work', worked: 'work',
  favourite: 'favorite', colour: 'color',
};

/** Light suffix stemmer (ours; Porter-like subset plus an irregular-verb table); memoised per word. */
export function stem(w: string): string {
  let s = stemCache.get(w);
  if (s === undefined) {
    s = stemWord(w);
    if (stemCache.size >= MAX_CACHE) stemCache.clear();
    stemCache.set(w, s);
  }
  return s;
}
const stemCache = new Map<string, string>();

function stemWord(w: string): string {
  const irr = IRREGULAR[w];
  if (irr) return irr.length > 3 ? irr.replace(/e$/, '') : irr;
  let s = w;
  if (s.endsWith("'s")) s = s.slice(0, -2);
  if (s.length > 5 && s.endsWith('ies')) return s.slice(0, -3) + 'y';
  if (s.length > 5 && s.endsWith('ing')) {
    s = s.slice(0, -3);
    if (s.length > 2 && s[s.length - 1] === s[s.length - 2] && !'lsz'.includes(s[s.length - 1])) s = s.slice(0, -1);
    return s;
  }
  if (s.length > 4 && s.endsWith('ied')) return s.slice(0, -3) + 'y';
  if (s.length > 4 && s.endsWith('ed')) {
    s = s.slice(0, -2);
    if (s.length > 2 && s[s.length - 1] === s[s.length - 2] && !'lsz'.includes(s[s.length - 1])) s = s.slice(0, -1);
    else if (/[^aeiou][aeiou][^aeiouwxy]$/.test(s) && s.length <= 4) s += 'e';
    return s.replace(/e$/, '');
  }
  if (s.length > 4 && s.endsWith('sses')) return s.slice(0, -2);
  if (s.length > 3 && s.endsWith('s') && !s.endsWith('ss') && !s.endsWith('us') && !s.endsWith('is')) s = s.slice(0, -1);
  return s.replace(/e$/, '');
}

export interface TextFeatures {
  /** The text without a leading `Speaker:` prefix. */
  text: string;
  lower: string;
  /** Lower-cased word tokens. */
  tokens: string[];
  /** Stems of content words (stop words removed). */
  content: Set<string>;
  /** Entity candidates: capitalised words / multiword names, lower-cased (plus given entities and speaker). */
  entities: Set<string>;
  /** Negated statement (not, never, no longer, n't …). */
  negated: boolean;
  numbers: string[];
  /** Lazily filled results of pure functions of this text (regex tests, clause splits …), shared by every user of the text. */
  memo: TextMemo;
}

/** Memoised per-text results (see `cueTest`). */
export interface TextMemo {
  re?: Map<RegExp, boolean>;
  [k: string]: unknown;
}

/**
 * `re.test(f.lower)`, memoised per text and regex. `re` must be a module-level constant without the
 * `g` / `y` flags (a regex literal inside a function is a new object on every evaluation).
 */
export function cueTest(f: TextFeatures, re: RegExp): boolean {
  const m = (f.memo.re ??= new Map());
  let v = m.get(re);
  if (v === undefined) {
    v = re.test(f.lower);
    m.set(re, v);
  }
  return v;
}

/**
 * Texts whose features the offline scorers keep between calls (least recently used evicted first):
 * a TextFeatures with its memo holds several KB, so 20,000 texts (the old bound, cleared when full)
 * kept ~100-200 MB alive in a long-running server (issue 33: RSS after 10,000 adds). The item
 * features of `inputs.ts` share the bound.
 */
export const MAX_TEXTS = 4_096;
const featureCache = new LruMap<string, TextFeatures>(MAX_TEXTS);
/** Bound of the small per-word and per-text caches below (stems, antonym masks, times, relative specs; cleared when full). */
const MAX_CACHE = 4_096;

const WORD = /[A-Za-z][A-Za-z'’-]*|\d+(?:[.:]\d+)?/g;
/** `/^[A-Z]{2,}$/.test(w)` */
function allCaps(w: string): boolean {
  if (w.length < 2) return false;
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    if (c < 65 || c > 90) return false;
  }
  return true;
}

/** Memoised text features. */
export function features(raw: string): TextFeatures {
  const hit = featureCache.get(raw);
  if (hit) return hit;
  let text = raw.trim();
  const entities = new Set<string>();
  const sp = /^([A-Z][\w .'-]{0,40}):\s+/.exec(text);
  if (sp) {
    entities.add(sp[1].toLowerCase());
    text = text.slice(sp[0].length);
  }
  const lower = text.toLowerCase().replace(/’/g, "'");
  const tokens: string[] = [];
  const content = new Set<string>();
  const numbers: string[] = [];
  let prevEnd = -1;
  let sentenceStart = true;
  let currentName: string[] = [];
  const flushName = () => {
    if (currentName.length) entities.add(currentName.join(' '));
    currentName = [];
  };
  // an exec loop over the global WORD regex (the same matches as `text.matchAll(WORD)`, without cloning it)
  WORD.lastIndex = 0;
  for (let m = WORD.exec(text); m !== null; m = WORD.exec(text)) {
    const w = m[0].indexOf('’') >= 0 ? m[0].replace(/’/g, "'") : m[0];
    const lw = w.toLowerCase();
    // the gap since the previous word: a sentence end (. ! ?) or else a clause break (, ; : ( ) ")
    let end = false;
    let clause = false;
    if (prevEnd >= 0) {
      for (let j = prevEnd; j < m.index; j++) {
        const c = text.charCodeAt(j);
        if (c === 46 || c === 33 || c === 63) end = true;
        else if (c === 44 || c === 59 || c === 58 || c === 40 || c === 41 || c === 34) clause = true;
      }
    }
    if (end) {
      sentenceStart = true;
      flushName();
    } else if (clause) flushName();
    prevEnd = m.index + w.length;
    tokens.push(lw);
    const c0 = w.charCodeAt(0);
    if (c0 >= 48 && c0 <= 57) {
      numbers.push(w);
      content.add(w);
      flushName();
      sentenceStart = false;
      continue;
    }
    // lw.replace(/'s$/, '').replace(/n't$/, '')
    const noPossessive = lw.endsWith("'s") ? lw.slice(0, -2) : lw;
    const base = noPossessive.endsWith("n't") ? noPossessive.slice(0, -3) : noPossessive;
    if (!STOP.has(base) && base.length > 1) content.add(stem(base));
    const cap = c0 >= 65 && c0 <= 90; // /^[A-Z]/
    const isName = cap && !NOT_NAMES.has(base) && (!sentenceStart || !STOP.has(base)) && !(sentenceStart && MONTHS_DAYS.has(base));
    if (isName || (cap && allCaps(w) && base.length > 1)) currentName.push(base);
    else flushName();
    sentenceStart = false;
  }
  flushName();
  const negated = /\b(not|never|no longer|nobody|nothing|none|neither|nor|no)\b|n't\b/.test(lower);
  const f: TextFeatures = { text, lower, tokens, content, entities, negated, numbers, memo: {} };
  featureCache.set(raw, f);
  return f;
}

const MONTHS_DAYS = new Set(
  'january february march april may june july august september october november december monday tuesday wednesday thursday friday saturday sunday'.split(' '),
);

/** Count of shared elements. */
export function intersectionSize<T>(a: Set<T>, b: Set<T>): number {
  let n = 0;
  if (a.size <= b.size) {
    for (const x of a) if (b.has(x)) n++;
  } else for (const x of b) if (a.has(x)) n++;
  return n;
}

/** Binary cosine of two sets: |A∩B| / sqrt(|A||B|), 0 when either is empty. */
export function setCosine<T>(a: Set<T>, b: Set<T>): number {
  if (!a.size || !b.size) return 0;
  return intersectionSize(a, b) / Math.sqrt(a.size * b.size);
}

/** Share of `a` found in `b` (containment). */
export function containment<T>(a: Set<T>, b: Set<T>): number {
  if (!a.size) return 0;
  return intersectionSize(a, b) / a.size;
}

/** The space-separated tokens of each entity of a set (memoised per set object; sets here are never mutated after construction). */
const entityTokens = new WeakMap<Set<string>, string[][]>();
function tokensOf(s: Set<string>): string[][] {
  let t = entityTokens.get(s);
  if (t === undefined) {
    t = [];
    for (const y of s) t.push(y.split(' '));
    entityTokens.set(s, t);
  }
  return t;
}

/** Entities shared by two entity sets, also matching a single-token name inside a multiword one. */
export function sharedEntities(a: Set<string>, b: Set<string>): number {
  let n = 0;
  let bt: string[][] | undefined;
  let at: string[][] | undefined;
  let i = -1;
  for (const x of a) {
    i++;
    if (b.has(x)) {
      n++;
      continue;
    }
    const xs = (at ??= tokensOf(a))[i];
    bt ??= tokensOf(b);
    for (const ys of bt) {
      if ((xs.length > 1 || ys.length > 1) && xs.some((t) => t.length > 2 && ys.includes(t))) {
        n++;
        break;
      }
    }
  }
  return n;
}

export const logistic = (x: number): number => 1 / (1 + Math.exp(-x));
export const clamp01 = (x: number): number => (x < 0 ? 0 : x > 1 ? 1 : x);
/** Keep a probability away from exact 0 / 1 (offline scores are heuristics, never certainties). */
export const soft = (p: number, lo = 0.02, hi = 0.98): number => (p < lo ? lo : p > hi ? hi : p);

// ---------------------------------------------------------------------------------------------
// Cue lexicons (ours). Each is a regex over lower-cased text.
// ---------------------------------------------------------------------------------------------

const MONTH = '(?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)';
const WEEKDAY = '(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)';

export const CUES = {
  /** Questions asking for a time. */
  whenQuestion: /^\s*(when|since when|until when)\b|\b(what|which) (time|date|day|days|month|year|week|season|hour)\b|\bhow long\b|\bhow (many|much) (time|years|months|weeks|days|hours)\b|\bhow often\b|\bwhen (did|does|do|is|was|will|were|has|had|are)\b|\bwhat time\b|\bdate of\b/,
  /** A time expression in a statement or a question. */
  timeExpr: new RegExp(
    `\\b(yesterday|today|tonight|tomorrow|this (morning|afternoon|evening|week|weekend|month|year|summer|winter|spring|fall)|last (night|week|weekend|month|year|summer|winter|spring|fall|${WEEKDAY})|next (week|weekend|month|year|${WEEKDAY})|\\d+ (minutes?|hours?|days?|weeks?|months?|years?) (ago|later|earlier|before|after)|(a|one|two|three|few|couple of) (days?|weeks?|months?|years?) (ago|later)|ago|${MONTH}\\b|${WEEKDAY}|(19|20)\\d\\d|o'clock|\\d{1,2}(:\\d\\d)? ?(am|pm)|morning|evening|afternoon|weekend|birthday|anniversary|since|until|before|after|earlier|later|recently|first time|last time|at the time|back then|at night|noon|midnight|christmas|new year|holiday|vacation|season|semester|in (spring|summer|autumn|fall|winter))\\b`,
  ),
  /** Temporal ordering words. */
  orderWords: /\b(before|after|earlier|later|first|then|afterwards|since|until|prior|following|previous|previously|meanwhile|while|during|same time)\b/,
  /** Questions asking for a reason or consequence. */
  whyQuestion: /^\s*why\b|\bwhy (did|does|do|is|was|were|has|had|would|are|can|could|should|might)\b|\bhow come\b|\bwhat (made|makes|caused|causes|led|leads|prompted|motivated|inspired|drove|drives|triggered|pushed|convinced)\b|\b(reason|reasons|motivation|cause) (for|why|behind|of)\b|\bwhat (was|is|were) the (reason|cause|motivation|result|outcome|effect|impact|consequence)/,
  /** Causal connectives and verbs in a statement. */
  causal: /\b(because|since|due to|so that|therefore|thus|hence|as a result|as a consequence|resulted|results in|result of|led (me |us |him |her |them )?to|leads to|lead to|caused|causes|cause|made (me|us|him|her|them)|that's why|which is why|this is why|owing to|thanks to|inspired|motivated|prompted|triggered|so i|so we|so he|so she|so they|consequently|reason|in order to|after (i|we|he|she|they) (lost|broke|got|had|saw))\b/,
  /** Weak causal/effect words in a question. */
  causalWeak: /\b(do to|did to|done to|affect|affected|effect|impact|influence|influenced|help|helped|change|changed|react|reaction|feel about|because|result|outcome|lead to|led to|inspire|inspired|motivate|motivated|encourage|encouraged)\b/,
  preference: /\b(like|likes|liked|love|loves|loved|enjoy|enjoys|enjoyed|prefer|prefers|preferred|favorite|favourite|fav|hate|hates|hated|dislike|dislikes|can't stand|cannot stand|fan of|into|passionate about|adore|adores|would rather|rather than|fond of|my go-to|not a fan|crazy about|obsessed with|big on|wish|dream of|can't get enough|appreciate|keen on|interested in|excited about|tired of|sick of)\b/,
  procedure: /\b(how to|(best|quickest|easiest|simplest|right|only) way to|is to|step|steps|first,|then,|next,|finally,|recipe|instructions?|procedure|process|method|routine|workflow|tutorial|guide|the trick is|make sure|remember to|you need to|you should|you have to|you must|in order to|to do this|to make|to fix|to get|preheat|mix|stir|bake|install|click|press|run the|type|set up|plug|unplug|restart|reboot|water it|soak|rinse|apply|measure|whisk|boil|simmer|fold)\b/,
  imperative: /^\s*(add|mix|preheat|bake|stir|pour|cut|put|take|turn|open|close|click|press|run|install|use|make sure|remember|always|never|first|start|set|plug|restart|check|keep|place|wash|rinse|apply|boil|heat|chop|fold|whisk|soak|measure|hold|breathe|water|fill|wait|let|go to|select|enter|save|type)\b/,
  habitual: /\b(always|usually|often|every (day|morning|night|week|weekend|month|year|time)|each (day|week|morning)|normally|typically|generally|regularly|tend to|habit|routine|daily|weekly|on weekends|most days|whenever)\b/,
  /** Stable-fact cues (semantic memory). */
  fact: /\b(is a|is an|is the|am a|am an|are a|are the|i'm a|i am a|works? as|work at|works at|work for|works for|my name is|name is|lives? in|live in|born in|grew up in|from|married to|engaged to|divorced|has a|have a|has two|have two|have three|has three|is my|are my|is allergic|speaks?|studies|studying|major in|majoring|is located|consists of|is made of|belongs to|owns|own a|capital of|member of|citizen|vegetarian|vegan|years old|works? in|teaches|plays? the|is married|has been|have been)\b/,
  /** Event verbs in the past tense (episodic). */
  pastEvent: /\b(went|visited|attended|met|saw|bought|got|took|had|did|made|won|lost|broke|started|finished|moved|joined|left|arrived|came|traveled|travelled|flew|drove|ran|watched|played|celebrated|cooked|baked|painted|wrote|read|called|tried|signed|adopted|graduated|married|received|gave|found|spent|organized|hosted|participated|volunteered|completed|launched|began|ate|saw|heard|decided|quit|hiked|walked|climbed|camped|danced|sang|performed|presented|applied|got back|went to|happened|was at|were at)\b/,
  recency: /\b(recent|recently|latest|lately|last time|currently|current|now|nowadays|these days|still|anymore|any more|most recent|so far|yet|this week|this month|this year|today|right now|at the moment|new|newest|up to date|up-to-date|present|these past)\b/,
  multiHop: /\b(would|might|likely|could|probably|possibly|considered|consider|what kind of|what type of|what sort of|in common|both|compare|compared|comparison|how many times|how many|relationship between|based on|infer|inferred|describe|personality|what do .+ think|ever|all the|list|which .+ and|similar|difference|differ|different|pattern|overall|tend|generally|interests|hobbies|values|attitude|connection|connected|why)\b/,
  negation: /\b(not|never|no longer|nobody|nothing|none|neither|nor|no)\b|n't\b/,
  change: /\b(now|no longer|anymore|any more|moved|switched|changed|quit|new|started|instead|used to|these days|finally|became|become|updated|update|not .+ anymore|stopped|replaced|upgraded|left|sold|broke up|divorced|retired|transferred|relocated)\b/,
  question: /\?\s*$|^\s*(who|what|when|where|why|how|which|did|does|do|is|are|was|were|has|have|can|could|would|will|should)\b/,
  whoQuestion: /^\s*(who|whom|whose)\b|\bwho (is|was|did|does|are|were)\b|\bwhat (is|was) (the )?name\b/,
  whereQuestion: /^\s*where\b|\bwhere (did|does|do|is|was|are|were)\b|\bwhat (city|country|place|town|state|location)\b/,
  countQuestion: /\bhow (many|much)\b|\bhow often\b|\bnumber of\b/,
};

const ANTONYMS: [RegExp, RegExp][] = [
  [/\b(like|likes|love|loves|enjoy|enjoys|adore)\b/, /\b(hate|hates|dislike|dislikes|can't stand|detest)\b/],
  [/\b(alive|living)\b/, /\b(dead|died|passed away)\b/],
  [/\b(married|engaged)\b/, /\b(single|divorced|broke up)\b/],
  [/\b(start|started|began|joined)\b/, /\b(quit|stopped|left|ended)\b/],
  [/\b(open|opened)\b/, /\b(closed|shut)\b/],
  [/\b(win|won)\b/, /\b(lose|lost)\b/],
  [/\b(yes|true|agree)\b/, /\b(no|false|disagree)\b/],
  [/\b(vegetarian|vegan)\b/, /\b(steak|burger|meat|bacon|chicken)\b/],
  [/\b(sober|quit drinking)\b/, /\b(drink|drinks|drinking|beer|wine)\b/],
  [/\b(early)\b/, /\b(late)\b/],
  [/\b(happy|glad|excited)\b/, /\b(sad|upset|unhappy|angry)\b/],
  [/\b(easy)\b/, /\b(hard|difficult)\b/],
  [/\b(broken|broke down|not working|out of order)\b/, /\b(fixed|repaired|working again)\b/],
  [/\b(cat person)\b/, /\b(dog person)\b/],
];

/** True when one text has a side of an antonym pair and the other the opposite side. */
export function antonymConflict(a: string, b: string): boolean {
  // Per pair i the original test is (x_i(a) && y_i(b) && !y_i(a)) || (y_i(a) && x_i(b) && !x_i(b) && !x_i(a));
  // the second clause is always false (x_i(b) && !x_i(b)), so this is: some i with x_i(a), y_i(b), not y_i(a).
  const ma = antonymMasks(a);
  const mb = antonymMasks(b);
  return (ma.x & mb.y & ~ma.y) !== 0;
}

const antonymCache = new Map<string, { x: number; y: number }>();
/** Bit i set when side x (or y) of antonym pair i occurs in the text (memoised per text). */
function antonymMasks(t: string): { x: number; y: number } {
  let m = antonymCache.get(t);
  if (m === undefined) {
    let x = 0;
    let y = 0;
    for (let i = 0; i < ANTONYMS.length; i++) {
      if (ANTONYMS[i][0].test(t)) x |= 1 << i;
      if (ANTONYMS[i][1].test(t)) y |= 1 << i;
    }
    m = { x, y };
    if (antonymCache.size >= MAX_CACHE) antonymCache.clear();
    antonymCache.set(t, m);
  }
  return m;
}

// ---------------------------------------------------------------------------------------------
// Time arithmetic (ours): event interval of a memory from its ISO times plus relative expressions.
// ---------------------------------------------------------------------------------------------

const DAY = 86_400_000;
const HOUR = 3_600_000;
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const UNIT: Record<string, number> = { minute: 60_000, hour: HOUR, day: DAY, week: 7 * DAY, month: 30 * DAY, year: 365 * DAY };
const WORDNUM: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, few: 3, couple: 2, several: 4 };

/** An event interval in ms since the epoch; `relative` = it was derived from a relative expression. */
export interface Interval {
  start: number;
  end: number;
  relative: boolean;
  /** true when only the observation time was known (the event time is assumed to be it). */
  assumed: boolean;
}

/** A date-time without a zone (`2024-05-16T10:00`, `2024-05-16 10:00:00.5`): `Date.parse` would read it in the machine's local zone. */
const ZONELESS = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/;

/**
 * Parse an ISO-8601 time (or a number of ms) to ms; NaN when invalid. A date-time without a zone is
 * read as UTC (not the machine's local zone), so answers do not depend on where the process runs.
 */
export function parseTime(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string' || !v) return NaN;
  let t = timeCache.get(v);
  if (t === undefined) {
    const m = ZONELESS.exec(v.trim());
    t = m ? Date.parse(`${m[1]}T${m[2]}Z`) : Date.parse(v);
    if (timeCache.size >= MAX_CACHE) timeCache.clear();
    timeCache.set(v, t);
  }
  return t;
}
const timeCache = new Map<string, number>();

/**
 * Resolve a relative expression of `text` against the observation time `t` (UTC). Returns the
 * shifted interval or null when the text has no relative expression. Day granularity for day words.
 */
export function relativeInterval(text: string, t: number): { start: number; end: number } | null {
  let spec = specCache.get(text);
  if (spec === undefined) {
    spec = relativeSpec(text);
    if (specCache.size >= MAX_CACHE) specCache.clear();
    specCache.set(text, spec);
  }
  return spec === null ? null : applySpec(spec, t);
}

/**
 * The relative expression of a text, parsed once per text (the regex part of `relativeInterval`);
 * `applySpec` does the arithmetic against an observation time.
 */
type RelativeSpec =
  | { k: 'ago'; delta: number; point: boolean }
  | { k: 'in'; delta: number }
  | { k: 'yesterday' | 'lastNight' | 'tomorrow' | 'today' | 'lastWeekend' }
  | { k: 'lastWeekday' | 'nextWeekday'; want: number }
  | { k: 'lastUnit' | 'nextUnit'; unit: number };
const specCache = new Map<string, RelativeSpec | null>();

function relativeSpec(text: string): RelativeSpec | null {
  const l = text.toLowerCase();
  let m: RegExpExecArray | null;
  // each regex runs only when a substring it cannot match without is present (same results, fewer scans)
  if (l.includes('ago') && (m = /\b(\d+|a|an|one|two|three|four|five|six|few|couple|several)(?: of)? (minute|hour|day|week|month|year)s? ago\b/.exec(l))) {
    const k = /^\d+$/.test(m[1]) ? Number(m[1]) : WORDNUM[m[1]] ?? 1;
    return { k: 'ago', delta: k * UNIT[m[2]], point: m[2] === 'minute' || m[2] === 'hour' };
  }
  if (l.includes('in ') && (m = /\bin (\d+|a|an|one|two|three|four|five|few|couple) (minute|hour|day|week|month|year)s?\b/.exec(l))) {
    const k = /^\d+$/.test(m[1]) ? Number(m[1]) : WORDNUM[m[1]] ?? 1;
    return { k: 'in', delta: k * UNIT[m[2]] };
  }
  if (l.includes('yesterday') && /\byesterday\b/.test(l)) return { k: 'yesterday' };
  const last = l.includes('last ');
  if (last && /\blast night\b/.test(l)) return { k: 'lastNight' };
  if (l.includes('tomorrow') && /\btomorrow\b/.test(l)) return { k: 'tomorrow' };
  if ((l.includes('today') || l.includes('this ') || l.includes('tonight')) && /\b(today|this morning|this afternoon|this evening|tonight)\b/.test(l)) return { k: 'today' };
  if (last && (m = /\blast (monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/.exec(l))) return { k: 'lastWeekday', want: WEEKDAYS.indexOf(m[1]) };
  const next = l.includes('next');
  if (next && l.includes('day') && (m = /\b(?:on |this |next )?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/.exec(l)) && /\bnext\b/.test(l)) {
    return { k: 'nextWeekday', want: WEEKDAYS.indexOf(m[1]) };
  }
  if (last && /\blast weekend\b/.test(l)) return { k: 'lastWeekend' };
  if (last && (m = /\blast (week|month|year)\b/.exec(l))) return { k: 'lastUnit', unit: UNIT[m[1]] };
  if (next && (m = /\bnext (week|month|year)\b/.exec(l))) return { k: 'nextUnit', unit: UNIT[m[1]] };
  return null;
}

function applySpec(spec: RelativeSpec, t: number): { start: number; end: number } {
  const dayOf = (ms: number) => {
    const s = Math.floor(ms / DAY) * DAY;
    return { start: s, end: s + DAY - 1 };
  };
  switch (spec.k) {
    case 'ago': {
      const c = t - spec.delta;
      return spec.point ? { start: c, end: c } : dayOf(c);
    }
    case 'in':
      return dayOf(t + spec.delta);
    case 'yesterday':
      return dayOf(t - DAY);
    case 'lastNight':
      return { start: t - 18 * HOUR, end: t - 6 * HOUR };
    case 'tomorrow':
      return dayOf(t + DAY);
    case 'today':
      return dayOf(t);
    case 'lastWeekday': {
      const now = new Date(t).getUTCDay();
      let back = (now - spec.want + 7) % 7;
      if (back === 0) back = 7;
      return dayOf(t - back * DAY);
    }
    case 'nextWeekday': {
      const now = new Date(t).getUTCDay();
      let fwd = (spec.want - now + 7) % 7;
      if (fwd === 0) fwd = 7;
      return dayOf(t + fwd * DAY);
    }
    case 'lastWeekend': {
      const now = new Date(t).getUTCDay();
      const back = now === 0 ? 7 : now + 1; // previous Saturday
      const sat = dayOf(t - back * DAY);
      return { start: sat.start, end: sat.end + DAY };
    }
    case 'lastUnit': {
      const c = t - spec.unit;
      return { start: c - spec.unit / 2, end: c + spec.unit / 2 };
    }
    case 'nextUnit': {
      const c = t + spec.unit;
      return { start: c - spec.unit / 2, end: c + spec.unit / 2 };
    }
  }
}

/** The event interval of a memory item: explicit `start`/`end`, else `time` shifted by a relative expression, else `time`. */
export function eventInterval(item: { text: string; time?: unknown; start?: unknown; end?: unknown }): Interval | null {
  const s = parseTime(item.start);
  const e = parseTime(item.end);
  if (Number.isFinite(s)) return { start: s, end: Number.isFinite(e) ? Math.max(s, e) : s, relative: false, assumed: false };
  const t = parseTime(item.time);
  if (!Number.isFinite(t)) return null;
  const rel = relativeInterval(item.text, t);
  if (rel) return { ...rel, relative: true, assumed: false };
  return { start: t, end: t, relative: false, assumed: true };
}

export const MS = { DAY, HOUR };

/**
 * Offline scorers (ours): one documented heuristic per catalogue kind. Inputs are the question's
 * resolved `{{path}}` references; outputs are a probability (Noul) or a label distribution (Choice).
 * They use cue lexicons, entity and keyword overlap, time arithmetic over ISO times, and a similarity
 * that prefers precomputed `cosine` fields, then injected embeddings, then lexical overlap.
 * The numbers (weights, offsets) are hand-set, not fitted; see the package README for measured accuracy.
 */
import type { ResolvedRef } from '../schema';
import {
  CUES, antonymConflict, clamp01, containment, cueTest, eventInterval, features, intersectionSize, type Interval, logistic, MS,
  setCosine, sharedEntities, soft, stem, type TextFeatures,
} from './text';

/** A memory item as the scorers see it. */
export interface Item {
  text: string;
  time?: unknown;
  start?: unknown;
  end?: unknown;
  entities?: unknown;
  keywords?: unknown;
  speaker?: unknown;
  cosine?: unknown;
  session?: unknown;
  relation?: unknown;
  probability?: unknown;
}

export interface ScoreContext {
  /** Cosine of two texts from injected embeddings, or undefined when no embedder is configured. */
  embedCosine(a: string, b: string): number | undefined;
  /** Map a raw cosine to [0, 1] (see `cosineRange` of the offline backend). */
  scaleCosine(c: number): number;
}

export type ScoreResult = number | Record<string, number>;
export type Scorer = (refs: ResolvedRef[], ctx: ScoreContext) => ScoreResult;

// ---------------------------------------------------------------------------------------------
// inputs
// ---------------------------------------------------------------------------------------------

/** A state value as an item: strings are texts, objects with `text` are items, others are JSON text. */
export function toItem(v: unknown): Item {
  if (typeof v === 'string') {
    // one (never mutated) item object per text, so its features are found by identity
    let it = stringItems.get(v);
    if (it === undefined) {
      if (stringItems.size >= 20_000) stringItems.clear();
      stringItems.set(v, (it = { text: v }));
    }
    return it;
  }
  if (v && typeof v === 'object' && !Array.isArray(v) && typeof (v as any).text === 'string') return v as Item;
  if (v && typeof v === 'object' && !Array.isArray(v) && typeof (v as any).content === 'string') return { ...(v as any), text: (v as any).content };
  return { text: v === undefined ? '' : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v) };
}

const stringItems = new Map<string, Item>();

function toItems(v: unknown): Item[] {
  if (Array.isArray(v)) return v.map(toItem);
  if (v === undefined || v === null || v === '') return [];
  return [toItem(v)];
}

/** `/\.\d+$/.test(p)` without a regex: the path ends with a dot and one or more digits. */
function isListItemPath(p: string): boolean {
  let i = p.length - 1;
  while (i >= 0) {
    const c = p.charCodeAt(i);
    if (c < 48 || c > 57) break;
    i--;
  }
  return i < p.length - 1 && i >= 0 && p.charCodeAt(i) === 46;
}

/** The (main, candidate) pair of a pair question: the list-item ref is the candidate, the other the main memory. */
function pair(refs: ResolvedRef[]): [Item, Item] {
  let c: ResolvedRef | undefined;
  for (const r of refs) {
    if (isListItemPath(r.path)) {
      c = r;
      break;
    }
  }
  let m: ResolvedRef | undefined;
  for (const r of refs) {
    if (r !== c && !Array.isArray(r.value)) {
      m = r;
      break;
    }
  }
  if (c && m) return [toItem(m.value), toItem(c.value)];
  return [toItem(refs[0]?.value), toItem(refs[1]?.value)];
}

function queryOf(refs: ResolvedRef[]): string {
  const q = refs.find((r) => r.path === 'query') ?? refs.find((r) => typeof r.value === 'string' && !isListItemPath(r.path));
  return q ? toItem(q.value).text : '';
}
function evidenceOf(refs: ResolvedRef[]): Item[] {
  const e = refs.find((r) => r.path === 'evidence') ?? refs.find((r) => Array.isArray(r.value));
  return e ? toItems(e.value) : [];
}
function candidateOf(refs: ResolvedRef[]): Item {
  const c = refs.find((r) => isListItemPath(r.path)) ?? refs.find((r) => r.path !== 'query' && !Array.isArray(r.value));
  return toItem(c?.value);
}
function depthOf(refs: ResolvedRef[]): number {
  const d = refs.find((r) => typeof r.value === 'number');
  return d ? (d.value as number) : 0;
}

interface ItemFeatures extends TextFeatures {
  ents: Set<string>;
  /** Content stems that are not part of an entity name (what the item is about, besides who). */
  topic: Set<string>;
  /** The content these features were computed from (items with equal content share one object). */
  speaker: string | undefined;
  given: string[];
  kws: string[];
  /** Results for pairs with another item's features (pure functions of the two contents; bounded). */
  pairs?: Map<ItemFeatures, PairData>;
  /** Lazily: the names this item may be aliased by (`aliasWords`). */
  alias?: string[];
}
/** The features of an item object and the item fields they were computed from (a mutated item is recomputed). */
interface ItemEntry {
  text: unknown;
  entities: unknown;
  keywords: unknown;
  speaker: unknown;
  f: ItemFeatures;
  /** `eventInterval` of the item and the fields it was computed from (see `intervalOf`). */
  iv?: { text: unknown; time: unknown; start: unknown; end: unknown; iv: Interval | null };
}
/**
 * Item objects already seen in the current backend call (see `withCallCache`): a plain Map that lives
 * for one call — a process-wide WeakMap costs more per new object (core builds fresh items per write)
 * than it saves; across calls, items are found again by content (`byText`).
 */
let callItems: Map<object, ItemEntry> | undefined;
/** True inside `withCallCache` (the map itself is created on first use). */
let inCall = false;

/** Run `fn(a, b)` (synchronous scoring of one batch) with a per-call cache of item features. */
export function withCallCache<T, A = undefined, B = undefined>(fn: (a: A, b: B) => T, a?: A, b?: B): T {
  const prevItems = callItems;
  const prevIn = inCall;
  callItems = undefined;
  inCall = true;
  try {
    return fn(a as A, b as B);
  } finally {
    callItems = prevItems;
    inCall = prevIn;
  }
}
/** Item features by text, then by (speaker, entities, keywords): a new item object with known content reuses them. */
const byText = new Map<string, ItemFeatures[]>();
const MAX_ITEMS = 20_000;

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((e): e is string => typeof e === 'string') : []);
/** `sameStrings(a, strings(v))` without building the filtered copy. */
function sameStrings(a: string[], v: unknown): boolean {
  if (!Array.isArray(v)) return a.length === 0;
  let k = 0;
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i];
    if (typeof x !== 'string') continue;
    if (k >= a.length || a[k] !== x) return false;
    k++;
  }
  return k === a.length;
}

function feat(it: Item): ItemFeatures {
  return entryOf(it).f;
}

function entryOf(it: Item): ItemEntry {
  const hit = callItems?.get(it);
  if (hit !== undefined && hit.text === it.text && hit.entities === it.entities && hit.keywords === it.keywords && hit.speaker === it.speaker) return hit;
  const speaker = typeof it.speaker === 'string' ? it.speaker : undefined;
  let variants = byText.get(it.text);
  let out: ItemFeatures | undefined;
  if (variants !== undefined) {
    for (const v of variants) {
      if (v.speaker === speaker && sameStrings(v.given, it.entities) && sameStrings(v.kws, it.keywords)) {
        out = v;
        break;
      }
    }
  }
  if (out === undefined) {
    const given = strings(it.entities);
    const kws = strings(it.keywords);
    const f = features(it.text);
    let ents = f.entities;
    let content = f.content;
    if (given.length || speaker !== undefined) {
      ents = new Set(ents);
      for (const e of given) ents.add(e.toLowerCase());
      if (speaker !== undefined) ents.add(speaker.toLowerCase());
    }
    if (kws.length) {
      content = new Set(content);
      for (const k of kws) for (const w of k.toLowerCase().split(/\s+/)) if (w) content.add(stem(w));
    }
    out = {
      text: f.text,
      lower: f.lower,
      tokens: f.tokens,
      content,
      entities: f.entities,
      negated: f.negated,
      numbers: f.numbers,
      memo: f.memo,
      ents,
      topic: topicOf(content, ents),
      speaker,
      given,
      kws,
      pairs: undefined,
      alias: undefined,
    };
    if (variants === undefined) {
      if (byText.size >= MAX_ITEMS) byText.clear();
      byText.set(it.text, (variants = []));
    }
    if (variants.length >= 8) variants.shift();
    variants.push(out);
  }
  const entry: ItemEntry = { text: it.text, entities: it.entities, keywords: it.keywords, speaker: it.speaker, f: out };
  if (inCall) (callItems ??= new Map()).set(it, entry);
  return entry;
}

/** Results of pure functions of two items' features, memoised (see `pairOf`). */
interface PairData {
  lexical?: number;
  shared?: number;
  kw?: number;
  causal?: { ev: number; clauses: boolean };
  conflict?: number;
  redundancy?: RedundancyLex;
  topicCos?: number;
  topicInter?: number;
  again?: boolean;
}
/** The memo of the ordered pair (fa, fb). */
function pairOf(fa: ItemFeatures, fb: ItemFeatures): PairData {
  let m = fa.pairs;
  if (m === undefined) fa.pairs = m = new Map();
  let p = m.get(fb);
  if (p === undefined) {
    if (m.size >= 512) m.clear();
    m.set(fb, (p = {}));
  }
  return p;
}
const sharedOf = (p: PairData, fa: ItemFeatures, fb: ItemFeatures): number => (p.shared ??= sharedEntities(fa.ents, fb.ents));
const kwOf = (p: PairData, fa: ItemFeatures, fb: ItemFeatures): number => (p.kw ??= intersectionSize(fa.content, fb.content));

/** `eventInterval(it)`, memoised per item object (recomputed when its text or times change). */
function intervalOf(it: Item): Interval | null {
  const e = entryOf(it);
  const hit = e.iv;
  if (hit !== undefined && hit.text === it.text && hit.time === it.time && hit.start === it.start && hit.end === it.end) return hit.iv;
  const iv = eventInterval(it);
  e.iv = { text: it.text, time: it.time, start: it.start, end: it.end, iv };
  return iv;
}

function topicOf(content: Set<string>, ents: Set<string>): Set<string> {
  if (!ents.size) return content;
  const names = new Set<string>();
  for (const e of ents) for (const t of e.split(' ')) names.add(stem(t));
  const out = new Set<string>();
  for (const c of content) if (!names.has(c)) out.add(c);
  return out;
}

// ---------------------------------------------------------------------------------------------
// similarity
// ---------------------------------------------------------------------------------------------

/**
 * Relatedness of two items in [0, 1]: lexical set cosine of content stems (+ shared entities), mixed
 * 50/50 with a scaled cosine when one is known (`cosine` field first, then injected embeddings).
 */
function relatedness(a: Item, b: Item, ctx: ScoreContext, cosine?: number): number {
  const fa = feat(a);
  const fb = feat(b);
  const p = pairOf(fa, fb);
  let lexical = p.lexical;
  if (lexical === undefined) {
    const lex = setCosine(fa.content, fb.content);
    const ent = sharedOf(p, fa, fb) > 0 ? 1 : 0;
    lexical = p.lexical = clamp01(0.8 * Math.sqrt(lex) + 0.2 * ent);
  }
  const c = cosine ?? ctx.embedCosine(a.text, b.text);
  if (c === undefined || !Number.isFinite(c)) return lexical;
  return 0.5 * lexical + 0.5 * ctx.scaleCosine(c);
}

const queryFeat = (q: string): ItemFeatures => feat(queryItem(q));
/** Question-frame words that say what kind of answer is wanted, not what it is about. */
const QUESTION_FRAME = /\b(how (long|many|much|often|far|old)|what (kind|type|sort) of|what time|the name of|name of|what happened|happen(ed)?)\b/gi;
const queryItems = new Map<string, Item>();
function queryItem(q: string): Item {
  let it = queryItems.get(q);
  if (!it) {
    if (queryItems.size > 20_000) queryItems.clear();
    queryItems.set(q, (it = { text: q.replace(QUESTION_FRAME, ' ') }));
  }
  return it;
}

/** Share of the query's content words and entities found in an item (query-side recall), with cosine mixing. */
function queryMatch(query: string, it: Item, ctx: ScoreContext, cosine?: number): number {
  const fq = queryFeat(query);
  const fi = feat(it);
  const covered = containment(fq.topic, fi.content);
  const ents = fq.ents.size ? sharedEntities(fq.ents, fi.ents) / fq.ents.size : 0;
  const lexical = clamp01(fq.ents.size ? 0.7 * covered + 0.3 * ents : covered);
  const c = cosine ?? ctx.embedCosine(query, it.text);
  if (c === undefined || !Number.isFinite(c)) return lexical;
  return 0.5 * lexical + 0.5 * ctx.scaleCosine(c);
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

// ---------------------------------------------------------------------------------------------
// typing: on { observation }
// (every regex is a module constant, so `cueTest` can memoise its result per text)
// ---------------------------------------------------------------------------------------------

const RE_ED_OBJECT = /\b\w{3,}ed (my|the|a|an|our|his|her|their|to|at|in|on|with|for|up|out)\b/;
const RE_I_WE_MY = /\b(i|we|my)\b/;
const RE_HOW_TO = /\bhow to\b/;
const RE_STATIVE_VERB = /\b(is|are|has|have|am)\b/;
const RE_PRESENT_SIMPLE = /^(the |a |an |our |my |his |her |their )?\w+( \w+)? \w+(s|es)\b/;
const RE_I_WE_YOU = /\b(i|we|you)\b/;
const RE_FEELING = /\b(feel|feeling|felt|tired|excited|happy today)\b/;
const RE_SEQUENCE = /\b(first|then|next|after that|finally)\b.*\b(then|next|after that|finally|and then)\b/;
const RE_YOU = /\b(you|your)\b/;
const RE_THEN_BEFORE = /\b(then|after that|before)\b/;
const RE_CLAUSE_IMPERATIVE = /^(to|when|if|once|after|before)\b[^,]*, (then )?(add|mix|hold|press|take|put|turn|open|close|click|run|use|let|wait|remove|pour|stir|check|fill|select|set|keep|place|leave|cover|cut|wash|rinse|unplug|plug|restart|boil|heat)\b/;
const RE_STRONG_PREFERENCE = /\b(favorite|favourite|prefer|would rather|can't stand|hate|love)\b/;
const RE_LIKE_TO = /\b(like to|likes to|love to|enjoy)\b/;
const RE_LIKE_COMPARISON = /\b(looks like|feel like|like that|like this|like a|just like|like the)\b/;
const RE_LOVE_ENJOY = /\b(love|enjoy|prefer|favorite)\b/;

function typingEpisodic(refs: ResolvedRef[]): number {
  const f = feat(toItem(refs[0]?.value));
  let x = -1.6;
  const past = cueTest(f, CUES.pastEvent) || cueTest(f, RE_ED_OBJECT);
  if (past) x += 1.6;
  if (cueTest(f, CUES.timeExpr)) x += 1.0;
  if (cueTest(f, RE_I_WE_MY)) x += 0.3;
  if (cueTest(f, CUES.habitual)) x -= 1.2;
  if (cueTest(f, CUES.imperative) || cueTest(f, RE_HOW_TO)) x -= 1.0;
  if (cueTest(f, CUES.preference) && !cueTest(f, CUES.pastEvent)) x -= 0.6;
  return soft(logistic(x));
}

function typingSemantic(refs: ResolvedRef[]): number {
  const f = feat(toItem(refs[0]?.value));
  let x = -1.0;
  if (cueTest(f, CUES.fact)) x += 1.8;
  const past = cueTest(f, CUES.pastEvent);
  if (cueTest(f, RE_STATIVE_VERB) && !past) x += 1.0;
  // generic present simple of a third-person subject ("water boils", "the library closes")
  else if (cueTest(f, RE_PRESENT_SIMPLE) && !past && !cueTest(f, RE_I_WE_YOU)) x += 1.0;
  if (cueTest(f, CUES.timeExpr)) x -= 0.7;
  if (past) x -= 0.6;
  if (cueTest(f, CUES.imperative)) x -= 0.8;
  if (cueTest(f, RE_FEELING)) x -= 0.5;
  return soft(logistic(x));
}

function typingProcedural(refs: ResolvedRef[]): number {
  const f = feat(toItem(refs[0]?.value));
  let x = -2.2;
  if (cueTest(f, CUES.procedure)) x += 1.6;
  if (cueTest(f, CUES.imperative)) x += 1.6;
  if (cueTest(f, RE_SEQUENCE)) x += 1.2;
  if (cueTest(f, RE_YOU)) x += 0.3;
  if (cueTest(f, CUES.habitual) && (cueTest(f, CUES.procedure) || cueTest(f, RE_THEN_BEFORE))) x += 1.2;
  // an imperative after a purpose or condition clause: "To reset it, hold …", "When it beeps, take …"
  if (cueTest(f, RE_CLAUSE_IMPERATIVE)) x += 2.4;
  if (cueTest(f, CUES.pastEvent) && !cueTest(f, CUES.imperative)) x -= 0.6;
  return soft(logistic(x));
}

function typingPreference(refs: ResolvedRef[]): number {
  const f = feat(toItem(refs[0]?.value));
  let x = -2.0;
  if (cueTest(f, CUES.preference)) x += 2.8;
  if (cueTest(f, RE_STRONG_PREFERENCE)) x += 0.8;
  if (cueTest(f, RE_LIKE_TO)) x += 0.4;
  if (cueTest(f, RE_LIKE_COMPARISON) && !cueTest(f, RE_LOVE_ENJOY)) x -= 2.0;
  return soft(logistic(x));
}

// ---------------------------------------------------------------------------------------------
// pair relations: on { new_memory, candidates[i] }
// ---------------------------------------------------------------------------------------------

function relSemantic(refs: ResolvedRef[], ctx: ScoreContext): number {
  const [a, b] = pair(refs);
  const r = relatedness(a, b, ctx, num(b.cosine));
  const fa = feat(a);
  const fb = feat(b);
  const p = pairOf(fa, fb);
  const shared = sharedOf(p, fa, fb);
  const kw = kwOf(p, fa, fb);
  return soft(logistic(9 * (r - 0.32) + 0.4 * Math.min(kw, 3) + (shared > 0 ? 0.3 : 0) - 0.6));
}

const CAUSE_AFTER = /\b(because of|because|since|due to|owing to|thanks to|as a result of|after)\b/; // effect <conn> cause
const EFFECT_AFTER = /\b(so that|so|therefore|thus|hence|as a result|that's why|which is why|this is why|consequently|which led to|led to|leads to|resulted in|made me|made us|and now)\b/; // cause <conn> effect
const LEADING_CAUSE = /^\s*(because of|because|since|due to|after)\b([^,]*),(.*)$/;
const SINCE_TIME = /\bsince (\d|last|then|monday|january|a |the )/;
const LEADING_EFFECT = /^\s*(so|therefore|thus|hence|as a result|because of (that|this)|that's why|this is why|which is why|consequently)\b/;
const LEADING_BECAUSE = /^\s*(because|since|due to)\b/;
const MISHAP = /\b(broke|lost|fired|sick|injur|accident|died|passed away|crash|fail|flood|storm|won|promot|laid off|diagnos)/;

type Clauses = { cause: Set<string>; effect: Set<string> } | null;

/** Split a text at a causal connective into {cause, effect} clause features, or null. */
function causalClauses(t: string): Clauses {
  const l = t.toLowerCase();
  let m = LEADING_CAUSE.exec(l);
  if (m) return { cause: features(m[2]).content, effect: features(m[3]).content };
  m = CAUSE_AFTER.exec(l);
  const m2 = EFFECT_AFTER.exec(l);
  if (m && (!m2 || m.index <= m2.index)) {
    if (m[1] === 'since' && SINCE_TIME.test(l.slice(m.index))) return null;
    return { effect: features(l.slice(0, m.index)).content, cause: features(l.slice(m.index + m[0].length)).content };
  }
  if (m2) return { cause: features(l.slice(0, m2.index)).content, effect: features(l.slice(m2.index + m2[0].length)).content };
  return null;
}
/** `causalClauses(f.text)`, memoised per text. */
function clausesOf(f: TextFeatures): Clauses {
  let c = f.memo.clauses as Clauses | undefined;
  if (c === undefined) f.memo.clauses = c = causalClauses(f.text);
  return c;
}

/** The text evidence that x causes y (connectives and clause overlap): a pure function of the two texts. */
function causalEvidence(fx: ItemFeatures, fy: ItemFeatures): { ev: number; clauses: boolean } {
  let ev = 0;
  const cy = clausesOf(fy);
  if (cy) ev = Math.max(ev, containment(fx.content, cy.cause) * 1.2 - 0.4 * containment(fx.content, cy.effect));
  const cx = clausesOf(fx);
  if (cx) ev = Math.max(ev, containment(fy.content, cx.effect) * 1.2 - 0.4 * containment(fy.content, cx.cause));
  // "So now I can drive…", "That's why…": y's effect connective refers back to a previous statement
  if (cueTest(fy, LEADING_EFFECT)) ev = Math.max(ev, 0.55);
  if (cueTest(fx, LEADING_BECAUSE) && !cx) ev = Math.max(ev, 0.3);
  return { ev, clauses: !!cx || !!cy };
}

/**
 * p(x causes y): evidence that y's text names x's content as its cause (or x names y's as its effect),
 * discounted when the times say x happened after y. Without any connective, a weak prior from
 * topical overlap and time order (ours).
 */
function causalScore(x: Item, y: Item, ctx: ScoreContext): number {
  const fx = feat(x);
  const fy = feat(y);
  const p = pairOf(fx, fy);
  const ce = (p.causal ??= causalEvidence(fx, fy));
  const ix = intervalOf(x);
  const iy = intervalOf(y);
  let order = 0;
  if (ix && iy) order = ix.start < iy.start - 60_000 ? 1 : ix.start > iy.start + 60_000 ? -1 : 0;
  const rel = relatedness(x, y, ctx, num(y.cosine) ?? num(x.cosine));
  let z = -2.6 + 4.2 * clamp01(ce.ev) + 1.2 * rel + 0.5 * order;
  if (order < 0) z -= 1.0;
  if (!ce.clauses && cueTest(fx, MISHAP)) z += 0.4 * rel;
  return soft(logistic(z));
}

function relCauses(refs: ResolvedRef[], ctx: ScoreContext): number {
  const [a, b] = pair(refs);
  return causalScore(a, b, ctx);
}
function relCausedBy(refs: ResolvedRef[], ctx: ScoreContext): number {
  const [a, b] = pair(refs);
  return causalScore(b, a, ctx);
}

const EPISODE_CONTINUATION = /\b(then|after that|afterwards|later that|that (day|night|evening|morning)|at the same|while there|there,|also at)\b/;

function relSameEpisode(refs: ResolvedRef[], ctx: ScoreContext): number {
  const [a, b] = pair(refs);
  const r = relatedness(a, b, ctx, num(b.cosine));
  let z = -2.2 + 3.2 * r;
  if (a.session !== undefined && b.session !== undefined) z += a.session === b.session ? 1.6 : -1.8;
  const ia = intervalOf(a);
  const ib = intervalOf(b);
  if (ia && ib) {
    const gap = Math.max(0, Math.max(ia.start, ib.start) - Math.min(ia.end, ib.end));
    if (gap <= 2 * MS.HOUR) z += 1.9;
    else if (gap <= 12 * MS.HOUR) z += 0.6;
    else if (gap <= 2 * MS.DAY) z -= 0.4;
    else z -= 2.0;
  }
  if (cueTest(feat(a), EPISODE_CONTINUATION)) z += 0.5;
  return soft(logistic(z));
}

const NICKNAMES: string[][] = [
  ['robert', 'bob', 'rob', 'bobby'], ['william', 'bill', 'will', 'billy', 'liam'], ['elizabeth', 'liz', 'beth', 'lizzie', 'betty', 'eliza'],
  ['michael', 'mike', 'mikey'], ['katherine', 'kate', 'katie', 'kathy', 'kat', 'catherine', 'cathy'], ['james', 'jim', 'jimmy', 'jamie'],
  ['jennifer', 'jen', 'jenny'], ['alexander', 'alex', 'sasha', 'alexandra'], ['daniel', 'dan', 'danny'], ['joseph', 'joe', 'joey'],
  ['margaret', 'maggie', 'meg', 'peggy'], ['richard', 'rick', 'dick', 'rich'], ['thomas', 'tom', 'tommy'], ['christopher', 'chris'],
  ['nicholas', 'nick', 'nicky'], ['samantha', 'sam', 'sammy', 'samuel'], ['anthony', 'tony'], ['edward', 'ed', 'eddie', 'ted'],
  ['jonathan', 'jon', 'john', 'johnny'], ['rebecca', 'becky', 'becca'], ['victoria', 'vicky', 'tori'], ['benjamin', 'ben', 'benny'],
  ['matthew', 'matt'], ['andrew', 'andy', 'drew'], ['patricia', 'pat', 'patty', 'trish'], ['susan', 'sue', 'susie'],
  ['deborah', 'deb', 'debbie'], ['stephanie', 'steph'], ['jessica', 'jess', 'jessie'], ['melanie', 'mel'], ['caroline', 'carol', 'carrie', 'caro'],
  ['gregory', 'greg'], ['timothy', 'tim'], ['david', 'dave'], ['steven', 'steve', 'stephen'], ['charles', 'charlie', 'chuck'],
  ['new york city', 'nyc', 'new york', 'big apple'], ['los angeles', 'la'], ['san francisco', 'sf'], ['united states', 'usa', 'us', 'america'],
  ['united kingdom', 'uk', 'britain', 'england'], ['mother', 'mom', 'mum', 'mama', 'mommy'], ['father', 'dad', 'papa', 'daddy'],
  ['grandmother', 'grandma', 'granny', 'nana'], ['grandfather', 'grandpa', 'granddad'], ['husband', 'hubby'],
];
const NICK_INDEX = new Map<string, number>();
NICKNAMES.forEach((g, i) => g.forEach((n) => NICK_INDEX.set(n, i)));

/** Jaro-Winkler similarity of two strings in [0, 1]. */
export function jaroWinkler(a: string, b: string): number {
  if (a === b) return 1;
  const la = a.length;
  const lb = b.length;
  if (!la || !lb) return 0;
  const win = Math.max(0, Math.floor(Math.max(la, lb) / 2) - 1);
  const ma = new Array<boolean>(la).fill(false);
  const mb = new Array<boolean>(lb).fill(false);
  let m = 0;
  for (let i = 0; i < la; i++) {
    for (let j = Math.max(0, i - win); j < Math.min(lb, i + win + 1); j++) {
      if (!mb[j] && a[i] === b[j]) {
        ma[i] = mb[j] = true;
        m++;
        break;
      }
    }
  }
  if (!m) return 0;
  let t = 0;
  let k = 0;
  for (let i = 0; i < la; i++) {
    if (!ma[i]) continue;
    while (!mb[k]) k++;
    if (a[i] !== b[k]) t++;
    k++;
  }
  const jaro = (m / la + m / lb + (m - t / 2) / m) / 3;
  let p = 0;
  while (p < Math.min(4, la, lb) && a[p] === b[p]) p++;
  return jaro + p * 0.1 * (1 - jaro);
}

/** Alias score of two names (ours): nickname table, acronym, prefix, token subset, spelling similarity. */
export function aliasScore(x: string, y: string): number {
  if (x === y) return 0.3;
  const gx = NICK_INDEX.get(x);
  if (gx !== undefined && gx === NICK_INDEX.get(y)) return 0.92;
  const acr = (s: string) => s.split(/\s+/).map((w) => w[0]).join('');
  if ((y.length >= 2 && !y.includes(' ') && x.includes(' ') && acr(x) === y) || (x.length >= 2 && !x.includes(' ') && y.includes(' ') && acr(y) === x)) return 0.9;
  const tx = x.split(' ');
  const ty = y.split(' ');
  if ((tx.length > 1 || ty.length > 1) && tx.some((t) => t.length > 2 && ty.includes(t))) return 0.85;
  if (Math.min(x.length, y.length) >= 3 && (x.startsWith(y) || y.startsWith(x))) return 0.75;
  const jw = jaroWinkler(x, y);
  if (jw >= 0.9 && Math.min(x.length, y.length) >= 4) return 0.7;
  return 0.05;
}

/** `aliasScore`, memoised per pair of names (bounded). */
const aliasCache = new Map<string, Map<string, number>>();
function aliasOf(x: string, y: string): number {
  let m = aliasCache.get(x);
  if (m === undefined) {
    if (aliasCache.size >= 20_000) aliasCache.clear();
    aliasCache.set(x, (m = new Map()));
  }
  let v = m.get(y);
  if (v === undefined) {
    if (m.size >= 4096) m.clear();
    m.set(y, (v = aliasScore(x, y)));
  }
  return v;
}
/** The names an item may be aliased by: its entities, then its tokens found in the nickname table. */
function aliasWords(f: ItemFeatures): string[] {
  return (f.alias ??= [...f.ents, ...[...f.tokens].filter((t) => NICK_INDEX.has(t))]);
}

function relEntityAlias(refs: ResolvedRef[]): number {
  const [a, b] = pair(refs);
  const wa = aliasWords(feat(a));
  const wb = aliasWords(feat(b));
  let best = 0.05;
  for (const x of wa) for (const y of wb) best = Math.max(best, aliasOf(x, y));
  return soft(best);
}

const PAST_CUE = /\b(last (year|month|week)|\d+ (years?|months?|weeks?) ago|used to|when i was|as a (child|kid)|years ago|back then|in (19|20)\d\d|in (january|february|march|april|may|june|july|august|september|october|november|december))\b/;
const NOW_CUE = /\b(now|currently|these days|nowadays|today|this (year|month|week)|recently|just)\b/;
const ORDER_BEFORE = /\b(before|earlier|prior to|previously|first)\b/;
const ORDER_AFTER = /\b(after|afterwards|later|then|since|following)\b/;
const ORDER_DURING = /\b(while|during|meanwhile|at the same time)\b/;

const TEMPORAL_LABELS = ['before', 'after', 'during', 'contains', 'overlaps', 'same_time', 'unknown'];

/** Distribution over temporal_order labels: Allen-style comparison of event intervals; text cues otherwise. */
function relTemporalOrder(refs: ResolvedRef[]): Record<string, number> {
  const [a, b] = pair(refs);
  const out: Record<string, number> = Object.fromEntries(TEMPORAL_LABELS.map((l) => [l, 0.02]));
  const ia = intervalOf(a);
  const ib = intervalOf(b);
  if (ia && ib) {
    const tol = 60_000;
    const conf = ia.assumed && ib.assumed ? 0.7 : 0.85;
    let label: string;
    const coarse = ia.relative || ib.relative;
    const ma = (ia.start + ia.end) / 2;
    const mb = (ib.start + ib.end) / 2;
    if (coarse) label = Math.abs(ma - mb) <= tol ? 'same_time' : ma < mb ? 'before' : 'after';
    else if (Math.abs(ia.start - ib.start) <= tol && Math.abs(ia.end - ib.end) <= tol) label = 'same_time';
    else if (ia.end < ib.start - tol || (ia.start === ia.end && ib.start === ib.end && ia.start < ib.start)) label = 'before';
    else if (ia.start > ib.end + tol || (ia.start === ia.end && ib.start === ib.end && ia.start > ib.start)) label = 'after';
    else if (ia.start >= ib.start - tol && ia.end <= ib.end + tol) label = 'during';
    else if (ib.start >= ia.start - tol && ib.end <= ia.end + tol) label = 'contains';
    else label = 'overlaps';
    out[label] += conf;
    if (label === 'before' || label === 'after') {
      const gap = Math.abs(ia.start - ib.start);
      if (gap < MS.HOUR) out.same_time += 0.15;
      out.unknown += ia.assumed && ib.assumed ? 0.1 : 0.03;
    } else out.unknown += 0.05;
  } else {
    const fa = feat(a);
    const fb = feat(b);
    const rel = kwOf(pairOf(fa, fb), fa, fb) > 0;
    const causal = causalScore(a, b, ctxLexical) - causalScore(b, a, ctxLexical);
    if (cueTest(fa, ORDER_BEFORE) && rel) out.before += 0.5;
    else if (cueTest(fa, ORDER_AFTER) && rel) out.after += 0.5;
    else if (cueTest(fa, ORDER_DURING) && rel) out.during += 0.4;
    else if (cueTest(fb, PAST_CUE) && !cueTest(fa, PAST_CUE)) out.after += 0.45;
    else if (cueTest(fa, PAST_CUE) && !cueTest(fb, PAST_CUE)) out.before += 0.45;
    else if (cueTest(fa, NOW_CUE) && !cueTest(fb, NOW_CUE)) out.after += 0.35;
    else if (Math.abs(causal) > 0.25) out[causal > 0 ? 'before' : 'after'] += 0.45; // a cause precedes its effect
    out.unknown += 0.6;
  }
  return out;
}

const ctxLexical: ScoreContext = { embedCosine: () => undefined, scaleCosine: (c) => clamp01((c - 0.2) / 0.6) };

// ---------------------------------------------------------------------------------------------
// consolidation: on { new_memory, candidates[i] }
// ---------------------------------------------------------------------------------------------

/** The text-only part of `redundancy` (everything but the cosine term), a pure function of the two items' features. */
interface RedundancyLex {
  same: boolean;
  /** -4 + 5·jaccard + 3·containment */
  base: number;
  negation: boolean;
  antonym: boolean;
  numbers: boolean;
  again: boolean;
  days: boolean;
}
const AGAIN_PAIR = /\b(again|another|once more|second time|every)\b/;

function redundancyLex(fa: ItemFeatures, fb: ItemFeatures): RedundancyLex {
  if (fa.lower === fb.lower) return { same: true, base: 0, negation: false, antonym: false, numbers: false, again: false, days: false };
  const jac = intersectionSize(fa.content, fb.content) / Math.max(1, fa.content.size + fb.content.size - intersectionSize(fa.content, fb.content));
  const cont = (containment(fb.content, fa.content) + containment(fa.content, fb.content)) / 2;
  const na = new Set(fa.numbers);
  return {
    same: false,
    base: -4 + 5 * jac + 3 * cont,
    negation: fa.negated !== fb.negated,
    antonym: antonymConflict(fa.lower, fb.lower),
    numbers: fb.numbers.some((x) => !na.has(x)) && fa.numbers.length > 0,
    // on the joined texts: a phrase such as "once more" may span the join
    again: AGAIN_PAIR.test(fa.lower + ' ' + fb.lower),
    days: differentDays(fa, fb),
  };
}

function redundancy(a: Item, b: Item, ctx: ScoreContext): number {
  const fa = feat(a);
  const fb = feat(b);
  const p = pairOf(fa, fb);
  const r = (p.redundancy ??= redundancyLex(fa, fb));
  if (r.same) return 0.97;
  const c = num(b.cosine) ?? ctx.embedCosine(a.text, b.text);
  // only near-duplicate cosines count: related-but-different sentences often reach 0.7–0.8
  let z = r.base + (c !== undefined && Number.isFinite(c) ? 2.5 * clamp01((c - 0.8) / 0.2) - 0.5 : 0);
  if (r.negation) z -= 2;
  if (r.antonym) z -= 2;
  if (r.numbers) z -= 1.5;
  if (r.again) z -= 2.5;
  if (r.days) z -= 2.5;
  return soft(logistic(z));
}

const DAYWORD = /\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|june|july|august|september|october|november|december)s?\b/g;
/** Day and month names of a text (memoised per text). */
function daysOf(f: TextFeatures): Set<string> {
  let d = f.memo.days as Set<string> | undefined;
  if (d === undefined) f.memo.days = d = new Set([...f.lower.matchAll(DAYWORD)].map((m) => m[1]));
  return d;
}
function differentDays(fa: TextFeatures, fb: TextFeatures): boolean {
  const da = daysOf(fa);
  const db = daysOf(fb);
  return da.size > 0 && db.size > 0 && ![...da].some((d) => db.has(d));
}
const PROFESSION = /\b(?:works? as an?|is an?|job is|employed as an?) (?:[\w-]+ ){0,2}?(?<job>\w+(?:er|or|ist|ian|eon|ant|ent)|nurse|chef|doctor|pilot|lawyer|surgeon|teacher|engineer|designer|developer|accountant|pharmacist|architect|plumber|electrician|student)\b/;
const STOP_DOING = /\b(quit|stopped|gave up|no longer|not anymore|doesn't .+ anymore|don't .+ anymore)\s+(\w+)/;

const FRAMES = [
  /\b(lives? in|living in|moved to|relocated to|based in|is from|lives? at)\s+(\w+(?: \w+)?)/,
  /\b(married to|dating|engaged to)\s+(\w+)/,
  /\b(drives? an?|owns? an?)\s+(?:new |old )?(\w+(?: \w+)?)/,
  /\b(name is|called)\s+(\w+)/,
  /\b(favou?rite \w+ is)\s+(\w+(?: \w+)?)/,
];

/** The regex matches `contradictionScore` reads from one text (memoised per text). */
interface ConflictCues {
  frames: (RegExpExecArray | null)[];
  profession: RegExpExecArray | null;
  stopDoing: RegExpExecArray | null;
}
function conflictCues(f: TextFeatures): ConflictCues {
  let c = f.memo.conflict as ConflictCues | undefined;
  if (c === undefined) {
    f.memo.conflict = c = { frames: FRAMES.map((frame) => frame.exec(f.lower)), profession: PROFESSION.exec(f.lower), stopDoing: STOP_DOING.exec(f.lower) };
  }
  return c;
}

/** The conflict level of two items (negation mismatch, antonyms, changed numbers, days, frames, jobs, stopped habits): a pure function of their features. */
function conflictOf(fa: ItemFeatures, fb: ItemFeatures, p: PairData): number {
  let conflict = 0;
  if (fa.negated !== fb.negated && kwOf(p, fa, fb) >= 2) conflict = Math.max(conflict, 0.8);
  if (antonymConflict(fa.lower, fb.lower)) conflict = Math.max(conflict, 0.75);
  const stative = !cueTest(fa, CUES.pastEvent) && !cueTest(fb, CUES.pastEvent);
  const nb = new Set(fb.numbers);
  if (stative && fa.numbers.length && fb.numbers.length && !fa.numbers.some((x) => nb.has(x)) && kwOf(p, fa, fb) >= 2)
    conflict = Math.max(conflict, 0.6);
  if (stative && differentDays(fa, fb) && intersectionSize(fa.topic, fb.topic) >= 2) conflict = Math.max(conflict, 0.65);
  // same frame (residence, job, vehicle, …) with a different value
  const ca = conflictCues(fa);
  const cb = conflictCues(fb);
  for (let i = 0; i < FRAMES.length; i++) {
    const ma = ca.frames[i];
    const mb = cb.frames[i];
    if (ma && mb && ma[ma.length - 1] !== mb[mb.length - 1]) conflict = Math.max(conflict, 0.7);
  }
  const pa = ca.profession;
  const pb = cb.profession;
  if (pa && pb && pa.groups!.job !== pb.groups!.job && sharedOf(p, fa, fb) > 0) conflict = Math.max(conflict, 0.7);
  // "quit smoking" vs "smokes a pack a day"
  for (const [, y, cx] of [[fa, fb, ca], [fb, fa, cb]] as const) {
    const st = cx.stopDoing;
    if (st && !y.negated && y.content.has(stem(st[2]))) conflict = Math.max(conflict, 0.75);
  }
  return conflict;
}

/** Same subject (shared entity or strong overlap) with a conflict: negation mismatch, antonyms, or a changed value. */
function contradictionScore(a: Item, b: Item, ctx: ScoreContext): number {
  const fa = feat(a);
  const fb = feat(b);
  const p = pairOf(fa, fb);
  const topic = clamp01(relatedness(a, b, ctx, num(b.cosine)) + (sharedOf(p, fa, fb) > 0 ? 0.25 : 0));
  const conflict = (p.conflict ??= conflictOf(fa, fb, p));
  return soft(0.03 + 0.95 * topic * conflict);
}

function conRedundant(refs: ResolvedRef[], ctx: ScoreContext): number {
  const [a, b] = pair(refs);
  return redundancy(a, b, ctx);
}
function conContradiction(refs: ResolvedRef[], ctx: ScoreContext): number {
  const [a, b] = pair(refs);
  return contradictionScore(a, b, ctx);
}
function conObsolete(refs: ResolvedRef[], ctx: ScoreContext): number {
  const [a, b] = pair(refs);
  const fa = feat(a);
  const fb = feat(b);
  const p = pairOf(fa, fb);
  const topic = relatedness(a, b, ctx, num(b.cosine));
  const shared = sharedOf(p, fa, fb) > 0 || kwOf(p, fa, fb) >= 2;
  let z = -3 + 2.5 * topic + (shared ? 0.8 : 0);
  const change = cueTest(fa, CUES.change);
  if (change) z += 1.6;
  const c = contradictionScore(a, b, ctx);
  const ia = intervalOf(a);
  const ib = intervalOf(b);
  const later = ia && ib ? (ia.start > ib.end ? 1 : ia.end < ib.start ? -1 : 0) : 0;
  z += (later > 0 || change ? 2.5 : 0.8) * c;
  z += later > 0 ? 0.5 : later < 0 ? -2.5 : 0;
  if (redundancy(a, b, ctx) > 0.8) z -= 1;
  return soft(logistic(z));
}
function conLink(refs: ResolvedRef[], ctx: ScoreContext): number {
  const [a, b] = pair(refs);
  const fa = feat(a);
  const fb = feat(b);
  const pd = pairOf(fa, fb);
  const topic = (pd.topicCos ??= setCosine(fa.topic, fb.topic));
  const c = num(b.cosine) ?? ctx.embedCosine(a.text, b.text);
  const t = c === undefined ? Math.sqrt(topic) : 0.5 * Math.sqrt(topic) + 0.5 * ctx.scaleCosine(c);
  const red = redundancy(a, b, ctx);
  const con = contradictionScore(a, b, ctx);
  const p = logistic(7 * (t - 0.3) + (sharedOf(pd, fa, fb) > 0 ? 0.4 : 0) - 0.3) * (1 - 0.8 * red);
  return soft(Math.max(p, con));
}
const AGAIN_REPRESENTATION = /\b(again|another|once more|every)\b/;
function conRepresentation(refs: ResolvedRef[], ctx: ScoreContext): Record<string, number> {
  const [a, b] = pair(refs);
  const red = redundancy(a, b, ctx);
  const r = relatedness(a, b, ctx, num(b.cosine));
  const fa = feat(a);
  const fb = feat(b);
  const pd = pairOf(fa, fb);
  const topicShared = (pd.topicInter ??= intersectionSize(fa.topic, fb.topic)) >= 1;
  const repeated =
    (cueTest(fa, CUES.pastEvent) && cueTest(fb, CUES.pastEvent) && topicShared) ||
    (pd.again ??= AGAIN_REPRESENTATION.test(fa.lower + ' ' + fb.lower));
  const pattern = (cueTest(fa, CUES.preference) && cueTest(fb, CUES.preference) && topicShared) || repeated;
  const con = contradictionScore(a, b, ctx);
  const promote = (1 - red) * (1 - con) * clamp01(r * 1.3) * (pattern ? 1 : 0.2);
  return {
    keep_separate: (1 - red) * (1 - 0.8 * promote) * 0.8 + 0.05,
    merge: red * (1 - con),
    promote,
    uncertain: 0.12,
  };
}

// ---------------------------------------------------------------------------------------------
// routing: on { query }
// ---------------------------------------------------------------------------------------------

export interface RouteFeatures {
  semantic: number;
  temporal: number;
  causal: number;
  entity: number;
  multi_hop_need: number;
  recency_importance: number;
}
const routeCache = new Map<string, RouteFeatures>();

/** Routing probabilities of a query from cue lexicons (ours); memoised per query text. */
export function routeFeatures(query: string): RouteFeatures {
  const hit = routeCache.get(query);
  if (hit) return hit;
  const f = features(query);
  const l = f.lower;
  const when = CUES.whenQuestion.test(l);
  const timeWords = CUES.timeExpr.test(l) || CUES.orderWords.test(l);
  let temporal = when ? 0.93 : timeWords ? 0.68 : /\b(date|time|year|month|week|day|age|old|schedule)\b/.test(l) ? 0.45 : 0.08;
  if (/\b(recently|lately|these days|so far)\b/.test(l)) temporal = Math.max(temporal, 0.65);
  const why = CUES.whyQuestion.test(l);
  const effectQ = /\bwhat happened (after|when|because|as a result)\b|\bwhat (did|does|will|would) .+ do to\b|\bhow (did|does|has|will|would) .+ (affect|impact|change|influence|shape)\b/.test(l);
  const causal = why ? 0.92 : CUES.causal.test(l) || effectQ ? 0.75 : CUES.causalWeak.test(l) ? 0.4 : 0.07;
  const names = [...f.entities].filter((e) => !/^(lgbtq|ok)$/.test(e)).length;
  const who = CUES.whoQuestion.test(l);
  const entity = names >= 2 ? 0.93 : names === 1 ? 0.86 : who ? 0.8 : /\b(my|his|her|their) (mother|father|mom|dad|sister|brother|friend|wife|husband|boss|partner|son|daughter|dog|cat)\b/.test(l) ? 0.55 : 0.15;
  let mh = -1.6;
  const hypo = /\b(would|might|likely|could|probably|possibly|considered?)\b/.test(l);
  if (hypo) mh += 2.6;
  if (CUES.multiHop.test(l)) mh += 1.0;
  if (/\b(in common|both|compare|relationship between|what kind|what type|how many times|how many)\b/.test(l)) mh += 1.0;
  if (names >= 2 && /\b(and|or)\b/.test(l)) mh += 0.8;
  // aggregation: a plural answer gathered from several memories ("which cities has …", "the names of …", "other than …")
  if (/^\s*(what|which) (\w+ )?\w+s (has|have|does|do|did|are|were)\b|\b(names of|other than|besides|all of|list of|ways|places|things)\b|\b(has|have) \w+ (been to|tried|ever)\b/.test(l)) mh += 1.8;
  if (/\b(during|before|after|while)\b/.test(l) && !when) mh += 0.9;
  if (effectQ) mh += 0.9;
  if (why) mh += 0.4;
  if (when && !hypo) mh -= 0.6;
  const multi = soft(logistic(mh));
  const recency = CUES.recency.test(l)
    ? /\b(recent|recently|latest|lately|currently|now|these days|anymore|most recent|right now|at the moment)\b/.test(l) ? 0.85 : 0.6
    : /\b(has|have) (been|\w+ed)\b|\bhow long has\b/.test(l) ? 0.55 : 0.12;
  let sem = 0.72;
  if (f.content.size <= 1) sem = 0.4;
  if (/\b(what|which|describe|about|kind of|favorite|favourite|hobby|hobbies|like|interests?|think|feel|plan|plans)\b/.test(l)) sem = 0.85;
  if (when && f.content.size <= 3) sem = Math.min(sem, 0.62);
  const out: RouteFeatures = { semantic: sem, temporal, causal, entity, multi_hop_need: multi, recency_importance: recency };
  if (routeCache.size > 20_000) routeCache.clear();
  routeCache.set(query, out);
  return out;
}

const route = (k: keyof RouteFeatures): Scorer => (refs) => routeFeatures(queryOf(refs))[k];

// ---------------------------------------------------------------------------------------------
// candidate scoring: on { query, candidates[i], evidence }
// ---------------------------------------------------------------------------------------------

const DATE_EXPR = /\b(yesterday|today|tomorrow|tonight|ago|last (night|week|weekend|month|year|summer|winter|spring|fall|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|next (week|month|year)|(19|20)\d\d|january|february|march|april|may|june|july|august|september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|\d{1,2}(:\d\d)? ?(am|pm)|o'clock|since|until|for \w+ (years?|months?|weeks?|days?)|when i was|at the age of)\b/;

const PLACE_NAME = /\b(in|at|to|from) [A-Z]/;
const PLACE_WORD = /\b(park|museum|beach|city|country|school|office|home|restaurant|cafe|church|center|centre|gym|library|store|shop|hospital)\b/;
const COUNT_WORD = /\b(one|two|three|four|five|six|seven|eight|nine|ten|once|twice|several|many|few)\b/;

/** How well an item fits the answer type the query asks for (time, reason, person, place, count). */
function answerTypeFit(query: string, it: Item): number {
  const fq = features(query);
  const fi = feat(it);
  let need = 0;
  let fit = 0;
  if (cueTest(fq, CUES.whenQuestion)) {
    need++;
    if (cueTest(fi, DATE_EXPR) || it.start !== undefined) fit++;
    else if (it.time !== undefined) fit += 0.5; // the observation time often dates the event
  }
  if (cueTest(fq, CUES.whyQuestion)) {
    need++;
    if (cueTest(fi, CUES.causal)) fit++;
  }
  if (cueTest(fq, CUES.whoQuestion)) {
    need++;
    if ([...fi.ents].some((e) => !fq.entities.has(e))) fit++;
  }
  if (cueTest(fq, CUES.whereQuestion)) {
    need++;
    if (PLACE_NAME.test(fi.text) || cueTest(fi, PLACE_WORD)) fit++;
  }
  if (cueTest(fq, CUES.countQuestion)) {
    need++;
    if (fi.numbers.length || cueTest(fi, COUNT_WORD)) fit++;
  }
  return need ? fit / need : 0.5;
}

function relevanceScore(query: string, c: Item, ctx: ScoreContext): number {
  const m = queryMatch(query, c, ctx, num(c.cosine));
  const fit = answerTypeFit(query, c);
  return soft(logistic(7 * (m - 0.38) + 1.2 * (fit - 0.5)));
}

function scRelevance(refs: ResolvedRef[], ctx: ScoreContext): number {
  return relevanceScore(queryOf(refs), candidateOf(refs), ctx);
}

const RELATION_NEED: Record<string, keyof RouteFeatures> = {
  semantic: 'semantic', related_to: 'semantic', similar: 'semantic', redundant_with: 'semantic',
  temporal: 'temporal', precedes: 'temporal', same_episode: 'temporal', during: 'temporal', overlaps: 'temporal', concurrent: 'temporal', next: 'temporal',
  causal: 'causal', leads_to: 'causal', causes: 'causal', caused_by: 'causal',
  entity: 'entity', mentions: 'entity', same_entity: 'entity', alias: 'entity',
};

function scRelationUsefulness(refs: ResolvedRef[], ctx: ScoreContext): number {
  const q = queryOf(refs);
  const c = candidateOf(refs);
  const rel = relevanceScore(q, c, ctx);
  const r = typeof c.relation === 'string' ? c.relation.toLowerCase() : undefined;
  const key = r ? RELATION_NEED[r] ?? (r.includes('caus') || r.includes('lead') ? 'causal' : r.includes('tempor') || r.includes('episode') ? 'temporal' : r.includes('entit') ? 'entity' : 'semantic') : undefined;
  if (!key) return soft(0.1 + 0.6 * rel);
  const rf = routeFeatures(q);
  let need = key === 'temporal' ? Math.max(rf.temporal, 0.8 * rf.recency_importance) : rf[key];
  // a query with a specific need (why / when) is served by that view more than by similarity or names
  const specific = Math.max(rf.causal, rf.temporal);
  if ((key === 'semantic' || key === 'entity') && specific > 0.6) need *= 1 - 0.6 * specific;
  const pe = num(c.probability) ?? 0.8;
  const p = 0.05 + 0.75 * need * (0.35 + 0.65 * rel) + 0.15 * pe * rel;
  return soft(r === 'redundant_with' ? p * 0.5 : p);
}

function scNewInformation(refs: ResolvedRef[], ctx: ScoreContext): number {
  const q = queryOf(refs);
  const c = candidateOf(refs);
  const ev = evidenceOf(refs);
  const fc = feat(c);
  let covered = 0;
  for (const e of ev) {
    if (feat(e).lower === fc.lower) {
      covered = 1;
      break;
    }
    covered = Math.max(covered, containment(fc.content, feat(e).content));
  }
  const rel = relevanceScore(q, c, ctx);
  return soft((1 - covered) ** 1.5 * rel * 1.1);
}

function scSupports(refs: ResolvedRef[], ctx: ScoreContext): number {
  const q = queryOf(refs);
  const c = candidateOf(refs);
  const ev = evidenceOf(refs);
  if (!ev.length) return 0.1;
  const fc = feat(c);
  let best = 0;
  let conflict = 0;
  for (const e of ev) {
    const fe = feat(e);
    const t = fe.lower === fc.lower ? 1 : Math.sqrt(setCosine(fc.topic, fe.topic)) + (sharedEntities(fc.ents, fe.ents) > 0 ? 0.1 : 0);
    best = Math.max(best, t);
    conflict = Math.max(conflict, contradictionScore(c, e, ctx));
  }
  const rel = relevanceScore(q, c, ctx);
  return soft(logistic(7 * (best - 0.4) + 2.0 * (rel - 0.5)) * (1 - conflict));
}

// ---------------------------------------------------------------------------------------------
// stopping: on { query, evidence, depth }
// ---------------------------------------------------------------------------------------------

interface Sufficiency {
  s: number;
  missingType: boolean;
  missingEntity: boolean;
  coverage: number;
}

function sufficiency(query: string, ev: Item[], ctx: ScoreContext): Sufficiency {
  if (!ev.length) return { s: 0.02, missingType: true, missingEntity: true, coverage: 0 };
  const fq = features(query);
  const union = new Set<string>();
  const ents = new Set<string>();
  let best = 0;
  let fitBest = 0;
  for (const e of ev) {
    const fe = feat(e);
    for (const w of fe.content) union.add(w);
    for (const x of fe.ents) ents.add(x);
    const m = queryMatch(query, e, ctx, num(e.cosine));
    if (m > best) best = m;
    if (m >= 0.3) fitBest = Math.max(fitBest, answerTypeFit(query, e));
  }
  const fqi = queryFeat(query);
  const coverage = containment(fqi.topic, union);
  const entCov = fq.entities.size ? sharedEntities(fq.entities, ents) / fq.entities.size : 1;
  const hypo = routeFeatures(query).multi_hop_need;
  let conflict = 0;
  for (let i = 0; i < ev.length && i < 12; i++) for (let j = i + 1; j < ev.length && j < 12; j++) conflict = Math.max(conflict, contradictionScore(ev[i], ev[j], ctx));
  const needsType = answerTypeFit(query, { text: '' }) !== 0.5; // the query asks for a time, reason, person, place or count
  const z = -3.4 + 2.2 * coverage + 2.2 * best + 0.8 * entCov + (needsType ? 3.0 * (fitBest - 0.6) : 0.6) - 1.0 * hypo + (ev.length >= 2 ? 0.3 : 0) - 6 * conflict;
  return { s: soft(logistic(z)), missingType: fitBest < 0.5, missingEntity: entCov < 1, coverage };
}

function stEvidenceSufficient(refs: ResolvedRef[], ctx: ScoreContext): number {
  return sufficiency(queryOf(refs), evidenceOf(refs), ctx).s;
}
function stMissing(refs: ResolvedRef[], ctx: ScoreContext): number {
  const r = sufficiency(queryOf(refs), evidenceOf(refs), ctx);
  return soft(clamp01(0.85 * (1 - r.s) + (r.missingType ? 0.1 : 0) + (r.missingEntity ? 0.05 : 0)));
}
function stContinue(refs: ResolvedRef[], ctx: ScoreContext): number {
  const ev = evidenceOf(refs);
  const r = sufficiency(queryOf(refs), ev, ctx);
  const depth = depthOf(refs);
  const decay = 1 / (1 + Math.max(0, depth) / 4);
  return soft((1 - r.s) * (0.25 + 0.75 * decay) * (ev.length ? 1 : 1.05));
}
function stContradiction(refs: ResolvedRef[], ctx: ScoreContext): number {
  const ev = evidenceOf(refs);
  let best = 0.03;
  for (let i = 0; i < ev.length; i++) for (let j = i + 1; j < ev.length; j++) best = Math.max(best, contradictionScore(ev[i], ev[j], ctx));
  return soft(best);
}

/** The scorer of every catalogue kind. */
export const SCORERS: Record<string, Scorer> = {
  'typing.episodic': typingEpisodic,
  'typing.semantic': typingSemantic,
  'typing.procedural': typingProcedural,
  'typing.preference': typingPreference,
  'relation.semantic': relSemantic,
  'relation.causes': relCauses,
  'relation.caused_by': relCausedBy,
  'relation.same_episode': relSameEpisode,
  'relation.entity_alias': relEntityAlias,
  'relation.temporal_order': relTemporalOrder,
  'consolidation.redundant': conRedundant,
  'consolidation.contradiction': conContradiction,
  'consolidation.obsolete': conObsolete,
  'consolidation.link': conLink,
  'consolidation.representation': conRepresentation,
  'routing.semantic': route('semantic'),
  'routing.temporal': route('temporal'),
  'routing.causal': route('causal'),
  'routing.entity': route('entity'),
  'routing.multi_hop_need': route('multi_hop_need'),
  'routing.recency_importance': route('recency_importance'),
  'scoring.relevance': scRelevance,
  'scoring.relation_usefulness': scRelationUsefulness,
  'scoring.new_information': scNewInformation,
  'scoring.supports_current_evidence': scSupports,
  'stopping.evidence_sufficient': stEvidenceSufficient,
  'stopping.continue_useful': stContinue,
  'stopping.missing_evidence': stMissing,
  'stopping.contradiction': stContradiction,
};

/** Texts a question's scorer may embed (so the backend can embed them in one batch). */
export function textsOf(refs: ResolvedRef[]): string[] {
  const out: string[] = [];
  for (const r of refs) for (const it of toItems(r.value)) if (it.text) out.push(it.text);
  return out;
}

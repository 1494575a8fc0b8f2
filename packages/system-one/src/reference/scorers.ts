// Frozen reference copy (commit c913a58) of the code before the per-question speed-up: used only by the identity
// tests (src/identity.test.ts) and as the same-run baseline of `pnpm bench`. Not exported, not built. Do not edit.
/**
 * Offline scorers (ours): one documented heuristic per catalogue kind. Inputs are the question's
 * resolved `{{path}}` references; outputs are a probability (Noul) or a label distribution (Choice).
 * They use cue lexicons, entity and keyword overlap, time arithmetic over ISO times, and a similarity
 * that prefers precomputed `cosine` fields, then injected embeddings, then lexical overlap.
 * The numbers (weights, offsets) are hand-set, not fitted; see the package README for measured accuracy.
 */
import type { ResolvedRef } from './schema';
import {
  CUES, antonymConflict, clamp01, containment, eventInterval, features, intersectionSize, logistic, MS, setCosine,
  sharedEntities, soft, stem, type TextFeatures,
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
  if (typeof v === 'string') return { text: v };
  if (v && typeof v === 'object' && !Array.isArray(v) && typeof (v as any).text === 'string') return v as Item;
  if (v && typeof v === 'object' && !Array.isArray(v) && typeof (v as any).content === 'string') return { ...(v as any), text: (v as any).content };
  return { text: v === undefined ? '' : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v) };
}

function toItems(v: unknown): Item[] {
  if (Array.isArray(v)) return v.map(toItem);
  if (v === undefined || v === null || v === '') return [];
  return [toItem(v)];
}

const isListItemPath = (p: string) => /\.\d+$/.test(p);

/** The (main, candidate) pair of a pair question: the list-item ref is the candidate, the other the main memory. */
function pair(refs: ResolvedRef[]): [Item, Item] {
  const c = refs.find((r) => isListItemPath(r.path));
  const m = refs.find((r) => r !== c && !Array.isArray(r.value));
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
  /** The item fields these features were computed from (a mutated item is recomputed). */
  src: [unknown, unknown, unknown, unknown];
  ents: Set<string>;
  /** Content stems that are not part of an entity name (what the item is about, besides who). */
  topic: Set<string>;
}
const itemCache = new WeakMap<object, ItemFeatures>();

function feat(it: Item): ItemFeatures {
  const hit = itemCache.get(it);
  if (hit && hit.src[0] === it.text && hit.src[1] === it.entities && hit.src[2] === it.keywords && hit.src[3] === it.speaker) return hit;
  const f = features(it.text);
  let ents = f.entities;
  const given = Array.isArray(it.entities) ? it.entities.filter((e): e is string => typeof e === 'string') : [];
  let content = f.content;
  const kws = Array.isArray(it.keywords) ? it.keywords.filter((e): e is string => typeof e === 'string') : [];
  if (given.length || typeof it.speaker === 'string') {
    ents = new Set(ents);
    for (const e of given) ents.add(e.toLowerCase());
    if (typeof it.speaker === 'string') ents.add(it.speaker.toLowerCase());
  }
  if (kws.length) {
    content = new Set(content);
    for (const k of kws) for (const w of k.toLowerCase().split(/\s+/)) if (w) content.add(stem(w));
  }
  const out: ItemFeatures = { ...f, src: [it.text, it.entities, it.keywords, it.speaker], content, ents, topic: topicOf(content, ents) };
  itemCache.set(it, out);
  return out;
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
  const lex = setCosine(fa.content, fb.content);
  const ent = sharedEntities(fa.ents, fb.ents) > 0 ? 1 : 0;
  const lexical = clamp01(0.8 * Math.sqrt(lex) + 0.2 * ent);
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
// ---------------------------------------------------------------------------------------------

function typingEpisodic(refs: ResolvedRef[]): number {
  const it = toItem(refs[0]?.value);
  const l = feat(it).lower;
  let x = -1.6;
  const past = CUES.pastEvent.test(l) || /\b\w{3,}ed (my|the|a|an|our|his|her|their|to|at|in|on|with|for|up|out)\b/.test(l);
  if (past) x += 1.6;
  if (CUES.timeExpr.test(l)) x += 1.0;
  if (/\b(i|we|my)\b/.test(l)) x += 0.3;
  if (CUES.habitual.test(l)) x -= 1.2;
  if (CUES.imperative.test(l) || /\bhow to\b/.test(l)) x -= 1.0;
  if (CUES.preference.test(l) && !CUES.pastEvent.test(l)) x -= 0.6;
  return soft(logistic(x));
}

function typingSemantic(refs: ResolvedRef[]): number {
  const it = toItem(refs[0]?.value);
  const l = feat(it).lower;
  let x = -1.0;
  if (CUES.fact.test(l)) x += 1.8;
  const past = CUES.pastEvent.test(l);
  if (/\b(is|are|has|have|am)\b/.test(l) && !past) x += 1.0;
  // generic present simple of a third-person subject ("water boils", "the library closes")
  else if (/^(the |a |an |our |my |his |her |their )?\w+( \w+)? \w+(s|es)\b/.test(l) && !past && !/\b(i|we|you)\b/.test(l)) x += 1.0;
  if (CUES.timeExpr.test(l)) x -= 0.7;
  if (CUES.pastEvent.test(l)) x -= 0.6;
  if (CUES.imperative.test(l)) x -= 0.8;
  if (/\b(feel|feeling|felt|tired|excited|happy today)\b/.test(l)) x -= 0.5;
  return soft(logistic(x));
}

function typingProcedural(refs: ResolvedRef[]): number {
  const it = toItem(refs[0]?.value);
  const l = feat(it).lower;
  let x = -2.2;
  if (CUES.procedure.test(l)) x += 1.6;
  if (CUES.imperative.test(l)) x += 1.6;
  if (/\b(first|then|next|after that|finally)\b.*\b(then|next|after that|finally|and then)\b/.test(l)) x += 1.2;
  if (/\b(you|your)\b/.test(l)) x += 0.3;
  if (CUES.habitual.test(l) && (CUES.procedure.test(l) || /\b(then|after that|before)\b/.test(l))) x += 1.2;
  // an imperative after a purpose or condition clause: "To reset it, hold …", "When it beeps, take …"
  if (/^(to|when|if|once|after|before)\b[^,]*, (then )?(add|mix|hold|press|take|put|turn|open|close|click|run|use|let|wait|remove|pour|stir|check|fill|select|set|keep|place|leave|cover|cut|wash|rinse|unplug|plug|restart|boil|heat)\b/.test(l)) x += 2.4;
  if (CUES.pastEvent.test(l) && !CUES.imperative.test(l)) x -= 0.6;
  return soft(logistic(x));
}

function typingPreference(refs: ResolvedRef[]): number {
  const it = toItem(refs[0]?.value);
  const l = feat(it).lower;
  let x = -2.0;
  if (CUES.preference.test(l)) x += 2.8;
  if (/\b(favorite|favourite|prefer|would rather|can't stand|hate|love)\b/.test(l)) x += 0.8;
  if (/\b(like to|likes to|love to|enjoy)\b/.test(l)) x += 0.4;
  if (/\b(looks like|feel like|like that|like this|like a|just like|like the)\b/.test(l) && !/\b(love|enjoy|prefer|favorite)\b/.test(l)) x -= 2.0;
  return soft(logistic(x));
}

// ---------------------------------------------------------------------------------------------
// pair relations: on { new_memory, candidates[i] }
// ---------------------------------------------------------------------------------------------

function relSemantic(refs: ResolvedRef[], ctx: ScoreContext): number {
  const [a, b] = pair(refs);
  const r = relatedness(a, b, ctx, num(b.cosine));
  const shared = sharedEntities(feat(a).ents, feat(b).ents);
  const kw = intersectionSize(feat(a).content, feat(b).content);
  return soft(logistic(9 * (r - 0.32) + 0.4 * Math.min(kw, 3) + (shared > 0 ? 0.3 : 0) - 0.6));
}

const CAUSE_AFTER = /\b(because of|because|since|due to|owing to|thanks to|as a result of|after)\b/; // effect <conn> cause
const EFFECT_AFTER = /\b(so that|so|therefore|thus|hence|as a result|that's why|which is why|this is why|consequently|which led to|led to|leads to|resulted in|made me|made us|and now)\b/; // cause <conn> effect

/** Split a text at a causal connective into {cause, effect} clause features, or null. */
function causalClauses(t: string): { cause: Set<string>; effect: Set<string> } | null {
  const l = t.toLowerCase();
  let m = /^\s*(because of|because|since|due to|after)\b([^,]*),(.*)$/.exec(l);
  if (m) return { cause: features(m[2]).content, effect: features(m[3]).content };
  m = CAUSE_AFTER.exec(l);
  const m2 = EFFECT_AFTER.exec(l);
  if (m && (!m2 || m.index <= m2.index)) {
    if (m[1] === 'since' && /\bsince (\d|last|then|monday|january|a |the )/.test(l.slice(m.index))) return null;
    return { effect: features(l.slice(0, m.index)).content, cause: features(l.slice(m.index + m[0].length)).content };
  }
  if (m2) return { cause: features(l.slice(0, m2.index)).content, effect: features(l.slice(m2.index + m2[0].length)).content };
  return null;
}

/**
 * p(x causes y): evidence that y's text names x's content as its cause (or x names y's as its effect),
 * discounted when the times say x happened after y. Without any connective, a weak prior from
 * topical overlap and time order (ours).
 */
function causalScore(x: Item, y: Item, ctx: ScoreContext): number {
  const fx = feat(x);
  const fy = feat(y);
  let ev = 0;
  const cy = causalClauses(fy.text);
  if (cy) ev = Math.max(ev, containment(fx.content, cy.cause) * 1.2 - 0.4 * containment(fx.content, cy.effect));
  const cx = causalClauses(fx.text);
  if (cx) ev = Math.max(ev, containment(fy.content, cx.effect) * 1.2 - 0.4 * containment(fy.content, cx.cause));
  // "So now I can drive…", "That's why…": y's effect connective refers back to a previous statement
  if (/^\s*(so|therefore|thus|hence|as a result|because of (that|this)|that's why|this is why|which is why|consequently)\b/.test(fy.lower)) ev = Math.max(ev, 0.55);
  if (/^\s*(because|since|due to)\b/.test(fx.lower) && !cx) ev = Math.max(ev, 0.3);
  const ix = eventInterval(x);
  const iy = eventInterval(y);
  let order = 0;
  if (ix && iy) order = ix.start < iy.start - 60_000 ? 1 : ix.start > iy.start + 60_000 ? -1 : 0;
  const rel = relatedness(x, y, ctx, num(y.cosine) ?? num(x.cosine));
  let z = -2.6 + 4.2 * clamp01(ev) + 1.2 * rel + 0.5 * order;
  if (order < 0) z -= 1.0;
  if (!cx && !cy && /\b(broke|lost|fired|sick|injur|accident|died|passed away|crash|fail|flood|storm|won|promot|laid off|diagnos)/.test(fx.lower)) z += 0.4 * rel;
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

function relSameEpisode(refs: ResolvedRef[], ctx: ScoreContext): number {
  const [a, b] = pair(refs);
  const r = relatedness(a, b, ctx, num(b.cosine));
  let z = -2.2 + 3.2 * r;
  if (a.session !== undefined && b.session !== undefined) z += a.session === b.session ? 1.6 : -1.8;
  const ia = eventInterval(a);
  const ib = eventInterval(b);
  if (ia && ib) {
    const gap = Math.max(0, Math.max(ia.start, ib.start) - Math.min(ia.end, ib.end));
    if (gap <= 2 * MS.HOUR) z += 1.9;
    else if (gap <= 12 * MS.HOUR) z += 0.6;
    else if (gap <= 2 * MS.DAY) z -= 0.4;
    else z -= 2.0;
  }
  if (/\b(then|after that|afterwards|later that|that (day|night|evening|morning)|at the same|while there|there,|also at)\b/.test(feat(a).lower)) z += 0.5;
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

function relEntityAlias(refs: ResolvedRef[]): number {
  const [a, b] = pair(refs);
  const ea = feat(a).ents;
  const eb = feat(b).ents;
  const wa = [...ea, ...[...feat(a).tokens].filter((t) => NICK_INDEX.has(t))];
  const wb = [...eb, ...[...feat(b).tokens].filter((t) => NICK_INDEX.has(t))];
  let best = 0.05;
  for (const x of wa) for (const y of wb) best = Math.max(best, aliasScore(x, y));
  return soft(best);
}

const TEMPORAL_LABELS = ['before', 'after', 'during', 'contains', 'overlaps', 'same_time', 'unknown'];

/** Distribution over temporal_order labels: Allen-style comparison of event intervals; text cues otherwise. */
function relTemporalOrder(refs: ResolvedRef[]): Record<string, number> {
  const [a, b] = pair(refs);
  const out: Record<string, number> = Object.fromEntries(TEMPORAL_LABELS.map((l) => [l, 0.02]));
  const ia = eventInterval(a);
  const ib = eventInterval(b);
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
    const la = feat(a).lower;
    const lb = feat(b).lower;
    const rel = intersectionSize(feat(a).content, feat(b).content) > 0;
    const PAST = /\b(last (year|month|week)|\d+ (years?|months?|weeks?) ago|used to|when i was|as a (child|kid)|years ago|back then|in (19|20)\d\d|in (january|february|march|april|may|june|july|august|september|october|november|december))\b/;
    const NOW = /\b(now|currently|these days|nowadays|today|this (year|month|week)|recently|just)\b/;
    const causal = causalScore(a, b, ctxLexical) - causalScore(b, a, ctxLexical);
    if (/\b(before|earlier|prior to|previously|first)\b/.test(la) && rel) out.before += 0.5;
    else if (/\b(after|afterwards|later|then|since|following)\b/.test(la) && rel) out.after += 0.5;
    else if (/\b(while|during|meanwhile|at the same time)\b/.test(la) && rel) out.during += 0.4;
    else if (PAST.test(lb) && !PAST.test(la)) out.after += 0.45;
    else if (PAST.test(la) && !PAST.test(lb)) out.before += 0.45;
    else if (NOW.test(la) && !NOW.test(lb)) out.after += 0.35;
    else if (Math.abs(causal) > 0.25) out[causal > 0 ? 'before' : 'after'] += 0.45; // a cause precedes its effect
    out.unknown += 0.6;
  }
  return out;
}

const ctxLexical: ScoreContext = { embedCosine: () => undefined, scaleCosine: (c) => clamp01((c - 0.2) / 0.6) };

// ---------------------------------------------------------------------------------------------
// consolidation: on { new_memory, candidates[i] }
// ---------------------------------------------------------------------------------------------

function redundancy(a: Item, b: Item, ctx: ScoreContext): number {
  const fa = feat(a);
  const fb = feat(b);
  if (fa.lower === fb.lower) return 0.97;
  const jac = intersectionSize(fa.content, fb.content) / Math.max(1, fa.content.size + fb.content.size - intersectionSize(fa.content, fb.content));
  const cont = (containment(fb.content, fa.content) + containment(fa.content, fb.content)) / 2;
  const c = num(b.cosine) ?? ctx.embedCosine(a.text, b.text);
  // only near-duplicate cosines count: related-but-different sentences often reach 0.7–0.8
  let z = -4 + 5 * jac + 3 * cont + (c !== undefined && Number.isFinite(c) ? 2.5 * clamp01((c - 0.8) / 0.2) - 0.5 : 0);
  if (fa.negated !== fb.negated) z -= 2;
  if (antonymConflict(fa.lower, fb.lower)) z -= 2;
  const na = new Set(fa.numbers);
  if (fb.numbers.some((x) => !na.has(x)) && fa.numbers.length) z -= 1.5;
  if (/\b(again|another|once more|second time|every)\b/.test(fa.lower + ' ' + fb.lower)) z -= 2.5;
  if (differentDays(fa.lower, fb.lower)) z -= 2.5;
  return soft(logistic(z));
}

const DAYWORD = /\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|june|july|august|september|october|november|december)s?\b/g;
function differentDays(a: string, b: string): boolean {
  const da = new Set([...a.matchAll(DAYWORD)].map((m) => m[1]));
  const db = new Set([...b.matchAll(DAYWORD)].map((m) => m[1]));
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

/** Same subject (shared entity or strong overlap) with a conflict: negation mismatch, antonyms, or a changed value. */
function contradictionScore(a: Item, b: Item, ctx: ScoreContext): number {
  const fa = feat(a);
  const fb = feat(b);
  const topic = clamp01(relatedness(a, b, ctx, num(b.cosine)) + (sharedEntities(fa.ents, fb.ents) > 0 ? 0.25 : 0));
  let conflict = 0;
  if (fa.negated !== fb.negated && intersectionSize(fa.content, fb.content) >= 2) conflict = Math.max(conflict, 0.8);
  if (antonymConflict(fa.lower, fb.lower)) conflict = Math.max(conflict, 0.75);
  const stative = !CUES.pastEvent.test(fa.lower) && !CUES.pastEvent.test(fb.lower);
  const nb = new Set(fb.numbers);
  if (stative && fa.numbers.length && fb.numbers.length && !fa.numbers.some((x) => nb.has(x)) && intersectionSize(fa.content, fb.content) >= 2)
    conflict = Math.max(conflict, 0.6);
  if (stative && differentDays(fa.lower, fb.lower) && intersectionSize(fa.topic, fb.topic) >= 2) conflict = Math.max(conflict, 0.65);
  // same frame (residence, job, vehicle, …) with a different value
  for (const frame of FRAMES) {
    const ma = frame.exec(fa.lower);
    const mb = frame.exec(fb.lower);
    if (ma && mb && ma[ma.length - 1] !== mb[mb.length - 1]) conflict = Math.max(conflict, 0.7);
  }
  const pa = PROFESSION.exec(fa.lower);
  const pb = PROFESSION.exec(fb.lower);
  if (pa && pb && pa.groups!.job !== pb.groups!.job && sharedEntities(fa.ents, fb.ents) > 0) conflict = Math.max(conflict, 0.7);
  // "quit smoking" vs "smokes a pack a day"
  for (const [x, y] of [[fa, fb], [fb, fa]] as const) {
    const st = STOP_DOING.exec(x.lower);
    if (st && !y.negated && y.content.has(stem(st[2]))) conflict = Math.max(conflict, 0.75);
  }
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
  const topic = relatedness(a, b, ctx, num(b.cosine));
  const shared = sharedEntities(fa.ents, feat(b).ents) > 0 || intersectionSize(fa.content, feat(b).content) >= 2;
  let z = -3 + 2.5 * topic + (shared ? 0.8 : 0);
  const change = CUES.change.test(fa.lower);
  if (change) z += 1.6;
  const c = contradictionScore(a, b, ctx);
  const ia = eventInterval(a);
  const ib = eventInterval(b);
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
  const topic = setCosine(fa.topic, fb.topic);
  const c = num(b.cosine) ?? ctx.embedCosine(a.text, b.text);
  const t = c === undefined ? Math.sqrt(topic) : 0.5 * Math.sqrt(topic) + 0.5 * ctx.scaleCosine(c);
  const red = redundancy(a, b, ctx);
  const con = contradictionScore(a, b, ctx);
  const p = logistic(7 * (t - 0.3) + (sharedEntities(fa.ents, fb.ents) > 0 ? 0.4 : 0) - 0.3) * (1 - 0.8 * red);
  return soft(Math.max(p, con));
}
function conRepresentation(refs: ResolvedRef[], ctx: ScoreContext): Record<string, number> {
  const [a, b] = pair(refs);
  const red = redundancy(a, b, ctx);
  const r = relatedness(a, b, ctx, num(b.cosine));
  const la = feat(a).lower;
  const lb = feat(b).lower;
  const repeated =
    (CUES.pastEvent.test(la) && CUES.pastEvent.test(lb) && intersectionSize(feat(a).topic, feat(b).topic) >= 1) ||
    /\b(again|another|once more|every)\b/.test(la + ' ' + lb);
  const pattern = (CUES.preference.test(la) && CUES.preference.test(lb) && intersectionSize(feat(a).topic, feat(b).topic) >= 1) || repeated;
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

/** How well an item fits the answer type the query asks for (time, reason, person, place, count). */
function answerTypeFit(query: string, it: Item): number {
  const l = features(query).lower;
  const il = feat(it).lower;
  let need = 0;
  let fit = 0;
  if (CUES.whenQuestion.test(l)) {
    need++;
    if (DATE_EXPR.test(il) || it.start !== undefined) fit++;
    else if (it.time !== undefined) fit += 0.5; // the observation time often dates the event
  }
  if (CUES.whyQuestion.test(l)) {
    need++;
    if (CUES.causal.test(il)) fit++;
  }
  if (CUES.whoQuestion.test(l)) {
    need++;
    if ([...feat(it).ents].some((e) => !features(query).entities.has(e))) fit++;
  }
  if (CUES.whereQuestion.test(l)) {
    need++;
    if (/\b(in|at|to|from) [A-Z]/.test(feat(it).text) || /\b(park|museum|beach|city|country|school|office|home|restaurant|cafe|church|center|centre|gym|library|store|shop|hospital)\b/.test(il)) fit++;
  }
  if (CUES.countQuestion.test(l)) {
    need++;
    if (feat(it).numbers.length || /\b(one|two|three|four|five|six|seven|eight|nine|ten|once|twice|several|many|few)\b/.test(il)) fit++;
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

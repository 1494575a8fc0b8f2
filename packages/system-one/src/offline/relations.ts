/** Offline scorers of the pair relations on `{ new_memory, candidates[i] }` (ours): semantic, causes / caused_by, same_episode, entity_alias, temporal_order. */
import type { ResolvedRef } from '../schema.js';
import { LruMap } from './lru-map.js';
import { clamp01, containment, cueTest, features, logistic, MAX_TEXTS, MS, soft, type TextFeatures } from './text.js';
import { feat, intervalOf, type Item, type ItemFeatures, kwOf, pair, pairOf, type ScoreContext, sharedOf } from './inputs.js';
import { num, relatedness } from './similarity.js';

// ---------------------------------------------------------------------------------------------
// pair relations: on { new_memory, candidates[i] }
// ---------------------------------------------------------------------------------------------

export function relSemantic(refs: ResolvedRef[], ctx: ScoreContext): number {
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

export function relCauses(refs: ResolvedRef[], ctx: ScoreContext): number {
  const [a, b] = pair(refs);
  return causalScore(a, b, ctx);
}
export function relCausedBy(refs: ResolvedRef[], ctx: ScoreContext): number {
  const [a, b] = pair(refs);
  return causalScore(b, a, ctx);
}

const EPISODE_CONTINUATION = /\b(then|after that|afterwards|later that|that (day|night|evening|morning)|at the same|while there|there,|also at)\b/;

export function relSameEpisode(refs: ResolvedRef[], ctx: ScoreContext): number {
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
const aliasCache = new LruMap<string, LruMap<string, number>>(MAX_TEXTS);
function aliasOf(x: string, y: string): number {
  let m = aliasCache.get(x);
  if (m === undefined) aliasCache.set(x, (m = new LruMap(256)));
  let v = m.get(y);
  if (v === undefined) m.set(y, (v = aliasScore(x, y)));
  return v;
}
/** The names an item may be aliased by: its entities, then its tokens found in the nickname table. */
function aliasWords(f: ItemFeatures): string[] {
  return (f.alias ??= [...f.ents, ...[...f.tokens].filter((t) => NICK_INDEX.has(t))]);
}

export function relEntityAlias(refs: ResolvedRef[]): number {
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
export function relTemporalOrder(refs: ResolvedRef[]): Record<string, number> {
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

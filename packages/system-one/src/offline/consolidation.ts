/** Offline scorers of consolidation on `{ new_memory, candidates[i] }` (ours): redundant, contradiction, obsolete, link, representation. */
import type { ResolvedRef } from '../schema.js';
import { CUES, antonymConflict, clamp01, containment, cueTest, intersectionSize, logistic, setCosine, soft, stem, type TextFeatures } from './text.js';
import { feat, intervalOf, type Item, type ItemFeatures, kwOf, pair, type PairData, pairOf, type ScoreContext, sharedOf, type RedundancyLex } from './inputs.js';
import { relationProbabilities } from './relation-model.js';
import { num, relatedness } from './similarity.js';

// ---------------------------------------------------------------------------------------------
// consolidation: on { new_memory, candidates[i] }
// ---------------------------------------------------------------------------------------------

/** The text-only part of `redundancy` (everything but the cosine term), a pure function of the two items' features. */
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

export function redundancy(a: Item, b: Item, ctx: ScoreContext): number {
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
export function contradictionScore(a: Item, b: Item, ctx: ScoreContext): number {
  const fa = feat(a);
  const fb = feat(b);
  const p = pairOf(fa, fb);
  const topic = clamp01(relatedness(a, b, ctx, num(b.cosine)) + (sharedOf(p, fa, fb) > 0 ? 0.25 : 0));
  const conflict = (p.conflict ??= conflictOf(fa, fb, p));
  return soft(0.03 + 0.95 * topic * conflict);
}

/**
 * The three pair questions of consolidation and of the write path's near-duplicate check (ours,
 * issue 17) — same fact, contradiction, obsolete (the candidate is superseded by the new memory) —
 * answered by the trained relation model (`relation-model.ts`, `relation.weights.json`): its
 * calibrated p(same), p(contradiction) and p(update) for (candidate = older, new_memory = newer).
 * A new memory whose time lies before the candidate's cannot make it obsolete; a question (either
 * side) neither contradicts nor supersedes, nor does a statement by another speaker (both items carry
 * a `speaker` and they differ).
 */
function relationOf(refs: ResolvedRef[]): { a: Item; b: Item; p: ReturnType<typeof relationProbabilities>; question: boolean } {
  const [a, b] = pair(refs);
  // a question states nothing: it neither contradicts nor supersedes, nor is it superseded; and one
  // person's statement does not change another person's state (both speakers known and different)
  const question = cueTest(feat(a), CUES.question) || cueTest(feat(b), CUES.question) || otherSpeaker(a, b);
  return { a, b, p: relationProbabilities(b.text, a.text), question };
}
/** Both items name their speaker (`speaker` field) and the speakers differ (case-insensitive). */
function otherSpeaker(a: Item, b: Item): boolean {
  const sa = typeof a.speaker === 'string' ? a.speaker.trim().toLowerCase() : '';
  const sb = typeof b.speaker === 'string' ? b.speaker.trim().toLowerCase() : '';
  return sa !== '' && sb !== '' && sa !== sb;
}
export function conRedundant(refs: ResolvedRef[], _ctx: ScoreContext): number {
  const { a, b, p } = relationOf(refs);
  if (feat(a).lower === feat(b).lower) return 0.97;
  return soft(p.same);
}
export function conContradiction(refs: ResolvedRef[], _ctx: ScoreContext): number {
  const { p, question } = relationOf(refs);
  return soft(question ? 0 : p.contradiction);
}
export function conObsolete(refs: ResolvedRef[], _ctx: ScoreContext): number {
  const { a, b, p, question } = relationOf(refs);
  if (question) return soft(0);
  const ia = intervalOf(a);
  const ib = intervalOf(b);
  if (ia && ib && ia.end < ib.start) return soft(0); // the new memory is about an earlier time
  return soft(p.update);
}
export function conLink(refs: ResolvedRef[], ctx: ScoreContext): number {
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
export function conRepresentation(refs: ResolvedRef[], ctx: ScoreContext): Record<string, number> {
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

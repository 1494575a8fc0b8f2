/** Offline scorers of candidate scoring on `{ query, candidates[i], evidence }` (ours): relevance, relation usefulness, new information, support. */
import type { ResolvedRef } from '../schema.js';
import { CUES, containment, cueTest, features, logistic, setCosine, sharedEntities, soft } from './text.js';
import { contradictionScore } from './consolidation.js';
import { candidateOf, evidenceOf, feat, type Item, queryOf, type ScoreContext } from './inputs.js';
import { routeFeatures, type RouteFeatures } from './routing.js';
import { num, queryMatch } from './similarity.js';

// ---------------------------------------------------------------------------------------------
// candidate scoring: on { query, candidates[i], evidence }
// ---------------------------------------------------------------------------------------------

const DATE_EXPR = /\b(yesterday|today|tomorrow|tonight|ago|last (night|week|weekend|month|year|summer|winter|spring|fall|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|next (week|month|year)|(19|20)\d\d|january|february|march|april|may|june|july|august|september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|\d{1,2}(:\d\d)? ?(am|pm)|o'clock|since|until|for \w+ (years?|months?|weeks?|days?)|when i was|at the age of)\b/;

const PLACE_NAME = /\b(in|at|to|from) [A-Z]/;
const PLACE_WORD = /\b(park|museum|beach|city|country|school|office|home|restaurant|cafe|church|center|centre|gym|library|store|shop|hospital)\b/;
const COUNT_WORD = /\b(one|two|three|four|five|six|seven|eight|nine|ten|once|twice|several|many|few)\b/;

/** How well an item fits the answer type the query asks for (time, reason, person, place, count). */
export function answerTypeFit(query: string, it: Item): number {
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

export function scRelevance(refs: ResolvedRef[], ctx: ScoreContext): number {
  return relevanceScore(queryOf(refs), candidateOf(refs), ctx);
}

const RELATION_NEED: Record<string, keyof RouteFeatures> = {
  semantic: 'semantic', related_to: 'semantic', similar: 'semantic', redundant_with: 'semantic',
  temporal: 'temporal', precedes: 'temporal', same_episode: 'temporal', during: 'temporal', overlaps: 'temporal', concurrent: 'temporal', next: 'temporal',
  causal: 'causal', leads_to: 'causal', causes: 'causal', caused_by: 'causal',
  entity: 'entity', mentions: 'entity', same_entity: 'entity', alias: 'entity',
};

export function scRelationUsefulness(refs: ResolvedRef[], ctx: ScoreContext): number {
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

export function scNewInformation(refs: ResolvedRef[], ctx: ScoreContext): number {
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

export function scSupports(refs: ResolvedRef[], ctx: ScoreContext): number {
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

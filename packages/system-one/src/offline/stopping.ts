/** Offline scorers of stopping on `{ query, evidence, depth }` (ours): evidence sufficient, continue useful, missing evidence, contradiction. */
import type { ResolvedRef } from '../schema.js';
import { clamp01, containment, features, logistic, sharedEntities, soft } from './text.js';
import { answerTypeFit } from './candidate-scoring.js';
import { contradictionScore } from './consolidation.js';
import { depthOf, evidenceOf, feat, type Item, queryOf, type ScoreContext } from './inputs.js';
import { routeFeatures } from './routing.js';
import { num, queryFeat, queryMatch } from './similarity.js';

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

export function stEvidenceSufficient(refs: ResolvedRef[], ctx: ScoreContext): number {
  return sufficiency(queryOf(refs), evidenceOf(refs), ctx).s;
}
export function stMissing(refs: ResolvedRef[], ctx: ScoreContext): number {
  const r = sufficiency(queryOf(refs), evidenceOf(refs), ctx);
  return soft(clamp01(0.85 * (1 - r.s) + (r.missingType ? 0.1 : 0) + (r.missingEntity ? 0.05 : 0)));
}
export function stContinue(refs: ResolvedRef[], ctx: ScoreContext): number {
  const ev = evidenceOf(refs);
  const r = sufficiency(queryOf(refs), ev, ctx);
  const depth = depthOf(refs);
  const decay = 1 / (1 + Math.max(0, depth) / 4);
  return soft((1 - r.s) * (0.25 + 0.75 * decay) * (ev.length ? 1 : 1.05));
}
export function stContradiction(refs: ResolvedRef[], ctx: ScoreContext): number {
  const ev = evidenceOf(refs);
  let best = 0.03;
  for (let i = 0; i < ev.length; i++) for (let j = i + 1; j < ev.length; j++) best = Math.max(best, contradictionScore(ev[i], ev[j], ctx));
  return soft(best);
}

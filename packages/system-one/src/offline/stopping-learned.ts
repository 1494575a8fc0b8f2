/**
 * Learned stopping (ours, issue 16): the read path's stopping Nouls (seed 000 §4: s = evidence
 * sufficient, u = continue useful, m = missing evidence) answered offline by two small logistic models
 * trained on read-path traces (script: apps/demo-agent/scripts/read-path/train-stopping.ts; data: every
 * stopping state of jev on the TRAIN conversations, LoCoMo dev 0–3 and BEAM 500K 1–5), shipped as
 * `models/stopping.json` (a list of `mem.learned/1` models, one per head).
 *
 * Labels (per question and round d, jev run to its depth cap):
 * - `continue_useful`: the final top 10 holds more of the question's evidence than the top 10 after round d;
 * - `evidence_sufficient`: the top 10 after round d already holds all of it. m = 1 − s.
 *
 * The models read the state `{ query, evidence, depth }` the read path asks with, and need each
 * evidence item to carry `relevance` (the read path's p(evidence), a number in [0, 1]) and `round`
 * (the round that admitted it, 0 for anchors). The sufficiency model does not read the features that
 * need the depth (`STOPPING_DEPTH_FEATURES`): its catalogue question (and m's) does not reference
 * `{{depth}}`, and the offline backend sees only a question's referenced fields. Without them (another caller, an older state) the
 * cue scorers of `stopping.ts` answer: `learnedStoppingApplies` tells which.
 */
import { SystemOneError } from '../errors.js';
import { parseLearnedModel, predictProbability, type LearnedModel } from '../learned/model.js';
import type { Item } from './inputs.js';
import { learnedRoute } from './routing-learned.js';
import stoppingJson from './models/stopping.json';

/** The learned stopping heads. */
export const STOPPING_HEADS = ['continue_useful', 'evidence_sufficient'] as const;
export type StoppingHead = (typeof STOPPING_HEADS)[number];

/** The feature names, in a fixed order (the trainer writes models over exactly these). */
export const STOPPING_FEATURES = [
  'depth',
  'top1',
  'top5_sum',
  'top5_min',
  'gap12',
  'new_in_top',
  'new_best',
  'anchors_in_top',
  'items',
  'multi_hop_need',
  'temporal',
  'causal',
  'entity',
] as const;
export type StoppingFeature = (typeof STOPPING_FEATURES)[number];
/** The features that read the state's depth (left out of the sufficiency model). */
export const STOPPING_DEPTH_FEATURES = ['depth', 'new_in_top', 'new_best'] as const satisfies readonly StoppingFeature[];

const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

/**
 * True when every evidence item carries a finite `relevance` and `round` (and there is at least one),
 * and the depth, when given, is a finite number ≥ 0 (else the cue scorers answer).
 */
export function learnedStoppingApplies(evidence: readonly Item[], depth?: number): boolean {
  if (!evidence.length) return false;
  if (depth !== undefined && !(Number.isFinite(depth) && depth >= 0)) return false;
  for (const e of evidence) {
    const r = e as unknown as Record<string, unknown>;
    if (num(r.relevance) === null || num(r.round) === null) return false;
  }
  return true;
}

/**
 * The features of a stopping state (ours): `depth` = d (rounds done); over the first five evidence
 * items (the read path sends them best first): `top1` = the best relevance, `top5_sum` = Σ relevance
 * (the expected number of evidence turns in hand), `top5_min` = the fifth's (0 when fewer),
 * `gap12` = top1 − the second's, `new_in_top` = share of the five admitted in round d, `new_best` = the
 * best relevance among them (0 when none), `anchors_in_top` = share admitted as anchors, `items` =
 * count / 5; and the query's learned routing p of multi-hop need, temporal, causal and entity.
 */
export function stoppingFeatureRecord(query: string, evidence: readonly Item[], depth: number): Record<StoppingFeature, number> {
  const top = evidence.slice(0, 5).map((e) => e as unknown as Record<string, unknown>);
  const rel = top.map((e) => Math.min(1, Math.max(0, num(e.relevance) ?? 0)));
  const rounds = top.map((e) => num(e.round) ?? 0);
  const fresh = rel.filter((_, i) => rounds[i] === depth);
  const route = learnedRoute(query);
  return {
    depth,
    top1: rel[0] ?? 0,
    top5_sum: rel.reduce((a, b) => a + b, 0),
    top5_min: rel.length >= 5 ? rel[4] : 0,
    gap12: (rel[0] ?? 0) - (rel[1] ?? 0),
    new_in_top: fresh.length / 5,
    new_best: fresh.length ? Math.max(...fresh) : 0,
    anchors_in_top: rounds.filter((r) => r === 0).length / 5,
    items: top.length / 5,
    multi_hop_need: route.multi_hop_need,
    temporal: route.temporal,
    causal: route.causal,
    entity: route.entity,
  };
}

let models: Record<StoppingHead, LearnedModel> | null = null;
/** The shipped stopping models by head (validated once; throws SystemOneError INVALID_MODEL for a bad file). */
export function stoppingModels(): Record<StoppingHead, LearnedModel> {
  if (!models) {
    const list = (stoppingJson as unknown[]).map((m) => parseLearnedModel(m));
    const by = Object.fromEntries(list.map((m) => [m.name.replace(/^stopping\./, ''), m])) as Record<StoppingHead, LearnedModel>;
    for (const h of STOPPING_HEADS) if (!by[h]) throw new SystemOneError('INVALID_MODEL', `models/stopping.json has no model stopping.${h}`);
    models = by;
  }
  return models;
}

/**
 * p of one stopping head for a state (the shipped models unless `given`). Throws SystemOneError
 * `INVALID_QUESTION` for an unknown head, `INVALID_MODEL` when `given` lacks it or the features are not
 * finite (check `learnedStoppingApplies` first).
 */
export function learnedStopping(head: StoppingHead, query: string, evidence: readonly Item[], depth: number, given?: Record<StoppingHead, LearnedModel>): number {
  if (!(STOPPING_HEADS as readonly string[]).includes(head)) throw new SystemOneError('INVALID_QUESTION', `unknown stopping head ${String(head)} (known: ${STOPPING_HEADS.join(', ')})`);
  const m = (given ?? stoppingModels())[head];
  if (!m) throw new SystemOneError('INVALID_MODEL', `no model for stopping head ${head}`);
  return predictProbability(m, stoppingFeatureRecord(query, evidence, depth));
}

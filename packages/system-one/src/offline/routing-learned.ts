/**
 * Learned query routing (ours): the six routing Nouls of the read path (seed 000 §4: p_semantic,
 * p_temporal, p_causal, p_entity, h(q), r(q)) answered offline by six small logistic models trained on
 * labelled queries (script: packages/system-one/scripts/train-routing.ts; data: the hand-labelled
 * routing cases of bench/dataset.ts, and LoCoMo dev 0–3 / BEAM 500K 1–5 questions whose type names a
 * routing need), shipped as `models/routing.json` (a list of `mem.learned/1` models, one per head).
 *
 * Features: the model's vocabulary is the words (and first words) that occur in its training queries,
 * shape features (length, capitalised words, digits, first person, question mark), and the older cue
 * scorer's answer for the head (`cue`, its logit), so the model learns how far to trust it. `…, and why?` routes to the causal view because "why" carries weight wherever
 * it occurs, as the training data teaches.
 */
import { parseLearnedModel, predictProbability, type LearnedModel } from '../learned/model.js';
import { routeFeatures } from './routing.js';
import routingJson from './models/routing.json';
import { LruMap } from './lru-map.js';
import { MAX_TEXTS } from './text.js';

/** The six routing heads, in catalogue order. */
export const ROUTING_HEADS = ['semantic', 'temporal', 'causal', 'entity', 'multi_hop_need', 'recency_importance'] as const;
export type RoutingHead = (typeof ROUTING_HEADS)[number];

const FIRST = new Set(['i', 'me', 'my', 'mine', 'myself']);

/** Lower-case word tokens of a query (letters, digits, apostrophes inside words). */
export function queryWords(query: string): string[] {
  return (query.toLowerCase().match(/[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu) ?? []).map((w) => w.replace(/'s$/, ''));
}

/**
 * The feature record of a query for the routing model of `head`: `cue` = logit of the cue scorer's p, `w:<word>` = 1 for each word, `first:<word>` = 1
 * for the first word, and the shape features `len` (words / 20), `caps` (capitalised words after the
 * first, / 3, at most 1), `digits` (1 when a number occurs), `fp` (1 when the query says I / me / my),
 * `qmark` (1 when it ends in "?"). Names a model does not use are ignored by `routingFeatureVector`.
 */
export function routingFeatureRecord(query: string, head: RoutingHead): Map<string, number> {
  const f = new Map<string, number>();
  const p = Math.min(0.99, Math.max(0.01, routeFeatures(query)[head]));
  f.set('cue', Math.log(p / (1 - p)));
  const w = queryWords(query);
  for (const x of w) f.set(`w:${x}`, 1);
  if (w[0]) f.set(`first:${w[0]}`, 1);
  const raw = query.trim().split(/\s+/);
  const caps = raw.slice(1).filter((t) => /^[\p{Lu}]/u.test(t)).length;
  f.set('len', w.length / 20);
  f.set('caps', Math.min(1, caps / 3));
  f.set('digits', /\d/.test(query) ? 1 : 0);
  f.set('fp', w.some((x) => FIRST.has(x)) ? 1 : 0);
  f.set('qmark', /\?\s*$/.test(query) ? 1 : 0);
  return f;
}

/** The vector of `model.features` for a query's feature record (absent names are 0). */
export function routingFeatureVector(model: LearnedModel, record: Map<string, number>): number[] {
  return model.features.map((n) => record.get(n) ?? 0);
}

let models: Record<RoutingHead, LearnedModel> | null = null;
/** The shipped routing models by head (validated once; throws SystemOneError INVALID_MODEL for a bad file). */
export function routingModels(): Record<RoutingHead, LearnedModel> {
  if (!models) {
    const list = (routingJson as unknown[]).map((m) => parseLearnedModel(m));
    const by = Object.fromEntries(list.map((m) => [m.name.replace(/^routing\./, ''), m])) as Record<RoutingHead, LearnedModel>;
    for (const h of ROUTING_HEADS) if (!by[h]) throw new Error(`routing model for ${h} missing`);
    models = by;
  }
  return models;
}

/** p of each routing head for `query` from the shipped (or given) models. */
const routeCache = new LruMap<string, Record<RoutingHead, number>>(MAX_TEXTS);
export function learnedRoute(query: string, given?: Record<RoutingHead, LearnedModel>): Record<RoutingHead, number> {
  if (!given) {
    const hit = routeCache.get(query);
    if (hit) return hit;
    const r = learnedRoute(query, routingModels());
    routeCache.set(query, r);
    return r;
  }
  const m = given;
  return Object.fromEntries(ROUTING_HEADS.map((h) => [h, predictProbability(m[h], routingFeatureVector(m[h], routingFeatureRecord(query, h)))])) as Record<RoutingHead, number>;
}

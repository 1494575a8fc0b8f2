/** Offline scorers of query routing on `{ query }` (ours): route features per query (semantic, temporal, causal, entity, multi-hop, recency). */
import { LruMap } from './lru-map.js';
import { CUES, features, logistic, MAX_TEXTS, soft } from './text.js';
import { queryOf, type Scorer } from './inputs.js';

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
const routeCache = new LruMap<string, RouteFeatures>(MAX_TEXTS);

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
  routeCache.set(query, out);
  return out;
}

export const route = (k: keyof RouteFeatures): Scorer => (refs) => routeFeatures(queryOf(refs))[k];

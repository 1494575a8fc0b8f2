/** Offline scorers' similarity (ours): relatedness of two items and query match, preferring a precomputed `cosine`, then injected embeddings, then lexical overlap. */
import { clamp01, containment, MAX_TEXTS, setCosine, sharedEntities } from './text.js';
import { feat, type Item, type ItemFeatures, pairOf, type ScoreContext, sharedOf } from './inputs.js';
import { LruMap } from './lru-map.js';

// ---------------------------------------------------------------------------------------------
// similarity
// ---------------------------------------------------------------------------------------------

/**
 * Relatedness of two items in [0, 1]: lexical set cosine of content stems (+ shared entities), mixed
 * 50/50 with a scaled cosine when one is known (`cosine` field first, then injected embeddings).
 */
export function relatedness(a: Item, b: Item, ctx: ScoreContext, cosine?: number): number {
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

export const queryFeat = (q: string): ItemFeatures => feat(queryItem(q));
/** Question-frame words that say what kind of answer is wanted, not what it is about. */
const QUESTION_FRAME = /\b(how (long|many|much|often|far|old)|what (kind|type|sort) of|what time|the name of|name of|what happened|happen(ed)?)\b/gi;
const queryItems = new LruMap<string, Item>(MAX_TEXTS);
function queryItem(q: string): Item {
  let it = queryItems.get(q);
  if (!it) queryItems.set(q, (it = { text: q.replace(QUESTION_FRAME, ' ') }));
  return it;
}

/** Share of the query's content words and entities found in an item (query-side recall), with cosine mixing. */
export function queryMatch(query: string, it: Item, ctx: ScoreContext, cosine?: number): number {
  const fq = queryFeat(query);
  const fi = feat(it);
  const covered = containment(fq.topic, fi.content);
  const ents = fq.ents.size ? sharedEntities(fq.ents, fi.ents) / fq.ents.size : 0;
  const lexical = clamp01(fq.ents.size ? 0.7 * covered + 0.3 * ents : covered);
  const c = cosine ?? ctx.embedCosine(query, it.text);
  if (c === undefined || !Number.isFinite(c)) return lexical;
  return 0.5 * lexical + 0.5 * ctx.scaleCosine(c);
}

export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

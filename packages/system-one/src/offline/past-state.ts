/**
 * The routing Nouls `routing.past_state` and `routing.present_state` answered offline (ours, issue
 * 37): p that a question asks for an EARLIER state of something that may have changed ("Where did
 * Jonas live before?", "What was Maya's job in 2023?"), and p that it asks for the PRESENT state
 * ("What kind of food does Jonas like?"); the rest is "other" (an event: "When did Jonas move?"). One
 * three-class softmax on the question's words, word pairs and shape, trained on labelled questions
 * (bench/past-state.ts; BEAM 500K 1–5 knowledge-update questions as present-state examples) by
 * scripts/train-past-state.ts, temperature calibrated; shipped as `models/past-state.json` (`mem.learned/1`).
 */
import { parseLearnedModel, predictProbabilities, type LearnedModel } from '../learned/model.js';
import { queryWords } from './routing-learned.js';
import pastStateJson from './models/past-state.json';
import { LruMap } from './lru-map.js';
import { MAX_TEXTS } from './text.js';

/**
 * The feature record of a question: `w:<word>` and `b:<word>_<word>` = 1 for each word and adjacent
 * pair, `first:<word>` = 1 for the first word, `year` = 1 when a four-digit year (1900–2099) occurs,
 * `len` = words / 20. Names a model does not use are ignored.
 */
export function pastStateFeatureRecord(query: string): Map<string, number> {
  const f = new Map<string, number>();
  const w = queryWords(query);
  for (const x of w) f.set(`w:${x}`, 1);
  for (let i = 0; i + 1 < w.length; i++) f.set(`b:${w[i]}_${w[i + 1]}`, 1);
  if (w[0]) f.set(`first:${w[0]}`, 1);
  f.set('year', /\b(19|20)\d\d\b/.test(query) ? 1 : 0);
  f.set('len', w.length / 20);
  return f;
}

let model: LearnedModel | null = null;
/** The shipped model (validated once; throws SystemOneError INVALID_MODEL for a bad file). */
export function pastStateModel(): LearnedModel {
  return (model ??= parseLearnedModel(pastStateJson));
}

/** p(other), p(present), p(past) of a question. */
export interface StateTime {
  other: number;
  present: number;
  past: number;
}

const cache = new LruMap<string, StateTime>(MAX_TEXTS);
/** The three probabilities for `query` from the shipped (or given) model; memoised per question for the shipped one. */
export function learnedStateTime(query: string, given?: LearnedModel): StateTime {
  const m = given ?? pastStateModel();
  if (!given) {
    const hit = cache.get(query);
    if (hit) return hit;
  }
  const rec = pastStateFeatureRecord(query);
  const p = predictProbabilities(m, m.features.map((n) => rec.get(n) ?? 0));
  const at = (c: string) => p[m.classes.indexOf(c)] ?? 0;
  const out = { other: at('other'), present: at('present'), past: at('past') };
  if (!given) cache.set(query, out);
  return out;
}

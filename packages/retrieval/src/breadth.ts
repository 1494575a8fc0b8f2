/**
 * How many memories a question needs (ours, issue 38 point 2): the System-One question "does this
 * question need many memories — a list, an order, a summary, all the times something happened?",
 * answered offline by a small logistic model over the question's words and shape, trained on the dev
 * sets' evidence counts (a question needs many when it has at least {@link MANY_EVIDENCE} evidence
 * items; LoCoMo dev 0–3 and BEAM 500K 1–5, the same train split as the relevance model; script:
 * apps/demo-agent/scripts/read-path/train-breadth.ts), shipped as `models/breadth.json` (`mem.learned/1`).
 *
 * The read path uses it to return a wider set (jev option `breadth`): a question with p(many) ≥ 0.5
 * gets at least `breadth.wideK` memories, which `toContext` packs as excerpts (`excerptTokens`) so that
 * more of them fit the token budget.
 */
import { parseLearnedModel, predictProbability, type LearnedModel } from '@mem/system-one';
import breadthJson from './models/breadth.json';

/** Evidence items from which a question counts as needing many memories (the training label). */
export const MANY_EVIDENCE = 4;

/** Lower-case word tokens of a question (letters and digits; a trailing 's dropped). */
export function questionWords(query: string): string[] {
  return (query.toLowerCase().match(/[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu) ?? []).map((w) => w.replace(/'s$/, ''));
}

/**
 * The feature record of a question: `w:<word>` = 1 for each word, `first:<word>` for the first word,
 * `len` (words / 20), `and` (number of "and" / 3, at most 1), `plural` (share of words ending in s),
 * `qmark` (ends in "?"). Names a model does not use are ignored.
 */
export function breadthFeatureRecord(query: string): Map<string, number> {
  const w = questionWords(query);
  const f = new Map<string, number>();
  for (const x of w) f.set(`w:${x}`, 1);
  if (w[0]) f.set(`first:${w[0]}`, 1);
  f.set('len', w.length / 20);
  f.set('and', Math.min(1, w.filter((x) => x === 'and').length / 3));
  f.set('plural', w.length ? w.filter((x) => x.length > 3 && x.endsWith('s')).length / w.length : 0);
  f.set('qmark', /\?\s*$/.test(query) ? 1 : 0);
  return f;
}

let shipped: LearnedModel | null = null;
/** The shipped breadth model (`models/breadth.json`), validated once. */
export function defaultBreadthModel(): LearnedModel {
  if (!shipped) shipped = parseLearnedModel(breadthJson);
  return shipped;
}

/** p(the question needs many memories) from `model` (default: the shipped one). */
export function breadthProbability(query: string, model: LearnedModel = defaultBreadthModel()): number {
  const rec = breadthFeatureRecord(query);
  return predictProbability(model, model.features.map((n) => rec.get(n) ?? 0));
}

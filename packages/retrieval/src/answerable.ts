/**
 * Abstention (ours, issue 37): does memory hold anything on the question? A calibrated p(evidence) of
 * the whole search — p that at least one returned memory is evidence — from a small logistic model
 * over the top candidates' learned relevance p(evidence) and a few of their relevance features
 * (`answerabilityFeatures`), trained on LoCoMo dev 0–3 and BEAM 500K 1–5 questions (label 0 = LoCoMo
 * adversarial / BEAM abstention, 1 = the rest) by apps/demo-agent/scripts/read-path/train-answerable.ts,
 * temperature-calibrated; the threshold below which `search` says `answerable: false` was chosen on
 * those TRAIN conversations. File `models/answerable.json` = `{ threshold, model }` (`model` in the
 * `mem.learned/1` format).
 */
import { MemValidationError } from '@mem/core';
import { parseLearnedModel, predictProbability, type LearnedModel } from '@mem/system-one';
import answerableJson from './models/answerable.json';

/** One candidate as the answerability features read it: its evidence-order value and relevance features. */
export interface RankedCandidate {
  /** Its p(evidence) (the evidence order of jev with the learned relevance model). */
  final: number;
  /** Its relevance features (`RELEVANCE_FEATURES` names; missing ones count 0). */
  features: Readonly<Record<string, number>>;
}

export const ANSWERABILITY_FEATURES = ['p1_logit', 'p2_logit', 'p3_logit', 'p_sum5', 'cos_max5', 'cov1', 'cov_max5', 'own_cov_max5', 'named_speaker1', 'turn_names_speaker1', 'candidates'] as const;
export type AnswerabilityFeature = (typeof ANSWERABILITY_FEATURES)[number];

const logit = (p: number) => {
  const q = Math.min(1 - 1e-4, Math.max(1e-4, p));
  return Math.log(q / (1 - q));
};

/**
 * The answerability features of a search from its candidates in evidence order (best first): logits of
 * the top three p(evidence), their top-5 sum, the best cosine / query coverage / own coverage of the
 * top 5, the top item's coverage, named-speaker and names-speaker flags, and the candidate count / 100
 * (`total`, when `ranked` holds only the top of the list).
 */
export function answerabilityFeatures(ranked: readonly RankedCandidate[], total = ranked.length): Record<AnswerabilityFeature, number> {
  const top = ranked.slice(0, 5);
  const f = (i: number, name: string) => top[i]?.features[name] ?? 0;
  const max5 = (name: string) => top.reduce((m, c) => Math.max(m, c.features[name] ?? 0), 0);
  return {
    p1_logit: logit(top[0]?.final ?? 0),
    p2_logit: logit(top[1]?.final ?? 0),
    p3_logit: logit(top[2]?.final ?? 0),
    p_sum5: top.reduce((s, c) => s + c.final, 0),
    cos_max5: max5('cosine'),
    cov1: f(0, 'coverage'),
    cov_max5: max5('coverage'),
    own_cov_max5: max5('own_coverage'),
    named_speaker1: f(0, 'named_speaker'),
    turn_names_speaker1: f(0, 'turn_names_speaker'),
    candidates: Math.min(1, total / 100),
  };
}

let shipped: { model: LearnedModel; threshold: number } | null = null;
/**
 * The shipped answerability model and its threshold (`models/answerable.json` = `{ threshold, model }`),
 * validated once. Throws SystemOneError INVALID_MODEL for a bad model, MemValidationError
 * INVALID_INPUT for a threshold outside [0, 1].
 */
export function defaultAnswerability(): { model: LearnedModel; threshold: number } {
  if (!shipped) {
    const raw = answerableJson as { threshold: unknown; model: unknown };
    const threshold = Number(raw.threshold);
    if (!(threshold >= 0 && threshold <= 1)) throw new MemValidationError('INVALID_INPUT', `models/answerable.json: threshold ${String(raw.threshold)} is not in [0, 1]`);
    shipped = { model: parseLearnedModel(raw.model), threshold };
  }
  return shipped;
}

/** Calibrated p that memory holds evidence for the question, from its ranked candidates. */
export function answerabilityProbability(model: LearnedModel, ranked: readonly RankedCandidate[], total = ranked.length): number {
  const x = answerabilityFeatures(ranked, total) as Record<string, number>;
  return predictProbability(model, model.features.map((n) => x[n] ?? 0));
}

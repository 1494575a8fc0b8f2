/**
 * System-Two answer metrics for `mem eval locomo` when an OpenAI-compatible endpoint is configured
 * (MEM_LLM_BASE_URL / MEM_LLM_API_KEY / MEM_LLM_MODEL): token-F1 and BLEU-1 of the written answer
 * against the gold answer (the LoCoMo paper's metrics, §4), and an LLM-as-judge verdict (the metric
 * Mem0 and Jev-Mem report; our prompt wording).
 */
import OpenAI from 'openai';
import { normalizeTokens } from './metrics.js';
import { SystemTwoUnavailableError } from '../answer/system-two.js';

/** Counts of each token. */
function counts(tokens: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of tokens) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

/** Clipped unigram overlap: Σ_t min(count_pred(t), count_gold(t)). */
function overlap(pred: string[], gold: string[]): number {
  const g = counts(gold);
  let n = 0;
  for (const [t, c] of counts(pred)) n += Math.min(c, g.get(t) ?? 0);
  return n;
}

/**
 * Token-F1 (SQuAD / LoCoMo evaluation): harmonic mean of unigram precision and recall over normalised
 * tokens (lower case, punctuation and articles removed; `normalizeTokens`). In [0, 1]; null when the
 * gold answer has no tokens. No stemming (the LoCoMo script stems with Porter; ours does not).
 */
export function tokenF1(prediction: string, gold: string): number | null {
  const g = normalizeTokens(gold);
  if (g.length === 0) return null;
  const p = normalizeTokens(prediction);
  if (p.length === 0) return 0;
  const same = overlap(p, g);
  if (same === 0) return 0;
  const precision = same / p.length;
  const recall = same / g.length;
  return (2 * precision * recall) / (precision + recall);
}

/**
 * BLEU-1 (Papineni et al. 2002, unigram only): clipped unigram precision × brevity penalty
 * BP = 1 if |pred| > |gold| else exp(1 − |gold|/|pred|). In [0, 1]; null when the gold answer has no tokens.
 */
export function bleu1(prediction: string, gold: string): number | null {
  const g = normalizeTokens(gold);
  if (g.length === 0) return null;
  const p = normalizeTokens(prediction);
  if (p.length === 0) return 0;
  const precision = overlap(p, g) / p.length;
  const bp = p.length > g.length ? 1 : Math.exp(1 - g.length / p.length);
  return precision * bp;
}

export const JUDGE_PROMPT =
  'You grade answers to questions about a long conversation. Given the question, the gold answer and a ' +
  'generated answer, reply CORRECT if the generated answer conveys the same fact as the gold answer ' +
  '(wording, extra detail and date formats may differ; a date within the same day, week or month the gold ' +
  'answer names counts), otherwise WRONG. Reply with exactly one word: CORRECT or WRONG.';

export interface LlmJudge {
  readonly model: string;
  /** 1 = CORRECT, 0 = WRONG. Throws SystemTwoUnavailableError when the endpoint fails or replies with neither word. */
  judge(question: string, gold: string, answer: string): Promise<0 | 1>;
}

/** Parse a judge reply: the first CORRECT / WRONG word wins; null when neither appears. */
export function parseJudgeVerdict(text: string): 0 | 1 | null {
  const m = /\b(CORRECT|WRONG)\b/i.exec(text);
  if (!m) return null;
  return m[1].toUpperCase() === 'CORRECT' ? 1 : 0;
}

/** One short verdict (≤ 4 tokens, temperature 0) from a judge; SystemTwoUnavailableError when the endpoint fails. */
async function askVerdict(client: OpenAI, model: string, who: string, system: string, user: string): Promise<string> {
  try {
    const res = await client.chat.completions.create({
      model,
      temperature: 0,
      max_tokens: 4,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
    });
    return res.choices[0]?.message?.content ?? '';
  } catch (e) {
    throw new SystemTwoUnavailableError(`${who} (${model}) is unavailable: ${(e as Error).message}`, { cause: e });
  }
}

/** An LLM-as-judge on any OpenAI-compatible chat endpoint (temperature 0). */
export function createLlmJudge(config: { baseURL: string; apiKey: string; model: string; timeoutMs?: number; maxRetries?: number }): LlmJudge {
  const client = new OpenAI({ baseURL: config.baseURL, apiKey: config.apiKey, timeout: config.timeoutMs ?? 60_000, maxRetries: config.maxRetries ?? 2 });
  return {
    model: config.model,
    async judge(question, gold, answer) {
      const text = await askVerdict(client, config.model, 'LLM judge', JUDGE_PROMPT, `Question: ${question}\nGold answer: ${gold}\nGenerated answer: ${answer}`);
      const v = parseJudgeVerdict(text);
      if (v === null) throw new SystemTwoUnavailableError(`LLM judge (${config.model}) replied neither CORRECT nor WRONG: ${JSON.stringify(text.slice(0, 80))}`);
      return v;
    },
  };
}

export const RUBRIC_PROMPT =
  'You grade an answer to a question about a long chat between a user and an assistant against ONE rubric ' +
  'item. Reply 1 if the answer fully satisfies the item, 0.5 if it satisfies it partly, 0 if it does not. ' +
  'Reply with exactly one of: 1, 0.5, 0.';

/** Parse a rubric verdict: the first of 1 / 0.5 / 0 in the reply (".5" counts as 0.5); null when none. */
export function parseRubricVerdict(text: string): 0 | 0.5 | 1 | null {
  const m = /(?:^|[^\d.])(1(?:\.0+)?|0?\.5|0(?:\.0+)?)(?![\d.])/.exec(text.trim());
  if (!m) return null;
  const v = Number(m[1]);
  return v === 1 ? 1 : v === 0.5 ? 0.5 : 0;
}

/**
 * A rubric judge for BEAM answers (BEAM's protocol, Tavakoli et al. 2025 §4: each rubric item scored
 * 0 / 0.5 / 1 by an LLM, the question's score is their mean; our prompt wording) on any
 * OpenAI-compatible chat endpoint (temperature 0). A question without rubric items is judged against
 * its ideal answer as one item. Throws SystemTwoUnavailableError when the endpoint fails or replies
 * with no verdict.
 */
export function createRubricJudge(config: { baseURL: string; apiKey: string; model: string; timeoutMs?: number; maxRetries?: number }): {
  readonly model: string;
  score(q: { question: string; answer: string; rubric?: string[] }, answer: string): Promise<number>;
} {
  const client = new OpenAI({ baseURL: config.baseURL, apiKey: config.apiKey, timeout: config.timeoutMs ?? 60_000, maxRetries: config.maxRetries ?? 2 });
  return {
    model: config.model,
    async score(q, answer) {
      const items = q.rubric?.length ? q.rubric : q.answer ? [`The answer conveys: ${q.answer}`] : [];
      if (!items.length) throw new SystemTwoUnavailableError('rubric judge: the question has neither rubric items nor an ideal answer');
      let sum = 0;
      for (const item of items) {
        const text = await askVerdict(client, config.model, 'rubric judge', RUBRIC_PROMPT, `Question: ${q.question}\nRubric item: ${item}\nAnswer: ${answer}`);
        const v = parseRubricVerdict(text);
        if (v === null) throw new SystemTwoUnavailableError(`rubric judge (${config.model}) replied no 1 / 0.5 / 0: ${JSON.stringify(text.slice(0, 80))}`);
        sum += v;
      }
      return sum / items.length;
    },
  };
}

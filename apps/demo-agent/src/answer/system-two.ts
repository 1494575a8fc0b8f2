/**
 * System Two (Jev-Mem, seed 000 §3: the expensive LLM only writes answers): an OpenAI-compatible
 * chat-completions client that answers a question from the packed memory context. Configured from
 * MEM_LLM_BASE_URL, MEM_LLM_API_KEY, MEM_LLM_MODEL; absent → null, and callers show the evidence
 * itself as the (clearly labelled) offline answer.
 */
import type OpenAI from 'openai';
import { MemError, type MemErrorCode } from '@mem/core';

/**
 * System Two (the answer-writing LLM) could not be reached or failed after its retries: code
 * `LLM_UNAVAILABLE`, category `unavailable`. The code is the demo agent's own (core's code union has
 * no LLM code); `MemError.isInstance` still recognises it.
 */
export class SystemTwoUnavailableError extends MemError {
  static override readonly marker: symbol = Symbol.for('@mem/error/SystemTwoUnavailableError');
  constructor(message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super('LLM_UNAVAILABLE' as MemErrorCode, 'unavailable', message, options);
    this.name = 'SystemTwoUnavailableError';
  }
}

const SYSTEM_TWO_VARS = ['MEM_LLM_BASE_URL', 'MEM_LLM_API_KEY', 'MEM_LLM_MODEL'] as const;

/**
 * A warning when only some of MEM_LLM_BASE_URL / MEM_LLM_API_KEY / MEM_LLM_MODEL are set (System
 * Two then stays offline), naming the missing ones; null when all or none are set.
 */
export function systemTwoEnvWarning(env: NodeJS.ProcessEnv = process.env): string | null {
  const missing = SYSTEM_TWO_VARS.filter((k) => !env[k]?.trim());
  if (missing.length === 0 || missing.length === SYSTEM_TWO_VARS.length) return null;
  const set = SYSTEM_TWO_VARS.filter((k) => !missing.includes(k));
  return `${set.join(', ')} ${set.length === 1 ? 'is' : 'are'} set but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing: System Two stays offline (answers are the top evidence)`;
}

export interface SystemTwoConfig {
  baseURL: string;
  apiKey: string;
  model: string;
  /** Per-request timeout, ms. Default 60 000. */
  timeoutMs?: number;
  /** Retries of a failed request (the openai client's backoff). Default 2. */
  maxRetries?: number;
  /** Cap on the tokens of one answer (`max_tokens`). Default 256 (ours): the prompt asks for one or two sentences, and a small local model at temperature 0 can otherwise repeat itself for thousands of tokens. */
  maxTokens?: number;
}

export interface SystemTwo {
  readonly model: string;
  /** Answer `question` from `context` (the packed evidence). Throws SystemTwoUnavailableError (`LLM_UNAVAILABLE`) on failure. */
  answer(question: string, context: string, options?: { now?: string }): Promise<{ text: string; usage?: { promptTokens: number; completionTokens: number } }>;
}

/** Read the System Two endpoint from the environment; null unless all three variables are set. */
export function systemTwoConfigFromEnv(env: NodeJS.ProcessEnv = process.env): SystemTwoConfig | null {
  const baseURL = env.MEM_LLM_BASE_URL?.trim();
  const apiKey = env.MEM_LLM_API_KEY?.trim();
  const model = env.MEM_LLM_MODEL?.trim();
  if (!baseURL || !apiKey || !model) return null;
  return { baseURL, apiKey, model };
}

export const SYSTEM_TWO_PROMPT =
  'You answer questions about a user from their long-term memory. Use only the memory excerpts given. ' +
  'Each excerpt has the date it was said; resolve relative dates ("yesterday", "last Saturday") against that date. ' +
  'When memories disagree, prefer the most recent one. If the memory does not contain the answer, say you do not know. ' +
  'Answer in one or two short sentences.';

export function createSystemTwo(config: SystemTwoConfig): SystemTwo {
  // the openai SDK (~150 modules) is loaded on the first answer, not by every CLI command (issue 36 point 4)
  let client: Promise<OpenAI> | undefined;
  const getClient = () =>
    (client ??= import('openai').then(({ default: OpenAI }) => new OpenAI({ baseURL: config.baseURL, apiKey: config.apiKey, timeout: config.timeoutMs ?? 60_000, maxRetries: config.maxRetries ?? 2 })));
  return {
    model: config.model,
    async answer(question, context, options = {}) {
      try {
        const res = await (await getClient()).chat.completions.create({
          model: config.model,
          temperature: 0,
          max_tokens: config.maxTokens ?? 256,
          messages: [
            { role: 'system', content: SYSTEM_TWO_PROMPT },
            {
              role: 'user',
              content: `Memory:\n${context}\n\n${options.now ? `Today is ${options.now}.\n` : ''}Question: ${question}`,
            },
          ],
        });
        const text = res.choices[0]?.message?.content?.trim() ?? '';
        return {
          text,
          usage: res.usage ? { promptTokens: res.usage.prompt_tokens, completionTokens: res.usage.completion_tokens } : undefined,
        };
      } catch (e) {
        throw new SystemTwoUnavailableError(`System Two (${config.model} at ${config.baseURL}) is unavailable: ${(e as Error).message}`, { cause: e, details: { model: config.model } });
      }
    },
  };
}

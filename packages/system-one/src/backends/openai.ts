/**
 * OpenAI-compatible backend (ours): any chat-completions endpoint (OpenAI, vLLM, llama.cpp server,
 * Ollama, LM Studio …) through the `openai` package. One request per question:
 * - logprobs mode (default when the server returns logprobs): the model answers with ONE token —
 *   `true` / `false` for a Noul, a letter A, B, C … (one per label) for a Choice — and the answer is
 *   read from the first token's `top_logprobs` (p = P(true) / (P(true) + P(false)); label mass
 *   renormalised, unseen labels share the remaining mass);
 * - JSON mode when the server returns no logprobs (remembered for later calls) or `mode: 'json'`:
 *   `response_format: json_schema` asking for `{"p": number}` or `{"probabilities": {...}}`, parsed
 *   leniently (code fences, single quotes, trailing commas) and then validated. A server that rejects
 *   `json_schema` (e.g. llama-cpp-python's server accepts only `text` / `json_object`) gets
 *   `{ type: 'json_object', schema }` instead, and one that rejects that too gets no response_format
 *   (the prompt still asks for JSON); the working form is remembered.
 * 429 / 5xx / connection errors / timeouts are retried with exponential backoff (honouring
 * `retry-after`); at most `concurrency` requests are in flight.
 */
import type OpenAI from 'openai';
import { type BackendRequest, MAX_TIMER_MS, type SystemOneBackend, mapLimit, sleep } from '../backend.js';
import { SystemOneError, toSystemOneError } from '../errors.js';
import { checkCount, checkMs } from './options.js';
import { type Question, renderInstructions } from '../schema.js';
import { parseLenientJson } from './parse.js';

export interface OpenAIBackendOptions {
  /** e.g. `https://api.openai.com/v1` or `http://localhost:8000/v1`. Default: the `openai` package default. */
  baseURL?: string;
  /** Default: `process.env.OPENAI_API_KEY`, else `'none'` (local servers). */
  apiKey?: string;
  /** Model name, e.g. `gpt-4o-mini`. */
  model: string;
  /** `auto` (logprobs, JSON when the server returns none), `logprobs`, or `json`. Default `auto`. */
  mode?: 'auto' | 'logprobs' | 'json';
  /** Retries per request on 429 / 5xx / connection errors / timeouts. Default 2. */
  maxRetries?: number;
  /** First backoff delay in ms (doubles per retry; `retry-after` wins when larger, capped at 30 s). Default 500. */
  backoffMs?: number;
  /** Per-request timeout in ms. Default 20 000. */
  requestTimeoutMs?: number;
  /** Max requests in flight. Default 4. */
  concurrency?: number;
  /** Which token-limit parameter the server expects. Default `max_tokens` (widest support). */
  maxTokensParam?: 'max_tokens' | 'max_completion_tokens';
  /** `top_logprobs` requested (1–20). Default 10. */
  topLogprobs?: number;
  /** Extra headers (e.g. for a gateway). */
  headers?: Record<string, string>;
  /** Inject a client (tests, custom fetch). */
  client?: OpenAI;
}

const SYSTEM =
  'You are System One, a fast, careful classifier inside an AI agent\'s memory. You receive one question ' +
  'about the given state and its answer options. Judge only from the question and the quoted state.';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** The user message for a question (rendered `{{path}}` values, criteria, answer format). */
export function buildPrompt(q: Question, state: Record<string, unknown>, json: boolean): string {
  const body = renderInstructions(q, state);
  if (q.type === 'noul') {
    return (
      `${body}\n\ntrue: ${q.criteria.true}\nfalse: ${q.criteria.false}\n\n` +
      (json ? 'Reply with JSON {"p": <probability in [0,1] that the answer is true>}.' : 'Answer with exactly one word: true or false.')
    );
  }
  const labels = Object.keys(q.criteria);
  if (labels.length > LETTERS.length) throw new SystemOneError('INVALID_QUESTION', `a Choice may have at most ${LETTERS.length} labels for the openai backend`);
  if (json) {
    return `${body}\n\nOptions:\n${labels.map((l) => `- ${l}: ${q.criteria[l]}`).join('\n')}\n\nReply with JSON {"probabilities": {${labels.map((l) => `"${l}": <p>`).join(', ')}}} summing to 1.`;
  }
  return `${body}\n\nOptions:\n${labels.map((l, i) => `${LETTERS[i]}) ${l}: ${q.criteria[l]}`).join('\n')}\n\nAnswer with exactly one letter (${LETTERS.slice(0, labels.length).split('').join(', ')}).`;
}

function jsonSchemaFor(q: Question): Record<string, unknown> {
  if (q.type === 'noul') {
    return { type: 'object', properties: { p: { type: 'number', minimum: 0, maximum: 1 } }, required: ['p'], additionalProperties: false };
  }
  const labels = Object.keys(q.criteria);
  return {
    type: 'object',
    properties: {
      probabilities: {
        type: 'object',
        properties: Object.fromEntries(labels.map((l) => [l, { type: 'number', minimum: 0, maximum: 1 }])),
        required: labels,
        additionalProperties: false,
      },
    },
    required: ['probabilities'],
    additionalProperties: false,
  };
}

type TopLogprob = { token: string; logprob: number };

/**
 * Probability of one top-logprob entry, or 0 for a malformed one: a non-string token, or a logprob
 * that is not a finite number (`null` would count as log 0 = probability 1). A positive logprob
 * (impossible; probability > 1) is clamped to 0.
 */
function entryProb(t: TopLogprob | null | undefined): number {
  if (!t || typeof t.token !== 'string' || typeof t.logprob !== 'number' || !Number.isFinite(t.logprob)) return 0;
  return Math.exp(Math.min(0, t.logprob));
}

/** Noul p from top logprobs of the first token; undefined when neither true nor false is among them. */
export function noulFromLogprobs(top: TopLogprob[]): number | undefined {
  let pt = 0;
  let pf = 0;
  for (const t of top) {
    const p = entryProb(t);
    if (p === 0) continue;
    const tok = t.token.trim().toLowerCase().replace(/^[^a-z]+|[^a-z]+$/g, '');
    if (tok === 'true' || tok === 'yes') pt += p;
    else if (tok === 'false' || tok === 'no') pf += p;
  }
  return pt + pf > 0 ? pt / (pt + pf) : undefined;
}

/** Choice distribution from top logprobs over letters; unseen labels share the leftover mass. */
export function choiceFromLogprobs(labels: string[], top: TopLogprob[]): Record<string, number> | undefined {
  const mass = new Array<number>(labels.length).fill(0);
  let seen = 0;
  for (const t of top) {
    const p = entryProb(t);
    if (p === 0) continue;
    const tok = t.token.trim().replace(/[).:\s]+$/, '');
    let i = tok.length === 1 ? LETTERS.indexOf(tok.toUpperCase()) : -1;
    if (i < 0) i = labels.indexOf(tok);
    if (i >= 0 && i < labels.length) {
      mass[i] += p;
      seen += p;
    }
  }
  if (seen <= 0) return undefined;
  const unseen = mass.filter((m) => m === 0).length;
  const rest = Math.max(0, 1 - seen);
  return Object.fromEntries(labels.map((l, i) => [l, mass[i] > 0 ? mass[i] : unseen ? rest / unseen : 0]));
}

/**
 * The openai SDK, loaded on the backend's first answer (it is ~150 modules; a process that never asks
 * the OpenAI backend, like the offline `mem ask`, does not pay for it). Every error the helpers below
 * classify comes from a client call, so the SDK is loaded by then.
 */
let sdk: typeof OpenAI | undefined;
async function loadSdk(): Promise<typeof OpenAI> {
  return (sdk ??= (await import('openai')).default);
}

function retryable(e: unknown): boolean {
  const OpenAI = sdk;
  if (!OpenAI) return false;
  if (e instanceof OpenAI.APIConnectionTimeoutError || e instanceof OpenAI.APIConnectionError) return true;
  if (e instanceof OpenAI.APIError) return e.status === 429 || e.status === 408 || e.status === 409 || (e.status !== undefined && e.status >= 500);
  return false;
}

function retryAfterMs(e: unknown): number | undefined {
  const OpenAI = sdk;
  if (!OpenAI || !(e instanceof OpenAI.APIError) || !e.headers) return undefined;
  const h = e.headers as any;
  const v = typeof h.get === 'function' ? h.get('retry-after') : h['retry-after'];
  if (v == null) return undefined;
  const s = Number(v);
  if (Number.isFinite(s)) return s * 1000;
  const d = Date.parse(String(v));
  return Number.isFinite(d) ? Math.max(0, d - Date.now()) : undefined;
}

function mapError(e: unknown): SystemOneError {
  if (SystemOneError.isInstance(e)) return e;
  const OpenAI = sdk;
  if (!OpenAI) return toSystemOneError(e);
  if (e instanceof OpenAI.APIConnectionTimeoutError) return new SystemOneError('BACKEND_TIMEOUT', `openai request timed out: ${e.message}`, { cause: e });
  if (e instanceof OpenAI.APIError && e.status === 429) return new SystemOneError('RATE_LIMITED', `openai rate limited (429): ${e.message}`, { cause: e });
  if (e instanceof OpenAI.APIError) return new SystemOneError('BACKEND_ERROR', `openai error ${e.status ?? ''}: ${e.message}`, { cause: e, details: { status: e.status } });
  return toSystemOneError(e);
}

/** Create the OpenAI-compatible backend. */
export function createOpenAIBackend(options: OpenAIBackendOptions): SystemOneBackend {
  if (!options || typeof options.model !== 'string' || !options.model) throw new SystemOneError('INVALID_OPTION', 'createOpenAIBackend needs a model name');
  checkCount('createOpenAIBackend', 'maxRetries', options.maxRetries, 0);
  checkCount('createOpenAIBackend', 'concurrency', options.concurrency, 1);
  checkCount('createOpenAIBackend', 'topLogprobs', options.topLogprobs, 1);
  checkMs('createOpenAIBackend', 'backoffMs', options.backoffMs, true);
  checkMs('createOpenAIBackend', 'requestTimeoutMs', options.requestTimeoutMs, false);
  let clientP: Promise<OpenAI> | undefined;
  const getClient = () =>
    (clientP ??= loadSdk().then(
      (OpenAI) =>
        options.client ??
        new OpenAI({
          baseURL: options.baseURL,
          apiKey: options.apiKey ?? process.env.OPENAI_API_KEY ?? 'none',
          maxRetries: 0, // retries are ours (backoff + retry-after), so counts are explicit
          timeout: Math.min(options.requestTimeoutMs ?? 20_000, MAX_TIMER_MS),
          defaultHeaders: options.headers,
        }),
    ));
  const maxRetries = options.maxRetries ?? 2;
  const backoff = options.backoffMs ?? 500;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const topLogprobs = Math.min(20, Math.max(1, options.topLogprobs ?? 10));
  const tokensParam = options.maxTokensParam ?? 'max_tokens';
  let mode: 'logprobs' | 'json' = options.mode === 'json' ? 'json' : 'logprobs';
  /** How the JSON path asks for JSON; downgraded when the server rejects a form (ours). */
  let jsonFormat: 'json_schema' | 'json_object' | 'none' = 'json_schema';

  async function withRetries<T>(fn: () => Promise<T>, signal: AbortSignal): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (e) {
        if (signal.aborted || attempt >= maxRetries || !retryable(e)) throw mapError(e);
        const wait = Math.min(30_000, Math.max(backoff * 2 ** attempt, retryAfterMs(e) ?? 0));
        await sleep(wait, signal);
      }
    }
  }

  /** One chat completion (temperature 0, with retries) asking question `q` on `state`; `extra` adds the request fields of the path. */
  async function complete(q: Question, state: Record<string, unknown>, json: boolean, extra: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    const client = await getClient();
    const messages = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: buildPrompt(q, state, json) },
    ];
    return withRetries(() => client.chat.completions.create({ model: options.model, messages, temperature: 0, ...extra } as any, { signal }), signal);
  }

  async function askLogprobs(q: Question, state: Record<string, unknown>, signal: AbortSignal): Promise<unknown | undefined> {
    const res = await complete(q, state, false, { [tokensParam]: 1, logprobs: true, top_logprobs: topLogprobs }, signal);
    const choice0 = (res as any)?.choices?.[0];
    const top: TopLogprob[] | undefined = choice0?.logprobs?.content?.[0]?.top_logprobs;
    if (!Array.isArray(top) || !top.length) {
      if (options.mode !== 'logprobs') mode = 'json';
      return undefined;
    }
    if (q.type === 'noul') {
      const p = noulFromLogprobs(top);
      if (p === undefined) throw new SystemOneError('INVALID_ANSWER', `no true/false token among top logprobs: ${top.map((t) => t.token).join(' ')}`);
      return p;
    }
    const probs = choiceFromLogprobs(Object.keys(q.criteria), top);
    if (!probs) throw new SystemOneError('INVALID_ANSWER', `no label letter among top logprobs: ${top.map((t) => t.token).join(' ')}`);
    return { probabilities: probs };
  }

  const responseFormat = (q: Question, form: typeof jsonFormat) =>
    form === 'json_schema'
      ? { response_format: { type: 'json_schema', json_schema: { name: q.type === 'noul' ? 'noul_answer' : 'choice_answer', strict: true, schema: jsonSchemaFor(q) } } }
      : form === 'json_object'
        ? { response_format: { type: 'json_object', schema: jsonSchemaFor(q) } }
        : {};

  async function askJson(q: Question, state: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    let res: unknown;
    for (;;) {
      const form = jsonFormat;
      try {
        res = await complete(q, state, true, responseFormat(q, form), signal);
        break;
      } catch (e) {
        // the server rejects this response_format (4xx/5xx naming it): try the next weaker form once
        const err = SystemOneError.isInstance(e) ? (e as SystemOneError & { cause?: unknown }).cause : e;
        const rejected = sdk !== undefined && err instanceof sdk.APIError && err.status !== 429 && /response_format|json_schema|json_object/i.test(String(err.message));
        if (!rejected || form === 'none' || signal.aborted) throw e;
        if (jsonFormat === form) jsonFormat = form === 'json_schema' ? 'json_object' : 'none';
      }
    }
    const content = (res as any)?.choices?.[0]?.message?.content;
    if (typeof content !== 'string' || !content.trim()) throw new SystemOneError('INVALID_ANSWER', 'empty reply');
    return parseLenientJson(content);
  }

  return {
    name: `openai:${options.model}`,
    async answer(req: BackendRequest, { signal }) {
      const ids = Object.keys(req.questions);
      const results = await mapLimit(ids, concurrency, async (id) => {
        const q = req.questions[id];
        try {
          if (mode === 'logprobs') {
            const a = await askLogprobs(q, req.state, signal);
            if (a !== undefined) return a;
            if (options.mode === 'logprobs') throw new SystemOneError('INVALID_ANSWER', 'the server returned no logprobs');
          }
          return await askJson(q, req.state, signal);
        } catch (e) {
          return mapError(e);
        }
      });
      const errors = results.filter((r): r is SystemOneError => r instanceof Error);
      if (errors.length === ids.length && ids.length > 0 && errors.every((e) => e.category === 'unavailable')) throw errors[0];
      return Object.fromEntries(ids.map((id, i) => [id, results[i]]));
    },
  };
}

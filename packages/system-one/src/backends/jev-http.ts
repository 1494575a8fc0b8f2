/**
 * Jev HTTP backend: the Jev-Mem wire format (seed 000; authors' TypeSafeClient.system_one):
 * `POST {url}` (default path `/v1/systemone`) with JSON `{ model, state, questions }`, where each
 * question is `{ type: 'noul' | 'choice', instructions, criteria }` keyed by id. The reply is read
 * leniently: `{ answers: { id: answer } }`, `{ results: … }` or a bare `{ id: answer }` map, each answer
 * a number / `{p}` for a Noul and `{choice, probabilities}` / `{probabilities}` for a Choice (validated
 * by the controller). Retries 429 / 5xx / network errors with backoff (ours).
 */
import { type BackendRequest, MAX_TIMER_MS, type SystemOneBackend, sleep } from '../backend.js';
import { SystemOneError, toSystemOneError } from '../errors.js';
import { checkCount, checkMs } from './options.js';
import { parseLenientJson } from './parse.js';

export interface JevHttpBackendOptions {
  /** Server URL; `/v1/systemone` is appended when the URL has no path. */
  url: string;
  /** Model name sent in the body. */
  model: string;
  /** Sent as `Authorization: Bearer …` when set. */
  apiKey?: string;
  /** Per-request timeout in ms. Default 20 000. */
  requestTimeoutMs?: number;
  /** Retries on 429 / 5xx / network errors. Default 2. */
  maxRetries?: number;
  /** First backoff delay in ms (doubles per retry; `retry-after` wins when larger). Default 500. */
  backoffMs?: number;
  /** Also send our `kind` field with each question. Default false (the wire format has no kind). */
  sendKind?: boolean;
  headers?: Record<string, string>;
}

/** Create the Jev HTTP backend. */
export function createJevHttpBackend(options: JevHttpBackendOptions): SystemOneBackend {
  if (!options?.url || !options.model) throw new SystemOneError('INVALID_OPTION', 'createJevHttpBackend needs url and model');
  let u: URL;
  try {
    u = new URL(options.url);
  } catch (e) {
    throw new SystemOneError('INVALID_OPTION', `createJevHttpBackend: url "${options.url}" is not a valid URL`, { cause: e });
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new SystemOneError('INVALID_OPTION', `createJevHttpBackend: url must be http(s), got ${u.protocol}`);
  checkCount('createJevHttpBackend', 'maxRetries', options.maxRetries, 0);
  checkMs('createJevHttpBackend', 'backoffMs', options.backoffMs, true);
  checkMs('createJevHttpBackend', 'requestTimeoutMs', options.requestTimeoutMs, false);
  if (u.pathname === '/' || u.pathname === '') u.pathname = '/v1/systemone';
  const endpoint = u.toString();
  const timeout = options.requestTimeoutMs ?? 20_000;
  const maxRetries = options.maxRetries ?? 2;
  const backoff = options.backoffMs ?? 500;

  async function post(body: string, signal: AbortSignal): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const ac = new AbortController();
      const onAbort = () => ac.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      const timer = setTimeout(() => ac.abort(new SystemOneError('BACKEND_TIMEOUT', `jev-http request exceeded ${timeout} ms`)), Math.min(timeout, MAX_TIMER_MS));
      let retryAfter: number | undefined;
      let err: SystemOneError;
      try {
        const res = await fetch(endpoint, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
            ...options.headers,
          },
          body,
          signal: ac.signal,
        });
        const text = await res.text();
        if (res.ok) return parseLenientJson(text);
        const ra = Number(res.headers.get('retry-after'));
        retryAfter = Number.isFinite(ra) ? ra * 1000 : undefined;
        err = new SystemOneError(res.status === 429 ? 'RATE_LIMITED' : 'BACKEND_ERROR', `jev-http ${res.status}: ${text.slice(0, 200)}`, {
          details: { status: res.status },
        });
        if (res.status !== 429 && res.status < 500) throw err;
      } catch (e) {
        if (SystemOneError.isInstance(e) && (e.code === 'INVALID_ANSWER' || (e.details?.status as number) < 500)) throw e;
        err = ac.signal.aborted ? toSystemOneError(ac.signal.reason, 'BACKEND_TIMEOUT') : toSystemOneError(e);
      } finally {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      }
      if (signal.aborted || attempt >= maxRetries) throw err!;
      await sleep(Math.min(30_000, Math.max(backoff * 2 ** attempt, retryAfter ?? 0)), signal);
    }
  }

  return {
    name: `jev-http:${options.model}`,
    async answer(req: BackendRequest, { signal }) {
      const questions = Object.fromEntries(
        Object.entries(req.questions).map(([id, q]) => [
          id,
          options.sendKind && q.kind ? { type: q.type, kind: q.kind, instructions: q.instructions, criteria: q.criteria } : { type: q.type, instructions: q.instructions, criteria: q.criteria },
        ]),
      );
      const reply = await post(JSON.stringify({ model: options.model, state: req.state, questions }), signal);
      if (!reply || typeof reply !== 'object') throw new SystemOneError('INVALID_ANSWER', `jev-http reply is not an object: ${JSON.stringify(reply)?.slice(0, 200)}`);
      const r = reply as Record<string, unknown>;
      const map = (r.answers ?? r.results ?? r) as Record<string, unknown>;
      if (!map || typeof map !== 'object') throw new SystemOneError('INVALID_ANSWER', 'jev-http reply has no answers');
      return map;
    },
  };
}

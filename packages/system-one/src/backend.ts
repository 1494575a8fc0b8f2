/**
 * The backend interface of the controller (ours). A backend answers one batch: a shared state and
 * questions by id. It returns a raw answer per id (normalised and validated by the controller) or an
 * `Error` for a question it could not answer; a missing id counts as a per-question failure.
 * Throwing fails the whole call (the controller then retries and falls back).
 */
import type { Question, ResolvedRef, State } from './schema.js';

export interface BackendRequest {
  state: State;
  questions: Record<string, Question>;
  /** The resolved `{{path}}` references of each question (already validated against the state). */
  refs: Record<string, ResolvedRef[]>;
}

export interface BackendCallOptions {
  /** Aborted when the controller's `timeoutMs` elapses. */
  signal: AbortSignal;
}

export interface SystemOneBackend {
  /** Name recorded in traces (e.g. `offline`, `openai:gpt-4o-mini`). */
  readonly name: string;
  answer(request: BackendRequest, options: BackendCallOptions): Promise<Record<string, unknown>>;
  /**
   * Optional synchronous path for in-process, CPU-bound backends (the offline one without an
   * embedder). When present the controller calls it directly, without timers or the concurrency
   * limit (there is nothing to time out or to overlap), which keeps the per-call overhead small.
   */
  answerSync?(request: BackendRequest): Record<string, unknown>;
  /**
   * Optional synchronous path for an in-process backend that must sometimes wait (the offline one
   * with an embedder, for texts it has no vector of yet): the answers now, or `undefined` when it
   * would have to wait (the controller then calls `answer`). Answered now, a batch needs no state
   * snapshot, timer, concurrency slot or in-flight entry: it reads the state before the ask returns
   * (ours, issue 33 point 2). A throw counts as a failed call, as from `answerSync`.
   */
  answerWhenReady?(request: BackendRequest): Record<string, unknown> | undefined;
  /** Release resources (HTTP agents, model sessions). */
  close?(): Promise<void>;
}

/** Run `fn` over `items` with at most `limit` in flight; results keep the input order. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (x: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

/**
 * Longest delay `setTimeout` supports (2^31 − 1 ms ≈ 24.8 days); Node fires a longer one after 1 ms
 * (TimeoutOverflowWarning), so every timer here is clamped to it.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** Resolves after `ms`, or rejects when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.min(ms, MAX_TIMER_MS));
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The System-One controller J(S, Q) (Jev-Mem seed 000; batching, cache, fallback and traces are ours).
 *
 * `ask(state, questions)`:
 * 1. validates the state (a JSON object) and every question (Noul / Choice schema), and resolves every
 *    `{{path}}` against the state — any failure throws a `SystemOneError` before a backend is called;
 * 2. answers cached questions from an LRU keyed by backend + question + the values of its referenced paths;
 * 3. sends the other questions to the backend in one call (questions never see each other's answers),
 *    with a timeout, retries with backoff and a concurrency limit across calls;
 * 4. questions the backend failed (call error / timeout, or one bad answer) go to the fallback backend
 *    (default: offline); a question that fails there too gets a neutral answer (0.5 / uniform) and an
 *    `error` in its trace — one bad question never fails its batch.
 */
import { MAX_TIMER_MS, type SystemOneBackend, sleep } from './backend.js';
import { SystemOneError, toSystemOneError } from './errors.js';
import { AnswerCache } from './lru.js';
import { createOfflineBackend } from './offline/index.js';
import {
  type Answer, type Answers, type CompiledPath, compiledPathsOf, type Question, type ResolvedRef, type State, labelsOf,
  normalizeAnswer, resolveCompiledRefs, setOwn, validateQuestion,
} from './schema.js';

/** One answered question. `latencyMs` is the wall time of the backend call that answered it (0 for cache hits). */
export interface AnswerTrace {
  id: string;
  kind?: string;
  type: 'noul' | 'choice';
  /** Noul: p; Choice: the chosen label. */
  value: number | string;
  backend: string;
  cacheHit: boolean;
  fallback: boolean;
  latencyMs: number;
  /** Set when the question could not be answered by any backend (the answer is then neutral). */
  error?: { code: string; message: string };
}

export interface SystemOneStats {
  /** Backend calls made (primary + fallback, retries excluded). */
  calls: number;
  /** Questions asked (cached or not). */
  questions: number;
  cacheHits: number;
  /** Questions answered by the fallback backend. */
  fallbacks: number;
  /** Questions no backend could answer (neutral answer returned) plus failed backend calls. */
  errors: number;
}

export interface SystemOneOptions {
  /** Primary backend. Default: `createOfflineBackend()`. */
  backend?: SystemOneBackend;
  /** Used for questions the primary failed. Default: offline (none when the primary is the default offline). `null` disables. */
  fallback?: SystemOneBackend | null;
  /** LRU answer cache: `false` to disable, a max entry count, or `{ maxSize }`. Default 2048 entries. */
  cache?: false | number | { maxSize?: number };
  /** Per backend call, in ms. Default 30 000. */
  timeoutMs?: number;
  /** Retries of a failed / timed-out primary backend call before falling back. Default 1 (backoff 100 ms · 2^k). */
  maxRetries?: number;
  /** Max concurrent backend calls across `ask` calls. Default 4. Bad options throw `SystemOneError('INVALID_OPTION')`. */
  concurrency?: number;
  /** Called with every trace (e.g. for logging). */
  onTrace?: (trace: AnswerTrace) => void;
}

export interface AskResult<Qs extends Record<string, Question>> {
  answers: Answers<Qs>;
  traces: AnswerTrace[];
}

export interface SystemOne {
  /**
   * Ask a batch of questions over one state.
   * @throws SystemOneError INVALID_STATE | INVALID_QUESTION | MISSING_STATE_FIELD (before any backend call)
   */
  ask<const Qs extends Record<string, Question>>(state: State, questions: Qs, options?: { signal?: AbortSignal }): Promise<AskResult<Qs>>;
  stats(): SystemOneStats;
  /** Name of the primary backend. */
  readonly backendName: string;
  close(): Promise<void>;
}

class Semaphore {
  private active = 0;
  private readonly queue: (() => void)[] = [];
  constructor(private readonly limit: number) {}
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((r) => this.queue.push(r));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.queue.shift()?.();
    }
  }
}

/** Fast structural check equivalent to `QuestionSchema` (zod runs only to explain a failure). */
function quickValid(q: any): boolean {
  if (!q || typeof q !== 'object') return false;
  if (typeof q.instructions !== 'string' || !q.instructions.trim()) return false;
  if (q.kind !== undefined && (typeof q.kind !== 'string' || !q.kind)) return false;
  const c = q.criteria;
  if (!c || typeof c !== 'object' || Array.isArray(c)) return false;
  if (q.type === 'noul') {
    const keys = Object.keys(c);
    return keys.length === 2 && typeof c.true === 'string' && !!c.true.trim() && typeof c.false === 'string' && !!c.false.trim();
  }
  if (q.type === 'choice') {
    const keys = Object.keys(c);
    return keys.length >= 2 && keys.every((k) => k.length > 0 && typeof c[k] === 'string' && !!c[k].trim());
  }
  return false;
}

/**
 * What the controller knows about one question content: its cache key (interned: one short key per
 * distinct content) and its compiled `{{path}}` references. Only validated contents get one.
 */
interface QuestionInfo {
  key: string;
  paths: CompiledPath[];
}
/** A validated content, found again by its instructions string (see `infoByContent`). */
interface ContentEntry extends QuestionInfo {
  type: string;
  kind: string | undefined;
  criteriaKeys: string[];
  criteriaValues: unknown[];
}
const byInstructions = new Map<string, ContentEntry[]>();
const qIntern = new Map<string, string>();
let qCounter = 0;

/** The entry of a validated content equal to `q` (same type, kind, instructions and criteria labels, texts and order), if any. */
function infoByContent(q: Question): ContentEntry | undefined {
  const list = byInstructions.get(q.instructions);
  if (list === undefined) return undefined;
  const c = q.criteria as Record<string, unknown>;
  for (const e of list) {
    if (e.type !== q.type || e.kind !== q.kind) continue;
    // the own enumerable keys in order (what Object.keys gives) equal the entry's, with the same texts;
    // an inherited enumerable key makes it a mismatch (the full check then decides)
    const ek = e.criteriaKeys;
    let i = 0;
    let same = true;
    for (const k in c) {
      if (i >= ek.length || ek[i] !== k || !Object.prototype.hasOwnProperty.call(c, k) || e.criteriaValues[i] !== c[k]) {
        same = false;
        break;
      }
      i++;
    }
    if (same && i === ek.length) return e;
  }
  return undefined;
}

/**
 * Validate a question and return its info. Looked up by content on every ask (instructions string,
 * then type, kind and criteria labels and texts in order), so a question object edited between asks
 * never hits answers of its old content; the content string (for the interned key) and the zod check
 * run once per distinct content. Catalogue templates share their instruction strings, so this lookup
 * hashes no new string.
 * @throws SystemOneError('INVALID_QUESTION')
 */
function questionInfo(id: string, q: Question): QuestionInfo {
  if (q === null || typeof q !== 'object') validateQuestion(id, q); // throws INVALID_QUESTION
  let info: QuestionInfo | undefined =
    typeof q.instructions === 'string' && q.criteria && typeof q.criteria === 'object' && !Array.isArray(q.criteria) ? infoByContent(q) : undefined;
  if (info === undefined) {
    if (!quickValid(q)) validateQuestion(id, q); // throws with zod's explanation
    const full = JSON.stringify([q.type, q.kind ?? '', q.instructions, q.criteria]);
    let key = qIntern.get(full);
    if (key === undefined) {
      if (qIntern.size > 100_000) qIntern.clear();
      key = `q${qCounter++}`;
      qIntern.set(full, key);
    }
    const c = q.criteria as Record<string, unknown>;
    const criteriaKeys = Object.keys(c);
    const entry: ContentEntry = {
      key,
      paths: compiledPathsOf(q.instructions),
      type: q.type,
      kind: q.kind,
      criteriaKeys,
      criteriaValues: criteriaKeys.map((k) => c[k]),
    };
    let list = byInstructions.get(q.instructions);
    if (list === undefined) {
      if (byInstructions.size > 100_000) byInstructions.clear();
      byInstructions.set(q.instructions, (list = []));
    }
    if (list.length >= 16) list.shift();
    list.push(entry);
    info = entry;
  }
  return info;
}

/** Characters `JSON.stringify` escapes in a string (quote, backslash, controls; any surrogate goes the slow way). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
/** `JSON.stringify(s)` for a string: without anything to escape it is the string in quotes. */
const quote = (s: string): string => (NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : '"' + s + '"');

/** A plain array of strings only (no holes, no `toJSON`): `JSON.stringify` of it equals `stableStringify`. */
function allStrings(v: unknown[]): boolean {
  if (Object.getPrototypeOf(v) !== Array.prototype || typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string' || !(i in v)) return false;
  return true;
}

/** The state key of a question reading two paths: the value keys of both (the string key would be `a + U+0001 + b`). */
interface PairKey {
  a: string;
  b: string;
}

/** The cache keys of the state values read by one `ask` (each computed once per call). */
class StateKeys {
  private memo: Map<unknown, string> | undefined;
  private joined: Map<unknown, Map<unknown, PairKey>> | undefined;
  private rest: Map<unknown, Map<unknown, { key: string; pairs: Map<unknown, PairKey> }>> | undefined;

  /**
   * Key of a state value: strings as themselves (no copy; V8 caches their hash), others as tagged
   * stable JSON. Strings holding the tag (\u0000) or the separator of multi-path keys (\u0001) go
   * through JSON too (which escapes both), so two different states never share a key.
   * @throws SystemOneError('INVALID_STATE') for a value JSON cannot represent (a cycle, a BigInt)
   */
  value(v: unknown): string {
    if (typeof v === 'string' && v.indexOf('\u0001') < 0 && v.charCodeAt(0) !== 0) return v;
    this.memo ??= new Map();
    let k = this.memo.get(v);
    if (k === undefined) {
      try {
        k = `\u0000${stableStringify(v)}`;
      } catch (e) {
        // cyclic structures (stack overflow), BigInt …
        throw new SystemOneError('INVALID_STATE', `state is not JSON-serialisable: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
      this.memo.set(v, k);
    }
    return k;
  }

  /**
   * The key of a question reading three values (a, b, c): the pair (key of a, keys of b and c
   * joined), which is the state key the joined string of all three would be (`a U+0001 b U+0001 c`);
   * the joined part is built once per distinct (b, c) and the pair once per distinct (a, b, c) in this
   * call (the read path's scoring questions read a candidate, the query and the evidence: the long
   * evidence key is joined and hashed once per ask, not once per question; ours, issue 33 point 2).
   */
  triple(a: unknown, b: unknown, c: unknown): PairKey {
    this.rest ??= new Map();
    let byC = this.rest.get(b);
    if (byC === undefined) this.rest.set(b, (byC = new Map()));
    let bc = byC.get(c);
    if (bc === undefined) byC.set(c, (bc = { key: `${this.value(b)}\u0001${this.value(c)}`, pairs: new Map() }));
    let k = bc.pairs.get(a);
    if (k === undefined) bc.pairs.set(a, (k = { a: this.value(a), b: bc.key }));
    return k;
  }

  /** The key of a question reading two values, built once per distinct pair of values in this call. */
  pair(a: unknown, b: unknown): PairKey {
    this.joined ??= new Map();
    let m = this.joined.get(a);
    if (m === undefined) this.joined.set(a, (m = new Map()));
    let k = m.get(b);
    if (k === undefined) m.set(b, (k = { a: this.value(a), b: this.value(b) }));
    return k;
  }
}

/** A deep copy of a state and the refs resolved from it, sharing between the two kept (structured clone); the originals when they cannot be cloned. */
function snapshot<R>(state: State, refs: R): { state: State; refs: R } {
  try {
    return structuredClone({ state, refs });
  } catch {
    return { state, refs };
  }
}

/** A token no state value can be (see the cache loop of `askInner`). */
const NO_TOKEN = Symbol('none');

/** Deterministic JSON (sorted object keys) for cache keys. */
export function stableStringify(v: unknown): string {
  if (typeof v === 'string') return quote(v);
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) {
    if (allStrings(v)) return JSON.stringify(v); // the same text, built natively
    let s = '[';
    for (let i = 0; i < v.length; i++) {
      if (i > 0) s += ',';
      if (i in v) s += stableStringify(v[i]); // a hole is empty, as in `[1,,2].map(f).join(',')`
    }
    return s + ']';
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length > 1) keys.sort();
  let s = '{';
  let first = true;
  for (const k of keys) {
    const x = o[k];
    if (x === undefined) continue;
    if (!first) s += ',';
    first = false;
    s += quote(k) + ':' + stableStringify(x);
  }
  return s + '}';
}

function neutral(q: Question): Answer {
  if (q.type === 'noul') return 0.5;
  const labels = labelsOf(q);
  return { choice: labels[0], probabilities: Object.fromEntries(labels.map((l) => [l, 1 / labels.length])) };
}

/** Create a System-One controller. */
export function createSystemOne(options: SystemOneOptions = {}): SystemOne {
  const backend = options.backend ?? createOfflineBackend();
  const fallback = options.fallback === undefined ? (options.backend ? createOfflineBackend() : null) : options.fallback;
  const cacheSize = options.cache === false ? 0 : typeof options.cache === 'number' ? options.cache : options.cache?.maxSize ?? 2048;
  const cache = cacheSize > 0 ? new AnswerCache<Answer>(cacheSize) : null;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxRetries = options.maxRetries ?? 1;
  if (options.concurrency !== undefined && !(Number.isInteger(options.concurrency) && options.concurrency >= 1)) {
    throw new SystemOneError('INVALID_OPTION', `concurrency must be an integer >= 1, got ${options.concurrency}`);
  }
  if (!(Number.isInteger(maxRetries) && maxRetries >= 0)) throw new SystemOneError('INVALID_OPTION', `maxRetries must be an integer >= 0, got ${maxRetries}`);
  if (!(Number.isInteger(cacheSize) && cacheSize >= 0)) throw new SystemOneError('INVALID_OPTION', `cache size must be an integer >= 0, got ${cacheSize}`);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new SystemOneError('INVALID_OPTION', `timeoutMs must be > 0, got ${timeoutMs}`);
  const c: ControllerCore = {
    backend,
    fallback,
    cache,
    // Cache misses being answered right now (asynchronous backends only), keyed like the cache: a
    // concurrent ask of the same question on the same state values waits for that answer instead of
    // calling the backend again.
    inflight: cache && !backend.answerSync ? new Map<string, Promise<Answer | undefined>>() : null,
    stats: { calls: 0, questions: 0, cacheHits: 0, fallbacks: 0, errors: 0 },
    sem: new Semaphore(options.concurrency ?? 4),
    timeoutMs,
    maxRetries,
  };

  function ask<const Qs extends Record<string, Question>>(
    state: State,
    questions: Qs,
    opts: { signal?: AbortSignal } = {},
  ): Promise<AskResult<Qs>> {
    // no extra async frame on the hot path (askInner's throws are rejections either way)
    const onTrace = options.onTrace;
    if (!onTrace) return askInner(c, state, questions, opts) as Promise<AskResult<Qs>>;
    return askInner(c, state, questions, opts).then((r) => {
      for (const t of r.traces) onTrace(t);
      return r as AskResult<Qs>;
    });
  }

  return {
    ask,
    stats: () => ({ ...c.stats }),
    backendName: backend.name,
    async close() {
      await backend.close?.();
      if (fallback && fallback !== backend) await fallback.close?.();
    },
  };
}

/** The state of one controller (ours): its backends, answer cache, in-flight answers, counters and limits. */
interface ControllerCore {
  backend: SystemOneBackend;
  fallback: SystemOneBackend | null;
  cache: AnswerCache<Answer> | null;
  inflight: Map<string, Promise<Answer | undefined>> | null;
  stats: SystemOneStats;
  sem: Semaphore;
  timeoutMs: number;
  maxRetries: number;
}

/** One backend call raced against `timeoutMs` (BACKEND_TIMEOUT) and the caller's signal. */
async function callOnce(
  c: ControllerCore,
  b: SystemOneBackend,
  state: State,
  questions: Record<string, Question>,
  refs: Record<string, ResolvedRef[]>,
  outer?: AbortSignal,
): Promise<Record<string, unknown>> {
  const { timeoutMs } = c;
  const ac = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onOuter = () => ac.abort(outer!.reason);
  outer?.addEventListener('abort', onOuter, { once: true });
  try {
    return await Promise.race([
      b.answer({ state, questions, refs }, { signal: ac.signal }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const err = new SystemOneError('BACKEND_TIMEOUT', `backend "${b.name}" did not answer within ${timeoutMs} ms`);
          ac.abort(err);
          reject(err);
        }, Math.min(timeoutMs, MAX_TIMER_MS));
        ac.signal.addEventListener('abort', () => reject(toSystemOneError(ac.signal.reason, 'BACKEND_TIMEOUT')), { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuter);
  }
}

/**
 * One counted backend call: a synchronous backend directly; an asynchronous one under the
 * concurrency semaphore with `retries` retries (exponential back-off from 100 ms; none after a
 * validation error or an abort). Throws SystemOneError.
 */
async function call(
  c: ControllerCore,
  b: SystemOneBackend,
  retries: number,
  state: State,
  questions: Record<string, Question>,
  refs: Record<string, ResolvedRef[]>,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  c.stats.calls++;
  if (b.answerSync) {
    // in-process synchronous backend: nothing to time out, retry or overlap
    try {
      return b.answerSync({ state, questions, refs });
    } catch (e) {
      throw toSystemOneError(e);
    }
  }
  return c.sem.run(async () => {
    let last: unknown;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await sleep(100 * 2 ** (attempt - 1), signal);
      try {
        return await callOnce(c, b, state, questions, refs, signal);
      } catch (e) {
        last = e;
        if (signal?.aborted) break;
        if (SystemOneError.isInstance(e) && e.category === 'validation') break;
      }
    }
    throw toSystemOneError(last);
  });
}

/** One ask's questions, their resolved references, and the answers and traces filled in so far (index i = question ids[i]). */
interface AskBatch {
  state: State;
  questions: Record<string, Question>;
  ids: string[];
  qs: Question[];
  infos: QuestionInfo[];
  refs: Record<string, ResolvedRef[]>;
  answers: Record<string, Answer>;
  traces: AnswerTrace[];
  /** Per question (with a cache): its state key, a string or a pair of value keys (see AnswerCache.getPair). */
  stateKeys?: (string | PairKey)[];
  qKeys?: string[];
}

/** A cache miss this ask answers for concurrent asks of the same question on the same values. */
interface OwnedAnswer {
  key: string;
  i: number;
  promise: Promise<Answer | undefined>;
  resolve: (a: Answer | undefined) => void;
}

/** Check the state and questions (INVALID_STATE, INVALID_QUESTION, an aborted signal) and resolve every question's references. */
function askBatch(c: ControllerCore, state: State, questions: Record<string, Question>, opts: { signal?: AbortSignal }): AskBatch {
  if (state === null || typeof state !== 'object' || Array.isArray(state)) {
    throw new SystemOneError('INVALID_STATE', `state must be a JSON object, got ${Array.isArray(state) ? 'an array' : state === null ? 'null' : typeof state}`);
  }
  if (questions === null || typeof questions !== 'object' || Array.isArray(questions)) {
    throw new SystemOneError('INVALID_QUESTION', 'questions must be an object keyed by question id');
  }
  if (opts.signal?.aborted) throw toSystemOneError(opts.signal.reason, 'BACKEND_TIMEOUT');
  const ids = Object.keys(questions);
  const n = ids.length;
  const qs = new Array<Question>(n);
  const infos = new Array<QuestionInfo>(n);
  const resolved = n > 8 ? new Map<CompiledPath, ResolvedRef>() : undefined; // worth a map only for larger batches
  const refs: Record<string, ResolvedRef[]> = {};
  for (let i = 0; i < n; i++) {
    const id = ids[i];
    const q = questions[id];
    const info = questionInfo(id, q);
    qs[i] = q;
    infos[i] = info;
    setOwn(refs, id, resolveCompiledRefs(id, info.paths, state, resolved));
  }
  c.stats.questions += n;
  const stateKeys = c.cache ? new Array<string | PairKey>(n) : undefined;
  const qKeys = c.cache ? new Array<string>(n) : undefined;
  return { state, questions, ids, qs, infos, refs, answers: {}, traces: new Array<AnswerTrace>(n), stateKeys, qKeys };
}

/** Answer what the cache holds (traced as hits); returns the indices of the misses. */
function answerFromCache(c: ControllerCore, batch: AskBatch): number[] {
  const { cache, backend, stats } = c;
  const { ids, qs, refs, infos, answers, traces, state } = batch;
  const n = ids.length;
  if (!cache) return Array.from({ length: n }, (_, i) => i);
  const pending: number[] = [];
  const keys = new StateKeys();
  // One LRU touch per run of questions on the same state key (as before), detected without comparing
  // long key strings: `tok` is the value read (one path) or the joined-key object (two paths). Equal
  // tokens imply equal keys; unequal tokens with equal keys only repeat a lookup of the key just touched.
  let lastTok: unknown = NO_TOKEN;
  let lastInner: Map<string, Answer> | undefined;
  for (let i = 0; i < n; i++) {
    const r = refs[ids[i]];
    let sv: string | PairKey;
    let tok: unknown;
    if (r.length === 1) {
      tok = r[0].value;
      sv = keys.value(tok);
    } else if (r.length === 2) {
      sv = keys.pair(r[0].value, r[1].value);
      tok = sv;
    } else if (r.length === 3) {
      sv = keys.triple(r[0].value, r[1].value, r[2].value);
      tok = sv;
    } else {
      sv = r.length ? r.map((x) => keys.value(x.value)).join('\u0001') : keys.value(state);
      tok = sv;
    }
    const qk = infos[i].key;
    batch.stateKeys![i] = sv;
    batch.qKeys![i] = qk;
    if (tok !== lastTok) {
      lastInner = typeof sv === 'string' ? cache.get(sv) : cache.getPair(sv.a, sv.b); // one LRU touch per distinct state key, not per question
      lastTok = tok;
    }
    const hit = lastInner?.get(qk);
    if (hit !== undefined) {
      stats.cacheHits++;
      setOwn(answers, ids[i], hit);
      traces[i] = trace(ids[i], qs[i], hit, backend.name, true, false, 0);
    } else pending.push(i);
  }
  return pending;
}

/**
 * Concurrent dedup of the misses (asynchronous backends with a cache): a miss another ask is already
 * answering is waited for; the others are claimed (owned) and stay pending.
 */
function claimInflight(c: ControllerCore, batch: AskBatch, pending: number[]): { pending: number[]; waiting?: [number, Promise<Answer | undefined>][]; owned?: OwnedAnswer[] } {
  const inflight = c.inflight;
  if (!inflight || !pending.length) return { pending };
  let waiting: [number, Promise<Answer | undefined>][] | undefined;
  let owned: OwnedAnswer[] | undefined;
  const mine: number[] = [];
  const mineKeys = new Set<string>();
  for (const i of pending) {
    const sk = batch.stateKeys![i];
    const key = `${typeof sk === 'string' ? sk : `${sk.a}\u0001${sk.b}`}\u0002${batch.qKeys![i]}`;
    const p = inflight.get(key);
    if (mineKeys.has(key)) mine.push(i); // the same question twice in one batch: both ids go to the backend, as before
    else if (p) (waiting ??= []).push([i, p]);
    else {
      let resolve!: (a: Answer | undefined) => void;
      const promise = new Promise<Answer | undefined>((r) => (resolve = r));
      inflight.set(key, promise);
      (owned ??= []).push({ key, i, promise, resolve });
      mineKeys.add(key);
      mine.push(i);
    }
  }
  return { pending: mine, waiting, owned };
}

/** The sub-batch of questions `pending` (the whole batch when every question is pending). */
function subBatch(batch: AskBatch, pending: Iterable<number>, all: boolean): { sub: Record<string, Question>; subRefs: Record<string, ResolvedRef[]> } {
  if (all) return { sub: batch.questions, subRefs: batch.refs };
  const sub: Record<string, Question> = {};
  const subRefs: Record<string, ResolvedRef[]> = {};
  for (const i of pending) {
    setOwn(sub, batch.ids[i], batch.qs[i]);
    setOwn(subRefs, batch.ids[i], batch.refs[batch.ids[i]]);
  }
  return { sub, subRefs };
}

/** Read the primary backend's raw answers of `pending`: normalized, cached, traced; returns the failures (or undefined). */
function takePrimaryAnswers(c: ControllerCore, batch: AskBatch, pending: number[], raw: Record<string, unknown>, ms: number, answeredByPrimary: Set<number> | undefined): Map<number, SystemOneError> | undefined {
  const { backend, cache } = c;
  const { ids, qs } = batch;
  let failed: Map<number, SystemOneError> | undefined;
  for (const i of pending) {
    const id = ids[i];
    const r = ownValue(raw, id);
    try {
      if (r === undefined) throw new SystemOneError('INVALID_ANSWER', `backend "${backend.name}" returned no answer for "${id}"`);
      if (r instanceof Error) throw toSystemOneError(r);
      const a = normalizeAnswer(id, qs[i], r);
      setOwn(batch.answers, id, a);
      if (cache) {
        const sk = batch.stateKeys![i];
        if (typeof sk === 'string') cache.put(sk, batch.qKeys![i], a);
        else cache.putPair(sk.a, sk.b, batch.qKeys![i], a);
      }
      answeredByPrimary?.add(i);
      batch.traces[i] = trace(id, qs[i], a, backend.name, false, false, ms);
    } catch (e) {
      (failed ??= new Map()).set(i, toSystemOneError(e, 'INVALID_ANSWER'));
    }
  }
  return failed;
}

/** The failed questions: the fallback backend's answers, else a neutral answer (traced with the error). */
async function answerFailures(c: ControllerCore, batch: AskBatch, failed: Map<number, SystemOneError>, opts: { signal?: AbortSignal }): Promise<void> {
  const { fallback, backend, stats } = c;
  const { ids, qs } = batch;
  if (opts.signal?.aborted) throw toSystemOneError(opts.signal.reason, 'BACKEND_TIMEOUT');
  const { sub: fsub, subRefs: fRefs } = subBatch(batch, failed.keys(), false);
  let fraw: Record<string, unknown> = {};
  let ferr: SystemOneError | undefined;
  const t1 = performance.now();
  if (fallback) {
    try {
      fraw = await call(c, fallback, 0, batch.state, fsub, fRefs, opts.signal);
    } catch (e) {
      ferr = toSystemOneError(e);
    }
  }
  const ms = performance.now() - t1;
  for (const [i, why] of failed) {
    const id = ids[i];
    const q = qs[i];
    let a: Answer | undefined;
    if (fallback && !ferr) {
      try {
        const r = ownValue(fraw, id);
        if (r !== undefined && !(r instanceof Error)) a = normalizeAnswer(id, q, r);
      } catch {
        a = undefined;
      }
    }
    let tr: AnswerTrace;
    if (a !== undefined) {
      stats.fallbacks++;
      tr = trace(id, q, a, fallback!.name, false, true, ms);
      tr.error = { code: why.code, message: why.message };
    } else {
      stats.errors++;
      a = neutral(q);
      const err = ferr ?? why;
      tr = trace(id, q, a, fallback?.name ?? backend.name, false, !!fallback, ms);
      tr.error = { code: err.code, message: err.message };
    }
    setOwn(batch.answers, id, a);
    batch.traces[i] = tr;
  }
}

/** Take the answers other asks found for the waited questions (traced as cache hits); returns those without a primary answer. */
function takeWaitedAnswers(c: ControllerCore, batch: AskBatch, waiting: [number, Promise<Answer | undefined>][], got: (Answer | undefined)[]): number[] {
  const again: number[] = [];
  waiting.forEach(([i], k) => {
    const a = got[k];
    if (a === undefined) again.push(i);
    else {
      c.stats.cacheHits++;
      setOwn(batch.answers, batch.ids[i], a);
      batch.traces[i] = trace(batch.ids[i], batch.qs[i], a, c.backend.name, true, false, 0);
    }
  });
  return again;
}

/**
 * The misses answered by the primary's `answerWhenReady` (an in-process backend with everything at
 * hand), cached and traced as primary answers; returns the failures (an empty map when none), or
 * undefined (nothing done) when the backend would have to wait. Synchronous: it reads the state
 * before the ask first yields, so the answers belong to the values their cache keys were built from.
 */
function answerNow(c: ControllerCore, batch: AskBatch, misses: number[]): Map<number, SystemOneError> | undefined {
  const { backend, stats } = c;
  const { sub, subRefs } = subBatch(batch, misses, misses.length === batch.ids.length);
  const t0 = performance.now();
  try {
    const raw = backend.answerWhenReady!({ state: batch.state, questions: sub, refs: subRefs });
    if (raw === undefined) return undefined;
    stats.calls++;
    return takePrimaryAnswers(c, batch, misses, raw, performance.now() - t0, undefined) ?? new Map();
  } catch (e) {
    // as a throwing answerSync: one counted call, failed as a whole
    stats.calls++;
    stats.errors++;
    const err = toSystemOneError(e);
    return new Map(misses.map((i) => [i, err]));
  }
}

/**
 * J(S, Q) for one batch (seed 000 §3; the cache, dedup and fallback are ours): cached answers, then one
 * primary backend call for the misses (on a snapshot of the values read, with a cache and an async
 * backend), the fallback (or neutral answers) for failures, and the answers concurrent asks found.
 */
async function askInner(c: ControllerCore, state: State, questions: Record<string, Question>, opts: { signal?: AbortSignal }): Promise<{ answers: Record<string, Answer>; traces: AnswerTrace[] }> {
  const { backend, cache, stats, maxRetries } = c;
  const batch = askBatch(c, state, questions, opts);
  const n = batch.ids.length;
  const misses = answerFromCache(c, batch);
  // answered now by an in-process backend (read before anything awaits: no snapshot needed)
  const failedNow = misses.length && backend.answerWhenReady ? answerNow(c, batch, misses) : undefined;
  if (failedNow) {
    if (failedNow.size) await answerFailures(c, batch, failedNow, opts);
    return { answers: batch.answers, traces: batch.traces };
  }
  // Concurrent dedup (registered after the cache lookup, which may still throw INVALID_STATE).
  const { pending, waiting, owned } = claimInflight(c, batch, misses);
  const answeredByPrimary = owned ? new Set<number>() : undefined;
  try {
    if (pending.length) {
      const { sub, subRefs } = subBatch(batch, pending, pending.length === n);
      let failed: Map<number, SystemOneError> | undefined; // created on the first failure
      const t0 = performance.now();
      try {
        let raw: Record<string, unknown>;
        if (backend.answerSync) {
          stats.calls++;
          raw = backend.answerSync({ state, questions: sub, refs: subRefs });
        } else if (cache) {
          // The answers are cached under the values the questions read NOW; an asynchronous backend
          // reads them later, so it gets a snapshot: a caller mutating the state while the ask is
          // in flight cannot make an answer for other content land under this key (ours).
          const snap = snapshot(state, subRefs);
          raw = await call(c, backend, maxRetries, snap.state, sub, snap.refs, opts.signal);
        } else raw = await call(c, backend, maxRetries, state, sub, subRefs, opts.signal);
        failed = takePrimaryAnswers(c, batch, pending, raw, performance.now() - t0, answeredByPrimary);
      } catch (e) {
        stats.errors++;
        const err = toSystemOneError(e);
        failed ??= new Map();
        for (const i of pending) failed.set(i, err);
      }
      if (failed?.size) await answerFailures(c, batch, failed, opts);
    }
  } finally {
    // settle every owned entry, whatever happened (waiters re-ask when no primary answer exists)
    if (owned) {
      for (const o of owned) {
        o.resolve(answeredByPrimary!.has(o.i) ? (batch.answers[batch.ids[o.i]] as Answer) : undefined);
        if (c.inflight!.get(o.key) === o.promise) c.inflight!.delete(o.key);
      }
    }
  }
  if (waiting) {
    const again = takeWaitedAnswers(c, batch, waiting, await Promise.all(waiting.map(([, p]) => p)));
    if (again.length) {
      // the other call found no primary answer (failure, fallback): ask these ourselves
      const sub: Record<string, Question> = {};
      for (const i of again) setOwn(sub, batch.ids[i], batch.qs[i]);
      stats.questions -= again.length; // counted once, above
      const r2 = await askInner(c, state, sub, opts);
      for (const i of again) {
        setOwn(batch.answers, batch.ids[i], ownValue(r2.answers, batch.ids[i]) as Answer);
        batch.traces[i] = r2.traces.find((t) => t.id === batch.ids[i])!;
      }
    }
  }
  return { answers: batch.answers, traces: batch.traces };
}

/** `o[k]` for an own property only (a question id such as "constructor" must not read Object.prototype). */
function ownValue(o: unknown, k: string): unknown {
  return o !== null && typeof o === 'object' && Object.prototype.hasOwnProperty.call(o, k) ? (o as Record<string, unknown>)[k] : undefined;
}

function trace(id: string, q: Question, a: Answer, backend: string, cacheHit: boolean, fallback: boolean, latencyMs: number): AnswerTrace {
  return {
    id,
    kind: q.kind,
    type: q.type,
    value: typeof a === 'number' ? a : a.choice,
    backend,
    cacheHit,
    fallback,
    latencyMs,
  };
}

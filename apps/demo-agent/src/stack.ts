/**
 * The one place where the demo agent wires the packages together (ours): store + embedder +
 * System One + SAGE gate + retriever + Memory facade + optional System Two, built from options and
 * the environment. The CLI, the HTTP API and the demo all go through `createStack`.
 *
 * Environment:
 * - MEM_LLM_BASE_URL / MEM_LLM_API_KEY / MEM_LLM_MODEL: System Two (answer writing); all three or none.
 * - MEM_SYSTEM_ONE=offline|openai (default offline): System One backend; `openai` uses the same
 *   endpoint (model MEM_SYSTEM_ONE_MODEL, else MEM_LLM_MODEL) through logprobs, with the offline
 *   backend as fallback.
 * - MEM_NEO4J_URI / MEM_NEO4J_USER / MEM_NEO4J_PASSWORD: used with `store: 'neo4j'`.
 * - MEM_EMBEDDER=glove|minilm|openai (default glove; `embedder` option wins): see ./embedder.ts.
 * - MEM_TIME_ZONE: IANA zone (`timeZone` option wins) for zone-less times and relative dates.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import envPaths from 'env-paths';
import { createBm25Retriever, createDenseRetriever, createHybridRetriever, createJevRetriever, toContext } from '@mem/retrieval';
import { createOfflineBackend, createOpenAIBackend, createSystemOne, type SystemOne } from '@mem/system-one';
import type {
  Embedder,
  GateDecisionRecord,
  HistoryEntry,
  MemoryNode,
  MemoryStore,
  Neighbor,
  ObservationInput,
  Relation,
  ResolvedScope,
  Retriever,
  Scope,
  SearchResult,
} from '@mem/core';
import { episodeKey, assertTimeZone, normalizeNow, createMemory, createSqliteStore, type WinkEmbedder, MemError, MemNotFoundError, MemValidationError, StoreUnavailableError, resolveScope, RELATION_VIEWS, type AddResult, type Memory } from '@mem/core';
import { createSystemTwo, systemTwoConfigFromEnv, type SystemTwo, type SystemTwoConfig } from './answer/system-two.js';
import { normalizeTrace, type TraceView } from './trace.js';
import { toEvidenceItem, type EvidenceItem } from './evidence.js';
import { formatScope, withSpeaker } from './output.js';
import { asksWhen, whenAnswer, whenNote } from './answer/when.js';
import { createEmbedderFor, resolveEmbedderKind, type EmbedderKind } from './embedder.js';

export type StoreKind = 'sqlite' | 'neo4j';
export type RetrieverKind = 'jev' | 'bm25' | 'dense' | 'hybrid';

export interface StackOptions {
  /** SQLite file path or ':memory:'. Default: `defaultDbPath()`. */
  db?: string;
  store?: StoreKind;
  scope: Scope;
  retriever?: RetrieverKind;
  /** Embedder: glove (default) | minilm | openai; default MEM_EMBEDDER, else glove (see ./embedder.ts). */
  embedder?: EmbedderKind;
  /** System Two endpoint; default from the environment (null = offline). Pass null to force offline. */
  systemTwo?: SystemTwoConfig | null;
  env?: NodeJS.ProcessEnv;
  /**
   * IANA time zone (e.g. 'Europe/Paris') in which zone-less `now` / `observedAt` strings are read and
   * whose calendar relative dates ("today", "on Monday") use. Default MEM_TIME_ZONE, else none: a
   * zone-less time is then refused (MISSING_TIMEZONE). Unknown names: INVALID_INPUT.
   */
  timeZone?: string;
  /** Progress of one-time setup work (e.g. building the embedder's binary cache). */
  onSetupProgress?: (event: { phase: string; done: number; total: number }) => void;
}

/** What `add` reports per observation. */
export interface AddedNode {
  node: MemoryNode;
  /** The gate's routing, or 'duplicate' when the same observation was already stored. */
  action: GateDecisionRecord['action'] | 'duplicate';
  gate: GateDecisionRecord | null;
  /** False for duplicates (nothing new written). */
  created: boolean;
  /** Relations written with this observation. */
  relations: number;
  /** System-One calls this observation cost. */
  controllerCalls: number;
}

export interface AskResult {
  question: string;
  /** 'llm' = System Two wrote `answer`; 'evidence' = offline, `answer` is the top evidence statement (see offlineAnswerEvidence). */
  mode: 'llm' | 'evidence';
  answer: string;
  /**
   * Offline: the 1-based rank of the evidence item the answer line quotes (1, except for a
   * when-question whose #1 has no date: see answer/when.ts). Null when System Two wrote the answer or
   * nothing matched.
   */
  answerRank: number | null;
  model: string | null;
  /** Best first; the same shape as /v1/search and the MCP recall tool. */
  evidence: EvidenceItem[];
  /**
   * False when memory holds nothing on the question (issue 37: the retriever's calibrated
   * `pEvidence` is below its threshold); the offline answer then says so instead of quoting a memory.
   * Absent when the retriever cannot tell (flat baselines).
   */
  answerable?: boolean;
  /** Calibrated p that the evidence holds an answer (see `answerable`). */
  pEvidence?: number;
  context: string;
  trace: TraceView;
  ms: number;
  /**
   * Set when System Two is configured but failed (code `LLM_UNAVAILABLE`): `mode` is then
   * 'evidence' and `answer` the top evidence (offline fallback). Null otherwise.
   */
  systemTwoError?: { code: string; message: string } | null;
}

export interface GraphView {
  /** `episode`: the session the memory belongs to (core's `episodeKey`: metadata.session, else the `D3` of a `D3:12` sourceId), or null. */
  nodes: { id: string; text: string; speaker: string | null; observedAt: string; type: string; gate: string | null; sourceId: string | null; episode: string | null }[];
  edges: { id: string; from: string; to: string; view: string; subtype: string; probability: number }[];
}

export interface Stack {
  readonly scope: ResolvedScope;
  readonly store: MemoryStore;
  readonly embedder: Embedder;
  readonly retriever: Retriever;
  readonly memory: Memory;
  readonly systemOne: SystemOne;
  readonly systemTwo: SystemTwo | null;
  readonly storeKind: StoreKind;
  readonly dbPath: string | null;
  /** The configured IANA time zone (StackOptions.timeZone / MEM_TIME_ZONE), or null. */
  readonly timeZone: string | null;
  /**
   * Read a reference time strictly (core's `normalizeNow`): ISO-8601 with a zone, or zone-less read in
   * `timeZone`; returns UTC ISO-8601. Throws MemValidationError BAD_DATE / MISSING_TIMEZONE.
   */
  readNow(now: string): string;
  /** Scope override for one call (e.g. LoCoMo conversations go to their own runId). */
  withScope(scope: Scope): Stack;
  /**
   * Write observations in the stack's scope (validated all-or-nothing first). `timeZone` (IANA): the
   * zone of zone-less `observedAt` strings and of relative dates for this call (default: the stack's).
   */
  add(observations: Omit<ObservationInput, 'scope'>[], options?: { onProgress?: (done: number, total: number) => void; batchSize?: number; timeZone?: string }): Promise<AddedNode[]>;
  search(query: string, options?: { k?: number; now?: string }): Promise<SearchResult>;
  ask(question: string, options?: { k?: number; tokenBudget?: number; now?: string }): Promise<AskResult>;
  get(id: string): Promise<MemoryNode>;
  /**
   * The full id a user typed in short (issue 36; ours): a full id is returned as is; a shorter one is
   * the start or the end of the id of exactly one memory of the scope (the CLI prints the last 8
   * characters), or of one forgotten in it (so `get` can say when). None: returned unchanged (`get`
   * then throws NODE_NOT_FOUND). Throws MemValidationError AMBIGUOUS_ID naming the matches when more
   * than one memory matches.
   */
  resolveId(ref: string): Promise<string>;
  neighbors(id: string, options?: { views?: string[]; limit?: number }): Promise<Neighbor[]>;
  forget(id: string): Promise<boolean>;
  /** Forget every memory of this stack's scope (core's `Memory.forgetScope`); returns how many were removed. */
  forgetAll(): Promise<number>;
  history(options?: { nodeId?: string; limit?: number }): Promise<HistoryEntry[]>;
  list(options?: { limit?: number }): Promise<MemoryNode[]>;
  graph(options?: { limit?: number }): Promise<GraphView>;
  stats(): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Default database: `<user data folder>/mem/memory.sqlite` (env-paths, no suffix). */
export function defaultDbPath(): string {
  const dir = envPaths('mem', { suffix: '' }).data;
  return path.join(dir, 'memory.sqlite');
}

/** Highest type score of a node, e.g. 'episodic'. */
export function dominantType(node: MemoryNode): string {
  const entries = Object.entries(node.types ?? {}) as [string, number][];
  if (!entries.length) return 'episodic';
  return entries.reduce((a, b) => (b[1] > a[1] ? b : a))[0];
}

/**
 * The store a command names (`--store`, `--db`, MEM_NEO4J_*), not opened: for commands that need no
 * embedder (export, import, backup). Creates the SQLite file's folder.
 */
export async function openStore(options: Pick<StackOptions, 'db' | 'store'>, env: NodeJS.ProcessEnv = process.env): Promise<{ store: MemoryStore; dbPath: string | null }> {
  if ((options.store ?? 'sqlite') === 'neo4j') {
    const uri = env.MEM_NEO4J_URI;
    if (!uri) throw new MemValidationError('INVALID_INPUT', '--store neo4j needs MEM_NEO4J_URI (e.g. bolt://localhost:7687); MEM_NEO4J_USER defaults to "neo4j", set MEM_NEO4J_PASSWORD if the server needs one');
    // Loaded on demand so the SQLite path never loads neo4j-driver.
    const { createNeo4jStore } = await import('@mem/graph-neo4j');
    return { store: createNeo4jStore({ uri, user: env.MEM_NEO4J_USER ?? 'neo4j', password: env.MEM_NEO4J_PASSWORD ?? '' }), dbPath: null };
  }
  const dbPath = options.db ?? defaultDbPath();
  if (dbPath !== ':memory:') mkdirSync(path.dirname(path.resolve(dbPath)), { recursive: true });
  return { store: createSqliteStore({ path: dbPath }), dbPath };
}

const NET_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ETIMEDOUT: 'connection timed out',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
};

/**
 * A Neo4j store that cannot be reached (the store's StoreUnavailableError with a socket errno in
 * `details.errno`) becomes `cannot reach Neo4j at <uri>: connection refused` (same code, the driver
 * error kept as `cause`). Any other error is returned unchanged.
 */
export function friendlyNeo4jError(e: unknown, uri: string): unknown {
  if (!MemError.isInstance(e) || e.code !== 'STORE_UNAVAILABLE') return e;
  const errno = e.details?.errno;
  const reason = typeof errno === 'string' ? NET_REASONS[errno] : undefined;
  if (!reason) return e;
  return new StoreUnavailableError(`cannot reach Neo4j at ${uri}: ${reason}`, { cause: e, details: e.details });
}

/**
 * System One. Offline (default): `createOfflineBackend({ embed })` with the stack's wink embedder,
 * exactly as `mem eval locomo` measures it (`createEvalSystemOne` in src/eval/systems/mem.ts): questions
 * without a precomputed cosine are answered from embedding similarity, not lexical overlap.
 * `MEM_SYSTEM_ONE=openai`: the OpenAI-compatible logprob backend on the MEM_LLM_* endpoint, offline as fallback.
 */
function createSystemOneFor(env: NodeJS.ProcessEnv, llm: SystemTwoConfig | null, embedder: Embedder): SystemOne {
  const offline = createOfflineBackend({ embed: (texts) => embedder.embed(texts) });
  const wanted = (env.MEM_SYSTEM_ONE ?? 'offline').toLowerCase();
  if (wanted === 'openai') {
    if (!llm) throw new MemValidationError('INVALID_INPUT', 'MEM_SYSTEM_ONE=openai needs MEM_LLM_BASE_URL, MEM_LLM_API_KEY, MEM_LLM_MODEL');
    const backend = createOpenAIBackend({ baseURL: llm.baseURL, apiKey: llm.apiKey, model: env.MEM_SYSTEM_ONE_MODEL ?? llm.model });
    return createSystemOne({ backend, fallback: offline });
  }
  if (wanted !== 'offline') throw new MemValidationError('INVALID_INPUT', `MEM_SYSTEM_ONE must be offline or openai, got "${wanted}"`);
  return createSystemOne({ backend: offline });
}

function createRetrieverFor(kind: RetrieverKind, store: MemoryStore, embedder: Embedder, systemOne: SystemOne): Retriever {
  switch (kind) {
    case 'jev':
      return createJevRetriever({ store, embedder, systemOne });
    case 'bm25':
      return createBm25Retriever({ store });
    case 'dense':
      return createDenseRetriever({ store, embedder });
    case 'hybrid':
      return createHybridRetriever({ store, embedder });
    default:
      throw new MemValidationError('INVALID_INPUT', `Unknown retriever "${String(kind)}" (jev, bm25, dense, hybrid)`);
  }
}

/** One AddedNode per `Memory.add` result. */
function toAdded(r: AddResult): AddedNode {
  return {
    node: r.node,
    action: r.action,
    gate: r.node.gate ?? null,
    created: r.action !== 'duplicate',
    relations: r.relations?.length ?? 0,
    controllerCalls: r.controllerCalls ?? 0,
  };
}

/** Typical first-run build time of the wink binary cache on a 2-core machine, ms (measured: ~10 s). */
const EXPECTED_CACHE_BUILD_MS = 12_000;

/**
 * Load the embedder. The first run on a machine converts the 307 MB GloVe JSON into a binary cache;
 * the embedder reports no byte progress, so when loading takes longer than 300 ms we report an
 * elapsed-time estimate (capped at 95 % until done).
 */
async function loadEmbedder(embedder: Embedder, onProgress: StackOptions['onSetupProgress']): Promise<void> {
  if (typeof (embedder as Partial<WinkEmbedder>).load !== 'function') return;
  const loading = (embedder as WinkEmbedder).load();
  if (!onProgress) {
    await loading;
    return;
  }
  const phase = 'embedder cache (first run, est.)';
  const t0 = performance.now();
  let started = false;
  const timer = setInterval(() => {
    const elapsed = performance.now() - t0;
    if (elapsed < 300) return;
    started = true;
    onProgress({ phase, done: Math.min(Math.round(elapsed), Math.round(EXPECTED_CACHE_BUILD_MS * 0.95)), total: EXPECTED_CACHE_BUILD_MS });
  }, 200);
  try {
    await loading;
  } finally {
    clearInterval(timer);
  }
  if (started) onProgress({ phase, done: EXPECTED_CACHE_BUILD_MS, total: EXPECTED_CACHE_BUILD_MS });
}

/** Pack evidence for System Two: `toContext` from @mem/retrieval when present, else a plain list. */
function packContext(result: SearchResult, tokenBudget: number): string {
  return toContext(result, { tokenBudget }).text;
}

export async function createStack(options: StackOptions): Promise<Stack> {
  const env = options.env ?? process.env;
  const scope = resolveScope(options.scope);
  const llm = options.systemTwo === undefined ? systemTwoConfigFromEnv(env) : options.systemTwo;
  const embedder = createEmbedderFor(resolveEmbedderKind(options.embedder, env), env);
  await loadEmbedder(embedder, options.onSetupProgress);
  const systemOne = createSystemOneFor(env, llm, embedder);
  const timeZone = options.timeZone ?? (env.MEM_TIME_ZONE || undefined);
  if (timeZone !== undefined) assertTimeZone(timeZone);
  const { store, dbPath } = await openStore(options, env);
  const retriever = createRetrieverFor(options.retriever ?? 'jev', store, embedder, systemOne);
  // Gate: createMemory's default, one SAGE gate per scope (rebuilt from the store on first use).
  const memory = createMemory({ store, embedder, systemOne: systemOne as any, retriever, ...(timeZone ? { timeZone } : {}) });
  // Open the store now (createMemory opens lazily) so a model/dimension mismatch fails here, and the
  // store-level reads below (relations, neighbours, counts) work before the first write.
  try {
    await memory.list({ scope, limit: 1 });
  } catch (e) {
    await memory.close().catch(() => undefined);
    throw options.store === 'neo4j' ? friendlyNeo4jError(e, env.MEM_NEO4J_URI ?? '') : e;
  }
  const systemTwo = llm ? createSystemTwo(llm) : null;
  return buildStack({ scope, store, embedder, retriever, memory, systemOne, systemTwo, storeKind: options.store ?? 'sqlite', dbPath, timeZone: timeZone ?? null });
}

interface Parts {
  scope: ResolvedScope;
  store: MemoryStore;
  embedder: Embedder;
  retriever: Retriever;
  memory: Memory;
  systemOne: SystemOne;
  systemTwo: SystemTwo | null;
  storeKind: StoreKind;
  dbPath: string | null;
  timeZone: string | null;
}

function buildStack(p: Parts): Stack {
  const { scope, store, memory } = p;
  const stack: Stack = {
    ...p,
    readNow(now) {
      return normalizeNow(now, p.timeZone ?? undefined);
    },
    withScope(next) {
      return buildStack({ ...p, scope: resolveScope(next) });
    },
    async add(observations, options = {}) {
      const batchSize = options.batchSize ?? 16;
      const scoped = observations.map((o) => ({ ...o, scope }));
      // all-or-nothing validation before the first slice is written (the error's index is the list's)
      const zone = options.timeZone === undefined ? {} : { timeZone: options.timeZone };
      memory.validate(scoped, zone);
      const out: AddedNode[] = [];
      for (let i = 0; i < scoped.length; i += batchSize) {
        const batch = scoped.slice(i, i + batchSize);
        out.push(...(await memory.add(batch, zone)).map(toAdded));
        options.onProgress?.(Math.min(i + batchSize, observations.length), observations.length);
      }
      return out;
    },
    async search(query, options = {}) {
      if (typeof query !== 'string' || !query.trim()) throw new MemValidationError('TEXT_EMPTY', 'The query is empty');
      return memory.search(query, { scope, k: options.k ?? 10, now: options.now });
    },
    ask: (question, options = {}) => askStack(stack, p, question, options),
    resolveId: (ref) => resolveShortId(p, ref),
    async get(id) {
      const node = await memory.get(id, { scope });
      if (!node) {
        // a memory forgotten in this scope is not a scope mix-up: say when it was forgotten (ours)
        const forgot = (await memory.history({ scope, nodeId: id })).findLast((h) => h.op === 'FORGET');
        if (forgot) {
          throw new MemNotFoundError(`Memory ${id} in ${formatScope(scope)} was forgotten at ${forgot.at} (its history rows remain: \`mem history --node ${id}\`)`, {
            details: { id, scope, forgottenAt: forgot.at },
          });
        }
        throw new MemNotFoundError(`No memory ${id} in ${formatScope(scope)}`, { details: { id, scope } });
      }
      return node;
    },
    async neighbors(id, options = {}) {
      await stack.get(id);
      const views = options.views?.filter((v) => (RELATION_VIEWS as readonly string[]).includes(v)) as any;
      return store.neighbors(scope, [id], { views: views?.length ? views : undefined, direction: 'both', limit: options.limit ?? 100 });
    },
    async forget(id) {
      // Through the Memory facade so the node also leaves the scope's SAGE gate.
      return memory.forget(id, { scope });
    },
    async forgetAll() {
      return memory.forgetScope({ scope });
    },
    async history(options = {}) {
      return memory.history({ scope, nodeId: options.nodeId, limit: options.limit ?? 100 });
    },
    async list(options = {}) {
      return store.list(scope, { limit: options.limit ?? 100, orderBy: 'observedAt', order: 'asc' });
    },
    async graph(options = {}) {
      const nodes = await store.list(scope, { limit: options.limit ?? 300, orderBy: 'observedAt', order: 'asc' });
      const ids = new Set(nodes.map((n) => n.id));
      const relations: Relation[] = await store.relations(scope, { limit: 5000 });
      return {
        nodes: nodes.map((n) => ({
          id: n.id,
          text: n.text,
          speaker: n.speaker,
          observedAt: n.observedAt,
          type: dominantType(n),
          gate: n.gate?.action ?? null,
          sourceId: n.provenance?.sourceId ?? null,
          episode: episodeKey(n.provenance?.sourceId ?? null, n.provenance?.metadata),
        })),
        edges: relations
          .filter((r) => ids.has(r.from) && ids.has(r.to))
          .map((r) => ({ id: r.id, from: r.from, to: r.to, view: r.view, subtype: r.subtype, probability: r.probability })),
      };
    },
    stats: () => stackStats(p),
    async close() {
      await memory.close();
    },
  };
  return stack;
}

/** `Stack.ask`: search, then System Two's answer, or offline the answer line from the evidence (a when-question's dated memory; abstention). */
async function askStack(stack: Stack, p: Parts, question: string, options: Parameters<Stack['ask']>[1] = {}): Promise<AskResult> {
  const t0 = performance.now();
  // one strict reading of `now` for retrieval and System Two's "today" alike
  const now = options.now === undefined ? undefined : stack.readNow(options.now);
  const result = await stack.search(question, { k: options.k ?? 10, now });
  // packed on first read (the tokenizer costs ~0.15 s to load): System Two, --json and HTTP read it
  let context: string | undefined;
  const packed = () => (context ??= packContext(result, options.tokenBudget ?? 1200));
  const evidence = result.evidence.map(toEvidenceItem);
  let answer = '';
  let mode: AskResult['mode'] = 'evidence';
  let systemTwoError: AskResult['systemTwoError'] = null;
  if (p.systemTwo) {
    try {
      answer = (await p.systemTwo.answer(question, packed(), { now })).text;
      mode = 'llm';
    } catch (e) {
      // System Two down: answer offline from the evidence and say why (no data is lost).
      if (!MemError.isInstance(e) || e.category !== 'unavailable') throw e;
      systemTwoError = { code: e.code, message: e.message };
    }
  }
  let answerRank: number | null = null;
  if (mode === 'evidence') {
    // a when-question is answered by a memory with a date, and the line gives both dates (issue 36)
    const when = asksWhen(question) ? whenAnswer(evidence) : undefined;
    const top = when?.item ?? offlineAnswerEvidence(evidence);
    answerRank = top ? (when?.rank ?? 1) : null;
    answer = top ? `${withSpeaker(top.speaker, top.text)}${when ? whenNote(when.item) : ''}${staleNote(top)}` : '(no memory matches this question)';
    // memory holds nothing on it (issue 37): say so instead of quoting an unrelated memory
    if (result.answerable === false) {
      answer = abstentionLine(result.pEvidence);
      answerRank = null;
    }
  }
  const answerable = result.answerable === undefined ? {} : { answerable: result.answerable, pEvidence: result.pEvidence };
  const out = { question, mode, answer, answerRank, model: mode === 'llm' ? (p.systemTwo?.model ?? null) : null, evidence, ...answerable, context: '', trace: normalizeTrace(result.trace), ms: performance.now() - t0, systemTwoError };
  // an enumerable getter: JSON.stringify and spreads still see the packed text
  return Object.defineProperty(out, 'context', { get: packed, enumerable: true, configurable: true });
}

/** `Stack.resolveId`: a short id (a prefix or suffix of a memory id, also of a forgotten one) to the full id; AMBIGUOUS_ID for several. */
async function resolveShortId(p: Parts, ref: string): Promise<string> {
  const { scope, store, memory } = p;
  const r = ref.trim().toLowerCase();
  if (!r || r.length >= 36) return ref;
  const matches = (id: string) => id.toLowerCase().startsWith(r) || id.toLowerCase().endsWith(r);
  const found: string[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await store.list(scope, { limit: 1000, offset, orderBy: 'createdAt', order: 'asc' });
    for (const n of page) if (matches(n.id)) found.push(n.id);
    if (page.length < 1000) break;
  }
  if (found.length === 0) {
    const forgotten = [...new Set((await memory.history({ scope, limit: 100_000 })).filter((h) => h.op === 'FORGET' && h.nodeId && matches(h.nodeId)).map((h) => h.nodeId!))];
    found.push(...forgotten);
  }
  if (found.length === 1) return found[0]!;
  if (found.length > 1) {
    throw new MemValidationError('AMBIGUOUS_ID', `"${ref}" names ${found.length} memories in ${formatScope(scope)}: ${found.slice(0, 5).join(', ')}${found.length > 5 ? ', …' : ''}; give more characters of the id`, { details: { ref, matches: found.slice(0, 20) } });
  }
  return ref;
}

/** `Stack.stats`: the scope's nodes, relations by view and subtype, gate actions, and this process's write counters. */
async function stackStats(p: Parts) {
  const { scope, store, memory } = p;
  const nodes = await store.count(scope);
  const relations = await store.relations(scope, { limit: 100_000 });
  const byView: Record<string, number> = Object.fromEntries(RELATION_VIEWS.map((v) => [v, 0]));
  const bySubtype: Record<string, number> = {};
  for (const r of relations) {
    byView[r.view] = (byView[r.view] ?? 0) + 1;
    bySubtype[r.subtype] = (bySubtype[r.subtype] ?? 0) + 1;
  }
  const nodeList = await store.list(scope, { limit: 1_000_000 });
  const gate = { add: 0, update: 0, noop: 0, none: 0 };
  for (const n of nodeList) gate[n.gate?.action ?? 'none'] += 1;
  const m = await memory.stats();
  return {
    scope,
    store: p.storeKind,
    db: p.dbPath,
    nodes,
    relations: relations.length,
    relationsByView: byView,
    relationsBySubtype: bySubtype,
    embedder: { model: p.embedder.model, dimension: p.embedder.dimension },
    retriever: p.retriever.name,
    systemOne: p.systemOne.stats(),
    systemTwo: p.systemTwo ? { model: p.systemTwo.model } : null,
    gate,
    /** Counters of this process's Memory (all scopes), since it was created. */
    session: { writes: m.writes, duplicates: m.duplicates, gate: m.gate, controllerCalls: m.controllerCalls, controllerCallsSaved: m.controllerCallsSaved, consolidations: m.consolidations },
  };
}

/**
 * The offline answer (ours): result #1, exactly as ranked. The answer line never picks another item
 * than the first one the evidence list shows; ranking question-only turns below turns that state
 * things is the read path's job (@mem/retrieval), not this line's.
 */
export function offlineAnswerEvidence<T extends { text: string }>(evidence: T[]): T | undefined {
  return evidence[0];
}

/** The offline answer line when memory holds nothing on the question (ours, issue 37). */
export function abstentionLine(pEvidence?: number): string {
  return `memory holds nothing on this (p(evidence) ${pEvidence === undefined ? '?' : pEvidence.toFixed(2)})`;
}

/** ` (superseded since <date>)` for a superseded item, else '' (ours, issue 37). */
export function staleNote(e: Pick<EvidenceItem, 'status' | 'supersededBy'>): string {
  return e.status === 'superseded' && e.supersededBy ? ` (superseded since ${e.supersededBy.at.slice(0, 10) || 'a later memory'})` : '';
}

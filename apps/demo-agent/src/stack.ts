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
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import envPaths from 'env-paths';
import * as core from '@mem/core';
import * as retrievalPkg from '@mem/retrieval';
import * as systemOnePkg from '@mem/system-one';
import * as gatePkg from '@mem/gate-vmf';
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
import { MemError, MemNotFoundError, MemValidationError, resolveScope, RELATION_VIEWS } from '@mem/core';
import { createSystemTwo, systemTwoConfigFromEnv, type SystemTwo, type SystemTwoConfig } from './answer/system-two.js';
import { normalizeTrace, type TraceView } from './trace.js';

export type StoreKind = 'sqlite' | 'neo4j';
export type RetrieverKind = 'jev' | 'bm25' | 'dense' | 'hybrid';

export interface StackOptions {
  /** SQLite file path or ':memory:'. Default: `defaultDbPath()`. */
  db?: string;
  store?: StoreKind;
  scope: Scope;
  retriever?: RetrieverKind;
  /** System Two endpoint; default from the environment (null = offline). Pass null to force offline. */
  systemTwo?: SystemTwoConfig | null;
  env?: NodeJS.ProcessEnv;
  /** Progress of one-time setup work (e.g. building the embedder's binary cache). */
  onSetupProgress?: (event: { phase: string; done: number; total: number }) => void;
}

/** What `add` reports per stored observation. */
export interface AddedNode {
  node: MemoryNode;
  gate: GateDecisionRecord | null;
  /** False when the observation was already stored (same content hash) and nothing was written. */
  created: boolean;
}

export interface AskResult {
  question: string;
  /** 'llm' = System Two wrote `answer`; 'evidence' = offline, `answer` is the top evidence text. */
  mode: 'llm' | 'evidence';
  answer: string;
  model: string | null;
  evidence: { id: string; text: string; speaker: string | null; observedAt: string; sourceId: string | null; score: number; via: string[] }[];
  context: string;
  trace: TraceView;
  ms: number;
}

export interface GraphView {
  nodes: { id: string; text: string; speaker: string | null; observedAt: string; type: string; gate: string | null; sourceId: string | null }[];
  edges: { id: string; from: string; to: string; view: string; subtype: string; probability: number }[];
}

export interface Stack {
  readonly scope: ResolvedScope;
  readonly store: MemoryStore;
  readonly embedder: Embedder;
  readonly retriever: Retriever;
  readonly memory: any;
  readonly systemOne: any;
  readonly gate: any;
  readonly systemTwo: SystemTwo | null;
  readonly storeKind: StoreKind;
  readonly dbPath: string | null;
  /** Scope override for one call (e.g. LoCoMo conversations go to their own runId). */
  withScope(scope: Scope): Stack;
  add(observations: Omit<ObservationInput, 'scope'>[], options?: { onProgress?: (done: number, total: number) => void; batchSize?: number }): Promise<AddedNode[]>;
  search(query: string, options?: { k?: number; now?: string }): Promise<SearchResult>;
  ask(question: string, options?: { k?: number; tokenBudget?: number; now?: string }): Promise<AskResult>;
  get(id: string): Promise<MemoryNode>;
  neighbors(id: string, options?: { views?: string[]; limit?: number }): Promise<Neighbor[]>;
  forget(id: string): Promise<boolean>;
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

/** A named export of a workspace package, or a clear error while that package is still missing it. */
function need<T = any>(mod: unknown, pkg: string, name: string): T {
  const fn = (mod as any)?.[name];
  if (fn === undefined) throw new MemError('INTERNAL', 'internal', `${pkg} does not export ${name} (is the package built?)`);
  return fn as T;
}

/** Highest type score of a node, e.g. 'episodic'. */
export function dominantType(node: MemoryNode): string {
  const entries = Object.entries(node.types ?? {}) as [string, number][];
  if (!entries.length) return 'episodic';
  return entries.reduce((a, b) => (b[1] > a[1] ? b : a))[0];
}

async function openStore(options: StackOptions, env: NodeJS.ProcessEnv): Promise<{ store: MemoryStore; dbPath: string | null }> {
  if ((options.store ?? 'sqlite') === 'neo4j') {
    const neo = await import('@mem/graph-neo4j');
    const uri = env.MEM_NEO4J_URI;
    if (!uri) throw new MemValidationError('INVALID_INPUT', '--store neo4j needs MEM_NEO4J_URI (and MEM_NEO4J_USER, MEM_NEO4J_PASSWORD)');
    const create = need(neo, '@mem/graph-neo4j', 'createNeo4jStore');
    return { store: await create({ uri, user: env.MEM_NEO4J_USER ?? 'neo4j', username: env.MEM_NEO4J_USER ?? 'neo4j', password: env.MEM_NEO4J_PASSWORD ?? '' }), dbPath: null };
  }
  const dbPath = options.db ?? defaultDbPath();
  if (dbPath !== ':memory:') mkdirSync(path.dirname(path.resolve(dbPath)), { recursive: true });
  const create = need(core, '@mem/core', 'createSqliteStore');
  return { store: await create({ path: dbPath }), dbPath };
}

function createSystemOneFor(env: NodeJS.ProcessEnv, embedder: Embedder, llm: SystemTwoConfig | null): any {
  const createSystemOne = need(systemOnePkg, '@mem/system-one', 'createSystemOne');
  const createOffline = need(systemOnePkg, '@mem/system-one', 'createOfflineBackend');
  const offline = createOffline({ embed: (texts: string[]) => embedder.embed(texts) });
  const wanted = (env.MEM_SYSTEM_ONE ?? 'offline').toLowerCase();
  if (wanted === 'openai') {
    if (!llm) throw new MemValidationError('INVALID_INPUT', 'MEM_SYSTEM_ONE=openai needs MEM_LLM_BASE_URL, MEM_LLM_API_KEY, MEM_LLM_MODEL');
    const createOpenAI = need(systemOnePkg, '@mem/system-one', 'createOpenAIBackend');
    const backend = createOpenAI({ baseURL: llm.baseURL, apiKey: llm.apiKey, model: env.MEM_SYSTEM_ONE_MODEL ?? llm.model });
    return createSystemOne({ backend, fallback: offline });
  }
  if (wanted !== 'offline') throw new MemValidationError('INVALID_INPUT', `MEM_SYSTEM_ONE must be offline or openai, got "${wanted}"`);
  return createSystemOne({ backend: offline });
}

function createRetrieverFor(kind: RetrieverKind, store: MemoryStore, embedder: Embedder, systemOne: any): Retriever {
  switch (kind) {
    case 'jev':
      return need(retrievalPkg, '@mem/retrieval', 'createJevRetriever')({ store, embedder, systemOne });
    case 'bm25':
      return need(retrievalPkg, '@mem/retrieval', 'createBm25Retriever')({ store });
    case 'dense':
      return need(retrievalPkg, '@mem/retrieval', 'createDenseRetriever')({ store, embedder });
    case 'hybrid':
      return need(retrievalPkg, '@mem/retrieval', 'createHybridRetriever')({ store, embedder });
    default:
      throw new MemValidationError('INVALID_INPUT', `Unknown retriever "${String(kind)}" (jev, bm25, dense, hybrid)`);
  }
}

/** Normalise what `Memory.add` returns into one AddedNode per observation. */
function normalizeAdded(result: any): AddedNode[] {
  const items: any[] = Array.isArray(result) ? result : Array.isArray(result?.nodes) ? result.nodes : Array.isArray(result?.results) ? result.results : result ? [result] : [];
  return items.map((item) => {
    const node: MemoryNode = item?.node ?? item;
    const gate = item?.gate ?? item?.decision ?? node?.gate ?? null;
    const created = item?.created ?? (item?.duplicate === true ? false : item?.status ? item.status !== 'duplicate' : true);
    return { node, gate, created };
  });
}

/** Pack evidence for System Two: `toContext` from @mem/retrieval when present, else a plain list. */
function packContext(result: SearchResult, tokenBudget: number): string {
  const toContext = (retrievalPkg as any).toContext;
  if (typeof toContext === 'function') {
    const packed = toContext(result, { tokenBudget });
    if (typeof packed === 'string') return packed;
    if (packed && typeof packed.text === 'string') return packed.text;
    if (packed && typeof packed.context === 'string') return packed.context;
  }
  return result.evidence
    .map((e) => `[${e.node.observedAt.slice(0, 16).replace('T', ' ')}] ${e.node.speaker ? `${e.node.speaker}: ` : ''}${e.node.text}`)
    .join('\n');
}

export async function createStack(options: StackOptions): Promise<Stack> {
  const env = options.env ?? process.env;
  const scope = resolveScope(options.scope);
  const llm = options.systemTwo === undefined ? systemTwoConfigFromEnv(env) : options.systemTwo;
  const createWinkEmbedder = need(core, '@mem/core', 'createWinkEmbedder');
  const embedder: Embedder = await createWinkEmbedder({
    onProgress: options.onSetupProgress
      ? (e: any) => options.onSetupProgress!({ phase: e?.phase ?? 'embedder cache', done: e?.done ?? e?.bytes ?? 0, total: e?.total ?? 1 })
      : undefined,
  });
  // Some embedders load lazily; warm up now so the one-time cache build happens here, with progress.
  if (typeof (embedder as any).ready === 'function') await (embedder as any).ready();
  else await embedder.embed(['warm up']);
  const { store, dbPath } = await openStore(options, env);
  const systemOne = createSystemOneFor(env, embedder, llm);
  const gate = need(gatePkg, '@mem/gate-vmf', 'createNoveltyGate')();
  const retriever = createRetrieverFor(options.retriever ?? 'jev', store, embedder, systemOne);
  const memory = await need(core, '@mem/core', 'createMemory')({ store, embedder, systemOne, gate, retriever });
  const systemTwo = llm ? createSystemTwo(llm) : null;
  return buildStack({ scope, store, embedder, retriever, memory, systemOne, gate, systemTwo, storeKind: options.store ?? 'sqlite', dbPath });
}

interface Parts {
  scope: ResolvedScope;
  store: MemoryStore;
  embedder: Embedder;
  retriever: Retriever;
  memory: any;
  systemOne: any;
  gate: any;
  systemTwo: SystemTwo | null;
  storeKind: StoreKind;
  dbPath: string | null;
}

function buildStack(p: Parts): Stack {
  const { scope, store, memory } = p;
  const stack: Stack = {
    ...p,
    withScope(next) {
      return buildStack({ ...p, scope: resolveScope(next) });
    },
    async add(observations, options = {}) {
      const batchSize = options.batchSize ?? 16;
      const out: AddedNode[] = [];
      for (let i = 0; i < observations.length; i += batchSize) {
        const batch = observations.slice(i, i + batchSize).map((o) => ({ ...o, scope }));
        out.push(...normalizeAdded(await memory.add(batch)));
        options.onProgress?.(Math.min(i + batchSize, observations.length), observations.length);
      }
      return out;
    },
    async search(query, options = {}) {
      if (typeof query !== 'string' || !query.trim()) throw new MemValidationError('TEXT_EMPTY', 'The query is empty');
      if (typeof memory.search === 'function') return memory.search(query, { scope, k: options.k ?? 10, now: options.now });
      return p.retriever.search({ scope, query, k: options.k ?? 10, now: options.now });
    },
    async ask(question, options = {}) {
      const t0 = performance.now();
      const result = await stack.search(question, { k: options.k ?? 10, now: options.now });
      const context = packContext(result, options.tokenBudget ?? 1200);
      const evidence = result.evidence.map((e) => ({
        id: e.node.id,
        text: e.node.text,
        speaker: e.node.speaker,
        observedAt: e.node.observedAt,
        sourceId: e.node.provenance?.sourceId ?? null,
        score: e.score,
        via: (e.path ?? []).map((r) => r.subtype),
      }));
      let answer: string;
      let mode: AskResult['mode'] = 'evidence';
      if (p.systemTwo) {
        answer = (await p.systemTwo.answer(question, context, { now: options.now })).text;
        mode = 'llm';
      } else {
        const top = evidence[0];
        answer = top ? `${top.speaker ? `${top.speaker}: ` : ''}${top.text}` : '(no memory matches this question)';
      }
      return { question, mode, answer, model: p.systemTwo?.model ?? null, evidence, context, trace: normalizeTrace(result.trace), ms: performance.now() - t0 };
    },
    async get(id) {
      const node = await store.get(scope, id);
      if (!node) throw new MemNotFoundError(`No memory ${id} in this scope`, { details: { id } });
      return node;
    },
    async neighbors(id, options = {}) {
      await stack.get(id);
      const views = options.views?.filter((v) => (RELATION_VIEWS as readonly string[]).includes(v)) as any;
      return store.neighbors(scope, [id], { views: views?.length ? views : undefined, direction: 'both', limit: options.limit ?? 100 });
    },
    async forget(id) {
      if (typeof memory.forget === 'function') {
        const r = await memory.forget(id, { scope }).catch(async (e: unknown) => {
          if (MemError.isInstance(e) && e.code === 'NODE_NOT_FOUND') return false;
          throw e;
        });
        return r !== false;
      }
      return store.forget(scope, id);
    },
    async history(options = {}) {
      return store.history(scope, { nodeId: options.nodeId, limit: options.limit ?? 100 });
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
        })),
        edges: relations
          .filter((r) => ids.has(r.from) && ids.has(r.to))
          .map((r) => ({ id: r.id, from: r.from, to: r.to, view: r.view, subtype: r.subtype, probability: r.probability })),
      };
    },
    async stats() {
      const nodes = await store.count(scope);
      const relations = await store.relations(scope, { limit: 100_000 });
      const byView: Record<string, number> = Object.fromEntries(RELATION_VIEWS.map((v) => [v, 0]));
      const bySubtype: Record<string, number> = {};
      for (const r of relations) {
        byView[r.view] = (byView[r.view] ?? 0) + 1;
        bySubtype[r.subtype] = (bySubtype[r.subtype] ?? 0) + 1;
      }
      const memStats = typeof memory.stats === 'function' ? await memory.stats({ scope }).catch(() => null) : null;
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
        systemOne: typeof p.systemOne?.stats === 'function' ? p.systemOne.stats() : null,
        systemTwo: p.systemTwo ? { model: p.systemTwo.model } : null,
        memory: memStats,
      };
    },
    async close() {
      if (typeof memory.close === 'function') await memory.close();
      else await store.close();
    },
  };
  return stack;
}

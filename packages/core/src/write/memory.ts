/**
 * The `Memory` facade (ours; vercel/ai-style `createX` factory): one object that validates, writes
 * through the Jev-Mem write path behind the SAGE gate, searches through an injected `Retriever`,
 * and reads, lists, forgets and reports.
 */
import { defaultQuestions } from './questions/index.js';
import { createRequire } from 'node:module';
import { createNoveltyGate, type GateOptions, type GateSnapshot, type NoveltyGate } from '@mem/gate-vmf';
import { createSystemOne, stableStringify, type SystemOne } from '@mem/system-one';
import { createWinkEmbedder } from '../embed/index.js';
import { MemError, MemValidationError } from '../errors.js';
import { extract } from '../extract/index.js';
import { resolveScope, scopeKey } from '../scope.js';
import { memoryStates, withSuccessors } from '../state.js';
import { createSqliteStore } from '../store/index.js';
import {
  RELATION_VIEWS,
  type Embedder,
  type HistoryEntry,
  type ListOptions,
  type MemoryNode,
  type MemoryStore,
  type ObservationInput,
  type RelationView,
  type ResolvedScope,
  type Retriever,
  type Scope,
  type SearchResult,
} from '../types.js';
import { CATCH_UP_MAX_ROWS, GateRegistry, type GateStateCodec, type GateStateCounters } from './gates.js';
import type { Extractor, Summarizer, WriteController, WriteGate } from './ports.js';
import { KeyedQueue } from './queue.js';
import { DEFAULT_RELATION_THRESHOLD } from './relations.js';
import { assertTimeZone, normalizeNow } from './time.js';
import { DEFAULT_MAX_TEXT_BYTES, validateObservation, type NormalizedObservation } from './validate.js';
import { emptyCounters, Writer, type AddResult, type PreparedWrite, type WriteCounters } from './writer.js';
import { orderHistory } from './history-order.js';
import { exportMemories, importMemories, type ExportOptions, type ImportReport } from '../transfer/jsonl.js';

/** Version of the memory model written by this write path (recorded in the store's meta). */
export const MEMORY_SCHEMA_VERSION = 1;

/** Defaults of `createMemory` (sources in the doc of each option). */
export const MEMORY_DEFAULTS = Object.freeze({
  policy: 'annotate' as const,
  maxTextBytes: DEFAULT_MAX_TEXT_BYTES,
  relationThreshold: DEFAULT_RELATION_THRESHOLD,
  consolidationThreshold: 0.85,
  consolidateEvery: 20,
  candidateK: 10,
  candidateEfSearch: 64,
  consolidationPairs: 3,
  embedBatchSize: 128,
});

/** Dependencies handed to a retriever factory. */
export interface RetrieverDeps {
  store: MemoryStore;
  embedder: Embedder;
  /** The controller given to (or created by) `createMemory`. */
  systemOne: SystemOne;
}

/**
 * Gate options `createMemory` uses unless told otherwise (ours, `@mem/gate-vmf` README "For
 * `@mem/core`"): fast mode with certified decisions, so every action (and the nearest memory of every
 * Update and Noop, the ones the write path uses) equals exact mode's, while scopes of N ≥ 5 000
 * memories are routed from a sketch bound instead of an O(N·d) pass. An Add's stored `nearest` may
 * then be the best memory the certificate scored (`gate.nearestExact: false`) and its stored score
 * lies within `gate.scoreError` of the exact one. Pass `gate: { mode: 'exact' }` for exact scores.
 */
export const DEFAULT_WRITE_GATE_OPTIONS = { mode: 'fast', fastCertify: 'decision', fastNearest: 'update-noop', fastMinN: 5000 } as const;

export interface MemoryOptions {
  /** Where memories live. Default: `createSqliteStore({ path: ':memory:' })` (gone on close — pass a file store to keep data). */
  store?: MemoryStore;
  /** Default: `createWinkEmbedder()` (offline, 100-d GloVe + SIF). */
  embedder?: Embedder;
  /** System-One controller (`@mem/system-one`; any object with a compatible `ask`). Default: `createSystemOne({ cache: false })` (offline backend, no model weights; no answer cache, which never hits on writes and costs more than the offline answers). */
  systemOne?: SystemOne | WriteController;
  /**
   * SAGE gate. Default: one `createNoveltyGate(DEFAULT_WRITE_GATE_OPTIONS)` per scope (exact
   * decisions; scopes of ≥ 5 000 memories decide from a certificate instead of scanning them all).
   * Pass gate options (object without `route`; merged over those defaults) to tune every scope's
   * gate, a factory `(scopeKey) => gate`, or one shared gate
   * instance (then rollback after a failed write removes the batch's commits but cannot rewind the
   * adaptive τ EMA; the per-scope forms rebuild exactly).
   */
  gate?: WriteGate | ((scopeKey: string) => WriteGate) | Record<string, unknown>;
  /** Read path; a Retriever or a factory receiving `{ store, embedder, systemOne }`. Default: dense top-k fallback (see `search`). */
  retriever?: Retriever | ((deps: RetrieverDeps) => Retriever);
  /** `annotate` (default; Jev-Mem keeps every observation) or `drop` (SAGE: a Noop is not stored). docs/design.md step 6, ours. */
  policy?: 'annotate' | 'drop';
  /** System Two for SAGE Update merges and approved consolidation merges. Default: none (never called). */
  summarizer?: Summarizer;
  /**
   * IANA zone (ours, issue 17): zone-less observedAt strings and search `now` are read in it, and
   * relative dates in texts ("today", "on Monday", "last week") use its calendar. Default: none
   * (zone-less strings are rejected with MISSING_TIMEZONE; relative dates use UTC's calendar).
   */
  timeZone?: string;
  /** Maximum text size in UTF-8 bytes. Default 65 536 (64 KiB). */
  maxTextBytes?: number;
  /** θ_rel: minimum p of a learned edge. Default 0.60 (seed 000). */
  relationThreshold?: number;
  /** Consolidation pass every this many stored writes per scope. Default 20 (seed 000); 0 disables. */
  consolidateEvery?: number;
  /** K_w: candidates per new memory. Default 10 (seed 000). */
  candidateK?: number;
  /**
   * Search breadth (HNSW `ef`) of the candidate k-NN query in scopes large enough for the store's
   * ANN index; stores that scan exactly ignore it. Default 64 (ours: recall@10 0.996 against an
   * exact scan at N = 100k synthetic observations, 0.26 ms instead of 0.60 ms per query at the
   * store's read default of 256, `bench/candidate-ef.ts`; candidates are a pool the entity, keyword and time signals
   * complete, not an answer). Reads (`search`) keep the store's own setting.
   */
  candidateEfSearch?: number;
  /** Entity / keyword / event-time extraction. Default: `extract` from src/extract (entities, keywords, event time). */
  extractor?: Extractor;
  /** Texts per embedder call in batch adds. Default 128. */
  embedBatchSize?: number;
  /** Clock in ms (tests). Default `Date.now`. */
  now?: () => number;
  /**
   * Who writes the store (ours). `'single'`: only this Memory; its per-process state (SAGE gates,
   * node caches, candidate indexes, consolidation schedule) is trusted between writes. `'shared'`:
   * other processes may write the same scopes at the same time; before each write to a scope this
   * Memory reads the scope's history rows after the last `seq` it saw and, when another writer
   * added some, applies their memories to that scope's in-process state (`GateRegistry.catchUp`:
   * reads back only the new memories; the state equals a full rebuild's), or, on a forget, an
   * in-place rewrite or a memory whose id sorts before one already held, drops the state, which is
   * then rebuilt from the store (snapshot + replay), so the gate routes against every stored memory.
   * Costs one or two small reads per write. On a store with a cross-process write lock (`store.exclusive`: the SQLite file store) the
   * whole add (dedup, sync, gate routing, the store write) runs under that lock, so no other process
   * commits in between: exactly once across processes, and a multi-scope add is then all or nothing.
   * A store with only a per-scope lock (`store.lockScopes`: Neo4j) runs each add under its scopes'
   * locks: the same, except that a multi-scope add's scopes commit one by one.
   * A write that loses a race on the store's content-key constraint (`STORE_CONFLICT`: the
   * same observation stored by another writer first) is retried, up to 3 attempts, and returns that
   * node as a `duplicate`. Default: `'shared'` when `store.concurrentWriters` (the Neo4j store and
   * SQLite file stores), else `'single'` (`:memory:`). A caller-supplied shared gate instance (`gate`) is process-local either way.
   */
  writers?: 'single' | 'shared';
}

/** A write refused by the store's uniqueness constraint after another writer stored the same content first. */
function isStoreConflict(e: unknown): boolean {
  if (!MemError.isInstance(e)) return false;
  return e.code === 'STORE_CONFLICT' || e.details?.causeCode === 'STORE_CONFLICT';
}

/** Every key `createMemory` accepts; any other key is refused (INVALID_INPUT), so a typo is not silently ignored. */
const MEMORY_OPTION_KEYS: ReadonlySet<string> = new Set<keyof MemoryOptions>([
  'store',
  'embedder',
  'systemOne',
  'gate',
  'retriever',
  'policy',
  'summarizer',
  'timeZone',
  'maxTextBytes',
  'relationThreshold',
  'consolidateEvery',
  'candidateK',
  'candidateEfSearch',
  'extractor',
  'embedBatchSize',
  'now',
  'writers',
]);

export interface AddOptions {
  /** IANA zone for zone-less observedAt strings and relative dates of this call (overrides the memory's `timeZone`). */
  timeZone?: string;
}

export interface MemoryStats {
  /** Stored nodes per scope key (`namespace|userId|agentId|runId`). */
  nodes: Record<string, number>;
  /** Relations per view, over all scopes. */
  relations: Record<RelationView, number>;
  /** Since this Memory was created. */
  writes: number;
  duplicates: number;
  gate: WriteCounters['gate'];
  controllerCalls: number;
  controllerCallsSaved: number;
  consolidations: number;
  summarizerCalls: number;
  /** Wall time per write stage since creation, in ms. */
  timings: WriteCounters['timings'];
  /**
   * How the scopes' SAGE gates came back and were saved since creation (ours): scopes `restored`
   * from a saved snapshot, gate commits replayed from stored nodes (`replayedCommits`), snapshots
   * `saved`, and `saveFailures` (harmless: a later rebuild replays more). See "Restarts" in the README.
   */
  gateState: GateStateCounters;
}

export interface Memory {
  readonly store: MemoryStore;
  readonly embedder: Embedder;
  readonly systemOne: SystemOne;
  /**
   * Write one observation, or many (batched: embedded and asked in batches, with sequential
   * semantics — each observation sees the earlier ones as candidates). Validation of every
   * observation happens first: one invalid observation → MemValidationError (details.index) and
   * nothing is written. The observations of one scope are written atomically; a multi-scope array
   * is written one scope after another (each atomic), after all fallible work is done.
   * @throws MemValidationError (bad input), MemError `WRITE_FAILED` / `EMBEDDER_ERROR` (a collaborator failed; nothing written)
   */
  add(observation: ObservationInput, options?: AddOptions): Promise<AddResult>;
  add(observations: ObservationInput[], options?: AddOptions): Promise<AddResult[]>;
  /**
   * Check observations exactly as `add` would, without writing anything (ours): for a caller that
   * writes a long list in several `add` calls (progress, memory) and wants all-or-nothing validation.
   * @throws MemValidationError with the observation's `details.index` in the whole list (codes as `add`)
   */
  validate(observations: ObservationInput[], options?: AddOptions): void;
  /**
   * Delegates to the Retriever; without one, dense top-k by cosine (score = cosine in [-1, 1],
   * path = []; that ranking does not depend on time). `now` (the reference time for relative
   * expressions and recency) must be ISO-8601 with a zone (`Z`, `±hh:mm`), a Date or epoch ms; a
   * zone-less string is read in the memory's `timeZone`. It reaches the retriever as UTC ISO-8601.
   * @throws MemValidationError `BAD_DATE` / `MISSING_TIMEZONE` for a bad `now` (on every path), `TEXT_EMPTY`, `SCOPE_*`,
   *   `INVALID_INPUT` for a bad `k` or an unknown option key
   */
  search(query: string, options: { scope: Scope; k?: number; now?: string | Date | number }): Promise<SearchResult>;
  get(id: string, options: { scope: Scope }): Promise<MemoryNode | null>;
  list(options: { scope: Scope } & ListOptions): Promise<MemoryNode[]>;
  /**
   * Remove a node, its relations and index entries (the history row stays) and drop it from the gate. Returns false if absent.
   * @throws MemValidationError `INVALID_INPUT` when `id` is not a non-empty string, `SCOPE_*` for a bad scope
   */
  forget(id: string, options: { scope: Scope }): Promise<boolean>;
  /**
   * Forget every memory of a scope (ours, issue 32): nodes, relations, index entries and the scope's
   * gate; the history keeps one FORGET row per memory (no text). Returns how many were removed.
   * @throws MemValidationError `SCOPE_*` for a bad scope, `INVALID_INPUT` for an unknown option key
   */
  forgetScope(options: { scope: Scope }): Promise<number>;
  /**
   * The scope's history (or one memory's): the latest `limit` rows by the store's `seq`, shown in
   * time order, a memory's write row (ADD / UPDATE / NOOP) before later events of the same instant
   * (`orderHistory`). @throws MemValidationError `SCOPE_*` for a bad scope
   */
  history(options: { scope: Scope; nodeId?: string; limit?: number }): Promise<HistoryEntry[]>;
  stats(): Promise<MemoryStats>;
  /**
   * The store's memories as `@mem/export` JSONL lines (see `exportMemories`; ours, issue 32): waits
   * for the writes issued before it, then reads the store. `match` picks scopes (default: all).
   * @throws MemValidationError SCOPE_INVALID for an unknown `match` key; ScopeNotFoundError SCOPE_NOT_FOUND when `match` names no scope of the store; store errors
   */
  export(options?: ExportOptions): AsyncGenerator<string>;
  /**
   * Import an export into this memory's store (see `importMemories`; ours, issue 32): the file must
   * come from this memory's embedder and schema version, every scope it holds must be empty here
   * or hold exactly the file's scope (an earlier import of it: skipped, `report.skipped`).
   * The imported scopes' gates are rebuilt from the imported memories on their next write.
   * @throws ImportMismatchError IMPORT_MISMATCH, MemValidationError (malformed file), StoreConflictError STORE_CONFLICT (a scope holding other memories); nothing written then
   */
  import(lines: AsyncIterable<string> | Iterable<string>): Promise<ImportReport>;
  /** Wait for every call made before it (writes and reads), then close the store; later calls throw `STORE_UNAVAILABLE`. Idempotent. */
  close(): Promise<void>;
}

function isGate(x: unknown): x is WriteGate {
  return !!x && typeof x === 'object' && typeof (x as any).route === 'function' && typeof (x as any).commit === 'function';
}

function checkNumber(name: string, v: number | undefined, min: number, max: number, integer = false): void {
  if (v === undefined) return;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
    throw new MemValidationError('INVALID_INPUT', `${name} must be ${integer ? 'an integer' : 'a number'} in [${min}, ${max}]`, {
      details: { option: name, value: v },
    });
  }
}


/**
 * Default extractor: `@mem/core`'s `extract` (wink-nlp entities and keywords, relative time against
 * observedAt in the calendar of the write's `timeZone`, else of `timeZone` given here, else UTC).
 */
export function defaultExtractor(timeZone?: string): Extractor {
  return { extract: (text, observedAt, opts) => extract(text, observedAt, { timeZone: opts?.timeZone ?? timeZone }) };
}

/**
 * The installed `@mem/gate-vmf` (name@version), stamped into every saved gate snapshot (ours): a
 * snapshot saved by another version, whose gate may evolve its state differently, is replayed once
 * instead of restored.
 */
const GATE_IMPLEMENTATION = ((): string => {
  try {
    return `@mem/gate-vmf@${(createRequire(import.meta.url)('@mem/gate-vmf/package.json') as { version: string }).version}`;
  } catch {
    return '@mem/gate-vmf@unknown';
  }
})();

/**
 * Saves the default per-scope `@mem/gate-vmf` gates without vectors and restores them with the
 * nodes' embeddings (ours; see `GateRegistry`). A snapshot made with other resolved gate options is
 * refused, so the scope is replayed under the options in force.
 */
export function noveltyGateCodec(resolved: NoveltyGate['options']): GateStateCodec {
  const want = stableStringify(resolved);
  return {
    save: (gate, key) => ({ ...(gate as unknown as NoveltyGate).serialize({ scopes: [key], vectors: false }), implementation: GATE_IMPLEMENTATION }),
    load: (_key, state, vectors) => {
      const snap = state as GateSnapshot & { implementation?: unknown };
      if (snap?.implementation !== GATE_IMPLEMENTATION) throw new Error('the snapshot was saved by another @mem/gate-vmf version');
      if (stableStringify(snap?.options) !== want) throw new Error('the snapshot was made with other gate options');
      // the write path saves one scope without vectors, and its gates only ever commit (a forget or a
      // failed write rebuilds them): every other shape was not written here
      const sc = Array.isArray(snap.scopes) && snap.scopes.length === 1 ? snap.scopes[0] : undefined;
      if (!sc || sc.vectors !== null || !Array.isArray(sc.ids) || sc.commits !== sc.ids.length) throw new Error('not a write-path gate snapshot');
      return createNoveltyGate({
        state: snap,
        vectors: (_scope, ids) => {
          const rows = vectors(ids);
          if (!sumMatches(rows, sc)) throw new Error("the nodes' embeddings do not add up to the snapshot's sum (a node was rewritten)");
          return rows;
        },
      }) as unknown as WriteGate;
    },
  };
}

/**
 * Whether the rows, normalised and rounded to Float32 as the gate commits them and added in order,
 * give the snapshot's running sum Σ mᵢ bit for bit (ours): a cheap check (one pass over the rows)
 * that the stored embeddings are the ones the snapshot was built from.
 */
function sumMatches(rows: ArrayLike<number>[], sc: { dimension: number; sum: string }): boolean {
  const d = sc.dimension;
  const bytes = typeof sc.sum === 'string' ? Buffer.from(sc.sum, 'base64') : null;
  if (!bytes || bytes.length !== d * 8) return false;
  const want = new Float64Array(new Uint8Array(bytes).buffer);
  const acc = new Float64Array(d);
  for (const v of rows) {
    // toUnitVector's arithmetic, inline (no allocation): x / ‖x‖ rounded to Float32 as the row is
    // stored; an invalid row gives NaN here (no match) and is refused by the gate as well
    if (!v || v.length !== d) return false;
    let ss = 0;
    for (let j = 0; j < d; j++) ss += v[j]! * v[j]!;
    const norm = Math.sqrt(ss);
    for (let j = 0; j < d; j++) acc[j]! += Math.fround(v[j]! / norm);
  }
  for (let j = 0; j < d; j++) if (!(acc[j] === want[j])) return false;
  return true;
}

/**
 * Create a memory. Every option has an offline default, so `createMemory()` works without any
 * network or model download (wink GloVe embedder, offline System-One backend, SQLite `:memory:`).
 *
 * @example
 * const memory = createMemory();
 * await memory.add({ text: 'Mira: my old bicycle broke.', speaker: 'Mira', observedAt: '2024-05-14T10:00:00Z', scope: { userId: 'mira' } });
 * const { evidence } = await memory.search('Why did Mira buy a bicycle?', { scope: { userId: 'mira' } });
 * @throws MemValidationError `INVALID_INPUT` for an invalid option (unknown option name, unknown time zone, out-of-range number, gate options `@mem/gate-vmf` refuses)
 */
export { defaultQuestions };

export function createMemory(options: MemoryOptions = {}): Memory {
  checkMemoryOptions(options);
  const store = options.store ?? createSqliteStore({ path: ':memory:' });
  const embedder = options.embedder ?? createWinkEmbedder();
  // No answer cache for the default offline controller (ours): every write asks about a new
  // observation, so the cache never hits there, and the offline backend answers faster than the
  // cache keys a question (`@mem/system-one` README, write-path bench: 5.9x vs 3.4x the reference).
  const systemOne = (options.systemOne ?? createSystemOne({ cache: false })) as SystemOne;
  const now = options.now ?? Date.now;
  const gates = new GateRegistry(store, gateSourceOf(options.gate));
  const counters = emptyCounters();
  const writer = new Writer({
    store,
    embedder,
    controller: systemOne as unknown as WriteController,
    extractor: options.extractor ?? defaultExtractor(options.timeZone),
    gates,
    questions: defaultQuestions(),
    policy: options.policy ?? MEMORY_DEFAULTS.policy,
    summarizer: options.summarizer,
    relationThreshold: options.relationThreshold ?? MEMORY_DEFAULTS.relationThreshold,
    consolidationThreshold: MEMORY_DEFAULTS.consolidationThreshold,
    consolidateEvery: options.consolidateEvery ?? MEMORY_DEFAULTS.consolidateEvery,
    candidateK: options.candidateK ?? MEMORY_DEFAULTS.candidateK,
    candidateEfSearch: options.candidateEfSearch ?? MEMORY_DEFAULTS.candidateEfSearch,
    consolidationPairs: MEMORY_DEFAULTS.consolidationPairs,
    embedBatchSize: options.embedBatchSize ?? MEMORY_DEFAULTS.embedBatchSize,
    now,
    counters,
  });
  const shared = (options.writers ?? ((store as MemoryStore).concurrentWriters ? 'shared' : 'single')) === 'shared';
  const rt: MemoryRuntime = {
    options,
    store,
    embedder,
    systemOne,
    now,
    gates,
    counters,
    writer,
    queue: new KeyedQueue(),
    shared,
    // 'shared' on a store with a cross-process write lock (the SQLite file: `exclusive`; Neo4j: the
    // per-scope `lockScopes`): sync, dedup, routing and the store write of each add run under it, so
    // no other process commits to those scopes in between (issue 32)
    locked: shared && (typeof store.exclusive === 'function' || typeof store.lockScopes === 'function'),
    sync: createScopeSync(store, gates),
    retriever: null,
    opened: null,
    closed: false,
    closing: null,
    pending: new Set(),
  };
  const memory: Memory = {
    store,
    embedder,
    systemOne,
    add: ((input: ObservationInput | ObservationInput[], addOptions: AddOptions = {}) => track(rt, addNow(rt, input, addOptions))) as Memory['add'],
    validate(observations, validateOptions = {}) {
      if (!Array.isArray(observations)) throw new MemValidationError('INVALID_INPUT', 'validate takes an array of observations');
      if (validateOptions.timeZone !== undefined) assertTimeZone(validateOptions.timeZone);
      validateList(rt, observations, true, validateOptions.timeZone ?? options.timeZone);
    },
    search: (query, opts) => searchMemory(rt, query, opts),
    async get(id, opts) {
      const scope = resolveScope(opts?.scope);
      await ready(rt);
      return store.get(scope, id);
    },
    async list(opts) {
      const scope = resolveScope(opts?.scope);
      await ready(rt);
      const { scope: _s, ...rest } = opts;
      return store.list(scope, rest);
    },
    async forget(id, opts) {
      if (typeof id !== 'string' || !id.trim()) throw new MemValidationError('INVALID_INPUT', 'forget needs a node id (a non-empty string)');
      const scope = resolveScope(opts?.scope);
      const key = scopeKey(scope);
      await ready(rt);
      return rt.queue.run([key], async () => {
        const removed = await store.forget(scope, id);
        if (removed) await gates.forget(key, id);
        return removed;
      });
    },
    forgetScope: (opts) => forgetWholeScope(rt, opts),
    async history(opts) {
      const scope = resolveScope(opts?.scope);
      await ready(rt);
      return orderHistory(await store.history(scope, { nodeId: opts.nodeId, limit: opts.limit }));
    },
    stats: () => memoryStats(rt),
    async *export(exportOptions = {}) {
      await ready(rt);
      await rt.queue.idle();
      yield* exportMemories(store, exportOptions);
    },
    async import(lines) {
      await ready(rt);
      await rt.queue.idle();
      const report = await importMemories(store, lines, { embedder, schemaVersion: MEMORY_SCHEMA_VERSION });
      // the scopes were empty: any in-process state of them (an empty gate) is stale now
      for (const scope of report.scopes) gates.invalidate(scopeKey(scope));
      return report;
    },
    close: () => closeMemory(rt),
  };
  for (const key of ['search', 'get', 'list', 'forget', 'forgetScope', 'history', 'stats', 'import'] as const) {
    const call = memory[key] as (...args: unknown[]) => Promise<unknown>;
    (memory as unknown as Record<string, unknown>)[key] = (...args: unknown[]) => track(rt, call(...args));
  }
  return memory;
}

/** Throws MemValidationError `INVALID_INPUT` for an unknown option name or a bad value (createMemory's checks before anything is built). */
function checkMemoryOptions(options: MemoryOptions): void {
  if (options === null || typeof options !== 'object') throw new MemValidationError('INVALID_INPUT', 'createMemory options must be an object');
  for (const key of Object.keys(options)) {
    if (!MEMORY_OPTION_KEYS.has(key)) {
      const near = [...MEMORY_OPTION_KEYS].find((k) => k.toLowerCase().startsWith(key.toLowerCase().slice(0, 5)));
      throw new MemValidationError('INVALID_INPUT', `Unknown createMemory option "${key}"${near ? ` (did you mean "${near}"?)` : ''}`, { details: { option: key } });
    }
  }
  checkNumber('maxTextBytes', options.maxTextBytes, 1, 1 << 30, true);
  checkNumber('relationThreshold', options.relationThreshold, 0, 1);
  checkNumber('consolidateEvery', options.consolidateEvery, 0, 1e9, true);
  checkNumber('candidateK', options.candidateK, 0, 1000, true);
  checkNumber('candidateEfSearch', options.candidateEfSearch, 1, 1e6, true);
  checkNumber('embedBatchSize', options.embedBatchSize, 1, 1e6, true);
  if (options.writers !== undefined && options.writers !== 'single' && options.writers !== 'shared') {
    throw new MemValidationError('INVALID_INPUT', "writers must be 'single' or 'shared'");
  }
  if (options.timeZone !== undefined) assertTimeZone(options.timeZone);
  if (options.policy !== undefined && options.policy !== 'annotate' && options.policy !== 'drop') {
    throw new MemValidationError('INVALID_INPUT', `policy must be "annotate" or "drop", got ${String(options.policy)}`);
  }
}

/**
 * Where the per-scope gates come from: a caller's gate instance shared by every scope, a factory, or
 * `@mem/gate-vmf` with DEFAULT_WRITE_GATE_OPTIONS and the caller's options (checked now, with one
 * throwaway gate, not at the first add; MemValidationError `INVALID_INPUT`).
 */
function gateSourceOf(gateOpt: MemoryOptions['gate']): ConstructorParameters<typeof GateRegistry>[1] {
  if (isGate(gateOpt)) return { shared: gateOpt };
  if (typeof gateOpt === 'function') return { factory: gateOpt as (k: string) => WriteGate };
  const gateOptions = { ...DEFAULT_WRITE_GATE_OPTIONS, ...(gateOpt ?? {}) } as GateOptions;
  let probe: NoveltyGate;
  try {
    probe = createNoveltyGate(gateOptions);
  } catch (e) {
    // gate-vmf's own messages already say "Invalid gate options: …"
    const msg = e instanceof Error ? e.message : String(e);
    throw new MemValidationError('INVALID_INPUT', msg.startsWith('Invalid gate options') ? msg : `Invalid gate options: ${msg}`, { cause: e });
  }
  return { factory: () => createNoveltyGate(gateOptions) as unknown as WriteGate, codec: noveltyGateCodec(probe.options) };
}

/** The state behind one Memory (ours): its parts, its write queue and its open / close state. */
interface MemoryRuntime {
  options: MemoryOptions;
  store: MemoryStore;
  embedder: Embedder;
  systemOne: SystemOne;
  now: () => number;
  gates: GateRegistry;
  counters: WriteCounters;
  writer: Writer;
  queue: KeyedQueue;
  /** 'shared' writers: other writers may change the store between our writes. */
  shared: boolean;
  /** Shared writers on a store with a cross-process write lock (`store.exclusive`). */
  locked: boolean;
  sync: ScopeSync;
  retriever: Retriever | null;
  opened: Promise<void> | null;
  closed: boolean;
  closing: Promise<void> | null;
  /** Calls started before close(): close() waits for them (a write issued before close is not lost). */
  pending: Set<Promise<unknown>>;
}

function track<T>(rt: MemoryRuntime, p: Promise<T>): Promise<T> {
  rt.pending.add(p);
  const done = () => rt.pending.delete(p);
  p.then(done, done);
  return p;
}

/** Open the store once (STORE_UNAVAILABLE once closed; a failed open is retried by the next call). */
function ready(rt: MemoryRuntime): Promise<void> {
  if (rt.closed) return Promise.reject(new MemError('STORE_UNAVAILABLE', 'unavailable', 'This memory is closed'));
  if (!rt.opened) {
    rt.opened = rt.store
      .open({ schemaVersion: MEMORY_SCHEMA_VERSION, embeddingModel: rt.embedder.model, dimension: rt.embedder.dimension })
      .catch((e) => {
        rt.opened = null;
        throw e;
      });
  }
  return rt.opened;
}

function getRetriever(rt: MemoryRuntime): Retriever | null {
  if (rt.retriever) return rt.retriever;
  const r = rt.options.retriever;
  if (!r) return null;
  rt.retriever = typeof r === 'function' ? r({ store: rt.store, embedder: rt.embedder, systemOne: rt.systemOne }) : r;
  return rt.retriever;
}

/** Validate every observation first; a batch's error names the observation's index. */
function validateList(rt: MemoryRuntime, list: ObservationInput[], many: boolean, timeZone: string | undefined): NormalizedObservation[] {
  return list.map((o, index) => {
    try {
      return validateObservation(o, { maxTextBytes: rt.options.maxTextBytes, timeZone, now: rt.now });
    } catch (e) {
      if (many && MemError.isInstance(e)) {
        const err = e as MemError;
        throw new MemValidationError(err.code, `observation ${index}: ${err.message}`, { cause: e, details: { ...err.details, index } });
      }
      throw e;
    }
  });
}

/** Observations of one add grouped by scope key (in order; index = position in the call). */
type ScopeGroups = Map<string, { index: number; obs: NormalizedObservation }[]>;

/**
 * `Memory.add`: validate, group by scope, then under the scopes' queues (and the store's write lock
 * for locked shared writers) prepare and commit every scope; a store conflict is retried (3 attempts).
 */
async function addNow(rt: MemoryRuntime, input: ObservationInput | ObservationInput[], addOptions: AddOptions = {}): Promise<any> {
  const { store, gates, locked } = rt;
  const many = Array.isArray(input);
  const list = many ? input : [input];
  const timeZone = addOptions.timeZone ?? rt.options.timeZone;
  if (addOptions.timeZone !== undefined) assertTimeZone(addOptions.timeZone);
  const tv = performance.now();
  const validated = validateList(rt, list, many, timeZone);
  rt.counters.timings.validate += performance.now() - tv;
  if (validated.length === 0) return [];
  await ready(rt);
  const groups: ScopeGroups = new Map();
  validated.forEach((obs, index) => {
    let g = groups.get(obs.scopeKey);
    if (!g) groups.set(obs.scopeKey, (g = []));
    g.push({ index, obs });
  });
  const out: AddResult[] = new Array(validated.length);
  const writeGroups = () => writeScopes(rt, groups, out);
  for (let attempt = 1; ; attempt++) {
    try {
      await rt.queue.run([...groups.keys()], () => (locked ? underLock(store, groups, writeGroups) : writeGroups()));
      break;
    } catch (e) {
      if (locked) {
        // `exclusive` rolled back every scope's write (`lockScopes` kept those made): no in-process state of this add may stay
        for (const key of groups.keys()) {
          gates.invalidate(key);
          rt.sync.seenSeq.delete(key);
        }
      }
      if (attempt < 3 && isStoreConflict(e)) {
        for (const key of groups.keys()) gates.invalidate(key);
        continue;
      }
      throw e;
    }
  }
  return many ? out : out[0];
}

/**
 * Run `fn` under the store's cross-process write lock: `exclusive` (the whole store; fn's writes
 * commit together) when it has one, else `lockScopes` of the add's scopes (fn's writes commit as made).
 */
function underLock<T>(store: MemoryStore, groups: ScopeGroups, fn: () => Promise<T>): Promise<T> {
  if (store.exclusive) return store.exclusive(fn);
  return store.lockScopes!([...groups.values()].map((items) => items[0]!.obs.scope), fn);
}

/** All fallible work of every scope first, then one atomic store write per scope; results into `out`. */
async function writeScopes(rt: MemoryRuntime, groups: ScopeGroups, out: AddResult[]): Promise<void> {
  const before = rt.shared ? await rt.sync.syncScopes(groups) : null;
  const prepared: PreparedWrite[] = [];
  try {
    for (const [key, items] of groups) prepared.push(await rt.writer.prepareScope(items[0]!.obs.scope, key, items));
  } catch (e) {
    for (const p of prepared.reverse()) p.rollback();
    throw e;
  }
  const done: string[] = [];
  try {
    for (let i = 0; i < prepared.length; i++) {
      try {
        for (const r of await prepared[i]!.commit()) out[r.index] = r.result;
        done.push([...groups.keys()][i]!);
      } catch (e) {
        for (const p of prepared.slice(i + 1)) p.rollback();
        throw e;
      }
    }
  } finally {
    if (before) await rt.sync.recordScopes(groups, before, done, rt.locked);
  }
}

/** What 'shared' writers know of each scope: the latest history seq this Memory has fully seen. */
interface ScopeSync {
  seenSeq: Map<string, number>;
  /**
   * Before a write: bring every scope another writer changed since our last write up to date — the
   * rows after the seen seq applied incrementally (`GateRegistry.catchUp`), or, when they cannot be
   * (a forget, an out-of-order id, …) or no seq was seen, the scope's state dropped and rebuilt.
   * Returns the seq each scope is now current to.
   */
  syncScopes(groups: ScopeGroups): Promise<Map<string, number>>;
  /**
   * After a write: remember the seq the scope is current to — under the store's write lock the
   * latest (every row after `before` is this write's own), else `before` (the next write catches up
   * from there, skipping this write's own rows); a scope whose write failed is forgotten, so the
   * next write rebuilds it.
   */
  recordScopes(groups: ScopeGroups, before: Map<string, number>, done: string[], locked: boolean): Promise<void>;
}

/** The rows of a scope after `seq` (ascending), or null when there are more than `CATCH_UP_MAX_ROWS` (rebuild instead). */
async function rowsAfter(store: MemoryStore, scope: ResolvedScope, seq: number): Promise<HistoryEntry[] | null> {
  const rows = await store.history(scope, { afterSeq: seq, limit: CATCH_UP_MAX_ROWS + 1 });
  // filtered here too: an adapter of an older contract ignores `afterSeq` (then it reads the latest rows)
  const newer = rows.filter((h) => (h.seq ?? 0) > seq);
  const complete = newer.length < rows.length || rows.length <= CATCH_UP_MAX_ROWS;
  return complete ? newer : null;
}

function syncFailed(e: unknown): MemError {
  return new MemError('WRITE_FAILED', MemError.isInstance(e) ? e.category : 'unavailable', `Write failed at sync; nothing was written: ${(e as Error)?.message ?? e}`, {
    cause: e,
    details: { stage: 'sync', causeCode: MemError.isInstance(e) ? e.code : undefined },
  });
}

function createScopeSync(store: MemoryStore, gates: GateRegistry): ScopeSync {
  const seenSeq = new Map<string, number>();
  const latestSeq = async (scope: ResolvedScope): Promise<number> => (await store.history(scope, { limit: 1 }))[0]?.seq ?? 0;
  /** The seq the scope's runtime is current to after catching up from `seen` (its runtime dropped when that fails). */
  const catchUp = async (scope: ResolvedScope, key: string, seen: number): Promise<number> => {
    const rows = await rowsAfter(store, scope, seen);
    if (rows === null) {
      gates.invalidate(key);
      return latestSeq(scope);
    }
    if (rows.length === 0) {
      await gates.settle(key);
      return seen;
    }
    await gates.catchUp(scope, key, rows);
    return rows[rows.length - 1]!.seq ?? seen;
  };
  const syncScopes = async (groups: ScopeGroups): Promise<Map<string, number>> => {
    const before = new Map<string, number>();
    for (const [key, items] of groups) {
      const scope = items[0]!.obs.scope;
      const seen = seenSeq.get(key);
      try {
        if (seen !== undefined && gates.loaded(key)) before.set(key, await catchUp(scope, key, seen));
        else {
          gates.invalidate(key);
          before.set(key, await latestSeq(scope));
        }
      } catch (e) {
        seenSeq.delete(key);
        gates.invalidate(key);
        throw syncFailed(e);
      }
    }
    return before;
  };
  const recordScopes = async (groups: ScopeGroups, before: Map<string, number>, done: string[], locked: boolean): Promise<void> => {
    for (const [key, items] of groups) {
      seenSeq.delete(key);
      if (!done.includes(key)) continue;
      if (!locked) {
        // other writers may have committed while this write ran: the next write catches up from
        // `before`, skipping this write's own rows (`ScopeRuntime.own`)
        seenSeq.set(key, before.get(key)!);
        continue;
      }
      // under the store's write lock no other writer committed since `before`: every newer row is ours
      try {
        seenSeq.set(key, await latestSeq(items[0]!.obs.scope));
        await gates.settle(key);
      } catch {
        // unknown: the next write rebuilds the scope
      }
    }
  };
  return { seenSeq, syncScopes, recordScopes };
}

/** `Memory.search`: strict options, the configured retriever (else a dense fallback), and every item's state (issue 37). */
async function searchMemory(rt: MemoryRuntime, query: string, opts: Parameters<Memory['search']>[1]): Promise<SearchResult> {
  const { options, store, embedder } = rt;
  if (typeof query !== 'string' || !query.trim()) throw new MemValidationError('TEXT_EMPTY', 'query is empty');
  const scope = resolveScope(opts?.scope);
  // strict like add(): a misspelt option (`topK`, `Now`) must not silently fall back to a default
  const unknownKeys = Object.keys(opts).filter((key) => key !== 'scope' && key !== 'k' && key !== 'now');
  if (unknownKeys.length) {
    throw new MemValidationError('INVALID_INPUT', `Unknown search option${unknownKeys.length > 1 ? 's' : ''} ${unknownKeys.map((key) => `"${key}"`).join(', ')}; search takes scope, k, now`, { details: { unknownKeys } });
  }
  const k = opts.k ?? 10;
  checkNumber('k', k, 1, 10_000, true);
  // strict reference time: ISO-8601 with a zone, or zone-less read in the memory's timeZone;
  // anything else is BAD_DATE / MISSING_TIMEZONE on every path (the fallback included)
  const now = opts.now === undefined ? undefined : normalizeNow(opts.now, options.timeZone);
  await ready(rt);
  const r = getRetriever(rt);
  // the memory's timeZone is the calendar of the query's relative dates too ("yesterday" at 02:00 Tokyo)
  let result: SearchResult;
  if (r) result = await r.search({ scope, query, k, now, ...(options.timeZone ? { timeZone: options.timeZone } : {}) });
  else {
    const [v] = await embedder.embed([query]);
    const hits = await store.vectorSearch(scope, v instanceof Float32Array ? v : Float32Array.from(v!), k);
    result = { evidence: hits.map((h) => ({ node: h.node, score: h.score, path: [] })), trace: { retriever: 'dense-fallback' } };
  }
  // every evidence item says whether it is current or superseded (issue 37), whatever the retriever
  const missing = result.evidence.filter((e) => !e.state).map((e) => e.node);
  if (missing.length) {
    const states = await memoryStates(store, scope, missing);
    result = { ...result, evidence: result.evidence.map((e) => (e.state ? e : { ...e, state: states.get(e.node.id)! })) };
  }
  // a superseded item never comes alone: the memory that superseded it joins the evidence, above it
  // (below it for a question about the past), even when it ranked below k (issue 37)
  if (result.evidence.some((e) => e.state?.status === 'superseded')) {
    result = { ...result, evidence: await withSuccessors(store, scope, result.evidence, result.asks) };
  }
  return result;
}

/** `Memory.forgetScope`: every memory of the scope, under its queue; the scope's gate and caches are rebuilt on next use. */
async function forgetWholeScope(rt: MemoryRuntime, opts: Parameters<Memory['forgetScope']>[0]): Promise<number> {
  const { store, gates } = rt;
  const unknownKeys = Object.keys(opts ?? {}).filter((key) => key !== 'scope');
  if (unknownKeys.length) throw new MemValidationError('INVALID_INPUT', `Unknown forgetScope option(s) ${unknownKeys.join(', ')}; forgetScope takes scope`, { details: { unknownKeys } });
  const scope = resolveScope(opts?.scope);
  const key = scopeKey(scope);
  await ready(rt);
  return rt.queue.run([key], async () => {
    let removed = 0;
    // a caller-supplied gate instance shared by every scope keeps its rows: remove them one by one
    const ids: string[] = [];
    if (gates.sharedInstance) {
      for (let offset = 0; ; offset += 1000) {
        const page = await store.list(scope, { limit: 1000, offset });
        ids.push(...page.map((n) => n.id));
        if (page.length < 1000) break;
      }
    }
    try {
      if (typeof store.forgetScope === 'function') removed = await store.forgetScope(scope);
      else {
        for (;;) {
          const page = await store.list(scope, { limit: 500 });
          if (!page.length) break;
          for (const n of page) if (await store.forget(scope, n.id)) removed++;
        }
      }
    } catch (e) {
      gates.invalidate(key);
      throw e;
    }
    // the scope's gate and caches are rebuilt from the store on next use
    for (const id of ids) await gates.forget(key, id);
    gates.invalidate(key);
    return removed;
  });
}

/** `Memory.stats`: nodes per scope, relations per view, and the write counters (after the queue is idle). */
async function memoryStats(rt: MemoryRuntime): Promise<MemoryStats> {
  const { store, counters, gates } = rt;
  await ready(rt);
  await rt.queue.idle();
  const nodes: Record<string, number> = {};
  const relations = Object.fromEntries(RELATION_VIEWS.map((v) => [v, 0])) as Record<RelationView, number>;
  for (const scope of await store.scopes()) {
    nodes[scopeKey(scope)] = await store.count(scope);
    for (const r of await store.relations(scope)) relations[r.view]++;
  }
  return {
    nodes,
    relations,
    writes: counters.writes,
    duplicates: counters.duplicates,
    gate: { ...counters.gate },
    controllerCalls: counters.controllerCalls,
    controllerCallsSaved: counters.controllerCallsSaved,
    consolidations: counters.consolidations,
    summarizerCalls: counters.summarizerCalls,
    timings: { ...counters.timings },
    gateState: { ...gates.counters, catchUpFallbacks: { ...gates.counters.catchUpFallbacks }, rebuildMs: { ...gates.counters.rebuildMs } },
  };
}

/** `Memory.close`: reject new calls, wait for started ones and the queue, save the gates, close the store (once). */
function closeMemory(rt: MemoryRuntime): Promise<void> {
  if (!rt.closing) {
    rt.closed = true; // calls from now on are rejected (STORE_UNAVAILABLE)
    rt.closing = (async () => {
      await Promise.allSettled([...rt.pending]);
      await rt.queue.idle();
      await rt.gates.saveAll();
      rt.gates.clear();
      await rt.store.close();
    })();
  }
  return rt.closing;
}

/**
 * The memory graph model and the `MemoryStore` contract every store adapter implements (ours;
 * `@mem/store-spec`, re-exported by `@mem/core`). Source: Jev-Mem (seed 000) §3 memory model; SAGE
 * (seed 001) §3 for the gate decision; the field names and closed enums are ours.
 */
import type { GateDecision } from '@mem/gate-vmf';

/** Where a memory belongs. Every read and write is scoped; at least one of userId/agentId/runId is required. */
export interface Scope {
  /** Tenant / application namespace. Default `"default"`. */
  namespace?: string;
  userId?: string;
  agentId?: string;
  runId?: string;
}

/** A scope after validation: every field present (absent ones are `""`, namespace defaults to `"default"`). */
export interface ResolvedScope {
  namespace: string;
  userId: string;
  agentId: string;
  runId: string;
}

export type MemoryType = 'episodic' | 'semantic' | 'procedural' | 'preference';
export type TypeScores = Record<MemoryType, number>;

export type GateAction = 'add' | 'update' | 'noop';

/** The SAGE gate's decision recorded on a node (seed 001 §3.4): the fields of `@mem/gate-vmf`'s `GateDecision`, and what the write path adds. */
export interface GateDecisionRecord extends Pick<GateDecision, 'action' | 'novelty' | 'score' | 'threshold' | 'kappa' | 'density' | 'nearest'> {
  /**
   * Half-width of the certified interval around `score` when the gate decided from a certificate
   * instead of scanning every memory (`@mem/gate-vmf` fast mode, ours); absent or 0 when exact. The
   * action is exact mode's either way.
   */
  scoreError?: number;
  /** False when `nearest` (of an Add) is the best memory the fast path scored, not certified as the exact nearest (ours). Absent = exact. */
  nearestExact?: boolean;
  /**
   * The gate's own routing when the write path changed it (ours, issue 37): `noop` when the gate routed
   * Noop but the state question found a changed value, so `action` is `update`. Absent = `action`.
   */
  routed?: GateAction;
}

/** One canonical observation. Never thrown away by the library (forget is an explicit user action). */
export interface MemoryNode {
  id: string;
  scope: ResolvedScope;
  text: string;
  speaker: string | null;
  /** UTC ISO-8601. */
  observedAt: string;
  /** Event time resolved from relative expressions against observedAt (UTC ISO-8601), or null. */
  eventTime: { start: string; end: string | null; expression: string } | null;
  entities: string[];
  keywords: string[];
  types: TypeScores;
  /** Unit-norm embedding (cosine = dot product). */
  embedding: Float32Array;
  gate: GateDecisionRecord | null;
  /** Where the node came from. `contentHash` = sha256 of scope key + normalized text + speaker + observedAt + sourceId. */
  provenance: { sourceId: string | null; contentHash: string; metadata: Record<string, unknown> };
  /** Set by consolidation when a later memory makes this one obsolete (nothing is deleted). */
  obsoleteBy?: string | null;
  createdAt: string;
}

export type RelationView = 'semantic' | 'temporal' | 'causal' | 'entity';
export const RELATION_VIEWS: readonly RelationView[] = ['semantic', 'temporal', 'causal', 'entity'];

/** Closed enum of relation subtypes, with the view each belongs to. */
export const RELATION_SUBTYPES = {
  RELATED_TO: 'semantic',
  REDUNDANT_WITH: 'semantic',
  CONTRADICTS: 'semantic',
  UPDATES: 'semantic',
  OBSOLETES: 'semantic',
  LEADS_TO: 'causal',
  PRECEDES: 'temporal',
  CONCURRENT: 'temporal',
  DURING: 'temporal',
  OVERLAPS: 'temporal',
  SAME_EPISODE: 'temporal',
  SAME_ENTITY: 'entity',
  ENTITY_ALIAS: 'entity',
} as const satisfies Record<string, RelationView>;
export type RelationSubtype = keyof typeof RELATION_SUBTYPES;

export interface Relation {
  id: string;
  from: string;
  to: string;
  view: RelationView;
  subtype: RelationSubtype;
  /** Edge probability p ∈ [0, 1] (1 for deterministic rule edges). */
  probability: number;
  origin: 'rule' | 'controller';
  /** UTC ISO-8601. */
  createdAt: string;
}

/**
 * What a history row records. `REEMBED` (ours, issue 32): the scope's vectors and gate decisions were
 * rewritten into a new embedding space (one row per scope, `nodeId` null, `data: { from, to }`), so a
 * writer's in-process state of the scope is rebuilt, not caught up.
 */
export type HistoryOp = 'ADD' | 'UPDATE' | 'NOOP' | 'RELATE' | 'CONSOLIDATE' | 'OBSOLETE' | 'FORGET' | 'REEMBED';

/** Append-only history row. Survives `forget`. */
export interface HistoryEntry {
  /** Monotonic per store; assigned by the store. */
  seq?: number;
  scope: ResolvedScope;
  op: HistoryOp;
  nodeId: string | null;
  at: string;
  data: Record<string, unknown>;
}

/** Options of `MemoryStore.history`. */
export interface HistoryOptions {
  /** Only the rows of this node. */
  nodeId?: string;
  /** The latest `limit` rows (of those selected), still ascending. */
  limit?: number;
  /** Only rows with `seq > afterSeq` (ours, issue 32; a non-negative integer, 0 = all). */
  afterSeq?: number;
}

/** Written atomically: all or nothing. */
export interface WriteBatch {
  scope: ResolvedScope;
  /** Node ids are unique per scope; a node whose id already exists in the scope replaces it (upsert). */
  nodes?: MemoryNode[];
  /** Endpoints must exist in this batch or in the store, in the same scope. A relation id that exists is replaced. */
  relations?: Relation[];
  history?: HistoryEntry[];
  /** Partial updates of existing nodes in the same scope (e.g. obsoleteBy). */
  nodeUpdates?: { id: string; obsoleteBy?: string | null }[];
}

export interface StoreMeta {
  schemaVersion: number;
  embeddingModel: string;
  dimension: number;
}

export interface ScoredNode {
  node: MemoryNode;
  /** vectorSearch: cosine similarity in [-1, 1]; lexicalSearch: BM25 score (higher is better). */
  score: number;
}

/** A hit without its node (see `MemoryStore.vectorSearchIds`, `lexicalSearchIds`): score = cosine in [-1, 1], or BM25 relevance. */
export interface ScoredId {
  id: string;
  score: number;
}

/** Per-query options of a k-NN read (ours). */
export interface VectorSearchOptions {
  /**
   * Search breadth of an approximate index for this query (HNSW `ef`, raised to at least the number
   * of hits wanted): lower is faster and may miss a true neighbour. Stores that scan exactly, or
   * have no such knob, ignore it. Default: the store's own setting.
   */
  efSearch?: number;
}

export interface NeighborQuery {
  views?: RelationView[];
  subtypes?: RelationSubtype[];
  /** 'out' = relations from the given ids, 'in' = to them, 'both'. Default 'both'. */
  direction?: 'out' | 'in' | 'both';
  /** Results are ordered by relation probability, highest first; `limit` keeps the first ones. */
  limit?: number;
}

export interface Neighbor {
  relation: Relation;
  /** The node at the other end. */
  node: MemoryNode;
  /** The id among the queried ids this neighbour was reached from. */
  fromId: string;
}

/**
 * What `MemoryStore.scanNodes` returns of a memory (ours, issue 33): the fields the write path's
 * per-scope state is rebuilt from (its gate, candidate index and episode chain), without the text,
 * types, event time or the rest of the gate record, which a rebuild does not read.
 */
export interface NodeDigest {
  id: string;
  /** ISO-8601 UTC, as stored. */
  observedAt: string;
  entities: string[];
  keywords: string[];
  embedding: Float32Array;
  /** The stored gate record's action only; null when the node has no gate record. */
  gate: { action: GateAction } | null;
  provenance: { sourceId: string | null; metadata: Record<string, unknown> };
}

/** Options of `MemoryStore.scanNodes`: a keyset page. */
export interface ScanOptions {
  /** Only ids after this one in the scan's order (Unicode code point order). Default: from the first. */
  afterId?: string;
  /** At most this many (a positive integer). Default 1000. */
  limit?: number;
}

export interface ListOptions {
  limit?: number;
  offset?: number;
  /** Default 'observedAt'. */
  orderBy?: 'observedAt' | 'createdAt';
  order?: 'asc' | 'desc';
}

/**
 * The optional parts of `MemoryStore` (ours, issue 35), each named by a capability and implemented
 * by the methods listed here. An adapter lists what it implements in `MemoryStore.capabilities`; the
 * conformance suite checks that the list and the methods agree and reports each capability it does
 * not list as skipped. Callers still test for the method (`store.vectorSearchIds?.(…)`).
 */
export const STORE_CAPABILITIES = {
  /** `exclusive(fn)`: a write lock across processes. */
  exclusive: ['exclusive'],
  /** `lockScopes(scopes, fn)`: a per-scope write lock across processes (writes commit as they are made). */
  lockScopes: ['lockScopes'],
  /** `vectorSearchIds`: k-NN hits as ids and cosines, no node rows read. */
  vectorSearchIds: ['vectorSearchIds'],
  /** `lexicalSearchIds`: BM25 hits as ids and scores, no node rows read. */
  lexicalSearchIds: ['lexicalSearchIds'],
  /** `forgetScope`: forget every node of a scope in one atomic step. */
  forgetScope: ['forgetScope'],
  /** `loadState` / `saveState`: a per-scope slot for derived state (the gate's snapshot). */
  state: ['loadState', 'saveState'],
  /** `scanNodes`: a scope's memories in id order, without text, as the write path rebuilds its state from them. */
  scanNodes: ['scanNodes'],
} as const satisfies Record<string, readonly (keyof MemoryStore)[]>;
export type StoreCapability = keyof typeof STORE_CAPABILITIES;

/**
 * What every store adapter implements (Mastra-style: all adapters pass `@mem/store-spec/testing`'s
 * conformance suite). All methods are scoped; nothing ever crosses scopes.
 */
export interface MemoryStore {
  readonly kind: string;
  /**
   * The optional parts this store implements (see `STORE_CAPABILITIES`); absent = none. Every listed
   * capability's methods must exist and no unlisted one's may (the conformance suite checks both).
   */
  readonly capabilities?: readonly StoreCapability[];
  /**
   * True when several processes may write this store at the same time (a database server such as
   * Neo4j), so a `Memory`'s per-process state (its SAGE gates, node caches, candidate indexes) can go
   * stale between two of its writes; `createMemory` then re-checks each scope before writing to it
   * (see `MemoryOptions.writers`). Absent / false: one writing process (the embedded SQLite store).
   */
  readonly concurrentWriters?: boolean;
  /**
   * Optional (ours, issue 32): run `fn` holding the store's write lock across processes; the store's
   * writes made inside `fn` commit together when it resolves, or not at all when it throws, and no
   * other writer can commit in between, so what `fn` read is still true when its writes land. With
   * `writers: 'shared'`, `createMemory` runs each write (its dedup, gate sync and routing, and the
   * store write) inside it. The SQLite file store implements it (`BEGIN IMMEDIATE`); stores without it
   * rely on their own constraints (`STORE_CONFLICT`, retried).
   * @throws StoreUnavailableError when the lock is not obtained in time, or what `fn` throws
   */
  exclusive?<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Optional (ours, issue 32): run `fn` holding the store's write lock of each of `scopes`, across
   * processes: no other `lockScopes` caller holding one of these scopes (in this or another process)
   * runs at the same time, so no other locked writer commits to them while `fn` runs and what `fn`
   * read of them is still true when its writes land. Unlike `exclusive`, the writes made inside `fn`
   * commit as they are made (a throw keeps those already made). With `writers: 'shared'` and no
   * `exclusive`, `createMemory` runs each write (dedup, catch-up, routing, the store write) inside it,
   * so a scope's history grows in id order and the in-process state catches up without rebuilds. The
   * Neo4j store implements it (one lock transaction per call, rolled back at the end: nothing is
   * stored; a writer that dies releases its locks with its connection), the SQLite store through `exclusive`.
   * @throws StoreUnavailableError when the locks are not obtained in time, or what `fn` throws
   */
  lockScopes?<T>(scopes: readonly ResolvedScope[], fn: () => Promise<T>): Promise<T>;
  /** Create or open; checks the recorded schema version, embedding model and dimension (StoreMetaMismatchError naming both on mismatch). */
  open(meta: StoreMeta): Promise<void>;
  /** The metadata recorded on first open, or null for a new store. */
  meta(): Promise<StoreMeta | null>;
  /** Atomic: all nodes, relations, node updates and history rows, or none. */
  write(batch: WriteBatch): Promise<void>;
  get(scope: ResolvedScope, id: string): Promise<MemoryNode | null>;
  getMany(scope: ResolvedScope, ids: string[]): Promise<MemoryNode[]>;
  list(scope: ResolvedScope, options?: ListOptions): Promise<MemoryNode[]>;
  /**
   * Optional (ours, issue 33): one keyset page of the scope's memories in ascending id order (code
   * point order: for the UUIDv7 ids the write path makes, write order), as
   * {@link NodeDigest}s (no text read or decoded). The write path rebuilds a scope's in-process state
   * from these pages after a start (`afterId` = the last id of the previous page) instead of paging
   * `list` with offsets and decoding whole nodes; without it, it pages `list`.
   * @throws MemValidationError INVALID_INPUT for a `limit` that is not a positive integer or an `afterId` that is not a string
   */
  scanNodes?(scope: ResolvedScope, options?: ScanOptions): Promise<NodeDigest[]>;
  count(scope: ResolvedScope): Promise<number>;
  findByContentHash(scope: ResolvedScope, contentHash: string): Promise<MemoryNode | null>;
  /** k nearest by cosine within the scope; score = cosine. */
  vectorSearch(scope: ResolvedScope, vector: Float32Array, k: number): Promise<ScoredNode[]>;
  /**
   * Optional fast path of `vectorSearch` (ours): the same hits in the same order, as ids and cosines
   * only (no node rows are read). The write path's candidate discovery uses it when present and
   * falls back to `vectorSearch` otherwise, so adapters may omit it.
   */
  vectorSearchIds?(scope: ResolvedScope, vector: Float32Array, k: number, options?: VectorSearchOptions): Promise<ScoredId[]>;
  /** BM25 within the scope; score = BM25 relevance (higher is better). Query text is never interpreted as syntax. */
  lexicalSearch(scope: ResolvedScope, query: string, k: number): Promise<ScoredNode[]>;
  /**
   * Optional fast path of `lexicalSearch` (ours): the same hits in the same order, as ids and BM25
   * scores only (no node rows are read). The read path uses it when present and falls back to
   * `lexicalSearch` otherwise, so adapters may omit it.
   */
  lexicalSearchIds?(scope: ResolvedScope, query: string, k: number): Promise<ScoredId[]>;
  neighbors(scope: ResolvedScope, ids: string[], query?: NeighborQuery): Promise<Neighbor[]>;
  relations(scope: ResolvedScope, options?: { nodeId?: string; limit?: number }): Promise<Relation[]>;
  /**
   * Remove the node, its relations and index entries; appends a FORGET history row (no text). Returns
   * false if absent. Stores should leave no copy of the text readable in their files (the SQLite
   * store: `secure_delete`, FTS rewrite, WAL checkpoint, ANN files dropped; see docs/reliability.md).
   */
  forget(scope: ResolvedScope, id: string): Promise<boolean>;
  /**
   * Optional (ours, issue 32): forget every node of the scope in one atomic step, one FORGET history
   * row per node; returns how many were removed. Without it, `Memory.forgetScope` forgets node by node.
   */
  forgetScope?(scope: ResolvedScope): Promise<number>;
  /**
   * The scope's history rows, ascending seq; with `limit`, the latest `limit` rows (still ascending).
   * `afterSeq` (ours, issue 32): only rows with `seq > afterSeq` (with `limit`: the latest `limit` of
   * those), so a writer can read just what was appended since the last row it saw. A row's `seq`
   * never changes, and a row visible to a reader never gets a smaller-seq row committed after it
   * (seq order is commit order), so rows after a seen `seq` are exactly what was added since.
   * @throws MemValidationError INVALID_INPUT for a `limit` or `afterSeq` that is not a non-negative integer
   */
  history(scope: ResolvedScope, options?: HistoryOptions): Promise<HistoryEntry[]>;
  /** Every scope that holds at least one node. */
  scopes(): Promise<ResolvedScope[]>;
  /**
   * Optional per-scope slot for derived state (ours): a named string the write path can always
   * rebuild from the nodes but would rather not, e.g. the SAGE gate's snapshot, so a restart skips
   * replaying every commit. `null` when never saved. A `forget` in the scope drops every saved value
   * of the scope in the same transaction (derived state may hold aggregates of the forgotten node).
   * Adapters may omit the pair; the write path then replays. @throws MemValidationError INVALID_INPUT
   * for a name that is not 1–200 characters
   */
  loadState?(scope: ResolvedScope, name: string): Promise<string | null>;
  /** Save (replace) or, with `null`, delete a scope's named derived state (see `loadState`). Atomic. @throws MemValidationError INVALID_INPUT for a bad name, or a value that is not a well-formed string (a lone surrogate would not round-trip) */
  saveState?(scope: ResolvedScope, name: string, value: string | null): Promise<void>;
  close(): Promise<void>;
}

/**
 * The interfaces of `@mem/core` beyond the store contract: input of `Memory.add`, embedders, the read
 * path's request and result. The memory graph model and `MemoryStore` live in `@mem/store-spec`
 * (re-exported here, so `import type { MemoryNode } from '@mem/core'` keeps working).
 * Source: Jev-Mem (seed 000) §3 memory model; the field names are ours.
 */
import type { RelationSubtype, ResolvedScope, MemoryNode, Relation, Scope } from '@mem/store-spec';

export {
  RELATION_SUBTYPES,
  RELATION_VIEWS,
  STORE_CAPABILITIES,
  implementedCapabilities,
  type Scope,
  type ResolvedScope,
  type MemoryType,
  type TypeScores,
  type GateAction,
  type GateDecisionRecord,
  type MemoryNode,
  type RelationView,
  type RelationSubtype,
  type Relation,
  type HistoryOp,
  type HistoryEntry,
  type HistoryOptions,
  type WriteBatch,
  type StoreMeta,
  type ScoredNode,
  type ScoredId,
  type VectorSearchOptions,
  type NeighborQuery,
  type Neighbor,
  type ListOptions,
  type NodeDigest,
  type ScanOptions,
  type MemoryStore,
  type StoreCapability,
} from '@mem/store-spec';

/** Input to `Memory.add`: one thing that was said or seen. */
export interface ObservationInput {
  text: string;
  speaker?: string;
  /** ISO-8601 with a zone (`Z` or `±hh:mm`), a Date, or epoch ms (a number in [0, 1e11) is refused with BAD_DATE as probable epoch seconds). A zone-less string needs the `timeZone` option. Default: now. */
  observedAt?: string | Date | number;
  scope: Scope;
  /** Caller's id of the source record (e.g. a LoCoMo dialogue id `D1:3`). */
  sourceId?: string;
  metadata?: Record<string, unknown>;
}

/** Turns text into unit-norm vectors. */
export interface Embedder {
  /** Recorded in the store's meta; a store refuses another model. */
  readonly model: string;
  readonly dimension: number;
  /** One unit-norm Float32Array per text, same order. */
  embed(texts: string[]): Promise<Float32Array[]>;
}

export interface SearchRequest {
  scope: ResolvedScope;
  query: string;
  /** How many evidence items to return. Default 10. */
  k?: number;
  /** Reference time for recency (UTC ISO-8601); default now. */
  now?: string;
  /**
   * IANA zone whose calendar the query's relative dates ("yesterday", "last Monday") are resolved in
   * against `now` (`createMemory`'s `timeZone`); default UTC. Unknown names: INVALID_INPUT.
   */
  timeZone?: string;
}

export interface Evidence {
  node: MemoryNode;
  score: number;
  /** Relations followed from the anchor to reach this node (empty for anchors). */
  path: Relation[];
  /**
   * Current, or superseded by a later memory (issue 37; see `memoryStates` in state.ts). Set by
   * `Memory.search` for every retriever; a retriever called directly may leave it out.
   */
  state?: MemoryState;
}
/**
 * What a read says about one memory. `current`: nothing later changed it. `superseded`: `by` = the id
 * of the newest later memory that changed it, `at` = that memory's observation time (UTC ISO-8601,
 * the moment the old statement stopped holding as far as memory knows), `p` = the edge's probability
 * in [0, 1] (null when only the node's `obsoleteBy` records it), `relation` = the edge's subtype.
 */
export type MemoryState =
  | { status: 'current' }
  | { status: 'superseded'; by: string; at: string; p: number | null; relation: RelationSubtype | null };


export interface SearchResult {
  evidence: Evidence[];
  /**
   * False when memory holds nothing on the question (issue 37): the calibrated p that some returned
   * memory is evidence, `pEvidence`, is below the retriever's threshold (jev with its learned models).
   * Absent when the retriever cannot tell.
   */
  answerable?: boolean;
  /** Calibrated p ∈ [0, 1] that the evidence holds an answer (see `answerable`). */
  pEvidence?: number;
  /**
   * Which state the question asks about (issue 37), when the retriever can tell (jev's routing Nouls
   * `present_state` / `past_state`): `'present'` (what is true now) or `'past'` (an earlier state).
   * `Memory.search` places the memory that superseded a returned one above it, or below it for `'past'`.
   */
  asks?: 'present' | 'past';
  /** Retriever-specific trace (see `@mem/retrieval`'s RetrievalTrace). */
  trace?: unknown;
}

/** Read path, implemented by `@mem/retrieval` (Jev and the flat baselines). */
export interface Retriever {
  readonly name: string;
  search(request: SearchRequest): Promise<SearchResult>;
}

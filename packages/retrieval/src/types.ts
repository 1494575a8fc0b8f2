import type { Evidence, RelationView, Retriever, SearchRequest, SearchResult } from '@mem/core';
import type { RoutingProbabilities } from './equations.js';

export type StopReason =
  | 'sufficient' // s ≥ 0.95 ∧ m < 0.15 ∧ c < 0.15
  | 'not_useful' // u < 0.15
  | 'depth' // D(q) rounds done
  | 'budget' // every active view spent its budget
  | 'frontier_empty' // nothing left to expand
  | 'node_cap'
  | 'edge_cap'
  | 'controller_cap'
  | 'time_cap'
  | 'no_active_views'
  | 'traversal_off'
  | 'no_anchors';

/** One round of the closed loop. */
export interface RoundTrace {
  /** 1-based depth of this round. */
  depth: number;
  /** Frontier ids expanded this round. */
  frontier: string[];
  /** New candidate ids admitted this round, per view. */
  admitted: Record<RelationView, number>;
  /** Relations examined this round. */
  edgesExamined: number;
  /** Stopping answers (null when the stopping questions were not asked). */
  stopping: { sufficient: number; continueUseful: number; missing: number; contradiction: number } | null;
  stop: boolean;
  reason: StopReason | null;
  ms: number;
  /** Ids of the top k evidence after this round (only with `collectFeatures`; for training the stopping models). */
  top?: string[];
}

/** One edge the learned expansion asked about (issue 38; only with `collectExpansion`, for training). */
export interface ExpansionEdgeTrace {
  /** 1-based round. */
  depth: number;
  from: string;
  to: string;
  /** True when the neighbour was already visited. */
  visited: boolean;
  /** p(the neighbour is evidence) of this edge (the neighbour's own p(evidence) when no model is set). */
  p: number;
  features: Record<string, number>;
}

/** One candidate of the link stage (issue 38; only with `collectLinks`, for training): its id and the link model's features (`LINK_FEATURES` order). */
export interface LinkRowTrace {
  id: string;
  x: number[];
}

/** What `createJevRetriever().search()` puts in `SearchResult.trace`. */
export interface RetrievalTrace {
  retriever: string;
  query: string;
  routing: RoutingProbabilities;
  activeViews: RelationView[];
  depth: number;
  budgets: { given: Record<RelationView, number>; spent: Record<RelationView, number> };
  /** True when the temporal view was inactive and `budgets.given.temporal` is the episode-context budget (SAME_EPISODE edges only). */
  episodeContext: boolean;
  anchors: { id: string; rrf: number }[];
  /**
   * The stopping Nouls asked on the anchors' evidence before the first round (depth 0; ours, issue 16),
   * and whether they stopped the search there; null when not asked (stopping ablated, no active views,
   * traversal off, controller cap). `top`: ids of the top k then (only with `collectFeatures`).
   */
  anchorStopping?: { sufficient: number; continueUseful: number; missing: number; contradiction: number; stop: boolean; top?: string[] } | null;
  rounds: RoundTrace[];
  stopReason: StopReason | null;
  controllerCalls: number;
  nodesVisited: number;
  /** Every visited candidate, best first: evidence order value, candidate score s̃, retrieval prior, dialogue term d_v (0 when off), depth, view reached by. */
  candidates: { id: string; final: number; score: number; prior: number; dialogue: number; depth: number; view: RelationView | null; features?: Record<string, number> }[];
  edgesExamined: number;
  /** The edges the learned expansion asked about (only with `collectExpansion`). */
  expansion?: ExpansionEdgeTrace[];
  /** The link stage (issue 38): memories it admitted, and (only with `collectLinks`) every candidate's link features; absent when the stage did not run. */
  links?: { admitted: number; rows?: LinkRowTrace[] };
  /** Breadth (issue 38): p(the question needs many memories), whether the set was widened, and how many items were returned; absent with `breadth: null`. */
  breadth?: { p: number; wide: boolean; returned: number };
  /** Abstention (issue 37): calibrated p that memory holds evidence, the threshold, and p ≥ threshold; null without the learned relevance model or with `answerability: null`. */
  answerability: {
    p: number;
    threshold: number;
    answerable: boolean;
    /** The model's inputs (`answerabilityFeatures`), with `collectFeatures` only (training reads them). */
    features?: Record<string, number>;
  } | null;
  /**
   * Wall-clock ms per phase (`routingMs` + `anchorsMs` + `roundsMs` = `totalMs`) and, in `stages`,
   * where the time went across phases (ours, issue 33): `snapshotMs` (scope snapshot check / build),
   * `embedMs` (query embedding), `rankingsMs` (vector, BM25, lemma and context rankings and their
   * fusion), `controllerMs` (System-One asks: routing, candidate scoring, stopping), `relevanceMs`
   * (evidence order: features, p(evidence), sorting), `expansionMs` (neighbour reads of the rounds).
   */
  timings: {
    routingMs: number;
    anchorsMs: number;
    roundsMs: number;
    totalMs: number;
    stages?: { snapshotMs: number; embedMs: number; rankingsMs: number; controllerMs: number; relevanceMs: number; expansionMs: number };
  };
}

/** A `SearchResult` whose trace is a `RetrievalTrace` (flat baselines give a smaller trace). */
export interface RetrievalResult extends SearchResult {
  evidence: Evidence[];
  /**
   * Set when System One says the question needs many memories (issue 38; jev option `breadth`): p of
   * that, the query, and the excerpt length `toContext` uses for each item so that more of them fit.
   */
  wide?: { p: number; query: string; excerptTokens: number };
  trace: RetrievalTrace | FlatTrace;
}

export interface FlatTrace {
  retriever: string;
  query: string;
  controllerCalls: 0;
  timings: { totalMs: number };
}

/** A `Retriever` whose results carry a typed trace. */
export interface TracedRetriever extends Retriever {
  search(request: SearchRequest): Promise<RetrievalResult>;
}

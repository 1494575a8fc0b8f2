/**
 * What the stages of one Jev-Mem search share (ours; see jev.ts and docs/architecture.md "One
 * `search()`"): the resolved options and collaborators, the validated request, the controller-call
 * count and the stage timings.
 */
import type { Embedder, MemoryNode, MemoryStore, SearchRequest } from '@mem/core';
import type { StagedLogistic } from '@mem/system-one';
import type { Answer, Question, SystemOneLike } from './controller.js';
import type { resolveJevOptions } from './jev-options.js';

/** The options with every default filled in. */
export type ResolvedJevOptions = ReturnType<typeof resolveJevOptions>;

/** ms per stage (trace.timings.stages). */
export interface StageTimes {
  snapshotMs: number;
  embedMs: number;
  rankingsMs: number;
  controllerMs: number;
  relevanceMs: number;
  expansionMs: number;
}

/** A ranked hit of one anchor ranking (vector, store BM25, lemma BM25, context lemma BM25). */
export interface Hit {
  node: MemoryNode;
  score: number;
}

/** One search's state shared by its stages. `calls` counts System-One calls (capped by `o.caps.controllerCalls`). */
export interface SearchContext {
  o: ResolvedJevOptions;
  store: MemoryStore;
  systemOne: SystemOneLike;
  embedder: Embedder;
  req: SearchRequest;
  scope: SearchRequest['scope'];
  query: string;
  /** Evidence items to return. */
  k: number;
  /** The request's `now`, epoch ms. */
  nowMs: number;
  /** performance.now() at the start of the search. */
  t0: number;
  st: StageTimes;
  calls: number;
  /** The learned relevance model compiled once per retriever (logistic models; else null). */
  predictRelevance: ((x: ArrayLike<number>) => number[]) | null;
  /** The same model in two stages (compileStagedLogistic; logistic models, else null). */
  stagedRelevance: StagedLogistic | null;
  /** The retriever's name (trace.retriever). */
  retriever: string;
}

/** One counted System-One call (timed into `st.controllerMs`). */
export async function askController(ctx: SearchContext, state: Record<string, unknown>, questions: Record<string, Question>): Promise<Record<string, Answer>> {
  ctx.calls++;
  const t = performance.now();
  const a = (await ctx.systemOne.ask(state, questions)).answers;
  ctx.st.controllerMs += performance.now() - t;
  return a;
}

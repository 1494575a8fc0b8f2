/**
 * Flat top-k baselines behind core's `Retriever` interface (ours; Jev-Mem seed 000 and docs/design.md
 * "Evaluation protocol" require them in every report): BM25 (the store's lexical search), dense
 * (vector top-k by cosine) and hybrid (reciprocal-rank fusion of both, k = 60).
 */
import { MemValidationError, scopeKey } from '@mem/core';
import type { Embedder, MemoryNode, MemoryStore, ResolvedScope } from '@mem/core';
import { queryWithoutSpeakerNames } from './dialogue.js';
import { reciprocalRankFusion } from './equations.js';
import { validateRequest } from './jev.js';
import type { TracedRetriever } from './types.js';

type FlatRetriever = TracedRetriever;

function trace(retriever: string, query: string, t0: number) {
  return { retriever, query, controllerCalls: 0 as const, timings: { totalMs: performance.now() - t0 } };
}

/**
 * The distinct speakers of a scope's nodes, cached per store and scope until the scope's version
 * (node count + latest history entry, the version jev's snapshots use) changes (ours). Costs a count
 * and a one-row history read per call, a full `list` only after a write.
 */
function createSpeakerCache() {
  const cache = new WeakMap<MemoryStore, Map<string, { version: string; speakers: string[] }>>();
  return async function speakers(store: MemoryStore, scope: ResolvedScope): Promise<string[]> {
    let byScope = cache.get(store);
    if (!byScope) cache.set(store, (byScope = new Map()));
    const [count, last] = await Promise.all([store.count(scope), store.history(scope, { limit: 1 })]);
    const version = `${count}:${last[0]?.seq ?? 0}:${last[0]?.at ?? ''}`;
    const key = scopeKey(scope);
    const hit = byScope.get(key);
    if (hit && hit.version === version) return hit.speakers;
    const nodes = count > 0 ? await store.list(scope, { limit: count }) : [];
    const found = [...new Set(nodes.flatMap((n) => (n.speaker ? [n.speaker] : [])))];
    byScope.set(key, { version, speakers: found });
    return found;
  };
}

/** Options shared by the flat baselines that embed the query. */
interface FlatVectorOptions {
  /**
   * Embed the query without the names of the scope's speakers (`queryWithoutSpeakerNames`), the
   * treatment jev's vector anchor and cosine features get (issue 38: a baseline gets every query
   * treatment jev gets). Default true, as jev's `stripQueryNames`; false embeds the query as given.
   * Lexical search always reads the query as given (as jev's lexical anchors do).
   */
  stripQueryNames?: boolean;
}

/** The text the flat baselines embed for `query` (ours): see `FlatVectorOptions.stripQueryNames`. */
function vectorQueryOf(strip: boolean, speakers: ReturnType<typeof createSpeakerCache>) {
  return async (store: MemoryStore, scope: ResolvedScope, query: string): Promise<string> =>
    strip ? queryWithoutSpeakerNames(query, await speakers(store, scope)) : query;
}

/** BM25 top-k: `store.lexicalSearch`; evidence score = BM25 relevance (higher is better). */
export function createBm25Retriever(options: { store: MemoryStore; name?: string }): FlatRetriever {
  const { store } = options;
  if (!store) throw new MemValidationError('INVALID_INPUT', 'createBm25Retriever: store is required');
  const name = options.name ?? 'bm25';
  return {
    name,
    async search(req) {
      const t0 = performance.now();
      const { k } = validateRequest(req);
      const hits = await store.lexicalSearch(req.scope, req.query, k);
      return { evidence: hits.map((h) => ({ node: h.node, score: h.score, path: [] })), trace: trace(name, req.query, t0) };
    },
  };
}

/**
 * The frame of a flat baseline that embeds the query: checks `store` and `embedder` (`fn` names the
 * factory in the error), embeds the query as `FlatVectorOptions` says, and times the search; `rank`
 * turns the validated request, its k and the query vector into the evidence.
 */
function vectorRetriever(
  fn: string,
  name: string,
  options: { store: MemoryStore; embedder: Embedder } & FlatVectorOptions,
  rank: (req: Parameters<FlatRetriever['search']>[0], k: number, v: Float32Array) => Promise<{ node: MemoryNode; score: number; path: [] }[]>,
): FlatRetriever {
  const { store, embedder } = options;
  if (!store || !embedder) throw new MemValidationError('INVALID_INPUT', `${fn}: store and embedder are required`);
  const vectorQuery = vectorQueryOf(options.stripQueryNames ?? true, createSpeakerCache());
  return {
    name,
    async search(req) {
      const t0 = performance.now();
      const { k } = validateRequest(req);
      const [v] = await embedder.embed([await vectorQuery(store, req.scope, req.query)]);
      const evidence = await rank(req, k, v);
      return { evidence, trace: trace(name, req.query, t0) };
    },
  };
}

/**
 * Dense top-k: embed the query (without the scope's speakers' names unless `stripQueryNames: false`),
 * `store.vectorSearch`; evidence score = cosine in [-1, 1].
 */
export function createDenseRetriever(options: { store: MemoryStore; embedder: Embedder; name?: string } & FlatVectorOptions): FlatRetriever {
  const { store } = options;
  return vectorRetriever('createDenseRetriever', options.name ?? 'dense', options, async (req, k, v) =>
    (await store.vectorSearch(req.scope, v, k)).map((h) => ({ node: h.node, score: h.score, path: [] })),
  );
}

/**
 * Hybrid: RRF (k = `rrfK`, default 60) of the lexical and vector top-`pool` rankings (default
 * max(k, 50), the same pool Jev's anchors use); evidence score = fused RRF score. The vector ranking
 * embeds the query without the scope's speakers' names unless `stripQueryNames: false`; the lexical
 * ranking reads it as given. With the store's id-only searches (`vectorSearchIds`,
 * `lexicalSearchIds`) only the k fused nodes are read.
 */
export function createHybridRetriever(
  options: {
    store: MemoryStore;
    embedder: Embedder;
    rrfK?: number;
    pool?: number;
    name?: string;
  } & FlatVectorOptions,
): FlatRetriever {
  const { store } = options;
  const rrfK = options.rrfK ?? 60;
  return vectorRetriever('createHybridRetriever', options.name ?? 'hybrid', options, async (req, k, v) => {
    const pool = Math.max(k, options.pool ?? 50);
    if (store.vectorSearchIds && store.lexicalSearchIds) {
      // ids only for both rankings, then the k fused nodes in one read (ours, for latency)
      const [vec, lex] = await Promise.all([store.vectorSearchIds(req.scope, v, pool), store.lexicalSearchIds(req.scope, req.query, pool)]);
      const fused = reciprocalRankFusion([vec.map((h) => h.id), lex.map((h) => h.id)], rrfK).slice(0, k);
      const nodes = new Map((await store.getMany(req.scope, fused.map((f) => f.id))).map((n) => [n.id, n]));
      return fused.filter((f) => nodes.has(f.id)).map((f) => ({ node: nodes.get(f.id)!, score: f.score, path: [] }));
    }
    const [vec, lex] = await Promise.all([store.vectorSearch(req.scope, v, pool), store.lexicalSearch(req.scope, req.query, pool)]);
    const nodes = new Map([...vec, ...lex].map((h) => [h.node.id, h.node]));
    const fused = reciprocalRankFusion([vec.map((h) => h.node.id), lex.map((h) => h.node.id)], rrfK).slice(0, k);
    return fused.map((f) => ({ node: nodes.get(f.id)!, score: f.score, path: [] }));
  });
}

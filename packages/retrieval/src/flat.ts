/**
 * Flat top-k baselines behind core's `Retriever` interface (ours; Jev-Mem seed 000 and docs/design.md
 * "Evaluation protocol" require them in every report): BM25 (the store's lexical search), dense
 * (vector top-k by cosine) and hybrid (reciprocal-rank fusion of both, k = 60).
 */
import { MemValidationError } from '@mem/core';
import type { Embedder, MemoryStore } from '@mem/core';
import { reciprocalRankFusion } from './equations.js';
import { validateRequest } from './jev.js';
import type { TracedRetriever } from './types.js';

type FlatRetriever = TracedRetriever;

function trace(retriever: string, query: string, t0: number) {
  return { retriever, query, controllerCalls: 0 as const, timings: { totalMs: performance.now() - t0 } };
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

/** Dense top-k: embed the query, `store.vectorSearch`; evidence score = cosine in [-1, 1]. */
export function createDenseRetriever(options: { store: MemoryStore; embedder: Embedder; name?: string }): FlatRetriever {
  const { store, embedder } = options;
  if (!store || !embedder) throw new MemValidationError('INVALID_INPUT', 'createDenseRetriever: store and embedder are required');
  const name = options.name ?? 'dense';
  return {
    name,
    async search(req) {
      const t0 = performance.now();
      const { k } = validateRequest(req);
      const [v] = await embedder.embed([req.query]);
      const hits = await store.vectorSearch(req.scope, v, k);
      return { evidence: hits.map((h) => ({ node: h.node, score: h.score, path: [] })), trace: trace(name, req.query, t0) };
    },
  };
}

/**
 * Hybrid: RRF (k = `rrfK`, default 60) of the lexical and vector top-`pool` rankings (default
 * max(k, 50), the same pool Jev's anchors use); evidence score = fused RRF score. With the store's
 * id-only searches (`vectorSearchIds`, `lexicalSearchIds`) only the k fused nodes are read.
 */
export function createHybridRetriever(options: {
  store: MemoryStore;
  embedder: Embedder;
  rrfK?: number;
  pool?: number;
  name?: string;
}): FlatRetriever {
  const { store, embedder } = options;
  if (!store || !embedder) throw new MemValidationError('INVALID_INPUT', 'createHybridRetriever: store and embedder are required');
  const name = options.name ?? 'hybrid';
  const rrfK = options.rrfK ?? 60;
  return {
    name,
    async search(req) {
      const t0 = performance.now();
      const { k } = validateRequest(req);
      const pool = Math.max(k, options.pool ?? 50);
      const [v] = await embedder.embed([req.query]);
      if (store.vectorSearchIds && store.lexicalSearchIds) {
        // ids only for both rankings, then the k fused nodes in one read (ours, for latency)
        const [vec, lex] = await Promise.all([store.vectorSearchIds(req.scope, v, pool), store.lexicalSearchIds(req.scope, req.query, pool)]);
        const fused = reciprocalRankFusion([vec.map((h) => h.id), lex.map((h) => h.id)], rrfK).slice(0, k);
        const nodes = new Map((await store.getMany(req.scope, fused.map((f) => f.id))).map((n) => [n.id, n]));
        return {
          evidence: fused.filter((f) => nodes.has(f.id)).map((f) => ({ node: nodes.get(f.id)!, score: f.score, path: [] })),
          trace: trace(name, req.query, t0),
        };
      }
      const [vec, lex] = await Promise.all([store.vectorSearch(req.scope, v, pool), store.lexicalSearch(req.scope, req.query, pool)]);
      const nodes = new Map([...vec, ...lex].map((h) => [h.node.id, h.node]));
      const fused = reciprocalRankFusion([vec.map((h) => h.node.id), lex.map((h) => h.node.id)], rrfK).slice(0, k);
      return {
        evidence: fused.map((f) => ({ node: nodes.get(f.id)!, score: f.score, path: [] })),
        trace: trace(name, req.query, t0),
      };
    },
  };
}

/**
 * Anchors (seed 000 §4 read path step 5; docs/architecture.md "One `search()`"): the fused rankings
 * a search starts from, the anchors' visits, and the memories brought in beside them (successors
 * of superseded anchors; the present / past state of issue 37).
 */
import type { MemoryNode, MemoryStore, ResolvedScope } from '@mem/core';
import { clamp01, reciprocalRankFusion, type RoutingProbabilities } from './equations.js';
import type { Hit, SearchContext } from './jev-context.js';
import { dot, snapshotSpeakers, successorOf, type Visit } from './jev-visits.js';
import { contextLemmaIndex, type createSnapshotCache, type ScopeSnapshot } from './lexical.js';
import { queryContentTerms, queryWithoutSpeakerNames, speakerTokens } from './dialogue.js';
import type { QuestionTerms } from './answerable.js';
import { partSeeds, priorWithParts, questionParts } from './jev-subqueries.js';
import { ordersRanking, PAST_STATE_THRESHOLD, predecessorsOf, snapshotState } from './state-order.js';

/** The anchor rankings, their fusion and the anchors kept. */
export interface Anchors {
  snap: ScopeSnapshot | null;
  /** The query's embedding (without the scope's speakers' names when `stripQueryNames`). */
  qvec: Float32Array;
  vec: Hit[];
  lex: Hit[];
  lem: Hit[];
  ctx: Hit[];
  /** Every node of the four rankings. */
  byId: Map<string, MemoryNode>;
  /** The rankings fused (ids, best first). */
  rankings: string[][];
  /** RRF (k = rrfK) of every ranked id. */
  fusedAll: { id: string; score: number }[];
  /** The anchors: fused top `maxAnchors` plus the top `seedsPerRanking` of each ranking. */
  fused: { id: string; score: number }[];
  /** The anchors' retrieval prior: weighted RRF with k = priorRrfK. */
  priorOf: Map<string, number>;
  /** Anchors brought in by one ranking's top only (`seedsPerRanking`). */
  seedOnly: Set<string>;
  /** The query's content terms and their embeddings (abstention's term support; issue 37); empty without `answerability`. */
  questionTerms: QuestionTerms;
}

/**
 * A ranking read as ids mapped to the snapshot's nodes (`ids`: the store's id-only search, the same
 * hits in the same order as `full`), so no node row is read (ours, for latency); without a snapshot,
 * without the id-only search, or when a hit is not in the snapshot, the full read `full`.
 */
async function snapshotHits(snap: ScopeSnapshot | null, ids: (() => Promise<{ id: string; score: number }[]>) | null, full: () => Promise<Hit[]>): Promise<Hit[]> {
  if (!snap || !ids) return full();
  const out: Hit[] = [];
  for (const h of await ids()) {
    const node = snap.byId.get(h.id);
    if (!node) return full();
    out.push({ node, score: h.score });
  }
  return out;
}

/** The vector ranking (top `k` by cosine): `vectorSearchIds` through the snapshot, else `vectorSearch` (see `snapshotHits`). */
export function vectorHits(store: MemoryStore, scope: ResolvedScope, snap: ScopeSnapshot | null, qvec: Float32Array, k: number): Promise<Hit[]> {
  const ids = store.vectorSearchIds ? () => store.vectorSearchIds!(scope, qvec, k) : null;
  return snapshotHits(snap, ids, () => store.vectorSearch(scope, qvec, k));
}

/** The store BM25 ranking (top `k`): `lexicalSearchIds` through the snapshot, else `lexicalSearch` (see `snapshotHits`). */
export function lexicalHits(store: MemoryStore, scope: ResolvedScope, snap: ScopeSnapshot | null, query: string, k: number): Promise<Hit[]> {
  const ids = store.lexicalSearchIds ? () => store.lexicalSearchIds!(scope, query, k) : null;
  return snapshotHits(snap, ids, () => store.lexicalSearch(scope, query, k));
}

/**
 * The anchors: RRF of the vector ranking and the lexical rankings (store BM25, and lemma BM25 — ours),
 * the prior (the same fusion with k = priorRrfK, sharper at the top; ours), and (ours) the top
 * `seedsPerRanking` of EACH ranking beside the fused top `maxAnchors`, so a memory one ranking puts
 * first (a BM25 hit on a rare word, a close vector) is always a candidate even when the fusion of the
 * others buries it (within the node cap). Times snapshot, embed and rankings.
 */
export async function findAnchors(ctx: SearchContext, snapshots: ReturnType<typeof createSnapshotCache>, routing?: RoutingProbabilities): Promise<Anchors> {
  const { o, store, scope, query, st } = ctx;
  let ts = performance.now();
  const snap = o.snapshotMaxNodes > 0 ? await snapshots(store, scope) : null;
  st.snapshotMs += performance.now() - ts;
  // The vector anchor and the cosine features embed the query without the scope's speakers' names
  // (ours; `queryWithoutSpeakerNames`): who is asked about is the speaker signal's job.
  const vectorQuery = o.stripQueryNames && snap ? queryWithoutSpeakerNames(query, snapshotSpeakers(snap)) : query;
  // abstention's term support (issue 37): the query's content terms, embedded in the same call
  const terms = o.answerability && o.relevanceModel ? [...queryContentTerms(query, speakerTokens(snap ? snapshotSpeakers(snap) : []))].slice(0, 8) : [];
  // sub-query anchors (issue 38; off by default): the question's parts, embedded in the same call
  const sq = o.subQueries && snap && (routing?.multiHopNeed ?? 1) >= o.subQueries.minMultiHop ? o.subQueries : null;
  const parts = sq ? questionParts(vectorQuery) : [];
  ts = performance.now();
  const [qvec, ...restVecs] = await ctx.embedder.embed([vectorQuery, ...terms, ...parts]);
  const termVecs = restVecs.slice(0, terms.length);
  const partVecs = restVecs.slice(terms.length);
  st.embedMs += performance.now() - ts;
  const questionTerms: QuestionTerms = { terms: terms.map((term, i) => ({ term, vec: termVecs[i] ?? null })) };
  ts = performance.now();
  const [vec, lex] = await Promise.all([vectorHits(store, scope, snap, qvec!, o.anchorPool), lexicalHits(store, scope, snap, query, o.anchorPool)]);
  const lem = o.lemmaLexical && snap ? snap.lemma.search(query, o.anchorPool) : [];
  const cx = o.contextLexical && snap ? contextLemmaIndex(snap).search(query, o.anchorPool) : [];
  const byId = new Map<string, MemoryNode>();
  for (const h of [...vec, ...lex, ...lem, ...cx]) byId.set(h.node.id, h.node);
  const used = [
    { hits: vec, w: o.priorWeights.vector, on: true },
    { hits: lex, w: o.priorWeights.lexical, on: true },
    { hits: lem, w: o.priorWeights.lemma, on: o.lemmaLexical },
    { hits: cx, w: o.priorWeights.context, on: o.contextLexical && !!snap },
  ].filter((r) => r.on);
  const rankings = used.map((r) => r.hits.map((h) => h.node.id));
  const fusedAll = reciprocalRankFusion(rankings, o.rrfK);
  st.rankingsMs += performance.now() - ts;
  const partRankings: string[][] = [];
  if (sq && parts.length > 0) {
    const partHits = await Promise.all(parts.map((p, i) => vectorHits(store, scope, snap, partVecs[i]!, o.anchorPool)));
    for (const [i, p] of parts.entries()) {
      for (const hits of [partHits[i]!, snap!.lemma.search(p, o.anchorPool)]) {
        for (const h of hits) byId.set(h.node.id, h.node);
        partRankings.push(hits.map((h) => h.node.id));
      }
    }
  }
  const priorOf =
    sq && sq.priorWeight > 0 && partRankings.length > 0
      ? priorWithParts(
          rankings,
          used.map((r) => r.w),
          partRankings,
          sq.priorWeight,
          o.priorRrfK,
        )
      : new Map(
          reciprocalRankFusion(
            rankings,
            o.priorRrfK,
            used.map((r) => r.w),
          ).map((f) => [f.id, f.score]),
        );
  const seedOnly = new Set<string>();
  const fused = fusedAll.slice(0, o.maxAnchors);
  // the parts' seeds before the per-ranking seeds (within the node cap, which those often fill)
  if (sq && partRankings.length > 0) {
    const have = new Set(fused.map((f) => f.id));
    const fusedScore = new Map(fusedAll.map((f) => [f.id, f.score]));
    for (const id of partSeeds(partRankings, sq.seeds, have, o.caps.nodes - fused.length)) {
      seedOnly.add(id);
      fused.push({ id, score: fusedScore.get(id) ?? 0 });
    }
  }
  if (o.seedsPerRanking > 0) {
    const have = new Set(fused.map((f) => f.id));
    const fusedScore = new Map(fusedAll.map((f) => [f.id, f.score]));
    for (const ids of rankings) {
      for (const id of ids.slice(0, o.seedsPerRanking)) {
        if (have.has(id) || fused.length >= o.caps.nodes) continue;
        have.add(id);
        seedOnly.add(id);
        fused.push({ id, score: fusedScore.get(id) ?? 0 });
      }
    }
  }
  return { snap, qvec: qvec!, vec, lex, lem, ctx: cx, byId, rankings, fusedAll, fused, priorOf, seedOnly, questionTerms };
}

/** The anchors' visits (depth 0): cosine to the query, edge probability (RRF / max RRF, or the fixed option), prior. */
export function anchorVisits(ctx: SearchContext, anchors: Anchors): Map<string, Visit> {
  const { o } = ctx;
  const visited = new Map<string, Visit>();
  const maxRrf = anchors.fusedAll[0]?.score ?? 1;
  for (const f of anchors.fused) {
    const node = anchors.byId.get(f.id)!;
    visited.set(f.id, {
      node,
      path: [],
      view: null,
      cosine: dot(anchors.qvec, node.embedding),
      edgeProbability: o.anchorEdgeProbability === 'rrf' ? f.score / maxRrf : o.anchorEdgeProbability,
      prior: anchors.priorOf.get(f.id) ?? 0,
      score: 0,
      depth: 0,
    });
  }
  return visited;
}

/** The demotion of superseded memories and, per successor, the superseded visits it replaces. */
export interface Supersession {
  /** Demotion factor of a superseded memory in the evidence order (0 = none). */
  demote: number;
  /** successor id → the superseded visits it replaces (their evidence value carries over; ours). */
  replaces: Map<string, Visit[]>;
}

/**
 * Superseded memories (ours): for a recency-seeking query the successor of a superseded anchor is
 * brought in with the anchor's prior, and the superseded one is demoted in the evidence order.
 */
export async function bringInSuccessors(ctx: SearchContext, anchors: Anchors, visited: Map<string, Visit>, routing: RoutingProbabilities): Promise<Supersession> {
  const { o, store, scope } = ctx;
  const { snap, qvec } = anchors;
  const demote = routing.recencyImportance >= o.recencyQueryThreshold ? clamp01(o.obsoleteDemotion * routing.recencyImportance) : 0;
  const replaces = new Map<string, Visit[]>();
  if (demote > 0) {
    for (const v of [...visited.values()]) {
      const succ = successorOf(v.node, snap, o.supersedingSubtypes);
      if (!succ) continue;
      replaces.set(succ, [...(replaces.get(succ) ?? []), v]);
      const s2 = snap?.byId.get(succ) ?? (await store.get(scope, succ).catch(() => null));
      if (!s2) continue;
      const have = visited.get(succ);
      if (have) have.prior = Math.max(have.prior, v.prior);
      else if (visited.size < o.caps.nodes) {
        visited.set(succ, { node: s2, path: [], view: null, cosine: dot(qvec, s2.embedding), edgeProbability: v.edgeProbability, prior: v.prior, score: 0, depth: 0 });
      }
    }
  }
  return { demote, replaces };
}

/** Which state a query asks about (issue 37; `stateOrder`): 'past', 'present', or null. */
export function stateModeOf(o: SearchContext['o'], routing: RoutingProbabilities): 'past' | 'present' | null {
  if (!o.stateOrder) return null;
  if ((routing.pastState ?? 0) >= PAST_STATE_THRESHOLD) return 'past';
  if ((routing.presentState ?? 0) >= PAST_STATE_THRESHOLD) return 'present';
  return null;
}

/**
 * What is true now, what was true before (ours, issue 37): for a question about the present the
 * memory that superseded a visited one is brought in with its prior; for a question about an
 * earlier state, the memories a visited one superseded (p ≥ 0.5). The evidence order then orders each pair.
 */
export async function bringInStates(ctx: SearchContext, anchors: Anchors, visited: Map<string, Visit>, past: boolean): Promise<void> {
  const { o, store, scope } = ctx;
  const { snap, qvec } = anchors;
  const stateSuccessor = (n: MemoryNode): string | null => {
    const s = snapshotState(n, snap);
    return ordersRanking(s) ? s.by : null;
  };
  for (const v of [...visited.values()]) {
    const others = past ? predecessorsOf(v.node, snap).filter((u) => u.p >= 0.5).map((u) => u.id) : [stateSuccessor(v.node)].filter((x): x is string => x !== null);
    for (const id of others) {
      const have = visited.get(id);
      if (have) {
        have.prior = Math.max(have.prior, v.prior);
        continue;
      }
      if (visited.size >= o.caps.nodes) break;
      const n2 = snap?.byId.get(id) ?? (await store.get(scope, id).catch(() => null));
      if (n2) visited.set(id, { node: n2, path: [], view: null, cosine: dot(qvec, n2.embedding), edgeProbability: v.edgeProbability, prior: v.prior, score: 0, depth: 0 });
    }
  }
}

/**
 * Jev-Mem's closed-loop, budgeted, multi-relational read path (seed 000 §4; docs/design.md
 * "Read path"): routing → active views → budgets → depth → anchors (RRF) → rounds of expansion,
 * batched candidate scoring and stopping, under hard caps. One module per stage (docs/architecture.md
 * "One `search()`"): jev-routing.ts, jev-budgets.ts, jev-anchors.ts, jev-expansion.ts,
 * jev-scoring.ts, jev-stopping.ts; this file runs them in order and assembles the result.
 */
import { MemValidationError } from '@mem/core';
import { compileLearnedModel, compileStagedLogistic } from '@mem/system-one';
import type { Embedder, Evidence, SearchRequest } from '@mem/core';
import type { RoutingProbabilities } from './equations.js';
import { anchorVisits, bringInStates, bringInSuccessors, findAnchors, stateModeOf, type Anchors } from './jev-anchors.js';
import { budgetedViews, planBudgets, type BudgetPlan } from './jev-budgets.js';
import type { SearchContext } from './jev-context.js';
import { expandRound } from './jev-expansion.js';
import { learnedTraverse } from './jev-learned-expansion.js';
import { linkStage, type LinkStage } from './jev-links.js';
import { routeQuery } from './jev-routing.js';
import { createEvidenceRanker, createVisitFeatures, scoreCandidates, type EvidenceRanker, type RankedVisit, type VisitFeatures } from './jev-scoring.js';
import { anchorStopping, roundStopping, roundStopReason } from './jev-stopping.js';
import { createSnapshotCache, type ScopeSnapshot } from './lexical.js';
import type { RetrievalResult, RetrievalTrace, RoundTrace, StopReason, TracedRetriever } from './types.js';
import { JEV_DEFAULTS, resolveJevOptions, validateRequest, type JevRetrieverOptions } from './jev-options.js';
import type { Visit } from './jev-visits.js';
import { answerabilityFeatures, answerabilityProbability } from './answerable.js';
import { nodeTermSet } from './dialogue.js';
import { breadthProbability } from './breadth.js';
import { jointStateEvidence, orderByState, snapshotState, stateEdgeP, successorsOf } from './state-order.js';

export { JEV_DEFAULTS, resolveJevOptions, validateRequest, type JevRetrieverOptions } from './jev-options.js';
export { edgeDecay, successorOf } from './jev-visits.js';
export { vectorHits, lexicalHits } from './jev-anchors.js';

/**
 * Create the Jev-Mem retriever. `search()` returns `{ evidence: [{ node, score, path }], trace }`
 * with `score` = the evidence-order value (see `evidenceMix`, `dialogueWeight`; higher is better) and `trace` a {@link RetrievalTrace}. Throws MemValidationError on an
 * empty query, k < 1 or a bad `now`; store / controller errors propagate.
 */
export function createJevRetriever(options: JevRetrieverOptions): TracedRetriever {
  const { store, systemOne, embedder } = options;
  if (!store || !systemOne || !embedder) {
    throw new MemValidationError('INVALID_INPUT', 'createJevRetriever: store, systemOne and embedder are required');
  }
  const o = resolveJevOptions(options);
  const name = options.name ?? 'jev';
  const snapshots = createSnapshotCache({ maxNodes: options.snapshotMaxNodes ?? JEV_DEFAULTS.snapshotMaxNodes });
  // p(evidence) of a logistic relevance model = relevanceProbability(model, x), from a predictor with
  // the weights packed once (the same probabilities bit for bit; ours, for latency)
  const predictRelevance = o.relevanceModel?.kind === 'logistic' ? compileLearnedModel(o.relevanceModel) : null;
  const wordVectors = createWordVectors(embedder);
  const stagedRelevance = o.relevanceModel?.kind === 'logistic' ? compileStagedLogistic(o.relevanceModel) : null;

  async function search(req: SearchRequest): Promise<RetrievalResult> {
    const t0 = performance.now();
    const { k, nowMs } = validateRequest(req);
    // issue 38 point 2: a question that needs many memories may visit more of the graph (breadth.extraNodes)
    const pMany = o.breadth ? breadthProbability(req.query, o.breadth.model) : null;
    const wideSearch = pMany !== null && pMany >= 0.5 && o.breadth!.extraNodes > 0;
    const ctx: SearchContext = {
      o: wideSearch ? { ...o, caps: { ...o.caps, nodes: o.caps.nodes + o.breadth!.extraNodes }, budget: o.budget + o.breadth!.extraNodes } : o,
      store,
      systemOne,
      embedder,
      req,
      scope: req.scope,
      query: req.query,
      k,
      nowMs,
      t0,
      st: { snapshotMs: 0, embedMs: 0, rankingsMs: 0, controllerMs: 0, relevanceMs: 0, expansionMs: 0 },
      calls: 0,
      predictRelevance,
      stagedRelevance,
      retriever: name,
    };
    // 1. Routing: the routing Nouls on {query}.
    const routing = await routeQuery(ctx);
    const tRouting = performance.now();
    // 2–4. Active views, budgets, depth.
    const plan = planBudgets(ctx.o, routing);
    // 5. Anchors: RRF of the vector ranking and the lexical rankings; the anchors' visits.
    const anchors = await findAnchors(ctx, snapshots, routing);
    const features = createVisitFeatures(ctx, routing, anchors);
    const tAnchors = performance.now();
    const visited = anchorVisits(ctx, anchors);
    const supersession = await bringInSuccessors(ctx, anchors, visited, routing);
    const stateMode = stateModeOf(o, routing);
    if (stateMode && o.stateBringIn) await bringInStates(ctx, anchors, visited, stateMode === 'past');
    // Evidence order and candidate scoring.
    const ranker = createEvidenceRanker(ctx, routing, visited, features, supersession);
    // 6. Rounds: expansion, scoring, stopping.
    const traversal =
      (o.expansionModel || o.collectExpansion) && !o.ablation.traversal && anchors.fused.length > 0
        ? await learnedTraversal(ctx, { routing, anchors, visited, ranker, features })
        : await traverse(ctx, { routing, plan, anchors, visited, ranker });
    // the link stage (issue 38): the top memories' neighbours, and each memory's p given its edges to them
    const links = (o.linkModel || o.collectLinks) && !o.ablation.traversal ? linkStage(ctx, { routing, anchors, visited, ranker }) : null;
    const tEnd = performance.now();
    return await searchResult(ctx, wordVectors, { pMany, routing, plan, anchors, visited, ranker, features, stateMode, traversal, links, timings: { tRouting, tAnchors, tEnd } });
  }

  return { name, search };
}

/** What a search's rounds work on. */
interface TraversalInput {
  routing: RoutingProbabilities;
  plan: BudgetPlan;
  anchors: Anchors;
  visited: Map<string, Visit>;
  ranker: EvidenceRanker;
}

/** What the rounds did. */
interface Traversal {
  rounds: RoundTrace[];
  stopReason: StopReason | null;
  anchorStopping: RetrievalTrace['anchorStopping'];
  edgesExamined: number;
  /** The edges learned expansion asked about (`collectExpansion` only). */
  expansion?: RetrievalTrace['expansion'];
}

/** Score the anchors, then the learned rounds (jev-learned-expansion.ts) instead of the hand rounds. */
async function learnedTraversal(ctx: SearchContext, input: { routing: RoutingProbabilities; anchors: Anchors; visited: Map<string, Visit>; ranker: EvidenceRanker; features: VisitFeatures }): Promise<Traversal> {
  await scoreCandidates(ctx, input.routing, input.ranker, [...input.visited.values()]);
  const t = await learnedTraverse(ctx, input, (fresh) => scoreCandidates(ctx, input.routing, input.ranker, fresh));
  return { rounds: t.rounds, stopReason: t.stopReason, anchorStopping: null, edgesExamined: t.edgesExamined, ...(ctx.o.collectExpansion ? { expansion: t.edges } : {}) };
}

/**
 * The closed loop (seed 000 §4): score the anchors, then rounds of expansion (expandRound), scoring of
 * the admitted candidates (scoreCandidates) and stopping (roundStopping) until a stop rule or cap ends it.
 */
async function traverse(ctx: SearchContext, input: TraversalInput): Promise<Traversal> {
  const { o, k } = ctx;
  const { routing, plan, anchors, visited, ranker } = input;
  const rounds: RoundTrace[] = [];
  let stopReason: StopReason | null = null;
  let edgesExamined = 0;
  if (anchors.fused.length === 0) stopReason = 'no_anchors';
  await scoreCandidates(ctx, routing, ranker, [...visited.values()]);
  let frontier = ranker.topVisits(o.beamWidth);
  if (!stopReason && o.ablation.traversal) stopReason = 'traversal_off';
  if (!stopReason && plan.active.length === 0) stopReason = 'no_active_views';
  let anchorTrace: RetrievalTrace['anchorStopping'] = null;
  if (!stopReason) {
    const before = await anchorStopping(ctx, ranker, plan.depth);
    anchorTrace = before.trace;
    if (before.stop) stopReason = before.stop;
  }
  for (let d = 1; !stopReason; d++) {
    const tr = performance.now();
    stopReason = roundStopReason(ctx, plan, d, frontier.length);
    if (stopReason) break;
    const frontierIds = frontier.map((v) => v.node.id);
    const parentScore = new Map(ranker.ranked(frontier).map((x) => [x.v.node.id, x.final]));
    const open = budgetedViews(plan).filter((g) => plan.spent[g] < plan.given[g]);
    const round = await expandRound(ctx, anchors, visited, plan, { depth: d, frontierIds, parentScore, open, edgesExamined });
    edgesExamined += round.edges;
    await scoreCandidates(ctx, routing, ranker, round.fresh);
    frontier = ranker
      .ranked(round.fresh)
      .slice(0, o.beamWidth)
      .map((x) => x.v);
    const { stopping, decision } = await roundStopping(ctx, ranker, d, plan.depth, round.capHit);
    rounds.push({
      depth: d,
      frontier: frontierIds,
      admitted: round.admitted,
      edgesExamined: round.edges,
      stopping,
      stop: decision.stop,
      reason: decision.reason,
      ms: performance.now() - tr,
      ...(o.collectFeatures ? { top: ranker.topVisits(k).map((v) => v.node.id) } : {}),
    });
    if (decision.stop) stopReason = decision.reason;
  }
  return { rounds, stopReason, anchorStopping: anchorTrace, edgesExamined };
}

/**
 * The result of a search: the evidence order with the state order (issue 37) within the returned top
 * k (the set of the top k never changes), each item's state from the snapshot, abstention (ours,
 * issue 37: calibrated p that some returned memory is evidence, from the top candidates' p(evidence);
 * the learned relevance model's order only) and the trace.
 */
async function searchResult(
  ctx: SearchContext,
  wordVectors: WordVectors,
  input: TraversalInput & {
    /** p(the question needs many memories), null without the breadth model. */
    pMany: number | null;
    features: VisitFeatures;
    stateMode: 'past' | 'present' | null;
    traversal: Traversal;
    links: LinkStage | null;
    timings: { tRouting: number; tAnchors: number; tEnd: number };
  },
): Promise<RetrievalResult> {
  const { o, k, query, t0 } = ctx;
  // issue 38 point 2: a question System One says needs many memories returns a wider set (at least
  // breadth.wideK; the state order still works within the top k, so the top k are the same)
  const { pMany } = input;
  const wide = pMany !== null && pMany >= 0.5;
  const kOut = wide ? Math.max(k, o.breadth!.wideK) : k;
  const { routing, plan, anchors, visited, ranker, features, stateMode, traversal } = input;
  const { tRouting, tAnchors, tEnd } = input.timings;
  const snap: ScopeSnapshot | null = anchors.snap;
  // with the learned relevance model the values are p(evidence): the wanted memory of a pair takes the pair's joint p
  const lift =
    o.stateLift && o.relevanceModel
      ? (want: RankedVisit, other: RankedVisit, older: RankedVisit, newerId: string) => jointStateEvidence(want.final, other.final, stateEdgeP(older.v.node, newerId, snap))
      : undefined;
  const ranked = ranker.ranked(visited.values());
  // abstention reads the relevance order BEFORE the state order: whether memory holds anything on the
  // question does not depend on which state of a pair is shown first, nor on k (the lift writes into
  // the items and moves a lifted memory with weaker features to the top)
  let answerability: RetrievalTrace['answerability'] = null;
  if (o.answerability && o.relevanceModel && ranked.length) {
    const maxPrior = ranker.maxPriorOf();
    const top = ranked.slice(0, 10).map(({ v, final: f }) => ({ final: f, features: features.featuresOf(v, maxPrior), embedding: v.node.embedding, terms: nodeTermSet(v.node) }));
    // word-level term support reads the embeddings of the top 5's content words (cached per retriever)
    const ts = performance.now();
    const wordVec = anchors.questionTerms.terms.length && o.answerabilityWords === 'words' ? await wordVectors(top.slice(0, 5).flatMap((c) => [...c.terms])) : undefined;
    ctx.st.embedMs += performance.now() - ts;
    const q = { ...anchors.questionTerms, ...(wordVec ? { wordVec } : {}) };
    const p = answerabilityProbability(o.answerability.model, top, ranked.length, q);
    answerability = { p, threshold: o.answerability.threshold, answerable: p >= o.answerability.threshold, ...(o.collectFeatures ? { features: answerabilityFeatures(top, ranked.length, q) } : {}) };
  }
  const final: RankedVisit[] = stateMode
    ? orderByState(ranked, (x) => x.v.node.id, (x) => successorsOf(x.v.node, snap), stateMode === 'past', (x) => x.final, (x, value) => (x.final = value), k, lift)
    : ranked;
  // each item's state (current / superseded by, at, p) from the snapshot; without one, Memory.search reads it from the store
  const evidence: Evidence[] = final.slice(0, kOut).map(({ v, final: f }) => ({ node: v.node, score: f, path: v.path, ...(snap ? { state: snapshotState(v.node, snap) } : {}) }));
  const trace: RetrievalTrace = {
    retriever: ctx.retriever,
    query,
    routing,
    activeViews: plan.active,
    depth: plan.depth,
    budgets: { given: plan.given, spent: plan.spent },
    episodeContext: plan.episodeOnly,
    anchors: anchors.fused.map((f) => ({ id: f.id, rrf: f.score })),
    anchorStopping: traversal.anchorStopping,
    rounds: traversal.rounds,
    stopReason: traversal.stopReason,
    controllerCalls: ctx.calls,
    nodesVisited: visited.size,
    candidates: final.map(({ v, final: f }) => ({
      id: v.node.id,
      final: f,
      score: v.score,
      prior: v.prior,
      dialogue: features.dialogueOf(v),
      depth: v.depth,
      view: v.view,
      ...(o.collectFeatures ? { features: features.featuresOf(v, Math.max(0, ...[...visited.values()].map((x) => x.prior))) } : {}),
    })),
    edgesExamined: traversal.edgesExamined,
    ...(traversal.expansion ? { expansion: traversal.expansion } : {}),
    ...(input.links ? { links: input.links } : {}),
    answerability,
    ...(pMany !== null ? { breadth: { p: pMany, wide, returned: evidence.length } } : {}),
    timings: { routingMs: tRouting - t0, anchorsMs: tAnchors - tRouting, roundsMs: tEnd - tAnchors, totalMs: tEnd - t0, stages: ctx.st },
  };
  return { evidence, ...(wide ? { wide: { p: pMany!, query, excerptTokens: o.breadth!.excerptTokens } } : {}), ...(answerability ? { answerable: answerability.answerable, pEvidence: answerability.p } : {}), ...(stateMode ? { asks: stateMode } : {}), trace };
}

/** Unit embeddings of single words, by word (`undefined` for a word not embedded). */
type WordVectors = (words: readonly string[]) => Promise<(word: string) => Float32Array | undefined>;

/**
 * The embeddings of single words for abstention's word-level term support (ours, issue 37): words not
 * seen before are embedded in one call; at most `max` words are kept (the cache is emptied when full).
 */
function createWordVectors(embedder: Embedder, max = 50_000): WordVectors {
  const cache = new Map<string, Float32Array>();
  return async (words) => {
    const missing = [...new Set(words)].filter((w) => !cache.has(w));
    if (missing.length) {
      if (cache.size + missing.length > max) cache.clear();
      const vecs = await embedder.embed(missing);
      missing.forEach((w, i) => vecs[i] && cache.set(w, vecs[i]!));
    }
    return (w) => cache.get(w);
  };
}

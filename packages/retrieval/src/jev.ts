/**
 * Jev-Mem's closed-loop, budgeted, multi-relational read path (seed 000 §4; docs/design.md
 * "Read path"): routing → active views → budgets → depth → anchors (RRF) → rounds of expansion,
 * batched candidate scoring and stopping, under hard caps.
 */
import { MemValidationError } from '@mem/core';
import { compileLearnedModel } from '@mem/system-one';
import type { Evidence, MemoryNode, MemoryStore, ResolvedScope, SearchRequest } from '@mem/core';
import { activeViews, allocateBudgets, candidateScore, clamp01, reciprocalRankFusion, recencyAdjustedScore, recencyScore, stoppingDecision, traversalDepth, type RoutingProbabilities } from './equations.js';
import { ROUTING_QUESTIONS, SCORING_QUESTIONS, STOPPING_QUESTIONS, probabilityOf, stoppingAnswers, type Question } from './controller.js';
import { contextLemmaIndex, createSnapshotCache, previousTurn, snapshotNeighbors, type ScopeSnapshot } from './lexical.js';
import { createDialogueScorer, queryTimeInterval, queryWithoutSpeakerNames } from './dialogue.js';
import type { RetrievalResult, RetrievalTrace, RoundTrace, StopReason, TracedRetriever } from './types.js';
import { JEV_DEFAULTS, resolveJevOptions, validateRequest, type JevRetrieverOptions } from './jev-options.js';
import { byScore, dot, edgeDecay, nodeTimeMs, snapshotSpeakers, stateItem, successorOf, ZERO_BUDGET, type Visit } from './jev-visits.js';

export { JEV_DEFAULTS, resolveJevOptions, validateRequest, type JevRetrieverOptions } from './jev-options.js';
export { edgeDecay, successorOf } from './jev-visits.js';
import { answerabilityProbability } from './answerable.js';
import { orderByState, ordersRanking, PAST_STATE_THRESHOLD, predecessorsOf, snapshotState, successorsOf } from './state-order.js';
import { RELATIVE_FEATURES, candidateSetStats, createRelevanceFeaturizer, relativeFeatures, relevanceProbability, speakerStats, type CandidateSetStats, type RelevanceFeature } from './relevance.js';

/**
 * The vector ranking (top `k` by cosine): with a snapshot, the store's id-only k-NN
 * (`vectorSearchIds`: the same hits in the same order) mapped to the snapshot's nodes, so no node row
 * is read (ours, for latency); without a snapshot, without `vectorSearchIds`, or when a hit is not in
 * the snapshot, `vectorSearch`.
 */
export async function vectorHits(store: MemoryStore, scope: ResolvedScope, snap: ScopeSnapshot | null, qvec: Float32Array, k: number): Promise<{ node: MemoryNode; score: number }[]> {
  if (snap && store.vectorSearchIds) {
    const ids = await store.vectorSearchIds(scope, qvec, k);
    const out: { node: MemoryNode; score: number }[] = [];
    for (const h of ids) {
      const node = snap.byId.get(h.id);
      if (!node) return store.vectorSearch(scope, qvec, k);
      out.push({ node, score: h.score });
    }
    return out;
  }
  return store.vectorSearch(scope, qvec, k);
}

/**
 * The store BM25 ranking (top `k`): with a snapshot, the store's id-only `lexicalSearchIds` (the same
 * hits in the same order) mapped to the snapshot's nodes, so no node row is read (ours, for latency);
 * without a snapshot, without `lexicalSearchIds`, or when a hit is not in the snapshot, `lexicalSearch`.
 */
export async function lexicalHits(store: MemoryStore, scope: ResolvedScope, snap: ScopeSnapshot | null, query: string, k: number): Promise<{ node: MemoryNode; score: number }[]> {
  if (snap && store.lexicalSearchIds) {
    const ids = await store.lexicalSearchIds(scope, query, k);
    const out: { node: MemoryNode; score: number }[] = [];
    for (const h of ids) {
      const node = snap.byId.get(h.id);
      if (!node) return store.lexicalSearch(scope, query, k);
      out.push({ node, score: h.score });
    }
    return out;
  }
  return store.lexicalSearch(scope, query, k);
}

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

  async function search(req: SearchRequest): Promise<RetrievalResult> {
    const t0 = performance.now();
    const { k, nowMs } = validateRequest(req);
    const { scope, query } = req;
    let calls = 0;
    /** ms per stage (trace.timings.stages). */
    const st = { snapshotMs: 0, embedMs: 0, rankingsMs: 0, controllerMs: 0, relevanceMs: 0, expansionMs: 0 };
    const ask = async (state: Record<string, unknown>, questions: Record<string, Question>) => {
      calls++;
      const t = performance.now();
      const a = (await systemOne.ask(state, questions)).answers;
      st.controllerMs += performance.now() - t;
      return a;
    };

    // 1. Routing: six Nouls on {query}.
    let routing: RoutingProbabilities;
    if (o.ablation.routing) {
      routing = { semantic: 0.5, temporal: 0.5, causal: 0.5, entity: 0.5, multiHopNeed: 0.5, recencyImportance: 0.5, pastState: 0, presentState: 0 };
    } else {
      const qs: Record<string, Question> = {};
      for (const [id, f] of Object.entries(ROUTING_QUESTIONS)) qs[id] = f();
      const a = await ask({ query }, qs);
      routing = {
        semantic: clamp01(probabilityOf(a.semantic)),
        temporal: clamp01(probabilityOf(a.temporal)),
        causal: clamp01(probabilityOf(a.causal)),
        entity: clamp01(probabilityOf(a.entity)),
        multiHopNeed: clamp01(probabilityOf(a.multi_hop_need)),
        recencyImportance: clamp01(probabilityOf(a.recency_importance)),
        // a backend without the question answers "present" (0): the state order of issue 37
        pastState: clamp01(probabilityOf(a.past_state, 0)),
        presentState: clamp01(probabilityOf(a.present_state, 0)),
      };
    }
    const tRouting = performance.now();

    // 2–4. Active views, budgets, depth.
    const active = activeViews(routing, o.thetaAct, o.ablation.views ?? []);
    const given = allocateBudgets(routing, active, o.budget, o.minViewBudget, o.gamma);
    // Episode context (ours): the next/previous turns of a dialogue (SAME_EPISODE) stay in reach with
    // a small budget even when the temporal view is not active (an answer usually follows its question).
    const episodeOnly = o.episodeBudget > 0 && active.length > 0 && !active.includes('temporal') && !(o.ablation.views ?? []).includes('temporal');
    if (episodeOnly) given.temporal = o.episodeBudget;
    const spent = ZERO_BUDGET();
    const depth = traversalDepth(routing.multiHopNeed, o.maxDepth);

    // 5. Anchors: RRF of the vector ranking and the lexical rankings (store BM25, and lemma BM25 — ours).
    let ts = performance.now();
    const snap = o.snapshotMaxNodes > 0 ? await snapshots(store, scope) : null;
    st.snapshotMs += performance.now() - ts;
    // The vector anchor and the cosine features embed the query without the scope's speakers' names
    // (ours; `queryWithoutSpeakerNames`): who is asked about is the speaker signal's job.
    const vectorQuery = o.stripQueryNames && snap ? queryWithoutSpeakerNames(query, snapshotSpeakers(snap)) : query;
    ts = performance.now();
    const [qvec] = await embedder.embed([vectorQuery]);
    st.embedMs += performance.now() - ts;
    ts = performance.now();
    const [vec, lex] = await Promise.all([vectorHits(store, scope, snap, qvec, o.anchorPool), lexicalHits(store, scope, snap, query, o.anchorPool)]);
    const lem = o.lemmaLexical && snap ? snap.lemma.search(query, o.anchorPool) : [];
    const ctx = o.contextLexical && snap ? contextLemmaIndex(snap).search(query, o.anchorPool) : [];
    const byId = new Map<string, MemoryNode>();
    for (const h of [...vec, ...lex, ...lem, ...ctx]) byId.set(h.node.id, h.node);
    const used = [
      { hits: vec, w: o.priorWeights.vector, on: true },
      { hits: lex, w: o.priorWeights.lexical, on: true },
      { hits: lem, w: o.priorWeights.lemma, on: o.lemmaLexical },
      { hits: ctx, w: o.priorWeights.context, on: o.contextLexical && !!snap },
    ].filter((r) => r.on);
    const rankings = used.map((r) => r.hits.map((h) => h.node.id));
    const fusedAll = reciprocalRankFusion(rankings, o.rrfK);
    st.rankingsMs += performance.now() - ts;
    // The anchors' retrieval prior: the same fusion with k = priorRrfK (ours), sharper at the top.
    const priorOf = new Map(
      reciprocalRankFusion(
        rankings,
        o.priorRrfK,
        used.map((r) => r.w),
      ).map((f) => [f.id, f.score]),
    );
    // Dialogue evidence (ours): coverage of the query by the turn and the turn it answers, answer act,
    // speaker named by the query — d_v, computed once per node.
    const dialogue =
      o.dialogueWeight !== 0
        ? createDialogueScorer(
            query,
            snap ? snapshotSpeakers(snap) : [...byId.values()].flatMap((n) => (n.speaker ? [n.speaker] : [])),
            (n) => (snap ? previousTurn(snap, n.id) : null),
            o.dialogueWeights,
            o.dialogueWeights.time !== 0 ? queryTimeInterval(query, new Date(nowMs).toISOString(), req.timeZone) : null,
          )
        : null;
    const dialogueMemo = new Map<string, ReturnType<NonNullable<typeof dialogue>>>();
    const dialoguePartsOf = (n: MemoryNode) => {
      if (!dialogue) return null;
      let d = dialogueMemo.get(n.id);
      if (d === undefined) dialogueMemo.set(n.id, (d = dialogue(n)));
      return d;
    };
    const dialogueOf = (v: Visit) => dialoguePartsOf(v.node)?.value ?? 0;
    // Learned candidate relevance (ours): features of a visited memory, p(evidence) from the model.
    const featurize = createRelevanceFeaturizer({
      query,
      routing,
      rankings: { vector: vec.map((h) => h.node.id), lexical: lex.map((h) => h.node.id), lemma: lem.map((h) => h.node.id), context: ctx.map((h) => h.node.id) },
      lexicalScores: new Map(lex.map((h) => [h.node.id, h.score])),
      stats: speakerStats(snap ?? [...byId.values()]),
    });
    const supersededMemo = new Map<string, boolean>();
    const isSuperseded = (n: MemoryNode) => {
      let s = supersededMemo.get(n.id);
      if (s === undefined) supersededMemo.set(n.id, (s = successorOf(n, snap, o.supersedingSubtypes) !== null));
      return s;
    };
    // A visit's features change only with its prior, the max prior and its score (its node, cosine,
    // depth, dialogue parts, superseded and seed-only flags are fixed once it is visited): memoised on
    // those three (ours, for latency: every ranking reads the features of every visited memory).
    const featureMemo = new Map<Visit, { prior: number; maxPrior: number; score: number; f: Record<RelevanceFeature, number> }>();
    const featuresOf = (v: Visit, maxPrior: number): Record<RelevanceFeature, number> => {
      const m = featureMemo.get(v);
      if (m && m.prior === v.prior && m.maxPrior === maxPrior && m.score === v.score) return m.f;
      const f = featurize({ node: v.node, prior: v.prior, maxPrior, score: v.score, cosine: v.cosine, depth: v.depth, dialogue: dialoguePartsOf(v.node), superseded: isSuperseded(v.node), seedOnly: seedOnly.has(v.node.id) });
      featureMemo.set(v, { prior: v.prior, maxPrior, score: v.score, f });
      return f;
    };
    /** Anchors brought in by one ranking's top only (`seedsPerRanking`). */
    const seedOnly = new Set<string>();
    // Anchors (ours): the fused top `maxAnchors`, plus the top `seedsPerRanking` of EACH ranking, so a
    // memory one ranking puts first (a BM25 hit on a rare word, a close vector) is always a candidate
    // even when the fusion of the others buries it; the learned relevance model orders the union
    // (within the node cap).
    const fused = fusedAll.slice(0, o.maxAnchors);
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
    const tAnchors = performance.now();

    const visited = new Map<string, Visit>();
    const maxRrf = fusedAll[0]?.score ?? 1;
    for (const f of fused) {
      const node = byId.get(f.id)!;
      visited.set(f.id, {
        node,
        path: [],
        view: null,
        cosine: dot(qvec, node.embedding),
        edgeProbability: o.anchorEdgeProbability === 'rrf' ? f.score / maxRrf : o.anchorEdgeProbability,
        prior: priorOf.get(f.id) ?? 0,
        score: 0,
        depth: 0,
      });
    }
    // Superseded memories (ours): for a recency-seeking query the successor of a superseded anchor is
    // brought in with the anchor's prior, and the superseded one is demoted in the evidence order.
    const demote = routing.recencyImportance >= o.recencyQueryThreshold ? clamp01(o.obsoleteDemotion * routing.recencyImportance) : 0;
    const supersededIds = new Set<string>();
    /** successor id → the superseded visits it replaces (their evidence value carries over; ours). */
    const replaces = new Map<string, Visit[]>();
    if (demote > 0) {
      for (const v of [...visited.values()]) {
        const succ = successorOf(v.node, snap, o.supersedingSubtypes);
        if (!succ) continue;
        supersededIds.add(v.node.id);
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

    // What is true now, what was true before (ours, issue 37): for a question about the present the
    // memory that superseded a visited one is brought in with its prior; for a question about an
    // earlier state, the memories a visited one superseded. `ranked` then orders each such pair.
    const stateMode: 'past' | 'present' | null = !o.stateOrder
      ? null
      : (routing.pastState ?? 0) >= PAST_STATE_THRESHOLD
        ? 'past'
        : (routing.presentState ?? 0) >= PAST_STATE_THRESHOLD
          ? 'present'
          : null;
    const past = stateMode === 'past';
    const stateSuccessor = (n: MemoryNode): string | null => {
      const s = snapshotState(n, snap);
      return ordersRanking(s) ? s.by : null;
    };
    if (stateMode && o.stateBringIn) {
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

    // Evidence order (ours): (1 − η) · prior / max prior + η · s̃ + μ · d_v — the retrieval prior carries
    // the fused rankings and graph support, the controller's candidate score s̃ and the dialogue term refine it.
    // p(evidence) of a visit depends on its prior, the max prior, its score and (for a model that
    // reads RELATIVE_FEATURES) the best values among the visited set; the rest of its features are
    // fixed per node: memoised on those (ours, for latency)
    const relativeModel = !!o.relevanceModel && o.relevanceModel.features.some((f) => (RELATIVE_FEATURES as readonly string[]).includes(f));
    type SetStats = CandidateSetStats | null;
    const sameSet = (a: SetStats, b: SetStats) =>
      a === b || (!!a && !!b && a.cosine === b.cosine && a.coverage === b.coverage && a.ownCoverage === b.ownCoverage && a.score === b.score && a.timePosition === b.timePosition);
    const pMemo = new Map<Visit, { prior: number; maxPrior: number; score: number; set: SetStats; p: number }>();
    const pOf = (model: NonNullable<typeof o.relevanceModel>, v: Visit, maxPrior: number, set: SetStats) => {
      const m = pMemo.get(v);
      if (m && m.prior === v.prior && m.maxPrior === maxPrior && m.score === v.score && sameSet(m.set, set)) return m.p;
      const base = featuresOf(v, maxPrior) as Record<string, number>;
      // = { ...base, ...relative } read in the model's feature order, without building the merged record (ours, for latency)
      const rel = set ? (relativeFeatures(base as Record<RelevanceFeature, number>, set, routing.recencyImportance) as Record<string, number>) : null;
      const x = model.features.map((f) => (rel && Object.prototype.hasOwnProperty.call(rel, f) ? rel[f] : base[f]));
      const p = model === o.relevanceModel && predictRelevance ? predictRelevance(x)[1] : relevanceProbability(model, x);
      pMemo.set(v, { prior: v.prior, maxPrior, score: v.score, set, p });
      return p;
    };
    const maxPriorOf = () => {
      let maxPrior = 0;
      for (const x of visited.values()) if (x.prior > maxPrior) maxPrior = x.prior;
      return maxPrior;
    };
    /** The best values among ALL visited candidates (as train.ts computes them over a question's candidates). */
    const setStatsOf = (maxPrior: number): SetStats => (relativeModel ? candidateSetStats([...visited.values()].map((v) => featuresOf(v, maxPrior))) : null);
    const finalOf = (v: Visit, maxPrior: number, set: SetStats) => {
      // supersededIds ⊆ {v : successorOf(v) ≠ null}, filled only when demote > 0
      const superseded = demote > 0 && isSuperseded(v.node);
      if (o.relevanceModel) {
        // learned p(evidence); a superseded memory still yields to its successor for "now" queries
        let p = pOf(o.relevanceModel, v, maxPrior, set);
        // the successor of a superseded memory is at least as relevant as what it replaces
        for (const u of replaces.get(v.node.id) ?? []) p = Math.max(p, pOf(o.relevanceModel, u, maxPrior, set));
        return superseded ? p * (1 - demote) : p;
      }
      const value = (1 - o.evidenceMix) * (maxPrior > 0 ? v.prior / maxPrior : 0) + o.evidenceMix * v.score;
      const kept = superseded ? value * (1 - demote) : value;
      return kept + o.dialogueWeight * dialogueOf(v);
    };
    const ranked = (list: Iterable<Visit>) => {
      const t = performance.now();
      const arr = [...list];
      const maxPrior = maxPriorOf();
      const set = setStatsOf(maxPrior);
      const f = new Map(arr.map((v) => [v, finalOf(v, maxPrior, set)]));
      const out = arr.sort((a, b) => f.get(b)! - f.get(a)! || byScore(a, b)).map((v) => ({ v, final: f.get(v)! }));
      st.relevanceMs += performance.now() - t;
      return out;
    };
    const topVisits = (n: number) => ranked(visited.values()).slice(0, n).map((x) => x.v);
    const evidenceItems = (n: number) => topVisits(n).map(stateItem);
    /**
     * The evidence of a stopping state (ours, issue 16): each item also carries `round` (the round that
     * admitted it, 0 for anchors) and, with the learned relevance model, `relevance` = its p(evidence),
     * which the learned stopping models of @mem/system-one read.
     */
    const stoppingItems = (n: number) =>
      ranked(visited.values())
        .slice(0, n)
        .map(({ v, final: f }) => ({ ...stateItem(v), round: v.depth, ...(o.relevanceModel ? { relevance: f } : {}) }));

    // Batched candidate scoring: one ask for all candidates of a round.
    const scoreCandidates = async (all: Visit[]) => {
      if (all.length === 0) return;
      // The controller scores the beam: the `scoreTopN` candidates with the highest prior (ours);
      // the rest are scored with neutral (0.5) Noul answers.
      const cands = [...all].sort((a, b) => b.prior - a.prior).slice(0, o.scoreTopN);
      for (const v of all.filter((x) => !cands.includes(x))) {
        v.score = recencyAdjustedScore(
          candidateScore(
            { cosine: v.cosine, relevance: 0.5, viewProbability: v.view ? routing[v.view] : 1, relationUsefulness: v.view ? 0.5 : 1, newInformation: 0.5, edgeProbability: v.edgeProbability, supportsEvidence: 0.5 },
            o.weights,
          ),
          routing.recencyImportance,
          recencyScore(nowMs, nodeTimeMs(v.node)),
          o.recencyBeta,
        );
      }
      let answers: Record<string, unknown> = {};
      if (calls < o.caps.controllerCalls) {
        const qs: Record<string, Question> = {};
        cands.forEach((v, i) => {
          for (const [key, f] of Object.entries(SCORING_QUESTIONS)) {
            if (key === 'relation_usefulness' && !v.view) continue; // anchors were reached by no relation
            qs[`candidate_${i}_${key}`] = f(i);
          }
        });
        answers = await ask({ query, candidates: cands.map(stateItem), evidence: evidenceItems(o.evidenceK) }, qs);
      }
      cands.forEach((v, i) => {
        const p = (key: string) => clamp01(probabilityOf(answers[`candidate_${i}_${key}`] as any));
        const s = candidateScore(
          {
            cosine: v.cosine,
            relevance: p('relevance'),
            viewProbability: v.view ? routing[v.view] : 1,
            relationUsefulness: v.view ? p('relation_usefulness') : 1,
            newInformation: p('new_information'),
            edgeProbability: v.edgeProbability,
            supportsEvidence: p('supports_current_evidence'),
          },
          o.weights,
        );
        v.score = recencyAdjustedScore(s, routing.recencyImportance, recencyScore(nowMs, nodeTimeMs(v.node)), o.recencyBeta);
      });
    };

    const rounds: RoundTrace[] = [];
    let stopReason: StopReason | null = null;
    let edgesExamined = 0;
    if (fused.length === 0) stopReason = 'no_anchors';
    await scoreCandidates([...visited.values()]);

    let frontier = topVisits(o.beamWidth);
    if (!stopReason && o.ablation.traversal) stopReason = 'traversal_off';
    if (!stopReason && active.length === 0) stopReason = 'no_active_views';

    // Stopping before the first round (ours, issue 16; option `stopBeforeRounds`, default off): the same
    // Nouls on the anchors' evidence at depth 0, so a query whose anchors already hold what traversal
    // could add skips the rounds. With `collectFeatures` they are asked (and traced) without stopping,
    // for training the stopping models, without counting against the controller-call cap.
    let anchorStopping: RetrievalTrace['anchorStopping'] = null;
    if ((o.stopBeforeRounds || o.collectFeatures) && !stopReason && !o.ablation.stopping && depth >= 1 && calls < o.caps.controllerCalls) {
      const qs: Record<string, Question> = {};
      for (const [id, f] of Object.entries(STOPPING_QUESTIONS)) qs[id] = f();
      const state = { query, evidence: stoppingItems(o.evidenceK), depth: 0 };
      // asked for the trace only (collectFeatures without stopBeforeRounds): not counted against the
      // controller-call cap, so collecting features does not change the search
      const a = o.stopBeforeRounds ? await ask(state, qs) : (await systemOne.ask(state, qs)).answers;
      const answers = stoppingAnswers(a);
      const decision = stoppingDecision(answers, o.stopping);
      anchorStopping = { ...answers, stop: decision.stop, ...(o.collectFeatures ? { top: topVisits(k).map((v) => v.node.id) } : {}) };
      if (decision.stop && o.stopBeforeRounds) stopReason = decision.reason;
    }

    // 6. Rounds.
    for (let d = 1; !stopReason; d++) {
      const tr = performance.now();
      if (d > depth) {
        stopReason = 'depth';
        break;
      }
      if (performance.now() - t0 > o.caps.timeMs) {
        stopReason = 'time_cap';
        break;
      }
      if (calls >= o.caps.controllerCalls) {
        stopReason = 'controller_cap';
        break;
      }
      if (frontier.length === 0) {
        stopReason = 'frontier_empty';
        break;
      }
      if ([...active, ...(episodeOnly ? (['temporal'] as const) : [])].every((g) => spent[g] >= given[g])) {
        stopReason = 'budget';
        break;
      }
      const admitted = ZERO_BUDGET();
      const fresh: Visit[] = [];
      const frontierIds = frontier.map((v) => v.node.id);
      const parentScore = new Map(ranked(frontier).map((x) => [x.v.node.id, x.final]));
      let capHit: StopReason | null = null;
      let roundEdges = 0;
      const open = [...active, ...(episodeOnly ? (['temporal'] as const) : [])].filter((g) => spent[g] < given[g]);
      if (edgesExamined >= o.caps.edges) capHit = 'edge_cap';
      else if (open.length > 0) {
        // One store call for every view that still has budget; candidates of all views compete by
        // priority = parent score × edge probability, each view within its own budget (ours).
        const edgeLimit = Math.max(1, o.caps.edges - edgesExamined);
        const tn = performance.now();
        const neighbours = snap
          ? snapshotNeighbors(snap, frontierIds, open, edgeLimit)
          : await store.neighbors(scope, frontierIds, { views: open, direction: 'both', limit: edgeLimit });
        st.expansionMs += performance.now() - tn;
        edgesExamined += neighbours.length;
        roundEdges += neighbours.length;
        const decay = (nb: (typeof neighbours)[number]) =>
          edgeDecay(nb.relation, nb.relation.from === nb.fromId ? 'out' : 'in', o.edgeDecay, o.defaultEdgeDecay);
        const priority = (nb: (typeof neighbours)[number]) => (parentScore.get(nb.fromId) ?? 0) * nb.relation.probability * decay(nb);
        neighbours.sort((a, b) => priority(b) - priority(a));
        const supported = new Set<string>();
        for (const nb of neighbours) {
          const g = nb.relation.view;
          const parent = visited.get(nb.fromId)!;
          const seen = visited.get(nb.node.id);
          if (seen) {
            // Graph support (ours): a visited node reached again gains part of the parent's prior.
            const key = `${nb.fromId}>${nb.node.id}`;
            if (!supported.has(key) && seen !== parent) {
              supported.add(key);
              seen.prior += o.supportWeight * parent.prior * clamp01(nb.relation.probability) * decay(nb);
            }
            continue;
          }
          if (!open.includes(g) || spent[g] >= given[g]) continue;
          if (episodeOnly && g === 'temporal' && nb.relation.subtype !== 'SAME_EPISODE') continue;
          if (visited.size >= o.caps.nodes) {
            capHit = 'node_cap';
            break;
          }
          const v: Visit = {
            node: nb.node,
            path: [...parent.path, nb.relation],
            view: g,
            cosine: dot(qvec, nb.node.embedding),
            edgeProbability: clamp01(nb.relation.probability),
            prior: parent.prior * clamp01(nb.relation.probability) * decay(nb),
            score: 0,
            depth: d,
          };
          visited.set(nb.node.id, v);
          fresh.push(v);
          spent[g]++;
          admitted[g]++;
        }
      }
      await scoreCandidates(fresh);
      frontier = ranked(fresh)
        .slice(0, o.beamWidth)
        .map((x) => x.v);

      let stopping: RoundTrace['stopping'] = null;
      let decision: { stop: boolean; reason: StopReason | null } = { stop: false, reason: null };
      if (capHit) decision = { stop: true, reason: capHit };
      // at the last depth the next round cannot start (depth cap): the stopping Nouls are not asked (ours, for latency)
      else if (!o.ablation.stopping && d < depth && calls < o.caps.controllerCalls) {
        const qs: Record<string, Question> = {};
        for (const [id, f] of Object.entries(STOPPING_QUESTIONS)) qs[id] = f();
        const a = await ask({ query, evidence: stoppingItems(o.evidenceK), depth: d }, qs);
        stopping = stoppingAnswers(a);
        decision = stoppingDecision(stopping, o.stopping);
      }
      rounds.push({
        depth: d,
        frontier: frontierIds,
        admitted,
        edgesExamined: roundEdges,
        stopping,
        stop: decision.stop,
        reason: decision.reason,
        ms: performance.now() - tr,
        ...(o.collectFeatures ? { top: topVisits(k).map((v) => v.node.id) } : {}),
      });
      if (decision.stop) stopReason = decision.reason;
    }
    const tEnd = performance.now();

    // the state order (issue 37) within the returned top k: the set of the top k never changes
    const final = stateMode ? orderByState(ranked(visited.values()), (x) => x.v.node.id, (x) => successorsOf(x.v.node, snap), stateMode === 'past', (x) => x.final, (x, value) => (x.final = value), k) : ranked(visited.values());
    // each item's state (current / superseded by, at, p) from the snapshot; without one, Memory.search reads it from the store
    const evidence: Evidence[] = final.slice(0, k).map(({ v, final: f }) => ({ node: v.node, score: f, path: v.path, ...(snap ? { state: snapshotState(v.node, snap) } : {}) }));
    // Abstention (ours, issue 37): calibrated p that some returned memory is evidence, from the top
    // candidates' p(evidence) (the learned relevance model's order only)
    let answerability: RetrievalTrace['answerability'] = null;
    if (o.answerability && o.relevanceModel && final.length) {
      const maxPrior = maxPriorOf();
      const p = answerabilityProbability(o.answerability.model, final.slice(0, 5).map(({ v, final: f }) => ({ final: f, features: featuresOf(v, maxPrior) })), final.length);
      answerability = { p, threshold: o.answerability.threshold, answerable: p >= o.answerability.threshold };
    }
    const trace: RetrievalTrace = {
      retriever: name,
      query,
      routing,
      activeViews: active,
      depth,
      budgets: { given, spent },
      episodeContext: episodeOnly,
      anchors: fused.map((f) => ({ id: f.id, rrf: f.score })),
      anchorStopping,
      rounds,
      stopReason,
      controllerCalls: calls,
      nodesVisited: visited.size,
      candidates: final.map(({ v, final: f }) => ({
        id: v.node.id,
        final: f,
        score: v.score,
        prior: v.prior,
        dialogue: dialogueOf(v),
        depth: v.depth,
        view: v.view,
        ...(o.collectFeatures ? { features: featuresOf(v, Math.max(0, ...[...visited.values()].map((x) => x.prior))) } : {}),
      })),
      edgesExamined,
      answerability,
      timings: { routingMs: tRouting - t0, anchorsMs: tAnchors - tRouting, roundsMs: tEnd - tAnchors, totalMs: tEnd - t0, stages: st },
    };
    return { evidence, ...(answerability ? { answerable: answerability.answerable, pEvidence: answerability.p } : {}), trace };
  }

  return { name, search };
}

/**
 * Jev-Mem's closed-loop, budgeted, multi-relational read path (seed 000 §4; ../shared/DESIGN.md
 * "Read path"): routing → active views → budgets → depth → anchors (RRF) → rounds of expansion,
 * batched candidate scoring and stopping, under hard caps.
 */
import { MemValidationError, normalizeNow } from '@mem/core';
import type {
  Embedder,
  Evidence,
  MemoryNode,
  MemoryStore,
  Relation,
  RelationSubtype,
  RelationView,
  SearchRequest,
} from '@mem/core';
import {
  DEFAULT_SCORE_WEIGHTS,
  DEFAULT_STOPPING,
  activeViews,
  allocateBudgets,
  candidateScore,
  clamp01,
  reciprocalRankFusion,
  recencyAdjustedScore,
  recencyScore,
  stoppingDecision,
  traversalDepth,
  type RoutingProbabilities,
  type ScoreWeights,
  type StoppingThresholds,
} from './equations.js';
import {
  ROUTING_QUESTIONS,
  SCORING_QUESTIONS,
  STOPPING_QUESTIONS,
  probabilityOf,
  type Question,
  type SystemOneLike,
} from './controller.js';
import { contextLemmaIndex, createSnapshotCache, previousTurn, snapshotNeighbors, type ScopeSnapshot } from './lexical.js';
import { createDialogueScorer, DEFAULT_DIALOGUE_WEIGHTS, queryTimeInterval, type DialogueWeights } from './dialogue.js';
import type { RetrievalResult, RetrievalTrace, RoundTrace, StopReason, TracedRetriever } from './types.js';

/** Options of {@link createJevRetriever}. Defaults are the paper's (seed 000) unless marked *ours*. */
export interface JevRetrieverOptions {
  store: MemoryStore;
  /** The System-One controller (`createSystemOne()` from `@mem/system-one`, or any object with `ask`). */
  systemOne: SystemOneLike;
  embedder: Embedder;
  /** θ_act: a view is active when p_g ≥ θ_act. Default 0.10 (seed 000). */
  thetaAct?: number;
  /** B: total expansion budget (new nodes admitted by expansion). Default 80 (seed 000). */
  budget?: number;
  /** m: minimum budget of each active view. Default 1 (seed 000). */
  minViewBudget?: number;
  /** γ: concentration of the budget allocation. Default 1.0 (seed 000). */
  gamma?: number;
  /** D_max: maximum traversal depth. Default 8 (seed 000). */
  maxDepth?: number;
  /** k of reciprocal-rank fusion. Default 60 (seed 000; Cormack et al. 2009). */
  rrfK?: number;
  /** Maximum anchors kept after fusion. Default 30 (seed 000). */
  maxAnchors?: number;
  /** How many hits each of the vector and lexical rankings contributes to fusion. Default 50 (ours). */
  anchorPool?: number;
  /** Beam width: frontier size per round. Default 10 (seed 000). */
  beamWidth?: number;
  /** λ weights of the candidate score. Default 0.25 / 0.35 / 0.15 / 0.15 / 0.10 (seed 000). */
  weights?: Partial<ScoreWeights>;
  /** β of the recency adjustment s̃ = (s + β r ρ)/(1 + β r). Default 0.1 (seed 000). */
  recencyBeta?: number;
  /** Stopping thresholds. Default s ≥ 0.95, m < 0.15, c < 0.15, u < 0.15 (seed 000). */
  stopping?: Partial<StoppingThresholds>;
  /** Hard caps (seed 000): controller calls 16, visited nodes 60, edges examined 2400, time 15 000 ms. */
  caps?: Partial<{ controllerCalls: number; nodes: number; edges: number; timeMs: number }>;
  /**
   * π_e given to anchors (reached by no edge): `'rrf'` = the anchor's fused score divided by the best
   * anchor's (ours: keeps the lexical ranking's signal in s), or a fixed number. Default `'rrf'`.
   */
  anchorEdgeProbability?: 'rrf' | number;
  /**
   * Decay of the retrieval prior along an edge, by subtype and direction (ours, tuned on the LoCoMo
   * dev conversations): default SAME_EPISODE out (to the next turn) 0.8, in (to the previous) 0.5.
   */
  edgeDecay?: Partial<Record<RelationSubtype, { out: number; in: number }>>;
  /** Decay for every other subtype (ours, tuned on the dev conversations). Default 0.1. */
  defaultEdgeDecay?: number;
  /** Share of a parent's prior a node already visited gains when reached again (graph support, ours). Default 0.5. */
  supportWeight?: number;
  /** η of the evidence order (1 − η) · prior/max prior + η · s̃ (ours). Default 0.2. */
  evidenceMix?: number;
  /** How many top evidence items the controller sees in scoring and stopping states (ours). Default 5. */
  evidenceK?: number;
  /** Nodes admitted through SAME_EPISODE edges when the temporal view is inactive (episode context, ours). Default 10; 0 disables. */
  episodeBudget?: number;
  /**
   * Scopes with at most this many nodes are read through a cached snapshot (nodes, adjacency, lemma
   * index; rebuilt when the scope changes) instead of a store call per round (ours). Default 20 000; 0 disables
   * (then neither the snapshot nor the lemma ranking is used).
   */
  snapshotMaxNodes?: number;
  /** k of the reciprocal-rank fusion that gives anchors their retrieval prior (ours, tuned on the dev conversations). Default 30. */
  priorRrfK?: number;
  /** Candidates per round the controller scores (those with the highest prior; ours, for latency). Default 5. */
  scoreTopN?: number;
  /** Add a lemma-BM25 ranking (node keywords + speaker) to the anchor fusion (ours). Default true. */
  lemmaLexical?: boolean;
  /**
   * Add a fourth anchor ranking (ours): lemma BM25 over each memory's terms plus its previous turn's
   * keywords (document expansion by dialogue context, `contextLemmaIndex`). Needs the snapshot. Default true.
   */
  contextLexical?: boolean;
  /**
   * Weights of the rankings in the prior's fusion Σ_r w_r/(priorRrfK + rank) (ours, tuned on dev
   * conversations 0–2). Default vector 1, store BM25 1, lemma BM25 1, context lemma BM25 1.5.
   */
  priorWeights?: Partial<{ vector: number; lexical: number; lemma: number; context: number }>;
  /**
   * δ of the read-time demotion of superseded memories (ours): a memory with `obsoleteBy` set, or the
   * target of a `supersedingSubtypes` edge from a later memory, has its evidence value multiplied by
   * 1 − δ · r(q), r(q) = the routing's recency importance, and its successor is brought in with the
   * superseded anchor's prior — only for recency-seeking queries, r(q) ≥ `recencyQueryThreshold`.
   * Default 0.5; 0 disables.
   */
  obsoleteDemotion?: number;
  /**
   * Relation subtypes whose source, when observed later than the target, supersedes it (ours). Default
   * UPDATES, OBSOLETES, REDUNDANT_WITH (a later memory on the same matter: for a recency-seeking query
   * the later one is preferred).
   */
  supersedingSubtypes?: RelationSubtype[];
  /** r(q) from which a query counts as recency-seeking for `obsoleteDemotion` (ours). Default 0.5. */
  recencyQueryThreshold?: number;
  /**
   * μ of the dialogue evidence term of the evidence order (ours, chosen on LoCoMo dev conversations
   * 0–3; 0.1–0.3 gave 0.759–0.765 there): value + μ · d_v, d_v = w_c · coverage + w_a · answerness +
   * w_s · speaker match + w_t · time match (see `dialogue.ts`). Default 0.2; 0 disables.
   */
  dialogueWeight?: number;
  /** Weights w of the dialogue signals (ours). Default coverage 1, answer act 1, speaker 0.5, time 1 (the query's named time). */
  dialogueWeights?: Partial<DialogueWeights>;
  /** Ablations (ours): disable routing (uniform p = 0.5), traversal (anchors only), stopping Nouls, or views. */
  ablation?: { routing?: boolean; traversal?: boolean; stopping?: boolean; views?: RelationView[] };
  /** Name reported by `retriever.name`. Default `'jev'`. */
  name?: string;
}

export const JEV_DEFAULTS = {
  thetaAct: 0.1,
  budget: 80,
  minViewBudget: 1,
  gamma: 1.0,
  maxDepth: 8,
  rrfK: 60,
  maxAnchors: 30,
  anchorPool: 50,
  beamWidth: 10,
  edgeDecay: { SAME_EPISODE: { out: 0.8, in: 0.5 } } as Partial<Record<RelationSubtype, { out: number; in: number }>>,
  defaultEdgeDecay: 0.1,
  supportWeight: 0.5,
  evidenceMix: 0.2,
  evidenceK: 5,
  lemmaLexical: true,
  contextLexical: true,
  priorWeights: { vector: 1, lexical: 1, lemma: 1, context: 1.5 },
  obsoleteDemotion: 0.5,
  recencyQueryThreshold: 0.5,
  supersedingSubtypes: ['UPDATES', 'OBSOLETES', 'REDUNDANT_WITH'] as RelationSubtype[],
  episodeBudget: 10,
  dialogueWeight: 0.2,
  dialogueWeights: DEFAULT_DIALOGUE_WEIGHTS,
  snapshotMaxNodes: 20_000,
  scoreTopN: 5,
  priorRrfK: 30,
  recencyBeta: 0.1,
  caps: { controllerCalls: 16, nodes: 60, edges: 2400, timeMs: 15_000 },
} as const;

interface Visit {
  node: MemoryNode;
  path: Relation[];
  /** View the node was reached through (null for anchors). */
  view: RelationView | null;
  cosine: number;
  edgeProbability: number;
  /** Retrieval prior: anchors their fused RRF score; neighbours parent prior × edge probability × edge decay, plus support (ours). */
  prior: number;
  score: number;
  depth: number;
}

const ZERO_BUDGET = (): Record<RelationView, number> => ({ semantic: 0, temporal: 0, causal: 0, entity: 0 });

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

function nodeTimeMs(n: MemoryNode): number {
  return Date.parse(n.eventTime?.start ?? n.observedAt);
}

function stateItem(v: Visit) {
  const n = v.node;
  return {
    id: n.id,
    text: n.text,
    ...(n.speaker ? { speaker: n.speaker } : {}),
    time: n.observedAt,
    ...(n.eventTime ? { start: n.eventTime.start, ...(n.eventTime.end ? { end: n.eventTime.end } : {}) } : {}),
    entities: n.entities,
    keywords: n.keywords,
    cosine: v.cosine,
    relation: v.view ?? 'anchor',
    probability: v.edgeProbability,
  };
}

/** Validate a SearchRequest; throws MemValidationError `INVALID_INPUT`, `SCOPE_MISSING`, `BAD_DATE` / `MISSING_TIMEZONE` (a `now` without a zone or not ISO-8601). */
export function validateRequest(req: SearchRequest): { k: number; nowMs: number } {
  if (!req || typeof req.query !== 'string' || req.query.trim() === '') {
    throw new MemValidationError('INVALID_INPUT', 'search: query must be a non-empty string');
  }
  if (!req.scope) throw new MemValidationError('SCOPE_MISSING', 'search: scope is required');
  const k = req.k ?? 10;
  if (!Number.isInteger(k) || k < 1) throw new MemValidationError('INVALID_INPUT', `search: k must be a positive integer, got ${k}`);
  // strict (issue 17): ISO-8601 with a zone, else BAD_DATE / MISSING_TIMEZONE — never the process's local zone
  const nowMs = req.now === undefined ? Date.now() : Date.parse(normalizeNow(req.now));
  return { k, nowMs };
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
  const o = {
    thetaAct: options.thetaAct ?? JEV_DEFAULTS.thetaAct,
    budget: options.budget ?? JEV_DEFAULTS.budget,
    minViewBudget: options.minViewBudget ?? JEV_DEFAULTS.minViewBudget,
    gamma: options.gamma ?? JEV_DEFAULTS.gamma,
    maxDepth: options.maxDepth ?? JEV_DEFAULTS.maxDepth,
    rrfK: options.rrfK ?? JEV_DEFAULTS.rrfK,
    maxAnchors: options.maxAnchors ?? JEV_DEFAULTS.maxAnchors,
    anchorPool: options.anchorPool ?? JEV_DEFAULTS.anchorPool,
    beamWidth: options.beamWidth ?? JEV_DEFAULTS.beamWidth,
    recencyBeta: options.recencyBeta ?? JEV_DEFAULTS.recencyBeta,
    weights: { ...DEFAULT_SCORE_WEIGHTS, ...options.weights },
    stopping: { ...DEFAULT_STOPPING, ...options.stopping },
    caps: { ...JEV_DEFAULTS.caps, ...options.caps },
    anchorEdgeProbability: options.anchorEdgeProbability ?? ('rrf' as const),
    edgeDecay: { ...JEV_DEFAULTS.edgeDecay, ...options.edgeDecay },
    defaultEdgeDecay: options.defaultEdgeDecay ?? JEV_DEFAULTS.defaultEdgeDecay,
    supportWeight: options.supportWeight ?? JEV_DEFAULTS.supportWeight,
    evidenceMix: options.evidenceMix ?? JEV_DEFAULTS.evidenceMix,
    evidenceK: options.evidenceK ?? JEV_DEFAULTS.evidenceK,
    lemmaLexical: options.lemmaLexical ?? JEV_DEFAULTS.lemmaLexical,
    contextLexical: options.contextLexical ?? JEV_DEFAULTS.contextLexical,
    priorWeights: { ...JEV_DEFAULTS.priorWeights, ...options.priorWeights },
    obsoleteDemotion: options.obsoleteDemotion ?? JEV_DEFAULTS.obsoleteDemotion,
    recencyQueryThreshold: options.recencyQueryThreshold ?? JEV_DEFAULTS.recencyQueryThreshold,
    supersedingSubtypes: options.supersedingSubtypes ?? JEV_DEFAULTS.supersedingSubtypes,
    episodeBudget: options.episodeBudget ?? JEV_DEFAULTS.episodeBudget,
    snapshotMaxNodes: options.snapshotMaxNodes ?? JEV_DEFAULTS.snapshotMaxNodes,
    scoreTopN: options.scoreTopN ?? JEV_DEFAULTS.scoreTopN,
    priorRrfK: options.priorRrfK ?? JEV_DEFAULTS.priorRrfK,
    dialogueWeight: options.dialogueWeight ?? JEV_DEFAULTS.dialogueWeight,
    dialogueWeights: { ...JEV_DEFAULTS.dialogueWeights, ...options.dialogueWeights },
    ablation: options.ablation ?? {},
  };
  const name = options.name ?? 'jev';
  const snapshots = createSnapshotCache({ maxNodes: options.snapshotMaxNodes ?? JEV_DEFAULTS.snapshotMaxNodes });

  async function search(req: SearchRequest): Promise<RetrievalResult> {
    const t0 = performance.now();
    const { k, nowMs } = validateRequest(req);
    const { scope, query } = req;
    let calls = 0;
    const ask = async (state: Record<string, unknown>, questions: Record<string, Question>) => {
      calls++;
      return (await systemOne.ask(state, questions)).answers;
    };

    // 1. Routing: six Nouls on {query}.
    let routing: RoutingProbabilities;
    if (o.ablation.routing) {
      routing = { semantic: 0.5, temporal: 0.5, causal: 0.5, entity: 0.5, multiHopNeed: 0.5, recencyImportance: 0.5 };
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
    const [qvec] = await embedder.embed([query]);
    const snap = o.snapshotMaxNodes > 0 ? await snapshots(store, scope) : null;
    const [vec, lex] = await Promise.all([store.vectorSearch(scope, qvec, o.anchorPool), store.lexicalSearch(scope, query, o.anchorPool)]);
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
            o.dialogueWeights.time !== 0 ? queryTimeInterval(query, new Date(nowMs).toISOString()) : null,
          )
        : null;
    const dialogueMemo = new Map<string, number>();
    const dialogueOfNode = (n: MemoryNode) => {
      if (!dialogue) return 0;
      let d = dialogueMemo.get(n.id);
      if (d === undefined) dialogueMemo.set(n.id, (d = dialogue(n).value));
      return d;
    };
    const dialogueOf = (v: Visit) => dialogueOfNode(v.node);
    const fused = fusedAll.slice(0, o.maxAnchors);
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
    if (demote > 0) {
      for (const v of [...visited.values()]) {
        const succ = successorOf(v.node, snap, o.supersedingSubtypes);
        if (!succ) continue;
        supersededIds.add(v.node.id);
        const s2 = snap?.byId.get(succ) ?? (await store.get(scope, succ).catch(() => null));
        if (!s2) continue;
        const have = visited.get(succ);
        if (have) have.prior = Math.max(have.prior, v.prior);
        else if (visited.size < o.caps.nodes) {
          visited.set(succ, { node: s2, path: [], view: null, cosine: dot(qvec, s2.embedding), edgeProbability: v.edgeProbability, prior: v.prior, score: 0, depth: 0 });
        }
      }
    }

    // Evidence order (ours): (1 − η) · prior / max prior + η · s̃ + μ · d_v — the retrieval prior carries
    // the fused rankings and graph support, the controller's candidate score s̃ and the dialogue term refine it.
    const finalOf = (v: Visit) => {
      let maxPrior = 0;
      for (const x of visited.values()) if (x.prior > maxPrior) maxPrior = x.prior;
      const value = (1 - o.evidenceMix) * (maxPrior > 0 ? v.prior / maxPrior : 0) + o.evidenceMix * v.score;
      const kept = supersededIds.has(v.node.id) || (demote > 0 && successorOf(v.node, snap, o.supersedingSubtypes)) ? value * (1 - demote) : value;
      return kept + o.dialogueWeight * dialogueOf(v);
    };
    const ranked = (list: Iterable<Visit>) => {
      const arr = [...list];
      const f = new Map(arr.map((v) => [v, finalOf(v)]));
      return arr.sort((a, b) => f.get(b)! - f.get(a)! || byScore(a, b)).map((v) => ({ v, final: f.get(v)! }));
    };
    const topVisits = (n: number) => ranked(visited.values()).slice(0, n).map((x) => x.v);
    const evidenceItems = (n: number) => topVisits(n).map(stateItem);

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
        const neighbours = snap
          ? snapshotNeighbors(snap, frontierIds, open, edgeLimit)
          : await store.neighbors(scope, frontierIds, { views: open, direction: 'both', limit: edgeLimit });
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
      else if (!o.ablation.stopping && calls < o.caps.controllerCalls) {
        const qs: Record<string, Question> = {};
        for (const [id, f] of Object.entries(STOPPING_QUESTIONS)) qs[id] = f();
        const a = await ask({ query, evidence: evidenceItems(o.evidenceK), depth: d }, qs);
        stopping = {
          sufficient: probabilityOf(a.evidence_sufficient, 0),
          continueUseful: probabilityOf(a.continue_useful, 1),
          missing: probabilityOf(a.missing_evidence, 1),
          contradiction: probabilityOf(a.contradiction, 0),
        };
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
      });
      if (decision.stop) stopReason = decision.reason;
    }
    const tEnd = performance.now();

    const final = ranked(visited.values());
    const evidence: Evidence[] = final.slice(0, k).map(({ v, final: f }) => ({ node: v.node, score: f, path: v.path }));
    const trace: RetrievalTrace = {
      retriever: name,
      query,
      routing,
      activeViews: active,
      depth,
      budgets: { given, spent },
      episodeContext: episodeOnly,
      anchors: fused.map((f) => ({ id: f.id, rrf: f.score })),
      rounds,
      stopReason,
      controllerCalls: calls,
      nodesVisited: visited.size,
      candidates: final.map(({ v, final: f }) => ({ id: v.node.id, final: f, score: v.score, prior: v.prior, dialogue: dialogueOf(v), depth: v.depth, view: v.view })),
      edgesExamined,
      timings: { routingMs: tRouting - t0, anchorsMs: tAnchors - tRouting, roundsMs: tEnd - tAnchors, totalMs: tEnd - t0 },
    };
    return { evidence, trace };
  }

  return { name, search };
}

/**
 * The id of the memory that supersedes `node` (ours): `node.obsoleteBy` when set, else the latest
 * `from` of an edge of one of `subtypes` (default UPDATES, OBSOLETES) into it from a memory observed
 * later (snapshot only); null if none.
 */
export function successorOf(
  node: MemoryNode,
  snap: ScopeSnapshot | null,
  subtypes: readonly RelationSubtype[] = ['UPDATES', 'OBSOLETES'],
): string | null {
  if (node.obsoleteBy) return node.obsoleteBy;
  if (!snap) return null;
  let best: MemoryNode | null = null;
  for (const r of snap.adjacency.get(node.id) ?? []) {
    if (!subtypes.includes(r.subtype) || r.to !== node.id || r.from === node.id) continue;
    const n = snap.byId.get(r.from);
    if (n && n.observedAt > node.observedAt && (!best || n.observedAt > best.observedAt)) best = n;
  }
  return best ? best.id : null;
}

const speakerCache = new WeakMap<ScopeSnapshot, string[]>();
/** The distinct speakers of a snapshot's nodes (cached per snapshot). */
function snapshotSpeakers(snap: ScopeSnapshot): string[] {
  let s = speakerCache.get(snap);
  if (!s) speakerCache.set(snap, (s = [...new Set(snap.nodes.flatMap((n) => (n.speaker ? [n.speaker] : [])))]));
  return s;
}

/** Decay of the prior along `relation` walked in `direction` (ours). */
export function edgeDecay(
  relation: Relation,
  direction: 'out' | 'in',
  table: Partial<Record<RelationSubtype, { out: number; in: number }>>,
  fallback: number,
): number {
  const e = table[relation.subtype];
  return clamp01(e ? e[direction] : fallback);
}

function byScore(a: Visit, b: Visit): number {
  return b.score - a.score || a.depth - b.depth || (a.node.id < b.node.id ? -1 : a.node.id > b.node.id ? 1 : 0);
}


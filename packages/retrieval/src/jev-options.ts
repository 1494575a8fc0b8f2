/**
 * Options of the Jev-Mem retriever (seed 000 §4 defaults unless marked *ours*), their resolution, and
 * the validation of a search request.
 */
import type { LearnedModel } from '@mem/system-one';
import { relevanceModelFor } from './relevance.js';
import { expansionModelFor } from './expansion.js';
import { linkModelFor } from './links.js';
import { defaultBreadthModel } from './breadth.js';
import { defaultAnswerability } from './answerable.js';
import { MemValidationError, assertTimeZone, normalizeNow } from '@mem/core';
import type { Embedder, MemoryStore, RelationSubtype, RelationView, SearchRequest } from '@mem/core';
import { DEFAULT_SCORE_WEIGHTS, DEFAULT_STOPPING, type ScoreWeights, type StoppingThresholds } from './equations.js';
import { type SystemOneLike } from './controller.js';
import { DEFAULT_DIALOGUE_WEIGHTS, type DialogueWeights } from './dialogue.js';

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
  /**
   * Candidate generation (ours): the top `seedsPerRanking` memories of each anchor ranking (vector,
   * store BM25, lemma BM25, context lemma BM25) are anchors too, beside the fused top `maxAnchors`.
   * Default 20; 0 keeps only the fused top.
   */
  seedsPerRanking?: number;
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
  /** Hard caps (seed 000): controller calls 16, visited nodes 100 (ours; seed 000 has 60, raised for the seeded anchors), edges examined 2400, time 15 000 ms. */
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
  /**
   * Order each (older, newer) pair joined by a state change (CONTRADICTS / OBSOLETES / `obsoleteBy`, edge
   * p ≥ 0.5) among the returned top k by the question (ours, issue 37; `state-order.ts`): the newer
   * above the older when the routing Noul `present_state` ≥ 0.5, the older above the newer when
   * `past_state` ≥ 0.5; otherwise, and for pairs not both in the top k, nothing moves (the set of the
   * top k never changes). Default true; false = ablation.
   */
  stateOrder?: boolean;
  /**
   * With `stateOrder`, also bring in the other memory of a pair when only one was visited (the
   * successor for a present-state question, the predecessors for a past-state one), with the visited
   * one's prior (ours). Default false: on LoCoMo dev it cost recall@10 (docs/state.md).
   */
  stateBringIn?: boolean;
  /**
   * With `stateOrder` and a learned relevance model (values are p(evidence)): the memory of a pair that
   * the question asks for (the newer for a present-state question, the older for a past-state one)
   * takes the pair's joint p(evidence) (`jointStateEvidence`) and moves up within the returned top k
   * past memories with a lower value (ours, issue 37; `state-order.ts`). The set of the top k never
   * changes. Default true; false = ablation.
   */
  stateLift?: boolean;
  /**
   * Abstention (ours, issue 37; `answerable.ts`): the model of p(memory holds evidence) over the top
   * candidates and the threshold below which `search` returns `answerable: false` with that p as
   * `pEvidence`. Default: the shipped model and threshold (`defaultAnswerability`); null = never say
   * (no `answerable` field).
   * Needs the learned relevance model.
   */
  answerability?: { model: LearnedModel; threshold: number } | null;
  /**
   * Abstention's word-level term support (issue 37): 'words' embeds the top memories' content words
   * with the memories' embedder (cached per retriever) and compares each question term with the
   * closest word; 'memories' compares it with the top memories' own embeddings (no extra embedding).
   * Default: 'words' for a static word-vector embedder (model `wink-embeddings…`, the offline default:
   * a table lookup), 'memories' for any other (a sentence encoder such as MiniLM costs ~5 ms a word on
   * CPU; on our held-out tiny memories with MiniLM: abstained 0.552, refused 0.033 with 'memories';
   * 0.414 / 0.000 with 'words').
   */
  answerabilityWords?: 'words' | 'memories';
  /** Ablations (ours): disable routing (uniform p = 0.5), traversal (anchors only), stopping Nouls, or views. */
  ablation?: { routing?: boolean; traversal?: boolean; stopping?: boolean; views?: RelationView[] };
  /**
   * The learned candidate-relevance model (ours; `relevance.ts`): when set, the evidence order is its
   * calibrated p(evidence) of each visited memory instead of the hand-weighted mix above. Default: the
   * shipped model for `embedder.model` (`relevanceModelFor`: `models/relevance.minilm.json` for
   * all-MiniLM-L6-v2, else `models/relevance.json`); `null` keeps the hand-weighted order (ablation).
   */
  relevanceModel?: LearnedModel | null;
  /**
   * Embed the query for the vector anchor ranking and the cosine features without the names of the
   * scope's speakers (ours, issue 16; `queryWithoutSpeakerNames` in dialogue.ts: a sentence encoder is
   * pulled to the turns that name a speaker, which are rarely that speaker's own). Needs the scope
   * snapshot (`snapshotMaxNodes` > 0) to know the speakers. Default true; false embeds the query as given.
   */
  stripQueryNames?: boolean;
  /**
   * Ask the stopping Nouls once more on the anchors' evidence before the first round (depth 0) and
   * stop there when they say so (ours, issue 16). Default false: replayed on the TRAIN conversations
   * with the learned stopping models, stopping at depth 0 cost recall (read-path train-stopping.ts).
   */
  stopBeforeRounds?: boolean;
  /** Put each candidate's relevance features in the trace (`candidates[i].features`; for training). Default false. */
  collectFeatures?: boolean;
  /**
   * Learned expansion (ours, issue 38; `expansion.ts`, `jev-learned-expansion.ts`): the model of p(the
   * neighbour an edge leads to is evidence). When set, it replaces the hand rounds (routing budgets,
   * depth D(q), priority = parent × edge p × decay): every edge of the frontier is asked about, a
   * neighbour is admitted when its best path's p ≥ `expansionCost`, and a memory keeps its path score in
   * the evidence order (`pathScore`). Default: the shipped model (`defaultExpansionModel`) for the
   * GloVe default embedder, none (the hand rounds) for other embedders; `null` = the hand rounds (ablation).
   */
  expansionModel?: LearnedModel | null;
  /** The cost of one more candidate in units of p(evidence): learned expansion admits a neighbour when its path's p is at least this. Default 0.02 (ours). */
  expansionCost?: number;
  /** Nodes learned expansion may admit beyond `caps.nodes` (the anchors often fill the cap). Default 60 (ours). */
  expansionNodes?: number;
  /** With the learned relevance model and learned expansion: a memory's evidence value is max(p(evidence), its path score). Default true. */
  pathScore?: boolean;
  /**
   * Questions that need many memories (ours, issue 38 point 2; `breadth.ts`): when the breadth model's
   * p(the question needs many memories) ≥ 0.5, search returns at least `wideK` memories (the top k are
   * the same) and marks the result `wide`, so `toContext` packs each item as an excerpt of at most
   * `excerptTokens` tokens; with `extraNodes` > 0 such a search may also visit that many more memories
   * (node cap and expansion budget raised; default 200, chosen on the BEAM train conversations 1–5: docs/graph.md). Default: the shipped model, wideK 40, excerptTokens 30 (chosen on the BEAM train conversations 1–5: 30 packed more evidence than 60; docs/graph.md); null = never widen.
   */
  breadth?: { model?: LearnedModel; wideK?: number; excerptTokens?: number; extraNodes?: number } | null;
  /**
   * The link stage (ours, issue 38; `links.ts`, `jev-links.ts`): after the rounds, the top `links.seeds`
   * memories bring in up to `links.maxNew` unvisited neighbours, and each memory's evidence value
   * becomes this model's p(evidence | own p, the edges to the seeds). Needs the learned relevance model
   * and the scope snapshot. Default: the shipped model when `LINKS_ON_BY_DEFAULT` (GloVe only), else
   * none; `null` = no link stage (ablation).
   */
  linkModel?: LearnedModel | null;
  /** Seeds and admitted neighbours of the link stage (ours). Default 5 seeds, 60 neighbours. */
  links?: { seeds?: number; maxNew?: number };
  /** Run the link stage even without a model and put every candidate's link features in `trace.links.rows` (for training). Default false. */
  collectLinks?: boolean;
  /** Run the learned rounds without a model (each neighbour's own p(evidence) stands in) and put every edge asked about in `trace.expansion` (for training). Default false. */
  collectExpansion?: boolean;
  /**
   * Sub-query anchors (ours, issue 38; `jev-subqueries.ts`): the question cut into clause / conjunct
   * parts, each part's vector and lemma-BM25 top `seeds` (default 5) added to the anchors, and with
   * `priorWeight` > 0 (default 0) the part rankings fused into the prior; only for questions whose
   * routing multi-hop need is ≥ `minMultiHop` (default 0). Default null (off: no held-out gain, docs/graph.md).
   */
  subQueries?: { seeds?: number; priorWeight?: number; minMultiHop?: number } | null;
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
  seedsPerRanking: 20,
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
  stripQueryNames: true,
  stateOrder: true,
  stateBringIn: false,
  stateLift: true,
  scoreTopN: 5,
  priorRrfK: 30,
  recencyBeta: 0.1,
  caps: { controllerCalls: 16, nodes: 100, edges: 2400, timeMs: 15_000 },
  expansionCost: 0.02,
  expansionNodes: 60,
  pathScore: true,
} as const;

/** The options with every default filled in (the object `createJevRetriever` works with). */
export function resolveJevOptions(options: JevRetrieverOptions) {
  return {
    thetaAct: options.thetaAct ?? JEV_DEFAULTS.thetaAct,
    budget: options.budget ?? JEV_DEFAULTS.budget,
    minViewBudget: options.minViewBudget ?? JEV_DEFAULTS.minViewBudget,
    gamma: options.gamma ?? JEV_DEFAULTS.gamma,
    maxDepth: options.maxDepth ?? JEV_DEFAULTS.maxDepth,
    rrfK: options.rrfK ?? JEV_DEFAULTS.rrfK,
    maxAnchors: options.maxAnchors ?? JEV_DEFAULTS.maxAnchors,
    anchorPool: options.anchorPool ?? JEV_DEFAULTS.anchorPool,
    seedsPerRanking: options.seedsPerRanking ?? JEV_DEFAULTS.seedsPerRanking,
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
    relevanceModel: options.relevanceModel === undefined ? relevanceModelFor(options.embedder?.model) : options.relevanceModel,
    collectFeatures: options.collectFeatures ?? false,
    expansionModel: options.expansionModel === undefined ? expansionModelFor(options.embedder?.model) : options.expansionModel,
    expansionCost: options.expansionCost ?? JEV_DEFAULTS.expansionCost,
    expansionNodes: options.expansionNodes ?? JEV_DEFAULTS.expansionNodes,
    pathScore: options.pathScore ?? JEV_DEFAULTS.pathScore,
    collectExpansion: options.collectExpansion ?? false,
    linkModel: options.linkModel === undefined ? linkModelFor(options.embedder?.model) : options.linkModel,
    links: { seeds: options.links?.seeds ?? 5, maxNew: options.links?.maxNew ?? 60 },
    collectLinks: options.collectLinks ?? false,
    subQueries: options.subQueries ? { seeds: options.subQueries.seeds ?? 5, priorWeight: options.subQueries.priorWeight ?? 0, minMultiHop: options.subQueries.minMultiHop ?? 0 } : null,
    breadth: options.breadth === null ? null : { model: options.breadth?.model ?? defaultBreadthModel(), wideK: options.breadth?.wideK ?? 40, excerptTokens: options.breadth?.excerptTokens ?? 30, extraNodes: options.breadth?.extraNodes ?? 200 },
    stopBeforeRounds: options.stopBeforeRounds ?? false,
    stripQueryNames: options.stripQueryNames ?? JEV_DEFAULTS.stripQueryNames,
    stateOrder: options.stateOrder ?? JEV_DEFAULTS.stateOrder,
    stateBringIn: options.stateBringIn ?? JEV_DEFAULTS.stateBringIn,
    stateLift: options.stateLift ?? JEV_DEFAULTS.stateLift,
    answerability: options.answerability === undefined ? defaultAnswerability() : options.answerability,
    answerabilityWords: options.answerabilityWords ?? (/^wink-embeddings/.test(options.embedder?.model ?? '') ? 'words' : 'memories'),
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
  if (req.timeZone !== undefined) assertTimeZone(req.timeZone);
  return { k, nowMs };
}

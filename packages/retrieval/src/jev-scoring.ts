/**
 * Scoring (seed 000 §4 read path: batched candidate scoring; docs/architecture.md "One `search()`"):
 * the features of a visited memory, its place in the evidence order, and the controller's candidate
 * score s̃ of a round's candidates.
 */
import type { MemoryNode } from '@mem/core';
import { SCORING_QUESTIONS, probabilityOf, type Question } from './controller.js';
import { candidateScore, clamp01, recencyAdjustedScore, recencyScore, type RoutingProbabilities } from './equations.js';
import type { Anchors, Supersession } from './jev-anchors.js';
import { askController, type SearchContext } from './jev-context.js';
import { byScore, nodeTimeMs, snapshotSpeakers, stateItem, successorOf, type Visit } from './jev-visits.js';
import { previousTurn } from './lexical.js';
import { createDialogueScorer, queryTimeInterval } from './dialogue.js';
import { RELATIVE_FEATURES, createRelevanceFeaturizer, relativeFeatures, relevanceProbability, speakerStats, type CandidateSetStats, type RelativeFeature, type RelevanceFeature } from './relevance.js';

/** Per-node features of visited memories (memoised per search). */
export interface VisitFeatures {
  /** d_v: the dialogue term of a visit (0 with `dialogueWeight` 0). */
  dialogueOf(v: Visit): number;
  /** The relevance model's features of a visit, given the max prior of the visited set. */
  featuresOf(v: Visit, maxPrior: number): Record<RelevanceFeature, number>;
  /** True when a later memory supersedes `n` (successorOf, `supersedingSubtypes`). */
  isSuperseded(n: MemoryNode): boolean;
}

/**
 * The features of visited memories (ours): dialogue evidence (coverage of the query by the turn and
 * the turn it answers, answer act, speaker named by the query — d_v, computed once per node) and the
 * learned relevance model's features. A visit's features change only with its prior, the max prior
 * and its score (its node, cosine, depth, dialogue parts, superseded and seed-only flags are fixed
 * once it is visited): memoised on those three (ours, for latency).
 */
export function createVisitFeatures(ctx: SearchContext, routing: RoutingProbabilities, anchors: Anchors): VisitFeatures {
  const { o, query, nowMs, req } = ctx;
  const { snap, byId, vec, lex, lem } = anchors;
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
  const featurize = createRelevanceFeaturizer({
    query,
    routing,
    rankings: { vector: vec.map((h) => h.node.id), lexical: lex.map((h) => h.node.id), lemma: lem.map((h) => h.node.id), context: anchors.ctx.map((h) => h.node.id) },
    lexicalScores: new Map(lex.map((h) => [h.node.id, h.score])),
    stats: speakerStats(snap ?? [...byId.values()]),
  });
  const supersededMemo = new Map<string, boolean>();
  const isSuperseded = (n: MemoryNode) => {
    let s = supersededMemo.get(n.id);
    if (s === undefined) supersededMemo.set(n.id, (s = successorOf(n, snap, o.supersedingSubtypes) !== null));
    return s;
  };
  const featureMemo = new Map<Visit, { prior: number; maxPrior: number; score: number; f: Record<RelevanceFeature, number> }>();
  const featuresOf = (v: Visit, maxPrior: number): Record<RelevanceFeature, number> => {
    const m = featureMemo.get(v);
    if (m && m.prior === v.prior && m.maxPrior === maxPrior && m.score === v.score) return m.f;
    const f = featurize({ node: v.node, prior: v.prior, maxPrior, score: v.score, cosine: v.cosine, depth: v.depth, dialogue: dialoguePartsOf(v.node), superseded: isSuperseded(v.node), seedOnly: anchors.seedOnly.has(v.node.id) });
    featureMemo.set(v, { prior: v.prior, maxPrior, score: v.score, f });
    return f;
  };
  return { dialogueOf: (v) => dialoguePartsOf(v.node)?.value ?? 0, featuresOf, isSuperseded };
}

/** A visit with its evidence-order value. */
export interface RankedVisit {
  v: Visit;
  final: number;
}

/** The evidence order over visits (see `createEvidenceRanker`). */
export interface EvidenceRanker {
  /** `list` in evidence order (times `relevanceMs`). */
  ranked(list: Iterable<Visit>): RankedVisit[];
  /** The best `n` visited memories. */
  topVisits(n: number): Visit[];
  /** The controller state items of the best `n` visited memories. */
  evidenceItems(n: number): ReturnType<typeof stateItem>[];
  /** The evidence of a stopping state: items with `round` and, with the learned model, `relevance` (issue 16). */
  stoppingItems(n: number): (ReturnType<typeof stateItem> & { round: number; relevance?: number })[];
  /** The max prior of the visited set. */
  maxPriorOf(): number;
  /** p(evidence) (or the hand-weighted value) of a would-be visit `v` against the visited set, without its path score (learned expansion; not memoised). */
  probe(v: Visit): number;
}

/** The best values of the visited set (relativeFeatures), or null when the model reads none. */
type SetStats = CandidateSetStats | null;

/**
 * p(evidence) of visits under the learned relevance model, memoised per visit on its prior, the max
 * prior, its score and the set's best values (ours; see createEvidenceRanker).
 */
function createVisitPredictor(ctx: SearchContext, routing: RoutingProbabilities, featuresOf: VisitFeatures['featuresOf'], relativeModel: boolean) {
  const { o } = ctx;
  const sameSet = (a: SetStats, b: SetStats) =>
    a === b || (!!a && !!b && a.cosine === b.cosine && a.coverage === b.coverage && a.ownCoverage === b.ownCoverage && a.score === b.score && a.timePosition === b.timePosition);
  // The model's input vector of each visit, kept with the visit (ours, issue 33 point 2): the features
  // that are fixed once a memory is visited (its cosine, ranks, dialogue parts, node features …) are
  // read once from `featuresOf`; a prediction refills only the slots that move (`prior` with the
  // visit's prior and the max prior, `score`, and the gaps to the set's best values), with the same
  // arithmetic as the feature records, so the same vector and the same p(evidence) bit for bit.
  const relative = new Set<string>(RELATIVE_FEATURES);
  const keys = o.relevanceModel ? o.relevanceModel.features : [];
  const slot = (name: string) => (relative.has(name) ? -1 : keys.indexOf(name));
  const [sPrior, sScore] = [slot('prior'), slot('score')];
  const rel = (name: RelativeFeature) => (relativeModel ? keys.indexOf(name) : -1);
  const [sCosGap, sCovGap, sOwnGap, sScoreGap, sTimeGap, sRecGap] = [rel('cosine_gap'), rel('coverage_gap'), rel('own_coverage_gap'), rel('score_gap'), rel('time_gap'), rel('recency_x_time_gap')];
  // the model in two stages (logistic, compiled once per retriever): the sums over the features before
  // the first gap stay valid while `prior` and `score` do, so a change of the set's best values
  // alone costs only the gaps' terms (the same p bit for bit: compileStagedLogistic)
  const staged = ctx.stagedRelevance;
  const firstGap = Math.min(keys.length, ...[sCosGap, sCovGap, sOwnGap, sScoreGap, sTimeGap, sRecGap].filter((i) => i >= 0));
  const split = Math.max(sPrior, sScore) < firstGap ? firstGap : 0;
  interface Row {
    x: Float64Array;
    /** The first layer's sums over the features before `split` (staged predictor). */
    acc: Float64Array | null;
    /** The fixed values the set's best values are taken over. */
    cosine: number;
    coverage: number;
    ownCoverage: number;
    timePosition: number;
    /** The last prediction and what it was made on. */
    prior: number;
    maxPrior: number;
    score: number;
    set: SetStats;
    p: number;
  }
  const rows = new Map<Visit, Row>();
  const rowOf = (v: Visit, maxPrior: number): Row => {
    let r = rows.get(v);
    if (r === undefined) {
      const f = featuresOf(v, maxPrior) as Record<string, number>;
      const x = new Float64Array(keys.length);
      for (let i = 0; i < keys.length; i++) if (!relative.has(keys[i]!)) x[i] = f[keys[i]!]!;
      r = { x, acc: staged ? new Float64Array(staged.units) : null, cosine: f.cosine!, coverage: f.coverage!, ownCoverage: f.own_coverage!, timePosition: f.time_position!, prior: NaN, maxPrior: NaN, score: NaN, set: null, p: NaN };
      rows.set(v, r);
    }
    return r;
  };
  const rec = routing.recencyImportance;
  const pOf = (model: NonNullable<typeof o.relevanceModel>, v: Visit, maxPrior: number, set: SetStats) => {
    const r = rowOf(v, maxPrior);
    if (r.prior === v.prior && r.maxPrior === maxPrior && r.score === v.score && sameSet(r.set, set)) return r.p;
    const x = r.x;
    const prefixValid = r.prior === v.prior && r.maxPrior === maxPrior && r.score === v.score;
    // = createRelevanceFeaturizer's prior and score, and relativeFeatures (relevance.ts)
    if (sPrior >= 0) x[sPrior] = maxPrior > 0 ? v.prior / maxPrior : 0;
    if (sScore >= 0) x[sScore] = v.score;
    if (set) {
      const timeGap = r.timePosition - set.timePosition;
      if (sCosGap >= 0) x[sCosGap] = r.cosine - set.cosine;
      if (sCovGap >= 0) x[sCovGap] = r.coverage - set.coverage;
      if (sOwnGap >= 0) x[sOwnGap] = r.ownCoverage - set.ownCoverage;
      if (sScoreGap >= 0) x[sScoreGap] = v.score - set.score;
      if (sTimeGap >= 0) x[sTimeGap] = timeGap;
      if (sRecGap >= 0) x[sRecGap] = rec * timeGap;
    }
    let p: number;
    if (model === o.relevanceModel && staged && r.acc) {
      if (!prefixValid || split === 0) staged.start(x, split, r.acc);
      p = staged.finish(x, split, r.acc);
    } else p = model === o.relevanceModel && ctx.predictRelevance ? ctx.predictRelevance(x)[1]! : relevanceProbability(model, Array.from(x));
    r.prior = v.prior;
    r.maxPrior = maxPrior;
    r.score = v.score;
    r.set = set;
    r.p = p;
    return p;
  };
  return { rowOf, pOf };
}

/**
 * The evidence order (ours) over the visited set: with the learned relevance model, p(evidence) of
 * a visit (a successor at least as relevant as what it replaces; a superseded memory demoted for
 * "now" queries); without it (1 − η) · prior / max prior + η · s̃ + μ · d_v. p(evidence) depends on a
 * visit's prior, the max prior, its score and (for a model that reads RELATIVE_FEATURES) the best
 * values among the visited set: memoised on those (ours, for latency).
 */
export function createEvidenceRanker(ctx: SearchContext, routing: RoutingProbabilities, visited: Map<string, Visit>, features: VisitFeatures, supersession: Supersession): EvidenceRanker {
  const { o, st } = ctx;
  const { demote, replaces } = supersession;
  const { featuresOf, isSuperseded, dialogueOf } = features;
  const relativeModel = !!o.relevanceModel && o.relevanceModel.features.some((f) => (RELATIVE_FEATURES as readonly string[]).includes(f));
  const { rowOf, pOf } = createVisitPredictor(ctx, routing, featuresOf, relativeModel);
  const maxPriorOf = () => {
    let maxPrior = 0;
    for (const x of visited.values()) if (x.prior > maxPrior) maxPrior = x.prior;
    return maxPrior;
  };
  /**
   * The best values among ALL visited candidates (as train.ts computes them over a question's
   * candidates): candidateSetStats of their feature records, read from the fixed values kept per
   * visit and their scores (the same maxima).
   */
  const setStatsOf = (maxPrior: number): SetStats => {
    if (!relativeModel) return null;
    let cosine = -Infinity;
    let coverage = -Infinity;
    let ownCoverage = -Infinity;
    let score = -Infinity;
    let timePosition = -Infinity;
    for (const v of visited.values()) {
      const r = rowOf(v, maxPrior);
      if (r.cosine > cosine) cosine = r.cosine;
      if (r.coverage > coverage) coverage = r.coverage;
      if (r.ownCoverage > ownCoverage) ownCoverage = r.ownCoverage;
      if (v.score > score) score = v.score;
      if (r.timePosition > timePosition) timePosition = r.timePosition;
    }
    const f = (x: number) => (Number.isFinite(x) ? x : 0);
    return { cosine: f(cosine), coverage: f(coverage), ownCoverage: f(ownCoverage), score: f(score), timePosition: f(timePosition) };
  };
  const finalOf = (v: Visit, maxPrior: number, set: SetStats) => {
    const superseded = demote > 0 && isSuperseded(v.node);
    if (o.relevanceModel) {
      let p = pOf(o.relevanceModel, v, maxPrior, set);
      // the successor of a superseded memory is at least as relevant as what it replaces
      for (const u of replaces.get(v.node.id) ?? []) p = Math.max(p, pOf(o.relevanceModel, u, maxPrior, set));
      // learned expansion (issue 38): a memory reached by a path whose p(evidence) is higher keeps that path score
      if (v.pathP !== undefined && o.pathScore) p = Math.max(p, v.pathP);
      // the link stage (issue 38): p(evidence) given the edges to the top memories replaces the memory's own p
      if (v.linkP !== undefined) p = v.linkP;
      return superseded ? p * (1 - demote) : p;
    }
    const value = (1 - o.evidenceMix) * (maxPrior > 0 ? v.prior / maxPrior : 0) + o.evidenceMix * v.score;
    const kept = superseded ? value * (1 - demote) : value;
    return kept + o.dialogueWeight * dialogueOf(v);
  };
  const ranked = (list: Iterable<Visit>) => {
    const t = performance.now();
    const maxPrior = maxPriorOf();
    const set = setStatsOf(maxPrior);
    const out: RankedVisit[] = [];
    for (const v of list) out.push({ v, final: finalOf(v, maxPrior, set) });
    // the same comparisons on the same order as sorting the visits by a map of their values (stable)
    out.sort((a, b) => b.final - a.final || byScore(a.v, b.v));
    st.relevanceMs += performance.now() - t;
    return out;
  };
  const topVisits = (n: number) => ranked(visited.values()).slice(0, n).map((x) => x.v);
  let probeSet: { maxPrior: number; size: number; set: SetStats } | null = null;
  return {
    ranked,
    topVisits,
    evidenceItems: (n) => topVisits(n).map(stateItem),
    stoppingItems: (n) =>
      ranked(visited.values())
        .slice(0, n)
        .map(({ v, final: f }) => ({ ...stateItem(v), round: v.depth, ...(o.relevanceModel ? { relevance: f } : {}) })),
    maxPriorOf,
    probe: (v) => {
      const maxPrior = Math.max(maxPriorOf(), v.prior);
      if (!o.relevanceModel) return finalOf(v, maxPrior, null);
      const base = featuresOf(v, maxPrior) as Record<string, number>;
      // the visited set's stats, recomputed only when the set or its max prior changed
      if (!probeSet || probeSet.maxPrior !== maxPrior || probeSet.size !== visited.size) probeSet = { maxPrior, size: visited.size, set: setStatsOf(maxPrior) };
      const set = probeSet.set;
      const rel = set ? (relativeFeatures(base as Record<RelevanceFeature, number>, set, routing.recencyImportance) as Record<string, number>) : null;
      const x = o.relevanceModel.features.map((f) => (rel && Object.prototype.hasOwnProperty.call(rel, f) ? rel[f] : base[f]));
      return ctx.predictRelevance ? ctx.predictRelevance(x as number[])[1]! : relevanceProbability(o.relevanceModel, x as number[]);
    },
  };
}

/** The candidate score s̃ of a visit the controller is not asked about: its Noul answers neutral (0.5). */
export function neutralScore(ctx: SearchContext, routing: RoutingProbabilities, v: Visit): number {
  const { o, nowMs } = ctx;
  return recencyAdjustedScore(
    candidateScore(
      { cosine: v.cosine, relevance: 0.5, viewProbability: v.view ? routing[v.view] : 1, relationUsefulness: v.view ? 0.5 : 1, newInformation: 0.5, edgeProbability: v.edgeProbability, supportsEvidence: 0.5 },
      o.weights,
    ),
    routing.recencyImportance,
    recencyScore(nowMs, nodeTimeMs(v.node)),
    o.recencyBeta,
  );
}

/**
 * Batched candidate scoring (seed 000 §4): one System-One call for the `scoreTopN` candidates with
 * the highest prior (ours; the rest get neutral 0.5 Noul answers), s = candidateScore, then the
 * recency adjustment s̃. Sets `v.score` of every visit in `all`. No call once the controller cap is hit.
 */
export async function scoreCandidates(ctx: SearchContext, routing: RoutingProbabilities, ranker: EvidenceRanker, all: Visit[]): Promise<void> {
  const { o, nowMs, query } = ctx;
  if (all.length === 0) return;
  const cands = [...all].sort((a, b) => b.prior - a.prior).slice(0, o.scoreTopN);
  const asked = new Set(cands);
  for (const v of all.filter((x) => !asked.has(x))) v.score = neutralScore(ctx, routing, v);
  let answers: Record<string, unknown> = {};
  if (ctx.calls < o.caps.controllerCalls) {
    const qs: Record<string, Question> = {};
    cands.forEach((v, i) => {
      for (const [key, f] of Object.entries(SCORING_QUESTIONS)) {
        if (key === 'relation_usefulness' && !v.view) continue; // anchors were reached by no relation
        qs[`candidate_${i}_${key}`] = f(i);
      }
    });
    answers = await askController(ctx, { query, candidates: cands.map(stateItem), evidence: ranker.evidenceItems(o.evidenceK) }, qs);
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
}

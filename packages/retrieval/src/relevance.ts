/**
 * Learned candidate relevance (ours): the System-One question "is this visited memory evidence for the
 * query?" answered by a small logistic model trained on the dev sets' evidence labels (LoCoMo dev
 * conversations 0–3 and BEAM 500K conversations 1–5; script: apps/demo-agent/scripts/read-path/), shipped
 * as `models/relevance.json` in the `mem.learned/1` format of `@mem/system-one`.
 *
 * The features are the same for every kind of chat (no dataset switch): the retrieval prior and the
 * rank of the memory in each anchor ranking, the controller's candidate score and cosine, the dialogue
 * signals (coverage by the turn and the turn it answers, answer act, the named speaker, the query's
 * time), and role signals measured on the scope itself — how much of a speaker's talk is about
 * themselves ("I", "my") and is questions, the turn's own first- and second-person share, length —
 * crossed with whether the query asks about the asker ("I", "my"), plus the memory's position in the
 * scope's time span crossed with the query's recency importance, and whether a later memory
 * supersedes it; the coverage of the query by the turn's own words, alone and crossed with the turn's
 * question share (a turn that only asks the query again), the store BM25 score relative to the best
 * one, and whether the memory is an anchor only because one ranking put it near its top.
 */
import { parseLearnedModel, predictProbability, type LearnedModel } from '@mem/system-one';
import type { MemoryNode } from '@mem/core';
import type { RoutingProbabilities } from './equations.js';
import { nodeQuestionShare, speakerTokens } from './dialogue.js';
import type { ScopeSnapshot } from './lexical.js';
import relevanceJson from './models/relevance.json';
import relevanceMiniLmJson from './models/relevance.minilm.json';

/** Feature names of the relevance model, in model order. */
export const RELEVANCE_FEATURES = [
  'prior',
  'score',
  'cosine',
  'rank_vector',
  'rank_lexical',
  'rank_lemma',
  'rank_context',
  'anchor',
  'coverage',
  'answerness',
  'question_share',
  'named_speaker',
  'time_match',
  'turn_first_person',
  'turn_second_person',
  'turn_length',
  'speaker_first_person',
  'speaker_question_rate',
  'query_first_person',
  'qfp_x_speaker_first_person',
  'qfp_x_turn_first_person',
  'time_position',
  'recency_x_time_position',
  'superseded_x_recency',
  'temporal_x_time_match',
  'own_coverage',
  'question_x_own_coverage',
  'lexical_score_ratio',
  'seed_only',
  'turn_names_speaker',
  'cosine_x_turn_names',
] as const;

export type RelevanceFeature = (typeof RELEVANCE_FEATURES)[number];

let shipped: LearnedModel | null = null;
let shippedMiniLm: LearnedModel | null = null;
/** The shipped relevance model (`models/relevance.json`, trained on GloVe memories), validated once. */
export function defaultRelevanceModel(): LearnedModel {
  if (!shipped) shipped = parseLearnedModel(relevanceJson);
  return shipped;
}

/**
 * The shipped relevance model for the memories' embedder (ours, issue 16): `models/relevance.minilm.json`
 * when `embedderModel` (the `Embedder.model` the memories were embedded with) is all-MiniLM-L6-v2 (fp32 or
 * `:q8`), trained by the same script and recipe on MiniLM memories of the same train conversations,
 * since the cosine features' scale is the encoder's; `defaultRelevanceModel()` (trained on GloVe
 * memories) for every other embedder. The choice depends on the encoder only, never on the data set.
 */
export function relevanceModelFor(embedderModel: string | undefined): LearnedModel {
  if (embedderModel && /^all-minilm-l6-v2(?::q8)?$/i.test(embedderModel)) {
    if (!shippedMiniLm) shippedMiniLm = parseLearnedModel(relevanceMiniLmJson);
    return shippedMiniLm;
  }
  return defaultRelevanceModel();
}

const FIRST = new Set(['i', 'me', 'my', 'mine', 'myself', "i'm", "i've", "i'd", "i'll", 'im', 'ive']);
const SECOND = new Set(['you', 'your', 'yours', 'yourself', "you're", "you've", "you'll", "you'd"]);
const words = (s: string): string[] => s.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];

/** Shares of first-person and second-person words in `text` (0 for no words). */
export function personShares(text: string): { first: number; second: number } {
  const w = words(text);
  if (!w.length) return { first: 0, second: 0 };
  let f = 0;
  let s = 0;
  for (const t of w) {
    if (FIRST.has(t)) f++;
    else if (SECOND.has(t)) s++;
  }
  return { first: f / w.length, second: s / w.length };
}

const personMemo = new WeakMap<MemoryNode, { first: number; second: number }>();
/** {@link personShares} of a node's text, memoised per node object (ours, for latency). */
function nodePersonShares(n: MemoryNode): { first: number; second: number } {
  let p = personMemo.get(n);
  if (!p) personMemo.set(n, (p = personShares(n.text)));
  return p;
}

/** Whether a query asks about its asker: it says "I", "me", "my" … (1) or not (0). */
export function queryFirstPerson(query: string): number {
  return words(query).some((t) => FIRST.has(t)) ? 1 : 0;
}

interface SpeakerStats {
  /** Lower-case name tokens of the scope's speakers stored as proper names (`speakerTokens`). */
  names: Set<string>;
  firstPerson: Map<string, number>;
  questionRate: Map<string, number>;
  minMs: number;
  spanMs: number;
}
const statsCache = new WeakMap<ScopeSnapshot | MemoryNode[], SpeakerStats>();

/**
 * Per-speaker role statistics of a scope (cached per snapshot): the share of a speaker's turns that
 * use first-person words, and the share that contain a question; and the scope's time span.
 */
export function speakerStats(source: ScopeSnapshot | MemoryNode[]): SpeakerStats {
  let s = statsCache.get(source);
  if (s) return s;
  const nodes = Array.isArray(source) ? source : source.nodes;
  const fp = new Map<string, { n: number; f: number; q: number }>();
  let min = Infinity;
  let max = -Infinity;
  for (const n of nodes) {
    const t = Date.parse(n.observedAt);
    if (t < min) min = t;
    if (t > max) max = t;
    const key = n.speaker ?? '';
    const e = fp.get(key) ?? { n: 0, f: 0, q: 0 };
    e.n++;
    if (nodePersonShares(n).first > 0) e.f++;
    if (nodeQuestionShare(n) > 0) e.q++;
    fp.set(key, e);
  }
  s = {
    names: speakerTokens([...fp.keys()].filter((k) => /^\p{Lu}/u.test(k.trim()))),
    firstPerson: new Map([...fp].map(([k, e]) => [k, e.f / e.n])),
    questionRate: new Map([...fp].map(([k, e]) => [k, e.q / e.n])),
    minMs: Number.isFinite(min) ? min : 0,
    spanMs: Number.isFinite(max - min) && max > min ? max - min : 1,
  };
  statsCache.set(source, s);
  return s;
}

/**
 * 1 when the turn's text contains a token of a speaker's name (`names`, lower case), else 0 (ours,
 * issue 16). Turns that name a speaker are mostly addressed to them ("Bye Mel!"), and a sentence
 * encoder weighs a shared name heavily, so their cosine to a question naming that speaker is inflated
 * (README, "Why flat dense retrieval gets worse with MiniLM on LoCoMo"); the model can discount it.
 * Role labels stored in lower case ("user", "assistant") are not names, so it is 0 on such chats.
 */
export function turnNamesSpeaker(text: string, names: ReadonlySet<string>): number {
  if (names.size === 0) return 0;
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) if (names.has(w)) return 1;
  return 0;
}

/** Reciprocal rank 10 / (10 + rank) of a 1-based rank; 0 when not ranked. */
export function rankFeature(rank: number | undefined): number {
  return rank === undefined || rank < 1 ? 0 : 10 / (10 + rank);
}

/** The query-independent features of a node within its scope's statistics. */
interface NodeFeatures {
  tfp: number;
  tsp: number;
  len: number;
  qs: number;
  sfp: number;
  sq: number;
  pos: number;
  nm: number;
}
const nodeFeatureMemo = new WeakMap<MemoryNode, { stats: SpeakerStats; m: NodeFeatures }>();
/**
 * The node-level features of a candidate (its person shares, length, question share, its speaker's
 * role rates, its position in the scope's time span, whether it names a speaker), memoised per node
 * object and scope statistics (ours, issue 33 point 2: they were computed again in every search;
 * a snapshot's nodes and its statistics live as long as the scope version).
 */
function nodeFeatures(n: MemoryNode, stats: SpeakerStats): NodeFeatures {
  const hit = nodeFeatureMemo.get(n);
  if (hit && hit.stats === stats) return hit.m;
  const ps = nodePersonShares(n);
  const m: NodeFeatures = {
    tfp: ps.first,
    tsp: ps.second,
    len: Math.log1p(n.text.length) / 10,
    qs: nodeQuestionShare(n),
    sfp: stats.firstPerson.get(n.speaker ?? '') ?? 0,
    sq: stats.questionRate.get(n.speaker ?? '') ?? 0,
    pos: (Date.parse(n.observedAt) - stats.minMs) / stats.spanMs,
    nm: turnNamesSpeaker(n.text, stats.names),
  };
  nodeFeatureMemo.set(n, { stats, m });
  return m;
}

/** What the featurizer needs to know about one visited candidate. */
export interface CandidateView {
  node: MemoryNode;
  prior: number;
  maxPrior: number;
  score: number;
  cosine: number;
  depth: number;
  dialogue: { coverage: number; ownCoverage?: number; answerness: number; speaker: number; time: number } | null;
  superseded: boolean;
  /** An anchor brought in by one ranking's top (`seedsPerRanking`), not by the fused top. Default false. */
  seedOnly?: boolean;
}

/**
 * A featurizer for one query (ours): `rankings` are the anchor rankings (node ids, best first) of the
 * vector, store BM25, lemma BM25 and context lemma BM25 searches. Node-level parts are memoised.
 */
export function createRelevanceFeaturizer(input: {
  query: string;
  routing: RoutingProbabilities;
  rankings: { vector: string[]; lexical: string[]; lemma: string[]; context: string[] };
  /** The store BM25 scores of the lexical ranking (higher is better), for `lexical_score_ratio`. */
  lexicalScores?: ReadonlyMap<string, number>;
  stats: SpeakerStats;
}): (c: CandidateView) => Record<RelevanceFeature, number> {
  let maxLex = 0;
  for (const v of input.lexicalScores?.values() ?? []) if (v > maxLex) maxLex = v;
  const rank = (ids: string[]) => new Map(ids.map((id, i) => [id, i + 1]));
  const r = { vector: rank(input.rankings.vector), lexical: rank(input.rankings.lexical), lemma: rank(input.rankings.lemma), context: rank(input.rankings.context) };
  const qfp = queryFirstPerson(input.query);
  return (c) => {
    const n = c.node;
    const m = nodeFeatures(n, input.stats);
    const d = c.dialogue ?? { coverage: 0, ownCoverage: 0, answerness: 0, speaker: 0, time: 0 };
    const own = d.ownCoverage ?? 0;
    const rec = input.routing.recencyImportance;
    return {
      prior: c.maxPrior > 0 ? c.prior / c.maxPrior : 0,
      score: c.score,
      cosine: c.cosine,
      rank_vector: rankFeature(r.vector.get(n.id)),
      rank_lexical: rankFeature(r.lexical.get(n.id)),
      rank_lemma: rankFeature(r.lemma.get(n.id)),
      rank_context: rankFeature(r.context.get(n.id)),
      anchor: c.depth === 0 ? 1 : 0,
      coverage: d.coverage,
      answerness: d.answerness,
      question_share: m.qs,
      named_speaker: d.speaker,
      time_match: d.time,
      turn_first_person: m.tfp,
      turn_second_person: m.tsp,
      turn_length: m.len,
      speaker_first_person: m.sfp,
      speaker_question_rate: m.sq,
      query_first_person: qfp,
      qfp_x_speaker_first_person: qfp * m.sfp,
      qfp_x_turn_first_person: qfp * m.tfp,
      time_position: m.pos,
      recency_x_time_position: rec * m.pos,
      superseded_x_recency: c.superseded ? rec : 0,
      temporal_x_time_match: input.routing.temporal * d.time,
      own_coverage: own,
      question_x_own_coverage: m.qs * own,
      lexical_score_ratio: maxLex > 0 ? Math.max(0, input.lexicalScores!.get(n.id) ?? 0) / maxLex : 0,
      seed_only: c.seedOnly ? 1 : 0,
      turn_names_speaker: m.nm,
      cosine_x_turn_names: c.cosine * m.nm,
    };
  };
}

/**
 * Features of a candidate relative to the query's other candidates (ours, issue 16: ordering): the gap
 * to the best candidate of the same search in cosine, coverage (with the previous turn, and by the
 * turn alone), controller score and position in time (0 for the newest candidate), and that time gap
 * × the query's recency importance r(q). A memory is evidence less by its absolute cosine than by how
 * it stands among what the search found.
 */
export const RELATIVE_FEATURES = ['cosine_gap', 'coverage_gap', 'own_coverage_gap', 'score_gap', 'time_gap', 'recency_x_time_gap'] as const;
export type RelativeFeature = (typeof RELATIVE_FEATURES)[number];

/** The features the shipped relevance model reads: per candidate, then relative to the candidate set. */
export const RELEVANCE_MODEL_FEATURES = [...RELEVANCE_FEATURES, ...RELATIVE_FEATURES] as const;

/** The best values among a search's candidates that {@link relativeFeatures} measures gaps to. */
export interface CandidateSetStats {
  cosine: number;
  coverage: number;
  ownCoverage: number;
  score: number;
  timePosition: number;
}

/** Maxima of cosine, coverage, own coverage, score and time position over `candidates` (all 0 when empty). */
export function candidateSetStats(candidates: Iterable<Pick<Record<RelevanceFeature, number>, 'cosine' | 'coverage' | 'own_coverage' | 'score' | 'time_position'>>): CandidateSetStats {
  let cosine = -Infinity;
  let coverage = -Infinity;
  let ownCoverage = -Infinity;
  let score = -Infinity;
  let timePosition = -Infinity;
  for (const c of candidates) {
    if (c.cosine > cosine) cosine = c.cosine;
    if (c.coverage > coverage) coverage = c.coverage;
    if (c.own_coverage > ownCoverage) ownCoverage = c.own_coverage;
    if (c.score > score) score = c.score;
    if (c.time_position > timePosition) timePosition = c.time_position;
  }
  const f = (x: number) => (Number.isFinite(x) ? x : 0);
  return { cosine: f(cosine), coverage: f(coverage), ownCoverage: f(ownCoverage), score: f(score), timePosition: f(timePosition) };
}

/** The {@link RELATIVE_FEATURES} of one candidate: its value − the set's best (≤ 0), and time gap × r(q). */
export function relativeFeatures(c: Record<RelevanceFeature, number>, set: CandidateSetStats, recencyImportance: number): Record<RelativeFeature, number> {
  const timeGap = c.time_position - set.timePosition;
  return {
    cosine_gap: c.cosine - set.cosine,
    coverage_gap: c.coverage - set.coverage,
    own_coverage_gap: c.own_coverage - set.ownCoverage,
    score_gap: c.score - set.score,
    time_gap: timeGap,
    recency_x_time_gap: recencyImportance * timeGap,
  };
}

/** p(evidence) of a candidate under `model` (features by name, or a vector in `model.features` order). */
export function relevanceProbability(model: LearnedModel, features: Record<RelevanceFeature, number> | readonly number[]): number {
  return predictProbability(model, features);
}

/**
 * Learned expansion (ours, issue 38 point 1): the System-One question "is the memory this edge leads
 * to evidence for the query?", asked of every neighbour a frontier memory reaches by an edge and
 * answered by a small logistic model trained on the dev sets' evidence labels (the train split of the
 * read-path corpus, as the relevance model is; script: apps/demo-agent/scripts/read-path/train-expansion.ts),
 * shipped as `models/expansion.json` in the `mem.learned/1` format of `@mem/system-one`.
 *
 * The features describe the edge (view, subtype, p, direction, hop), the two memories it joins (the
 * parent's p(evidence) and rank, the neighbour's own p(evidence) as a would-be candidate, the query
 * words each covers, shared entities, time gap, same speaker, cosine to the query) and the query's
 * routing (the p of the edge's view, multi-hop need, temporal). `bridge` = the parent covers the query
 * and shares an entity with the neighbour: the first step of a two-memory path.
 */
import type { MemoryNode, Relation } from '@mem/core';
import { parseLearnedModel, type LearnedModel } from '@mem/system-one';
import type { RoutingProbabilities } from './equations.js';
import expansionJson from './models/expansion.json';

/** Feature names of the expansion model, in model order. */
export const EXPANSION_FEATURES = [
  'rel_p',
  'parent_p',
  'rel_x_parent',
  'parent_rank',
  'edge_p',
  'out',
  'hop',
  'view_semantic',
  'view_temporal',
  'view_causal',
  'view_entity',
  'sub_same_entity',
  'sub_related',
  'sub_precedes',
  'sub_concurrent',
  'sub_same_episode',
  'sub_state',
  'sub_leads_to',
  'sub_alias',
  'shared_entities',
  'coverage',
  'own_coverage',
  'parent_coverage',
  'bridge',
  'time_gap',
  'same_speaker',
  'cosine',
  'routing_view',
  'multi_hop',
  'temporal_route',
  'reach',
] as const;

export type ExpansionFeature = (typeof EXPANSION_FEATURES)[number];

let shipped: LearnedModel | null = null;
/** The shipped expansion model (`models/expansion.json`, trained on GloVe memories), validated once. */
export function defaultExpansionModel(): LearnedModel {
  if (!shipped) shipped = parseLearnedModel(expansionJson);
  return shipped;
}

/** Whether the shipped expansion model is on by default (set when it helped on the held-out conversations; docs/graph.md). */
export const EXPANSION_ON_BY_DEFAULT = false;

/**
 * The default expansion model for the memories' embedder: the shipped one for embedders other than
 * MiniLM when {@link EXPANSION_ON_BY_DEFAULT}, else null (the hand rounds). Its features include the
 * relevance model's p(evidence), whose scale is the encoder's: it was trained on GloVe memories only.
 */
export function expansionModelFor(embedderModel: string | undefined): LearnedModel | null {
  if (!EXPANSION_ON_BY_DEFAULT) return null;
  if (embedderModel && /^all-minilm-l6-v2(?::q8)?$/i.test(embedderModel)) return null;
  return defaultExpansionModel();
}

/** What one edge from a frontier memory to a neighbour is described by (all numbers already computed by the read path). */
export interface ExpansionEdge {
  relation: Relation;
  parent: MemoryNode;
  neighbour: MemoryNode;
  /** The parent's evidence-order value (p(evidence) with the learned relevance model). */
  parentP: number;
  /** 0-based rank of the parent in the frontier. */
  parentRank: number;
  /** p(evidence) of the neighbour as a would-be candidate (the relevance model's answer). */
  relP: number;
  /** 1-based depth of the round. */
  hop: number;
  /** The neighbour's and the parent's relevance features `coverage` / `own_coverage` (query words covered). */
  coverage: number;
  ownCoverage: number;
  parentCoverage: number;
  /** Cosine of the neighbour to the query. */
  cosine: number;
  /** How many frontier edges reach the neighbour this round. */
  reach: number;
}

const SUBTYPE_FEATURE: Record<string, ExpansionFeature> = {
  SAME_ENTITY: 'sub_same_entity',
  RELATED_TO: 'sub_related',
  PRECEDES: 'sub_precedes',
  CONCURRENT: 'sub_concurrent',
  SAME_EPISODE: 'sub_same_episode',
  UPDATES: 'sub_state',
  OBSOLETES: 'sub_state',
  CONTRADICTS: 'sub_state',
  REDUNDANT_WITH: 'sub_state',
  LEADS_TO: 'sub_leads_to',
  ENTITY_ALIAS: 'sub_alias',
};

/** Number of entity strings two memories share (case-insensitive). */
export function sharedEntities(a: MemoryNode, b: MemoryNode): number {
  if (!a.entities?.length || !b.entities?.length) return 0;
  const s = new Set(a.entities.map((e) => e.toLowerCase()));
  let n = 0;
  for (const e of new Set(b.entities.map((x) => x.toLowerCase()))) if (s.has(e)) n++;
  return n;
}

const timeOf = (n: MemoryNode) => Date.parse(n.eventTime?.start ?? n.observedAt);

/** The expansion model's features of one edge, in {@link EXPANSION_FEATURES} order's names. */
export function expansionFeatures(e: ExpansionEdge, routing: RoutingProbabilities): Record<ExpansionFeature, number> {
  const r = e.relation;
  const shared = sharedEntities(e.parent, e.neighbour);
  const gapHours = Math.abs(timeOf(e.neighbour) - timeOf(e.parent)) / 3_600_000;
  const f: Record<ExpansionFeature, number> = Object.fromEntries(EXPANSION_FEATURES.map((k) => [k, 0])) as Record<ExpansionFeature, number>;
  f.rel_p = e.relP;
  f.parent_p = e.parentP;
  f.rel_x_parent = e.relP * e.parentP;
  f.parent_rank = 1 / (1 + e.parentRank);
  f.edge_p = Math.max(0, Math.min(1, r.probability));
  f.out = r.from === e.parent.id ? 1 : 0;
  f.hop = e.hop;
  f[`view_${r.view}` as ExpansionFeature] = 1;
  const sub = SUBTYPE_FEATURE[r.subtype];
  if (sub) f[sub] = 1;
  f.shared_entities = Math.log1p(shared);
  f.coverage = e.coverage;
  f.own_coverage = e.ownCoverage;
  f.parent_coverage = e.parentCoverage;
  f.bridge = e.parentCoverage * Math.min(1, shared);
  f.time_gap = Number.isFinite(gapHours) ? Math.log1p(gapHours) / 10 : 1;
  f.same_speaker = e.parent.speaker && e.parent.speaker === e.neighbour.speaker ? 1 : 0;
  f.cosine = e.cosine;
  f.routing_view = routing[r.view];
  f.multi_hop = routing.multiHopNeed;
  f.temporal_route = routing.temporal;
  f.reach = Math.log1p(e.reach);
  return f;
}

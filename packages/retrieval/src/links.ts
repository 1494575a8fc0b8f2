/**
 * Found-evidence links (ours, issue 38 point 1): the System-One question "is this memory evidence,
 * given the edges that join it to the memories the evidence order already ranks highest?", answered
 * by a small logistic model over the memory's own p(evidence) and, per edge group, the best
 * p(evidence) of a top memory it is joined to (a path score from found evidence). Trained on the train
 * split of the read-path corpus (LoCoMo dev 0–3, BEAM 1–5; script:
 * apps/demo-agent/scripts/read-path/train-links.ts), shipped as `models/links.json` in the
 * `mem.learned/1` format of `@mem/system-one`.
 *
 * Why (docs/graph.md "Why traversal adds little"): on LoCoMo multi-hop questions most missed evidence
 * is visited but ranked just below k, or one edge from a visited memory — mostly a PRECEDES /
 * CONCURRENT edge (the write path's time-order edge between similar memories of different sessions)
 * to evidence the order already put in its top k. The relevance model sees each memory alone.
 */
import type { MemoryNode, Relation } from '@mem/core';
import { parseLearnedModel, type LearnedModel } from '@mem/system-one';
import type { RoutingProbabilities } from './equations.js';
import linksJson from './models/links.json';

/** Edge groups of the link features (relation subtypes → group). */
export const LINK_GROUPS = ['episode', 'order', 'entity', 'semantic', 'state', 'causal'] as const;
export type LinkGroup = (typeof LINK_GROUPS)[number];

/** Feature names of the link model, in model order. */
export const LINK_FEATURES = [
  'own_logit',
  'own_rank',
  'seed',
  'fresh',
  'link_episode',
  'link_order',
  'link_entity',
  'link_semantic',
  'link_state',
  'link_causal',
  'linked_seeds',
  'linked_p_sum',
  'multi_hop',
  'link_x_multi_hop',
  'shared_entities',
] as const;
export type LinkFeature = (typeof LINK_FEATURES)[number];

/** The group of a relation subtype (unknown subtypes: by view). */
export function linkGroupOf(r: Pick<Relation, 'subtype' | 'view'>): LinkGroup {
  switch (r.subtype) {
    case 'SAME_EPISODE':
      return 'episode';
    case 'PRECEDES':
    case 'CONCURRENT':
      return 'order';
    case 'SAME_ENTITY':
    case 'ENTITY_ALIAS':
      return 'entity';
    case 'UPDATES':
    case 'OBSOLETES':
    case 'CONTRADICTS':
      return 'state';
    case 'LEADS_TO':
      return 'causal';
    default:
      return r.view === 'temporal' ? 'order' : r.view === 'entity' ? 'entity' : r.view === 'causal' ? 'causal' : 'semantic';
  }
}

/** One candidate as the link model sees it. */
export interface LinkCandidate {
  /** Its own p(evidence) (the relevance model's answer), in [0, 1]. */
  p: number;
  /** 0-based rank in the evidence order by own p. */
  rank: number;
  /** True when it is one of the seeds (the top memories links are read from). */
  seed: boolean;
  /** True when the link stage admitted it (it was not visited before). */
  fresh: boolean;
  /** Per edge group, the best own p of a seed (other than itself) it is joined to; 0 when none. */
  links: Record<LinkGroup, number>;
  /** Distinct seeds (other than itself) it is joined to, and the sum of their p. */
  linkedSeeds: number;
  linkedPSum: number;
  /** Entities it shares with the seeds it is joined to (count). */
  sharedEntities: number;
}

/** The link model's features of one candidate (`seeds` = how many seeds there are). */
export function linkFeatures(c: LinkCandidate, seeds: number, routing: Pick<RoutingProbabilities, 'multiHopNeed'>): number[] {
  const p = Math.min(1 - 1e-4, Math.max(1e-4, c.p));
  const best = Math.max(...LINK_GROUPS.map((g) => c.links[g]));
  const f: Record<LinkFeature, number> = {
    own_logit: Math.log(p / (1 - p)),
    own_rank: Math.log1p(c.rank) / Math.log(101),
    seed: c.seed ? 1 : 0,
    fresh: c.fresh ? 1 : 0,
    link_episode: c.links.episode,
    link_order: c.links.order,
    link_entity: c.links.entity,
    link_semantic: c.links.semantic,
    link_state: c.links.state,
    link_causal: c.links.causal,
    linked_seeds: seeds > 0 ? c.linkedSeeds / seeds : 0,
    linked_p_sum: c.linkedPSum,
    multi_hop: routing.multiHopNeed,
    link_x_multi_hop: best * routing.multiHopNeed,
    shared_entities: Math.log1p(c.sharedEntities),
  };
  return LINK_FEATURES.map((k) => f[k]);
}

/** Entities two memories share (case-insensitive count). */
export function sharedEntityCount(a: MemoryNode, b: MemoryNode): number {
  if (!a.entities?.length || !b.entities?.length) return 0;
  const s = new Set(a.entities.map((e) => e.toLowerCase()));
  let n = 0;
  for (const e of new Set(b.entities.map((x) => x.toLowerCase()))) if (s.has(e)) n++;
  return n;
}

let shipped: LearnedModel | null = null;
/** The shipped link model (`models/links.json`, trained on GloVe memories), validated once. */
export function defaultLinkModel(): LearnedModel {
  if (!shipped) shipped = parseLearnedModel(linksJson);
  return shipped;
}

/** Whether the shipped link model is on by default (set when it helped on the held-out conversations; docs/graph.md). */
export const LINKS_ON_BY_DEFAULT = false;

/**
 * The default link model for the memories' embedder: the shipped one for embedders other than MiniLM
 * when {@link LINKS_ON_BY_DEFAULT}, else null (no link stage). Its first feature is the relevance
 * model's p(evidence), whose scale is the encoder's: it was trained on GloVe memories only.
 */
export function linkModelFor(embedderModel: string | undefined): LearnedModel | null {
  if (!LINKS_ON_BY_DEFAULT) return null;
  if (embedderModel && /^all-minilm-l6-v2(?::q8)?$/i.test(embedderModel)) return null;
  return defaultLinkModel();
}

/**
 * The link stage (ours, issue 38 point 1; `links.ts`): after the rounds, the memories the evidence
 * order ranks highest (the seeds) bring in their unvisited neighbours over every view, and each
 * visited memory's evidence value becomes the link model's p(evidence | own p, the edges that join it
 * to the seeds). A path score from found evidence: a memory one edge from a top memory rises when the
 * model learned that such an edge marks evidence (on the train conversations).
 */
import type { Relation } from '@mem/core';
import { clamp01, type RoutingProbabilities } from './equations.js';
import type { Anchors } from './jev-anchors.js';
import type { SearchContext } from './jev-context.js';
import { neutralScore, type EvidenceRanker } from './jev-scoring.js';
import { dot, edgeDecay, type Visit } from './jev-visits.js';
import { LINK_GROUPS, linkFeatures, linkGroupOf, sharedEntityCount, type LinkGroup } from './links.js';
import { predictProbability } from '@mem/system-one';
import type { LinkRowTrace } from './types.js';

/** What the link stage did: how many memories it admitted, and (with `collectLinks`) every candidate's features. */
export interface LinkStage {
  admitted: number;
  rows?: LinkRowTrace[];
}

/**
 * Run the link stage on `visited` (mutated: admitted neighbours are added; each visit gets `linkP`
 * when a link model is set). Needs the scope snapshot and the learned relevance model; a no-op
 * without them. Times `expansionMs` (neighbour reads) and `relevanceMs` (the rankings).
 */
export function linkStage(ctx: SearchContext, input: { routing: RoutingProbabilities; anchors: Anchors; visited: Map<string, Visit>; ranker: EvidenceRanker }): LinkStage {
  const { o } = ctx;
  const { routing, anchors, visited, ranker } = input;
  const snap = anchors.snap;
  if (!snap || !o.relevanceModel || visited.size === 0) return { admitted: 0 };
  const m = o.links.seeds;
  // 1. the seeds by own p; their unvisited neighbours, best seed p × edge p first
  const seeds0 = ranker.ranked(visited.values()).slice(0, m);
  const tn = performance.now();
  const reach = new Map<string, { seed: (typeof seeds0)[number]; relation: Relation; priority: number }>();
  for (const s of seeds0) {
    for (const r of snap.adjacency.get(s.v.node.id) ?? []) {
      const other = r.from === s.v.node.id ? r.to : r.from;
      if (visited.has(other) || !snap.byId.has(other)) continue;
      const priority = s.final * clamp01(r.probability);
      const seen = reach.get(other);
      if (!seen || priority > seen.priority) reach.set(other, { seed: s, relation: r, priority });
    }
  }
  const admit = [...reach.entries()].sort((a, b) => b[1].priority - a[1].priority || (a[0] < b[0] ? -1 : 1)).slice(0, o.links.maxNew);
  const fresh = new Set<Visit>();
  for (const [id, { seed, relation: r }] of admit) {
    const node = snap.byId.get(id)!;
    const parent = seed.v;
    const v: Visit = {
      node,
      path: [...parent.path, r],
      view: r.view,
      cosine: dot(anchors.qvec, node.embedding),
      edgeProbability: clamp01(r.probability),
      prior: parent.prior * clamp01(r.probability) * edgeDecay(r, r.from === parent.node.id ? 'out' : 'in', o.edgeDecay, o.defaultEdgeDecay),
      score: 0,
      depth: parent.depth + 1,
    };
    v.score = neutralScore(ctx, routing, v);
    visited.set(id, v);
    fresh.add(v);
  }
  ctx.st.expansionMs += performance.now() - tn;
  // 2. own p of every visit against the grown set; the seeds again
  const ranked = ranker.ranked(visited.values());
  const seeds = ranked.slice(0, m);
  const seedP = new Map(seeds.map((s) => [s.v.node.id, s.final]));
  const rows: LinkRowTrace[] = [];
  const model = o.linkModel;
  const values: [Visit, number][] = [];
  ranked.forEach(({ v, final }, rank) => {
    const id = v.node.id;
    const links = Object.fromEntries(LINK_GROUPS.map((g) => [g, 0])) as Record<LinkGroup, number>;
    const linked = new Map<string, number>();
    for (const r of snap.adjacency.get(id) ?? []) {
      const other = r.from === id ? r.to : r.from;
      const p = other === id ? undefined : seedP.get(other);
      if (p === undefined) continue;
      const g = linkGroupOf(r);
      if (p > links[g]) links[g] = p;
      linked.set(other, p);
    }
    let shared = 0;
    for (const s of linked.keys()) shared += sharedEntityCount(v.node, snap.byId.get(s)!);
    const x = linkFeatures(
      { p: final, rank, seed: seedP.has(id), fresh: fresh.has(v), links, linkedSeeds: linked.size, linkedPSum: [...linked.values()].reduce((a, b) => a + b, 0), sharedEntities: shared },
      seeds.length,
      routing,
    );
    if (o.collectLinks) rows.push({ id, x });
    if (model) values.push([v, predictProbability(model, x)]);
  });
  // 3. the evidence value of each visit is its link p from now on (set after all features were read from own p)
  for (const [v, p] of values) v.linkP = p;
  return { admitted: fresh.size, ...(o.collectLinks ? { rows } : {}) };
}

/**
 * Learned expansion (ours, issue 38 point 1; `expansion.ts`): the rounds of traversal when an expansion
 * model is set. Each round reads every edge of the frontier's memories (all views not ablated), asks
 * the expansion question of each edge — p(the neighbour is evidence) — and keeps, per neighbour, the
 * best path's p (its path score). A neighbour not yet visited is admitted when that p is at least
 * `expansionCost` (the cost of one more candidate in units of p(evidence)), best first, within the
 * node cap plus `expansionNodes`; the next frontier is the admitted memories. Budgets and depth are
 * not fixed numbers: a round admits what is worth its cost, and the rounds stop when none is (or at
 * `maxDepth`, the edge cap, the time cap). A visited memory reached again keeps the best path score.
 */
import type { RelationView } from '@mem/core';
import { predictProbability } from '@mem/system-one';
import { clamp01, type RoutingProbabilities } from './equations.js';
import type { Anchors } from './jev-anchors.js';
import type { SearchContext } from './jev-context.js';
import { dot, edgeDecay, ZERO_BUDGET, type Visit } from './jev-visits.js';
import { neutralScore, type EvidenceRanker, type VisitFeatures } from './jev-scoring.js';
import { expansionFeatures } from './expansion.js';
import type { Neighbor } from '@mem/core';
import { snapshotNeighbors } from './lexical.js';
import type { ExpansionEdgeTrace, RoundTrace, StopReason } from './types.js';

const ALL_VIEWS: RelationView[] = ['semantic', 'temporal', 'causal', 'entity'];

/** What the learned rounds did (as the hand rounds report it). */
export interface LearnedTraversal {
  rounds: RoundTrace[];
  stopReason: StopReason | null;
  edgesExamined: number;
  /** Every edge asked about (only with `collectExpansion`; for training). */
  edges: ExpansionEdgeTrace[];
}

/**
 * The learned rounds. `scoreFresh` scores the admitted memories as the hand rounds do (controller
 * candidate score). Times the neighbour reads into `expansionMs`.
 */
export async function learnedTraverse(
  ctx: SearchContext,
  input: { routing: RoutingProbabilities; anchors: Anchors; visited: Map<string, Visit>; ranker: EvidenceRanker; features: VisitFeatures },
  scoreFresh: (fresh: Visit[]) => Promise<void>,
): Promise<LearnedTraversal> {
  const { o, store, scope, st } = ctx;
  const { routing, anchors, visited, ranker, features } = input;
  const model = o.expansionModel;
  const collect = o.collectExpansion;
  const views = ALL_VIEWS.filter((g) => !(o.ablation.views ?? []).includes(g));
  const rounds: RoundTrace[] = [];
  const edges: ExpansionEdgeTrace[] = [];
  let edgesExamined = 0;
  let stopReason: StopReason | null = null;
  const nodeCap = o.caps.nodes + o.expansionNodes;
  let frontier = ranker.ranked(visited.values()).slice(0, o.beamWidth);
  for (let d = 1; ; d++) {
    const tr = performance.now();
    if (d > o.maxDepth) { stopReason = 'depth'; break; }
    if (performance.now() - ctx.t0 > o.caps.timeMs) { stopReason = 'time_cap'; break; }
    if (frontier.length === 0) { stopReason = 'frontier_empty'; break; }
    if (edgesExamined >= o.caps.edges) { stopReason = 'edge_cap'; break; }
    const frontierIds = frontier.map((x) => x.v.node.id);
    const tn = performance.now();
    const limit = Math.max(1, o.caps.edges - edgesExamined);
    const nbs: Neighbor[] = anchors.snap ? snapshotNeighbors(anchors.snap, frontierIds, views, limit) : await store.neighbors(scope, frontierIds, { views, direction: 'both', limit });
    st.expansionMs += performance.now() - tn;
    edgesExamined += nbs.length;
    const rank = new Map(frontier.map((x, i) => [x.v.node.id, i]));
    const parentP = new Map(frontier.map((x) => [x.v.node.id, x.final]));
    const reach = new Map<string, number>();
    for (const nb of nbs) reach.set(nb.node.id, (reach.get(nb.node.id) ?? 0) + 1);
    const maxPrior = ranker.maxPriorOf();
    // per neighbour: the best path (p, the edge, the would-be visit)
    const best = new Map<string, { p: number; v: Visit }>();
    const probe = new Map<string, { v: Visit; relP: number }>();
    for (const nb of nbs) {
      if (nb.node.id === nb.fromId || frontierIds.includes(nb.node.id)) continue;
      const parent = visited.get(nb.fromId)!;
      const decay = edgeDecay(nb.relation, nb.relation.from === nb.fromId ? 'out' : 'in', o.edgeDecay, o.defaultEdgeDecay);
      let pr = probe.get(nb.node.id);
      if (!pr) {
        const seen = visited.get(nb.node.id);
        const v: Visit = seen ?? { node: nb.node, path: [...parent.path, nb.relation], view: nb.relation.view, cosine: dot(anchors.qvec, nb.node.embedding), edgeProbability: clamp01(nb.relation.probability), prior: parent.prior * clamp01(nb.relation.probability) * decay, score: 0, depth: d };
        if (!seen) v.score = neutralScore(ctx, routing, v);
        probe.set(nb.node.id, (pr = { v, relP: ranker.probe(v) }));
      }
      const nf = features.featuresOf(pr.v, maxPrior);
      const pf = features.featuresOf(parent, maxPrior);
      const x = expansionFeatures(
        {
          relation: nb.relation,
          parent: parent.node,
          neighbour: nb.node,
          parentP: parentP.get(nb.fromId) ?? 0,
          parentRank: rank.get(nb.fromId) ?? o.beamWidth,
          relP: pr.relP,
          hop: d,
          coverage: nf.coverage,
          ownCoverage: nf.own_coverage,
          parentCoverage: pf.own_coverage,
          cosine: pr.v.cosine,
          reach: reach.get(nb.node.id) ?? 1,
        },
        routing,
      );
      // without a model (collecting training rows) the neighbour's own p(evidence) stands in
      const p = model ? predictProbability(model, x) : pr.relP;
      if (collect) edges.push({ depth: d, from: nb.fromId, to: nb.node.id, visited: visited.has(nb.node.id), p, features: x });
      const b = best.get(nb.node.id);
      if (!b || p > b.p) {
        // the would-be visit follows the best path
        if (!visited.has(nb.node.id)) {
          pr.v.path = [...parent.path, nb.relation];
          pr.v.view = nb.relation.view;
          pr.v.edgeProbability = clamp01(nb.relation.probability);
          pr.v.prior = parent.prior * clamp01(nb.relation.probability) * decay;
        }
        best.set(nb.node.id, { p, v: pr.v });
      }
    }
    const admitted = ZERO_BUDGET();
    const fresh: Visit[] = [];
    let capHit: StopReason | null = null;
    for (const [id, b] of [...best.entries()].sort((a, c) => c[1].p - a[1].p)) {
      const seen = visited.get(id);
      if (seen) {
        if (model) seen.pathP = Math.max(seen.pathP ?? 0, b.p);
        continue;
      }
      if (b.p < o.expansionCost) continue;
      if (visited.size >= nodeCap) { capHit = 'node_cap'; break; }
      b.v.depth = d;
      if (model) b.v.pathP = b.p;
      visited.set(id, b.v);
      fresh.push(b.v);
      admitted[b.v.view!]++;
    }
    await scoreFresh(fresh);
    rounds.push({ depth: d, frontier: frontierIds, admitted, edgesExamined: nbs.length, stopping: null, stop: fresh.length === 0 || !!capHit, reason: capHit ?? (fresh.length === 0 ? 'frontier_empty' : null), ms: performance.now() - tr });
    if (capHit) { stopReason = capHit; break; }
    frontier = fresh
      .map((v) => ({ v, final: v.pathP ?? best.get(v.node.id)!.p }))
      .sort((a, c) => c.final - a.final)
      .slice(0, o.beamWidth);
  }
  return { rounds, stopReason, edgesExamined, edges };
}

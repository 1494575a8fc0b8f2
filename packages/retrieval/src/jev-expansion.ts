/**
 * Expansion (seed 000 §4 read path step 6: one round of graph traversal; docs/architecture.md "One
 * `search()`"): the frontier's neighbours over the views that still have budget, admitted by priority.
 */
import type { RelationView } from '@mem/core';
import { clamp01 } from './equations.js';
import type { Anchors } from './jev-anchors.js';
import type { BudgetPlan } from './jev-budgets.js';
import type { SearchContext } from './jev-context.js';
import { dot, edgeDecay, ZERO_BUDGET, type Visit } from './jev-visits.js';
import { snapshotNeighbors } from './lexical.js';
import type { StopReason } from './types.js';

/** What one round of expansion needs. */
export interface ExpansionInput {
  /** 1-based depth of the round. */
  depth: number;
  frontierIds: string[];
  /** Evidence-order value of each frontier node (id → final). */
  parentScore: Map<string, number>;
  /** Views with budget left (see budgetedViews). */
  open: RelationView[];
  /** Edges examined by earlier rounds. */
  edgesExamined: number;
}

/** What one round admitted. */
export interface Expansion {
  /** New visits, in admission order. */
  fresh: Visit[];
  admitted: Record<RelationView, number>;
  /** Edges examined this round. */
  edges: number;
  /** `edge_cap` or `node_cap` when a hard cap stopped the round. */
  capHit: StopReason | null;
}

/**
 * One round (ours in detail): one store call (or snapshot read) for every view that still has budget;
 * candidates of all views compete by priority = parent score × edge probability × edge decay, each
 * view within its own budget (`plan.spent` grows). A visited node reached again gains graph support
 * (part of the parent's prior). With only the episode context open, temporal edges other than
 * SAME_EPISODE are skipped. Times `expansionMs`.
 */
export async function expandRound(ctx: SearchContext, anchors: Anchors, visited: Map<string, Visit>, plan: BudgetPlan, input: ExpansionInput): Promise<Expansion> {
  const { o, store, scope, st } = ctx;
  const { snap, qvec } = anchors;
  const { spent, given, episodeOnly } = plan;
  const { open, parentScore, frontierIds, edgesExamined, depth: d } = input;
  const admitted = ZERO_BUDGET();
  const fresh: Visit[] = [];
  let capHit: StopReason | null = null;
  let roundEdges = 0;
  if (edgesExamined >= o.caps.edges) capHit = 'edge_cap';
  else if (open.length > 0) {
    const edgeLimit = Math.max(1, o.caps.edges - edgesExamined);
    const tn = performance.now();
    const neighbours = snap ? snapshotNeighbors(snap, frontierIds, open, edgeLimit) : await store.neighbors(scope, frontierIds, { views: open, direction: 'both', limit: edgeLimit });
    st.expansionMs += performance.now() - tn;
    roundEdges += neighbours.length;
    // each neighbour's edge decay and priority, computed once (not in every comparison of the sort;
    // the same values in the same stable sort, so the same order; ours, issue 33 point 2)
    const ranked = neighbours.map((nb) => {
      const decay = edgeDecay(nb.relation, nb.relation.from === nb.fromId ? 'out' : 'in', o.edgeDecay, o.defaultEdgeDecay);
      return { nb, decay, priority: (parentScore.get(nb.fromId) ?? 0) * nb.relation.probability * decay };
    });
    ranked.sort((a, b) => b.priority - a.priority);
    const supported = new Set<string>();
    for (const { nb, decay } of ranked) {
      const g = nb.relation.view;
      const parent = visited.get(nb.fromId)!;
      const seen = visited.get(nb.node.id);
      if (seen) {
        // Graph support (ours): a visited node reached again gains part of the parent's prior.
        const key = `${nb.fromId}>${nb.node.id}`;
        if (!supported.has(key) && seen !== parent) {
          supported.add(key);
          seen.prior += o.supportWeight * parent.prior * clamp01(nb.relation.probability) * decay;
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
        prior: parent.prior * clamp01(nb.relation.probability) * decay,
        score: 0,
        depth: d,
      };
      visited.set(nb.node.id, v);
      fresh.push(v);
      spent[g]++;
      admitted[g]++;
    }
  }
  return { fresh, admitted, edges: roundEdges, capHit };
}

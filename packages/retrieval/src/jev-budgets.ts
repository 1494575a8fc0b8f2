/** Budgets (seed 000 §4 read path steps 2–4; docs/architecture.md "One `search()`"): active views, per-view budgets, depth. */
import type { RelationView } from '@mem/core';
import { activeViews, allocateBudgets, traversalDepth, type RoutingProbabilities } from './equations.js';
import type { ResolvedJevOptions } from './jev-context.js';
import { ZERO_BUDGET } from './jev-visits.js';

/** What expansion may spend: `given[g]` new nodes per view, `spent[g]` so far, and the depth D(q). */
export interface BudgetPlan {
  active: RelationView[];
  given: Record<RelationView, number>;
  spent: Record<RelationView, number>;
  /** True when only the episode context (SAME_EPISODE edges, `episodeBudget`) keeps the temporal view open. */
  episodeOnly: boolean;
  depth: number;
}

/**
 * A(q) (activeViews), b_g (allocateBudgets), D(q) (traversalDepth); and the episode context (ours):
 * the next / previous turns of a dialogue stay in reach with a small budget even when the temporal
 * view is not active (an answer usually follows its question).
 */
export function planBudgets(o: ResolvedJevOptions, routing: RoutingProbabilities): BudgetPlan {
  const active = activeViews(routing, o.thetaAct, o.ablation.views ?? []);
  const given = allocateBudgets(routing, active, o.budget, o.minViewBudget, o.gamma);
  const episodeOnly = o.episodeBudget > 0 && active.length > 0 && !active.includes('temporal') && !(o.ablation.views ?? []).includes('temporal');
  if (episodeOnly) given.temporal = o.episodeBudget;
  return { active, given, spent: ZERO_BUDGET(), episodeOnly, depth: traversalDepth(routing.multiHopNeed, o.maxDepth) };
}

/** The views expansion may use: the active ones, and temporal for the episode context. */
export function budgetedViews(plan: BudgetPlan): RelationView[] {
  return [...plan.active, ...(plan.episodeOnly ? (['temporal'] as const) : [])];
}

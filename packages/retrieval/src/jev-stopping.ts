/**
 * Stopping (seed 000 §4 read path: the stop rule; docs/architecture.md "One `search()`"): the hard
 * checks before a round, and the stopping Nouls before the first round and after each round.
 */
import { STOPPING_QUESTIONS, stoppingAnswers, type Question } from './controller.js';
import { stoppingDecision } from './equations.js';
import { budgetedViews, type BudgetPlan } from './jev-budgets.js';
import { askController, type SearchContext } from './jev-context.js';
import type { EvidenceRanker } from './jev-scoring.js';
import type { RetrievalTrace, RoundTrace, StopReason } from './types.js';

function stoppingQuestions(): Record<string, Question> {
  const qs: Record<string, Question> = {};
  for (const [id, f] of Object.entries(STOPPING_QUESTIONS)) qs[id] = f();
  return qs;
}

/**
 * Why the search stops before round `d` starts (depth D(q) reached, time cap, controller-call cap,
 * empty frontier, every budgeted view spent), or null.
 */
export function roundStopReason(ctx: SearchContext, plan: BudgetPlan, d: number, frontierSize: number): StopReason | null {
  const { o } = ctx;
  if (d > plan.depth) return 'depth';
  if (performance.now() - ctx.t0 > o.caps.timeMs) return 'time_cap';
  if (ctx.calls >= o.caps.controllerCalls) return 'controller_cap';
  if (frontierSize === 0) return 'frontier_empty';
  if (budgetedViews(plan).every((g) => plan.spent[g] >= plan.given[g])) return 'budget';
  return null;
}

/**
 * Stopping before the first round (ours, issue 16; option `stopBeforeRounds`, default off): the same
 * Nouls on the anchors' evidence at depth 0, so a query whose anchors already hold what traversal
 * could add skips the rounds. With `collectFeatures` they are asked (and traced) without stopping,
 * for training the stopping models, without counting against the controller-call cap. Returns the
 * trace entry (null when not asked) and the stop reason (null = go on).
 */
export async function anchorStopping(
  ctx: SearchContext,
  ranker: EvidenceRanker,
  depth: number,
): Promise<{ trace: RetrievalTrace['anchorStopping']; stop: StopReason | null }> {
  const { o, query, k } = ctx;
  if (!(o.stopBeforeRounds || o.collectFeatures) || o.ablation.stopping || depth < 1 || ctx.calls >= o.caps.controllerCalls) return { trace: null, stop: null };
  const qs = stoppingQuestions();
  const state = { query, evidence: ranker.stoppingItems(o.evidenceK), depth: 0 };
  // asked for the trace only (collectFeatures without stopBeforeRounds): not counted against the
  // controller-call cap, so collecting features does not change the search
  const a = o.stopBeforeRounds ? await askController(ctx, state, qs) : (await ctx.systemOne.ask(state, qs)).answers;
  const answers = stoppingAnswers(a);
  const decision = stoppingDecision(answers, o.stopping);
  const trace = { ...answers, stop: decision.stop, ...(o.collectFeatures ? { top: ranker.topVisits(k).map((v) => v.node.id) } : {}) };
  return { trace, stop: decision.stop && o.stopBeforeRounds ? decision.reason : null };
}

/**
 * After round `d`: a hard cap the round hit stops the search; else the stopping Nouls (s, u, m, c →
 * stoppingDecision), not asked at the last depth (the next round cannot start; ours, for latency),
 * with stopping ablated, or once the controller cap is hit.
 */
export async function roundStopping(
  ctx: SearchContext,
  ranker: EvidenceRanker,
  d: number,
  depth: number,
  capHit: StopReason | null,
): Promise<{ stopping: RoundTrace['stopping']; decision: { stop: boolean; reason: StopReason | null } }> {
  const { o, query } = ctx;
  if (capHit) return { stopping: null, decision: { stop: true, reason: capHit } };
  if (o.ablation.stopping || d >= depth || ctx.calls >= o.caps.controllerCalls) return { stopping: null, decision: { stop: false, reason: null } };
  const a = await askController(ctx, { query, evidence: ranker.stoppingItems(o.evidenceK), depth: d }, stoppingQuestions());
  const stopping = stoppingAnswers(a);
  return { stopping, decision: stoppingDecision(stopping, o.stopping) };
}

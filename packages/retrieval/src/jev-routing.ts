/** Routing (seed 000 §4 read path step 1; docs/architecture.md "One `search()`"): the routing Nouls on the query. */
import { ROUTING_QUESTIONS, probabilityOf, type Question } from './controller.js';
import { clamp01, type RoutingProbabilities } from './equations.js';
import { askController, type SearchContext } from './jev-context.js';

/**
 * p_g of each view, multi-hop need, recency importance and the present / past state probabilities
 * (issue 37) from one System-One call on `{ query }`; with routing ablated, 0.5 for every view and
 * need and 0 for the state questions (no call).
 */
export async function routeQuery(ctx: SearchContext): Promise<RoutingProbabilities> {
  if (ctx.o.ablation.routing) {
    return { semantic: 0.5, temporal: 0.5, causal: 0.5, entity: 0.5, multiHopNeed: 0.5, recencyImportance: 0.5, pastState: 0, presentState: 0 };
  }
  const qs: Record<string, Question> = {};
  for (const [id, f] of Object.entries(ROUTING_QUESTIONS)) qs[id] = f();
  const a = await askController(ctx, { query: ctx.query }, qs);
  return {
    semantic: clamp01(probabilityOf(a.semantic)),
    temporal: clamp01(probabilityOf(a.temporal)),
    causal: clamp01(probabilityOf(a.causal)),
    entity: clamp01(probabilityOf(a.entity)),
    multiHopNeed: clamp01(probabilityOf(a.multi_hop_need)),
    recencyImportance: clamp01(probabilityOf(a.recency_importance)),
    // a backend without the question answers "present" (0): the state order of issue 37
    pastState: clamp01(probabilityOf(a.past_state, 0)),
    presentState: clamp01(probabilityOf(a.present_state, 0)),
  };
}

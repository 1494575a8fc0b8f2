/**
 * The candidates stage (docs/architecture.md "One `add()`": discoverCandidates and the rule edges;
 * seed 000 write path steps 3–4): what a stored observation is linked to before any relation call.
 */
import type { GateDecisionRecord } from '../../types.js';
import { discoverCandidates } from '../candidates.js';
import { episodeKey, nodeEpisodeKey } from '../episode.js';
import { memoryItem } from '../items.js';
import type { Pending } from '../pending.js';
import { NEAR_DUPLICATE_PAIRS } from '../questions/index.js';
import { differentEpisodes, temporalRuleEdge } from '../relations.js';
import type { BatchState, WriteContext } from './context.js';

/**
 * Link a stored observation (ours): the SAME_EPISODE chain to the previous stored observation of
 * its episode; for an Add (by the gate's `decision`) its candidates (times `candidates`), their rule
 * edges (PRECEDES / CONCURRENT from two known times, SAME_ENTITY) and the plan of its relation call;
 * for the gate's Update the UPDATES rule edge to its nearest memory (p = the gate's cosine). A Noop or
 * an Update saves the relation call an Add gets (`controllerCallsSaved`). Throws MemError (stage `candidates`).
 */
export async function linkObservation(ctx: WriteContext, batch: BatchState, p: Pending, decision: GateDecisionRecord): Promise<void> {
  const { rt } = ctx;
  const { node, obs } = p;
  // SAME_EPISODE chain (rule, ours): previous stored observation of the same episode
  const ep = episodeKey(obs.sourceId, obs.metadata);
  if (ep) {
    const prev = rt.lastByEpisode.get(ep);
    if (prev) p.drafts.push({ from: prev, to: node.id, subtype: 'SAME_EPISODE', probability: 1, origin: 'rule' });
    rt.lastByEpisode.set(ep, node.id);
  }
  if (decision.action === 'add') {
    await planRelations(ctx, batch, p, ep);
  } else if (p.nearest) {
    // SAGE's Update: the new memory updates its nearest (rule edge, p = the gate's cosine); the
    // near-duplicate check added what the pair's questions found (a Noop gets no rule edge)
    if (decision.action === 'update') {
      const cos = Math.max(0, Math.min(1, decision.nearest!.cosine));
      p.drafts.push({ from: node.id, to: p.nearest.id, subtype: 'UPDATES', probability: cos, origin: 'rule' });
    }
    // the full relation batch an Add gets was not asked
    ctx.counters.controllerCallsSaved++;
  }
}

/**
 * An Add's candidates, rule edges and relation plan (`p.candidates`, `p.drafts`, `p.plans`,
 * `p.relationState`): per candidate, which questions its relation call asks (alias, temporal order,
 * episode, and the state question for the best NEAR_DUPLICATE_PAIRS; issue 37).
 */
export async function planRelations(ctx: WriteContext, batch: BatchState, p: Pending, episode: string | null): Promise<void> {
  const { node } = p;
  p.candidates = await discoverCandidates(ctx.cfg, ctx.scope, ctx.rt, p, batch.pendingStored, batch.byId);
  ctx.clock.tick('candidates');
  for (const c of p.candidates) {
    const t = temporalRuleEdge(node, c.node);
    if (t) t.probability = 1;
    if (t) p.drafts.push(t);
    if (c.sharedEntity) p.drafts.push({ from: node.id, to: c.node.id, subtype: 'SAME_ENTITY', probability: 1, origin: 'rule' });
  }
  const self = { eventTime: node.eventTime, observedAt: node.observedAt, episode };
  p.plans = p.candidates.map((c, i) => ({
    candidateId: c.node.id,
    askAlias: !c.sharedEntity && node.entities.length > 0 && c.node.entities.length > 0,
    askTemporalOrder: temporalRuleEdge(node, c.node) === null,
    askEpisode: !differentEpisodes(self, { eventTime: c.node.eventTime, observedAt: c.node.observedAt, episode: nodeEpisodeKey(c.node) }),
    // the state question (issue 37) for the best few candidates: an Add may change a value too
    askState: i < NEAR_DUPLICATE_PAIRS,
  }));
  if (p.candidates.length) {
    p.relationState = { new_memory: memoryItem(node), candidates: p.candidates.map((c) => memoryItem(c.node, c.cosine)) };
  }
}

/**
 * The memory's state rule (issue 37; ours) — the ONLY place that turns a judgment about two memories
 * into a contradiction, obsolescence or same-fact edge. Every write-side caller (the near-duplicate
 * check of a gate Noop / Update, the relation call of an Add, the consolidation pass) asks the one
 * System-One Choice `state.change` (`@mem/system-one` catalogue) per (new, earlier) pair under the key
 * `pair_<i>_state`, and passes its answer through `stateJudgment` and `stateEdge` here.
 *
 * The rule, for the newer memory n and an earlier memory o, with the Choice's calibrated
 * probabilities p(same), p(update), p(contradiction), p(compatible), p(unrelated):
 * - p_change = min(1, p(update) + p(contradiction)) ≥ θ_change → ONE edge n → o, `CONTRADICTS` when
 *   p(contradiction) ≥ p(update) else `OBSOLETES`, with probability p_change; o is superseded by n
 *   (`obsoleteBy` = n; nothing is deleted);
 * - else p(same) ≥ θ_same → `REDUNDANT_WITH` n → o with p(same);
 * - else no state edge (compatible, unrelated, or not sure).
 * The read side reads the outcome through `supersessionOf`.
 */
import { STATE_LABELS, type StateLabel } from '@mem/system-one';
import type { MemoryNode, Relation, RelationSubtype } from '../../types.js';
import type { ControllerAnswer } from '../ports.js';
import type { EdgeDraft } from '../relations.js';

export { STATE_LABELS, type StateLabel };

/** A parsed state answer: the chosen label and the probability of every label (sum ≈ 1). */
export interface StateJudgment {
  label: StateLabel;
  p: Record<StateLabel, number>;
}

/** Edge subtypes the state rule writes for a change: `OBSOLETES` (update) and `CONTRADICTS`. */
export const SUPERSEDING_SUBTYPES = ['OBSOLETES', 'CONTRADICTS'] as const satisfies readonly RelationSubtype[];
export type SupersedingSubtype = (typeof SUPERSEDING_SUBTYPES)[number];

/** The answer key of the state Choice for candidate `i`. */
export const stateKey = (i: number): string => `pair_${i}_state`;

/**
 * Parse a `state.change` answer (a Choice answer `{ choice, probabilities }`). Missing labels count 0;
 * null when the answer is absent or not a Choice answer (no edge follows).
 */
export function stateJudgment(a: ControllerAnswer | undefined): StateJudgment | null {
  if (!a || typeof a !== 'object' || typeof a.choice !== 'string') return null;
  const p = {} as Record<StateLabel, number>;
  for (const l of STATE_LABELS) {
    const v = a.probabilities?.[l];
    p[l] = typeof v === 'number' && Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0;
  }
  if (!a.probabilities && (STATE_LABELS as readonly string[]).includes(a.choice)) p[a.choice as StateLabel] = 1;
  const label = (STATE_LABELS as readonly string[]).includes(a.choice) ? (a.choice as StateLabel) : 'unrelated';
  return { label, p };
}

/** p that the newer memory changes what the earlier one says: min(1, p(update) + p(contradiction)) (ours). */
export function changeProbability(j: StateJudgment): number {
  return Math.min(1, j.p.update + j.p.contradiction);
}

/** Thresholds of the state rule: θ_change for a change edge, θ_same for REDUNDANT_WITH. */
export interface StateThresholds {
  change: number;
  same: number;
}

/**
 * THE state rule (see the module comment): the state edge of (newer, older) from a judgment, and
 * whether the older memory is superseded. Null judgment → no edge.
 */
export function stateEdge(newerId: string, olderId: string, j: StateJudgment | null, th: StateThresholds): { draft: EdgeDraft | null; supersedes: boolean } {
  if (!j || newerId === olderId) return { draft: null, supersedes: false };
  const change = changeProbability(j);
  if (change >= th.change) {
    const subtype: SupersedingSubtype = j.p.contradiction >= j.p.update ? 'CONTRADICTS' : 'OBSOLETES';
    return { draft: { from: newerId, to: olderId, subtype, probability: change, origin: 'controller' }, supersedes: true };
  }
  if (j.p.same >= th.same) {
    return { draft: { from: newerId, to: olderId, subtype: 'REDUNDANT_WITH', probability: j.p.same, origin: 'controller' }, supersedes: false };
  }
  return { draft: null, supersedes: false };
}

/**
 * What the read side shows for a superseded memory (issue 37): the memory that superseded it, when the
 * new state was observed, and the state edge's p.
 */
export interface Supersession {
  /** Id of the memory that supersedes this one (the node's `obsoleteBy`). */
  by: string;
  /** `observedAt` of the superseding memory (UTC ISO-8601): the old state held until then, as far as memory knows. */
  at: string;
  /** Probability of the state edge (`by` → this node), or null when no such edge is in the given relations. */
  p: number | null;
  /** `update` (OBSOLETES edge) or `contradiction` (CONTRADICTS edge); `update` when no edge was found. */
  kind: 'update' | 'contradiction';
  /** Id of the state edge, or null. */
  edgeId: string | null;
}

/**
 * The supersession record of `node` (ours, issue 37), or null when it is current (`obsoleteBy` unset).
 * `relations`: edges into `node` (others are ignored); `superseding`: the node `obsoleteBy` names, for
 * its time (null → `at` is the edge's `createdAt`, or '' when there is no edge either). When several
 * state edges run from `by` to `node`, the one with the highest p is reported.
 */
export function supersessionOf(
  node: Pick<MemoryNode, 'id' | 'obsoleteBy'>,
  relations: readonly Relation[],
  superseding: Pick<MemoryNode, 'id' | 'observedAt'> | null,
): Supersession | null {
  const by = node.obsoleteBy;
  if (!by) return null;
  let edge: Relation | null = null;
  for (const r of relations) {
    if (r.to !== node.id || r.from !== by || !(SUPERSEDING_SUBTYPES as readonly string[]).includes(r.subtype)) continue;
    if (!edge || r.probability > edge.probability) edge = r;
  }
  const at = superseding && superseding.id === by ? superseding.observedAt : (edge?.createdAt ?? '');
  return { by, at, p: edge ? edge.probability : null, kind: edge?.subtype === 'CONTRADICTS' ? 'contradiction' : 'update', edgeId: edge?.id ?? null };
}

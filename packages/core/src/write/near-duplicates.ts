/**
 * The near-duplicate check (OURS, issue 17 — not part of SAGE): when the SAGE gate routes an
 * observation to Update or Noop it is close to a memory the scope already holds, and the gate alone
 * cannot tell "I love jazz" from "I really dislike jazz" (both are near in embedding space). Such a
 * node still gets ONE small batched System-One call against its nearest memories (the gate's
 * nearest first, then the best of candidate discovery, at most `NEAR_DUPLICATE_PAIRS`), with three
 * questions per pair from the consolidation catalogue — contradiction, obsolete (supersedes), same
 * fact (redundant) — instead of the full relation batch an Add gets. The call is counted like every
 * other (`controllerCalls`). Edges (new → older), kept when p ≥ θ_rel:
 * - the new memory changes what the older one says when p_change = min(1, p_contradiction +
 *   p_obsolete) ≥ θ_rel (the two answers split one event: the older statement no longer holds);
 *   the edge is CONTRADICTS when p_contradiction ≥ p_obsolete, else OBSOLETES, with p_change, and
 *   the older memory's `obsoleteBy` is set either way — for "now" questions the newer statement is
 *   the current one (the older stays, as evidence; nothing is deleted);
 * - else same fact (p_redundant ≥ θ_rel) → REDUNDANT_WITH.
 * When none fires for the gate's nearest memory, the two are linked RELATED_TO with the gate's
 * cosine (the gate found them close; it is not evidence that one repeats the other). Under the
 * `drop` policy, a Noop that contradicts or supersedes a memory is stored anyway.
 */
import type { ControllerAnswer, ControllerQuestion } from './ports.js';
import { noulValue, type EdgeDraft } from './relations.js';

/** Memories checked per near-duplicate (the gate's nearest included). */
export const NEAR_DUPLICATE_PAIRS = 3;

/** The three consolidation questions per pair (`pair_i_contradiction`, `pair_i_obsolete`, `pair_i_redundant`) out of a consolidation batch. */
export function nearDuplicateQuestions(consolidation: Record<string, ControllerQuestion>): Record<string, ControllerQuestion> {
  const out: Record<string, ControllerQuestion> = {};
  for (const [k, q] of Object.entries(consolidation)) if (/_(contradiction|obsolete|redundant)$/.test(k)) out[k] = q;
  return out;
}

/** p that a newer memory changes what an older one says: min(1, p_contradiction + p_obsolete) (ours). */
export function changeProbability(contradiction: number, obsolete: number): number {
  return Math.min(1, contradiction + obsolete);
}

export interface NearDuplicateOutcome {
  drafts: EdgeDraft[];
  /** Ids of the older memories the new one supersedes (their `obsoleteBy` becomes the new id). */
  supersedes: string[];
  /** True when a CONTRADICTS or OBSOLETES edge was found (the node must be kept under `drop`). */
  changesState: boolean;
}

/**
 * Edges of one near-duplicate check from its answers (keys `pair_i_*`, candidate i = `candidateIds[i]`).
 * `nearest` = the gate's nearest memory and cosine (for the RELATED_TO fallback), or null.
 */
export function nearDuplicateEdges(
  newId: string,
  candidateIds: readonly string[],
  answers: Record<string, ControllerAnswer>,
  threshold: number,
  nearest: { id: string; cosine: number } | null,
): NearDuplicateOutcome {
  const drafts: EdgeDraft[] = [];
  const supersedes: string[] = [];
  let nearestLinked = false;
  candidateIds.forEach((c, i) => {
    const con = noulValue(answers[`pair_${i}_contradiction`]);
    const obs = noulValue(answers[`pair_${i}_obsolete`]);
    const red = noulValue(answers[`pair_${i}_redundant`]);
    let linked = false;
    const change = changeProbability(con, obs);
    if (change >= threshold) {
      drafts.push({ from: newId, to: c, subtype: con >= obs ? 'CONTRADICTS' : 'OBSOLETES', probability: change, origin: 'controller' });
      supersedes.push(c);
      linked = true;
    }
    if (!linked && red >= threshold) {
      drafts.push({ from: newId, to: c, subtype: 'REDUNDANT_WITH', probability: red, origin: 'controller' });
      linked = true;
    }
    if (linked && nearest && c === nearest.id) nearestLinked = true;
  });
  const changesState = drafts.some((d) => d.subtype === 'CONTRADICTS' || d.subtype === 'OBSOLETES');
  if (nearest && !nearestLinked) {
    drafts.push({ from: newId, to: nearest.id, subtype: 'RELATED_TO', probability: Math.max(0, Math.min(1, nearest.cosine)), origin: 'rule' });
  }
  return { drafts, supersedes, changesState };
}

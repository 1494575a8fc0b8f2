/**
 * The read path's System-One questions. The questions themselves come from `@mem/system-one`'s
 * catalogue (`catalogue.routing.*`, `catalogue.scoring.*`, `catalogue.stopping.*`); this module only
 * names the question ids (seed 000: candidate keys are prefixed `candidate_i_`) and reads answers.
 */
import * as SystemOneModule from '@mem/system-one';
import { clamp01 } from './equations.js';

/** A Noul / Choice question as `@mem/system-one` defines it (structural, so stand-ins fit). */
export type Question = { type: 'noul' | 'choice'; kind?: string; instructions: string; criteria: Record<string, string> };

export type Answer = number | { choice: string; probabilities: Record<string, number> };

/** The part of `@mem/system-one`'s `SystemOne` the read path uses: one batched call J(S, Q). */
export interface SystemOneLike {
  ask(state: Record<string, unknown>, questions: Record<string, Question>): Promise<{ answers: Record<string, Answer>; traces?: unknown[] }>;
}

type Factory = (...args: any[]) => Question;

function pick(group: string, names: string[]): Factory {
  const catalogue = (SystemOneModule as Record<string, any>).catalogue;
  const g = catalogue?.[group];
  for (const n of names) if (typeof g?.[n] === 'function') return g[n] as Factory;
  return () => {
    throw new Error(`@mem/system-one catalogue.${group}.${names[0]} is missing`);
  };
}

/** The routing question ids (the paper's six and ours, `past_state` and `present_state`) and their catalogue factories (seed 000 §4, routing reads `query`). */
export const ROUTING_QUESTIONS = {
  semantic: () => pick('routing', ['semantic'])(),
  temporal: () => pick('routing', ['temporal'])(),
  causal: () => pick('routing', ['causal'])(),
  entity: () => pick('routing', ['entity'])(),
  multi_hop_need: () => pick('routing', ['multiHopNeed', 'multi_hop_need', 'multiHop'])(),
  recency_importance: () => pick('routing', ['recencyImportance', 'recency_importance', 'recency'])(),
  /** Does the question ask for an earlier state rather than the present one? (ours, issue 37) */
  past_state: () => pick('routing', ['pastState', 'past_state'])(),
  /** Does the question ask for the present state of something that can change? (ours, issue 37) */
  present_state: () => pick('routing', ['presentState', 'present_state'])(),
} as const;

/** Per-candidate scoring questions (read `query`, `candidates[i]`, `evidence`). */
export const SCORING_QUESTIONS = {
  relevance: (i: number) => pick('scoring', ['relevance'])(i),
  relation_usefulness: (i: number) => pick('scoring', ['relationUsefulness', 'relation_usefulness'])(i),
  new_information: (i: number) => pick('scoring', ['newInformation', 'new_information'])(i),
  supports_current_evidence: (i: number) =>
    pick('scoring', ['supportsCurrentEvidence', 'supports_current_evidence', 'supportsEvidence'])(i),
} as const;

/** Stopping questions (read `query`, `evidence`, `depth`). */
export const STOPPING_QUESTIONS = {
  evidence_sufficient: () => pick('stopping', ['evidenceSufficient', 'evidence_sufficient'])(),
  continue_useful: () => pick('stopping', ['continueUseful', 'continue_useful'])(),
  missing_evidence: () => pick('stopping', ['missingEvidence', 'missing_evidence'])(),
  contradiction: () => pick('stopping', ['contradiction'])(),
} as const;

/**
 * The four stopping Nouls of `STOPPING_QUESTIONS` as probabilities clamped to [0, 1] (a backend may
 * answer outside the range); a missing answer falls back to "go on": sufficient 0, continue useful 1,
 * missing 1, contradiction 0 (ours).
 */
export function stoppingAnswers(a: Record<string, Answer>): { sufficient: number; continueUseful: number; missing: number; contradiction: number } {
  const p = (x: Answer | undefined, fallback: number) => clamp01(probabilityOf(x, fallback));
  return {
    sufficient: p(a.evidence_sufficient, 0),
    continueUseful: p(a.continue_useful, 1),
    missing: p(a.missing_evidence, 1),
    contradiction: p(a.contradiction, 0),
  };
}

/** A Noul answer as a probability; a Choice answer as the probability of `true`/its chosen label; missing → `fallback`. */
export function probabilityOf(a: Answer | undefined, fallback = 0.5): number {
  if (typeof a === 'number') return Number.isFinite(a) ? a : fallback;
  if (a && typeof a === 'object') {
    const p = a.probabilities?.true ?? a.probabilities?.[a.choice];
    return typeof p === 'number' && Number.isFinite(p) ? p : fallback;
  }
  return fallback;
}

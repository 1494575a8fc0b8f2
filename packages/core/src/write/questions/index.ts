/**
 * The write side's System-One questions in one module (issue 35 point 1, issue 37; the twin of
 * `@mem/retrieval`'s `controller.ts`): it builds every question the write path asks (typing, the
 * relation batch of an Add, the near-duplicate check of a gate Noop / Update, the consolidation pass),
 * parses every answer, and owns the edge rules — the learned relation edges (`relationEdges`) and the
 * single state rule for contradiction / obsolescence / same fact (`./state.ts`). The wording of each
 * question lives in `@mem/system-one`'s catalogue; adding a question is an edit here plus its
 * catalogue entry.
 *
 * Keys (all `pair_<i>_*` refer to `candidates[i]` of the state `{ new_memory, candidates }`):
 * - typing: `episodic`, `semantic`, `procedural`, `preference` on `{ observation }`;
 * - relations (an Add): `pair_i_{semantic,causes,caused_by[,same_episode][,entity_alias][,temporal_order][,state]}`;
 * - near-duplicate check (a Noop / Update): `pair_i_state`;
 * - consolidation: `pair_i_{state,link[,representation]}`.
 */
import { batches, catalogue } from '@mem/system-one';
import type { TypeScores } from '../../types.js';
import type { ControllerAnswer, ControllerQuestion } from '../ports.js';
import type { EdgeDraft } from '../relations.js';
import { stateEdge, stateJudgment, stateKey, type StateJudgment } from './state.js';

export * from './state.js';

const TYPE_KEYS = ['episodic', 'semantic', 'procedural', 'preference'] as const;

/** Memories checked by a near-duplicate check (the gate's nearest included), and state-checked per Add. */
export const NEAR_DUPLICATE_PAIRS = 3;

/** Per-pair plan of an Add's relation call (the paper asks entity_alias only without an exact entity match, temporal_order only when a time is missing). */
export interface PairPlan {
  candidateId: string;
  askAlias: boolean;
  askTemporalOrder: boolean;
  /** False when `differentEpisodes` settles the pair (same_episode not asked, no edge). Default true. */
  askEpisode?: boolean;
  /** True to ask the state Choice for this pair (issue 37). Default false. */
  askState?: boolean;
}

/** The questions of the write path (injectable for tests; `defaultQuestions()` is the catalogue's). */
export interface QuestionSet {
  /** The four typing Nouls on `{ observation }`. */
  typing: () => Record<string, ControllerQuestion>;
  /** The relation batch of an Add for `plans` (see `PairPlan`). */
  relations: (plans: readonly PairPlan[]) => Record<string, ControllerQuestion>;
  /** The near-duplicate check: `pair_i_state` for i < count. */
  nearDuplicate: (count: number) => Record<string, ControllerQuestion>;
  /** `pair_i_{state,link[,representation]}`; `representation` only when `opts.representation` (its answer is used only with a summarizer). */
  consolidation: (count: number, opts?: { representation?: boolean }) => Record<string, ControllerQuestion>;
}

/** The catalogue's questions under the keys above. */
export function defaultQuestions(): QuestionSet {
  return {
    typing: () => batches.typing() as Record<string, ControllerQuestion>,
    relations: (plans) => {
      const qs = batches.relations(plans.length, { alias: (i) => plans[i]!.askAlias, temporalOrder: (i) => plans[i]!.askTemporalOrder }) as Record<string, ControllerQuestion>;
      plans.forEach((p, i) => {
        if (p.askEpisode === false) delete qs[`pair_${i}_same_episode`];
        if (p.askState) qs[stateKey(i)] = catalogue.state.change(i);
      });
      return qs;
    },
    nearDuplicate: (count) => {
      const out: Record<string, ControllerQuestion> = {};
      for (let i = 0; i < count; i++) out[stateKey(i)] = catalogue.state.change(i);
      return out;
    },
    consolidation: (count, opts = {}) => {
      const out: Record<string, ControllerQuestion> = {};
      for (let i = 0; i < count; i++) {
        out[stateKey(i)] = catalogue.state.change(i);
        out[`pair_${i}_link`] = catalogue.consolidation.link(i);
        if (opts.representation !== false) out[`pair_${i}_representation`] = catalogue.consolidation.representation(i);
      }
      return out;
    },
  };
}

/** p of a Noul answer (0 when absent or not a number). */
export function noulValue(a: ControllerAnswer | undefined): number {
  return typeof a === 'number' && Number.isFinite(a) ? a : 0;
}

/** The four type scores from the typing answers (absent → 0). */
export function typeScores(answers: Record<string, ControllerAnswer>): TypeScores {
  const out = {} as TypeScores;
  for (const k of TYPE_KEYS) out[k] = noulValue(answers[k]);
  return out;
}

/**
 * Per temporal_order label (the new memory is <label> the candidate): the edge's subtype, and whether
 * it runs from the candidate to the new memory (`after`, `contains`) rather than the other way.
 */
const TEMPORAL_ORDER_EDGES = new Map<string, { subtype: EdgeDraft['subtype']; fromCandidate: boolean }>([
  ['before', { subtype: 'PRECEDES', fromCandidate: false }],
  ['after', { subtype: 'PRECEDES', fromCandidate: true }],
  ['during', { subtype: 'DURING', fromCandidate: false }],
  ['contains', { subtype: 'DURING', fromCandidate: true }],
  ['overlaps', { subtype: 'OVERLAPS', fromCandidate: false }],
  ['same_time', { subtype: 'CONCURRENT', fromCandidate: false }],
]);

/** Map the temporal_order Choice label (new memory is <label> the candidate) to an edge; null for any other label. */
export function temporalOrderEdge(label: string, newId: string, candId: string, p: number): EdgeDraft | null {
  const e = TEMPORAL_ORDER_EDGES.get(label);
  if (!e) return null;
  return { from: e.fromCandidate ? candId : newId, to: e.fromCandidate ? newId : candId, subtype: e.subtype, probability: p, origin: 'controller' };
}

/** Edges of a set of pairs and the earlier memories they supersede. */
export interface StateOutcome {
  drafts: EdgeDraft[];
  /** Ids of the earlier memories the new one supersedes (their `obsoleteBy` becomes the new id). */
  supersedes: string[];
  /** True when a CONTRADICTS or OBSOLETES edge was found. */
  changesState: boolean;
}

/**
 * Learned edges of one Add's relation call (keys `pair_i_*`), each kept only when p ≥ θ_rel:
 * semantic → RELATED_TO; causes → LEADS_TO new→cand; caused_by → LEADS_TO cand→new; same_episode →
 * SAME_EPISODE; entity_alias → ENTITY_ALIAS; temporal_order → PRECEDES / DURING / OVERLAPS /
 * CONCURRENT (chosen label's probability); state (when asked) → the state rule (`stateEdge`, θ_rel).
 */
export function relationEdges(newId: string, plans: readonly PairPlan[], answers: Record<string, ControllerAnswer>, threshold: number): StateOutcome {
  const out: EdgeDraft[] = [];
  const supersedes: string[] = [];
  plans.forEach((plan, i) => {
    const c = plan.candidateId;
    const keep = (p: number, d: EdgeDraft) => {
      if (p >= threshold) out.push(d);
    };
    const sem = noulValue(answers[`pair_${i}_semantic`]);
    keep(sem, { from: newId, to: c, subtype: 'RELATED_TO', probability: sem, origin: 'controller' });
    const causes = noulValue(answers[`pair_${i}_causes`]);
    keep(causes, { from: newId, to: c, subtype: 'LEADS_TO', probability: causes, origin: 'controller' });
    const causedBy = noulValue(answers[`pair_${i}_caused_by`]);
    keep(causedBy, { from: c, to: newId, subtype: 'LEADS_TO', probability: causedBy, origin: 'controller' });
    if (plan.askEpisode !== false) {
      const episode = noulValue(answers[`pair_${i}_same_episode`]);
      keep(episode, { from: newId, to: c, subtype: 'SAME_EPISODE', probability: episode, origin: 'controller' });
    }
    if (plan.askAlias) {
      const alias = noulValue(answers[`pair_${i}_entity_alias`]);
      keep(alias, { from: newId, to: c, subtype: 'ENTITY_ALIAS', probability: alias, origin: 'controller' });
    }
    if (plan.askTemporalOrder) {
      const a = answers[`pair_${i}_temporal_order`];
      if (a && typeof a === 'object') {
        const p = a.probabilities?.[a.choice] ?? 0;
        const d = temporalOrderEdge(a.choice, newId, c, p);
        if (d) keep(p, d);
      }
    }
    if (plan.askState) {
      const s = stateEdge(newId, c, stateJudgment(answers[stateKey(i)]), { change: threshold, same: threshold });
      if (s.draft) out.push(s.draft);
      if (s.supersedes) supersedes.push(c);
    }
  });
  return { drafts: out, supersedes, changesState: supersedes.length > 0 };
}

/**
 * Edges of one near-duplicate check (ours, issue 17 / 37): the state rule (θ_rel for both change and
 * same fact) per compared memory i (`candidateIds[i]`, key `pair_i_state`). When no state edge links
 * the gate's nearest memory (`nearest`, or null), the two are linked RELATED_TO with the gate's cosine
 * (the gate found them close; it is not evidence that one repeats the other).
 */
export function nearDuplicateEdges(
  newId: string,
  candidateIds: readonly string[],
  answers: Record<string, ControllerAnswer>,
  threshold: number,
  nearest: { id: string; cosine: number } | null,
): StateOutcome {
  const drafts: EdgeDraft[] = [];
  const supersedes: string[] = [];
  let nearestLinked = false;
  candidateIds.forEach((c, i) => {
    const s = stateEdge(newId, c, stateJudgment(answers[stateKey(i)]), { change: threshold, same: threshold });
    if (s.draft) {
      drafts.push(s.draft);
      if (nearest && c === nearest.id) nearestLinked = true;
    }
    if (s.supersedes) supersedes.push(c);
  });
  if (nearest && !nearestLinked) {
    drafts.push({ from: newId, to: nearest.id, subtype: 'RELATED_TO', probability: Math.max(0, Math.min(1, nearest.cosine)), origin: 'rule' });
  }
  return { drafts, supersedes, changesState: supersedes.length > 0 };
}

/**
 * Consolidation edges of one reviewed pair (seed 000 "periodic maintenance"; docs/design.md step 5):
 * the state rule (θ_change = θ_rel, θ_same = `threshold`, default 0.85); when it gives no edge, a
 * link ≥ `threshold` adds RELATED_TO (not when the pair is already RELATED_TO). `obsolete` = the older
 * memory is superseded. Nothing is deleted.
 */
export function consolidationEdges(
  newerId: string,
  olderId: string,
  state: StateJudgment | null,
  link: number,
  th: { change: number; same: number },
  alreadyRelated: boolean,
): { drafts: EdgeDraft[]; obsolete: boolean } {
  const s = stateEdge(newerId, olderId, state, th);
  if (s.draft) return { drafts: [s.draft], obsolete: s.supersedes };
  if (link >= th.same && !alreadyRelated) return { drafts: [{ from: newerId, to: olderId, subtype: 'RELATED_TO', probability: link, origin: 'controller' }], obsolete: false };
  return { drafts: [], obsolete: false };
}

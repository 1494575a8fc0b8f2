/**
 * The Jev-Mem question catalogue (seed 000, "write path" / "read path" / appendix templates) as
 * documented templates. Every template sets `kind` (the offline backend dispatches on it) and names the
 * state fields it reads as `{{path}}`; the state shapes are documented per group below.
 *
 * A memory item in the state is either a string (its text) or a {@link MemoryItem}. Wording of the
 * instructions and criteria is ours, following the paper's examples.
 */
import { SystemOneError } from './errors.js';
import type { Choice, Noul } from './schema.js';

/**
 * One memory in a state. Only `text` is required.
 * - `time`: ISO-8601 time the statement was observed (UTC unless an offset is given).
 * - `start` / `end`: ISO-8601 event interval when known (e.g. resolved by core's time extraction).
 * - `cosine`: precomputed cosine similarity in [-1, 1] — to `new_memory` in relation / consolidation
 *   states, to `query` in scoring states. The offline backend uses it instead of embedding.
 * - `relation` (scoring states): the edge type the candidate was reached by
 *   (`semantic` | `temporal` | `causal` | `entity` | …), `probability`: that edge's probability.
 * - `session`: an episode/session id; equal ids are strong same-episode evidence.
 */
export interface MemoryItem {
  text: string;
  id?: string;
  speaker?: string;
  time?: string;
  start?: string;
  end?: string;
  entities?: string[];
  keywords?: string[];
  cosine?: number;
  session?: string | number;
  relation?: string;
  probability?: number;
}

/** Labels of the temporal_order Choice: how `new_memory` relates in time to the candidate. */
export const TEMPORAL_ORDER_LABELS = ['before', 'after', 'during', 'contains', 'overlaps', 'same_time', 'unknown'] as const;
export type TemporalOrderLabel = (typeof TEMPORAL_ORDER_LABELS)[number];
/** Labels of the consolidation representation Choice. */
export const REPRESENTATION_LABELS = ['keep_separate', 'merge', 'promote', 'uncertain'] as const;
export type RepresentationLabel = (typeof REPRESENTATION_LABELS)[number];

const n = (kind: string, instructions: string, t: string, f: string): Noul => ({
  type: 'noul',
  kind,
  instructions,
  criteria: { true: t, false: f },
});

/** @throws SystemOneError('INVALID_QUESTION') unless `i` is a non-negative integer. */
function idx(i: number): number {
  if (!Number.isInteger(i) || i < 0) throw new SystemOneError('INVALID_QUESTION', `candidate index must be a non-negative integer, got ${String(i)}`);
  return i;
}

/**
 * The instruction text of an indexed template, built once per (template, index): every question built
 * from it shares one string, which the controller then finds again without hashing a new string.
 */
const instructionCache = new Map<string, string[]>();
function perIndex(template: string, i: number, build: (i: number) => string): string {
  if (i >= 4096) return build(i);
  let a = instructionCache.get(template);
  if (a === undefined) instructionCache.set(template, (a = []));
  return (a[i] ??= build(i));
}

/** @throws SystemOneError('INVALID_QUESTION') unless `n` is a non-negative integer. */
function countOf(n: number): number {
  if (!Number.isInteger(n) || n < 0) throw new SystemOneError('INVALID_QUESTION', `batch count must be a non-negative integer, got ${String(n)}`);
  return n;
}

/**
 * Typing (write path step 2). State: `{ observation: string | MemoryItem }`. Overlapping Nouls
 * (annotate only; an observation may be both episodic and semantic).
 */
export const typing = {
  /** Is the observation a specific event that happened at a particular time (episodic memory)? */
  episodic: (): Noul =>
    n('typing.episodic', 'Does {{observation}} describe a specific event or experience that happened at a particular time?',
      'a concrete event or experience situated in time (something that happened, was done or was attended)',
      'not a specific event: a general fact, a habit, a preference or an instruction'),
  /** Is it a stable fact about the world or a person (semantic memory)? */
  semantic: (): Noul =>
    n('typing.semantic', 'Does {{observation}} state a general or stable fact about the world, a person or a thing?',
      'a lasting fact or attribute that stays true beyond one moment (identity, job, relationship, property)',
      'a one-off event, a passing feeling, or an instruction'),
  /** Does it describe how to do something (procedural memory)? */
  procedural: (): Noul =>
    n('typing.procedural', 'Does {{observation}} describe how to do something: steps, a method, a routine or an instruction?',
      'a procedure, method, recipe, routine or instruction that can be followed',
      'not a way of doing something'),
  /** Does it express a like, dislike, wish or preference? */
  preference: (): Noul =>
    n('typing.preference', 'Does {{observation}} express a preference, like, dislike, wish or taste of the speaker?',
      'a preference, like, dislike, favourite, wish or taste', 'no preference is expressed'),
};

/**
 * Pair relations (write path step 4). State: `{ new_memory: string | MemoryItem, candidates: (string | MemoryItem)[] }`;
 * `candidates[i].cosine` is the cosine to `new_memory` when precomputed. Keys in the paper: `pair_i_*`.
 */
export const relation = {
  /** Are the two memories about the same topic, so that one helps to understand the other? -> RELATED_TO */
  semantic: (i: number): Noul =>
    n('relation.semantic', perIndex('relation.semantic', idx(i), (k) => `Are {{new_memory}} and {{candidates.${k}}} semantically related (same topic, person or subject)?`),
      'they are about the same topic, thing or subject, so one helps to understand the other',
      'they are about different, unrelated things'),
  /** Does the new memory cause / lead to the candidate? -> LEADS_TO new -> candidate */
  causes: (i: number): Noul =>
    n('relation.causes', perIndex('relation.causes', idx(i), (k) => `Does the event in {{new_memory}} cause or lead to the event in {{candidates.${k}}}?`),
      'the first is a cause, reason or trigger of the second', 'the first does not cause the second'),
  /** Is the new memory caused by the candidate? -> LEADS_TO candidate -> new */
  causedBy: (i: number): Noul =>
    n('relation.caused_by', perIndex('relation.caused_by', idx(i), (k) => `Is the event in {{new_memory}} caused by the event in {{candidates.${k}}}?`),
      'the second is a cause, reason or trigger of the first', 'the second does not cause the first'),
  /** Do both belong to the same episode (same occasion, conversation or activity)? -> SAME_EPISODE */
  sameEpisode: (i: number): Noul =>
    n('relation.same_episode', perIndex('relation.same_episode', idx(i), (k) => `Do {{new_memory}} and {{candidates.${k}}} belong to the same episode (the same occasion, activity or conversation at about the same time)?`),
      'both are part of one episode', 'they belong to different episodes'),
  /** Do they mention the same entity under different names (alias, nickname, abbreviation)? Ask only when no exact entity match. */
  entityAlias: (i: number): Noul =>
    n('relation.entity_alias', perIndex('relation.entity_alias', idx(i), (k) => `Do {{new_memory}} and {{candidates.${k}}} refer to the same person, place or thing under different names?`),
      'an entity in one is the same real-world entity as an entity in the other, named differently (alias, nickname, abbreviation, spelling)',
      'no entity is shared under another name'),
  /** When did the new memory's event happen relative to the candidate's? (new_memory is <label> candidate) */
  temporalOrder: (i: number): Choice<TemporalOrderLabel> => ({
    type: 'choice',
    kind: 'relation.temporal_order',
    instructions: perIndex('relation.temporal_order', idx(i), (k) => `Relative to the event in {{candidates.${k}}}, when did the event in {{new_memory}} happen?`),
    criteria: {
      before: 'the new memory happened before the candidate',
      after: 'the new memory happened after the candidate',
      during: 'the new memory happened within the time span of the candidate',
      contains: 'the time span of the new memory contains the candidate',
      overlaps: 'their time spans partly overlap',
      same_time: 'they happened at the same time',
      unknown: 'their order cannot be determined',
    },
  }),
};

/**
 * Consolidation (write path step 5, every 20 writes). State: `{ new_memory, candidates }` as for
 * relations; `new_memory` is the memory under review (normally the newer one).
 */
export const consolidation = {
  /** Does the candidate say nothing the new memory does not already say? -> REDUNDANT_WITH */
  redundant: (i: number): Noul =>
    n('consolidation.redundant', perIndex('consolidation.redundant', idx(i), (k) => `Is {{candidates.${k}}} redundant with {{new_memory}} (it states the same information)?`),
      'they state the same information; keeping one loses nothing', 'each contains information the other lacks'),
  /** Do they make incompatible claims about the same thing? -> CONTRADICTS */
  contradiction: (i: number): Noul =>
    n('consolidation.contradiction', perIndex('consolidation.contradiction', idx(i), (k) => `Do {{new_memory}} and {{candidates.${k}}} contradict each other?`),
      'they make incompatible claims about the same subject', 'they are compatible'),
  /** Is the candidate outdated by the new memory (a later state of the same thing)? (obsolescence is recorded, nothing deleted) */
  obsolete: (i: number): Noul =>
    n('consolidation.obsolete', perIndex('consolidation.obsolete', idx(i), (k) => `Is {{candidates.${k}}} made obsolete (outdated, superseded) by {{new_memory}}?`),
      'the new memory updates or replaces what the candidate says', 'the candidate is still current'),
  /** Would an additional link between them be useful later? -> RELATED_TO */
  link: (i: number): Noul =>
    n('consolidation.link', perIndex('consolidation.link', idx(i), (k) => `Would a link between {{new_memory}} and {{candidates.${k}}} help answer future questions?`),
      'a link connects useful complementary information', 'a link would add nothing useful'),
  /** How should the pair be represented? */
  representation: (i: number): Choice<RepresentationLabel> => ({
    type: 'choice',
    kind: 'consolidation.representation',
    instructions: perIndex('consolidation.representation', idx(i), (k) => `How should {{new_memory}} and {{candidates.${k}}} be represented in memory?`),
    criteria: {
      keep_separate: 'keep both as separate memories',
      merge: 'merge them into one memory (they say the same thing)',
      promote: 'promote them to a more general memory (a pattern, habit or preference they both instance)',
      uncertain: 'it is unclear',
    },
  }),
};

/** Labels of the state Choice (issue 37): how a newer statement relates to an earlier one on the same subject. */
export const STATE_LABELS = ['same', 'update', 'contradiction', 'compatible', 'unrelated'] as const;
export type StateLabel = (typeof STATE_LABELS)[number];

/**
 * State (write path, issue 37; ours). State: `{ new_memory, candidates }` as for relations, with
 * `new_memory` the NEWER statement and `candidates[i]` an EARLIER memory. One Choice per pair: does the
 * new memory restate, change, contradict, add to, or have nothing to do with what the earlier one says
 * about its subject (a person or thing and one attribute of it: where they live, their job, a
 * relationship, a preference, a habit, a possession, a plan)? Core's `write/questions` turns the answer
 * into the memory's only state edges (CONTRADICTS / OBSOLETES / REDUNDANT_WITH).
 */
export const state = {
  /** same → REDUNDANT_WITH; update / contradiction → the earlier memory is superseded; compatible / unrelated → no state edge. */
  change: (i: number): Choice<StateLabel> => ({
    type: 'choice',
    kind: 'state.change',
    instructions: perIndex('state.change', idx(i), (k) => `{{new_memory}} was said after {{candidates.${k}}}. What does it do to what the earlier memory says about its subject (a person or thing and one attribute of it)?`),
    criteria: {
      same: 'it states the same fact again; nothing changed',
      update: 'the value changed: the earlier statement was true then and is no longer current (moved, changed job, stopped, switched)',
      contradiction: 'it makes an incompatible claim about the same subject and attribute; both cannot be true',
      compatible: 'same subject, and both stay true (more detail, another attribute, a past event that stays true)',
      unrelated: 'it is about another subject or attribute',
    },
  }),
};

/** Routing (read path). State: `{ query: string }`. Independent Nouls: the paper's six and ours, `pastState` and `presentState`. */
export const routing = {
  /** Would semantically similar memories help? */
  semantic: (): Noul =>
    n('routing.semantic', 'Would memories similar in meaning to {{query}} help answer it?',
      'memories about the same topic as the question help', 'topical similarity is not what the question needs'),
  /** Does the query depend on time (when, order, dates, durations)? */
  temporal: (): Noul =>
    n('routing.temporal', 'Does answering {{query}} depend on time: when something happened, dates, order, durations?',
      'the answer involves a time, date, order of events or duration', 'time does not matter for the answer'),
  /** Does the query ask for causes, reasons or consequences? */
  causal: (): Noul =>
    n('routing.causal', 'Does {{query}} ask why something happened, its reasons, causes or consequences?',
      'the question asks for a reason, cause, motivation or consequence', 'no cause or reason is asked for'),
  /** Is the query about specific named people, places or things? */
  entity: (): Noul =>
    n('routing.entity', 'Is {{query}} about specific named people, places, organisations or things?',
      'the question names or asks about specific entities', 'the question is not about specific entities'),
  /** h(q): does the answer need several memories combined or an inference? */
  multiHopNeed: (): Noul =>
    n('routing.multi_hop_need', 'Does answering {{query}} need several memories to be combined, or an inference beyond what one memory states?',
      'several facts must be combined, or the answer must be inferred', 'one memory states the answer directly'),
  /** r(q): are the most recent memories more important for this query? */
  recencyImportance: (): Noul =>
    n('routing.recency_importance', 'For {{query}}, do the most recent memories matter more than older ones?',
      'the question asks about the current or latest state', 'older memories are as useful as recent ones'),
  /** Does the query ask for an earlier state, what was true before a change? (ours, issue 37; not one of the paper's six) */
  pastState: (): Noul =>
    n('routing.past_state', 'Does {{query}} ask what was true at an earlier time (before a change: used to, before, originally, back then, in a past year), rather than what is true now or what happened?',
      'the question asks for an earlier state of something that may have changed', 'the question asks for the present state, or about an event'),
  /** Does the query ask what is true now about something that can change (where someone lives, a job, a preference)? (ours, issue 37) */
  presentState: (): Noul =>
    n('routing.present_state', 'Does {{query}} ask what is true now about something that can change (where someone lives, their job, a relationship, a preference, a habit, a possession, a plan)?',
      'the question asks for the current state of something that may have changed', 'the question asks about an earlier state, or about an event'),
};

/**
 * Candidate scoring (read path traversal). State: `{ query: string, candidates: (string | MemoryItem)[],
 * evidence: (string | MemoryItem)[] }`; `candidates[i].cosine` is the cosine to `query` when precomputed,
 * `candidates[i].relation` the edge type it was reached by. Keys in the paper: `candidate_i_*`.
 */
export const scoring = {
  /** a: is the candidate relevant to the query? */
  relevance: (i: number): Noul =>
    n('scoring.relevance', perIndex('scoring.relevance', idx(i), (k) => `Is {{candidates.${k}}} relevant to answering {{query}}?`),
      'it contains information that helps answer the question', 'it does not help answer the question'),
  /** ℓ: is the relation the candidate was reached by useful for the query? */
  relationUsefulness: (i: number): Noul =>
    n('scoring.relation_usefulness', perIndex('scoring.relation_usefulness', idx(i), (k) => `Is the relation by which {{candidates.${k}}} was reached useful for answering {{query}}?`),
      'following this kind of relation is useful for this question', 'this kind of relation is not useful here'),
  /** n: does the candidate add information not already in the evidence? */
  newInformation: (i: number): Noul =>
    n('scoring.new_information', perIndex('scoring.new_information', idx(i), (k) => `Does {{candidates.${k}}} add information for {{query}} that is not already in {{evidence}}?`),
      'it adds relevant information the evidence lacks', 'it repeats the evidence or adds nothing relevant'),
  /** c: does the candidate support (agree with, connect to) the current evidence? */
  supportsCurrentEvidence: (i: number): Noul =>
    n('scoring.supports_current_evidence', perIndex('scoring.supports_current_evidence', idx(i), (k) => `Does {{candidates.${k}}} support or connect to the current evidence {{evidence}} for {{query}}?`),
      'it agrees with or connects to the evidence', 'it is unrelated to or conflicts with the evidence'),
};

/** Stopping (read path, after each round). State: `{ query: string, evidence: (string | MemoryItem)[], depth: number }`. */
export const stopping = {
  /** s: is the evidence enough to answer? */
  evidenceSufficient: (): Noul =>
    n('stopping.evidence_sufficient', 'Is {{evidence}} sufficient to answer {{query}}?',
      'the evidence contains everything needed for the answer', 'something needed for the answer is missing'),
  /** u: would another retrieval round (at depth {{depth}}) likely improve the evidence? */
  continueUseful: (): Noul =>
    n('stopping.continue_useful', 'Given {{evidence}} after {{depth}} rounds, is another retrieval round likely to find useful evidence for {{query}}?',
      'another round would likely add useful evidence', 'another round would likely add nothing useful'),
  /** m: is a specific piece of needed evidence missing? */
  missingEvidence: (): Noul =>
    n('stopping.missing_evidence', 'Is a specific piece of information needed to answer {{query}} missing from {{evidence}}?',
      'a needed piece (a time, a reason, a name, a second fact) is missing', 'nothing needed is missing'),
  /** c: does the evidence contain contradictory claims? */
  contradiction: (): Noul =>
    n('stopping.contradiction', 'Does {{evidence}} contain claims that contradict each other about {{query}}?',
      'some evidence items contradict each other', 'the evidence is consistent'),
};

/** The whole catalogue. */
export const catalogue = { typing, relation, consolidation, state, routing, scoring, stopping };

/**
 * Every kind of the paper's catalogue (what the offline backend scores with a dedicated scorer). Ours
 * beside them: `routing.past_state` and `routing.present_state` (issue 37), answered offline by their own
 * model (offline/past-state.ts).
 */
export const CATALOGUE_KINDS = [
  'typing.episodic', 'typing.semantic', 'typing.procedural', 'typing.preference',
  'relation.semantic', 'relation.causes', 'relation.caused_by', 'relation.same_episode', 'relation.entity_alias', 'relation.temporal_order',
  'consolidation.redundant', 'consolidation.contradiction', 'consolidation.obsolete', 'consolidation.link', 'consolidation.representation',
  'state.change',
  'routing.semantic', 'routing.temporal', 'routing.causal', 'routing.entity', 'routing.multi_hop_need', 'routing.recency_importance',
  'scoring.relevance', 'scoring.relation_usefulness', 'scoring.new_information', 'scoring.supports_current_evidence',
  'stopping.evidence_sufficient', 'stopping.continue_useful', 'stopping.missing_evidence', 'stopping.contradiction',
] as const;
export type CatalogueKind = (typeof CATALOGUE_KINDS)[number];

/** Keys of a relation batch: `pair_<i>_<relation>`; temporal_order is a Choice, the others Nouls. */
export type RelationBatch = { [k: `pair_${number}_temporal_order`]: Choice<TemporalOrderLabel> } & {
  [k: `pair_${number}_${'semantic' | 'causes' | 'caused_by' | 'same_episode' | 'entity_alias'}`]: Noul;
};

/** The paper's batches, keyed as in the paper. */
export const batches = {
  /** `{ episodic, semantic, procedural, preference }` on `{ observation }`. */
  typing: () => ({ episodic: typing.episodic(), semantic: typing.semantic(), procedural: typing.procedural(), preference: typing.preference() }),
  /** `{ semantic, temporal, causal, entity, multi_hop_need, recency_importance }` on `{ query }`. */
  routing: () => ({
    semantic: routing.semantic(), temporal: routing.temporal(), causal: routing.causal(), entity: routing.entity(),
    multi_hop_need: routing.multiHopNeed(), recency_importance: routing.recencyImportance(),
  }),
  /** `{ evidence_sufficient, continue_useful, missing_evidence, contradiction }` on `{ query, evidence, depth }`. */
  stopping: () => ({
    evidence_sufficient: stopping.evidenceSufficient(), continue_useful: stopping.continueUseful(),
    missing_evidence: stopping.missingEvidence(), contradiction: stopping.contradiction(),
  }),
  /**
   * `pair_i_{semantic,causes,caused_by,same_episode[,entity_alias][,temporal_order]}` for i < count, on `{ new_memory, candidates }`.
   * `alias(i)` says whether to ask entity_alias (the paper asks it only without an exact entity match);
   * `temporalOrder(i)` whether to ask temporal_order (only when a timestamp is missing).
   */
  relations: (count: number, opts: { alias?: (i: number) => boolean; temporalOrder?: (i: number) => boolean } = {}): RelationBatch => {
    const out: Record<string, Noul | Choice<TemporalOrderLabel>> = {};
    countOf(count);
    for (let i = 0; i < count; i++) {
      out[`pair_${i}_semantic`] = relation.semantic(i);
      out[`pair_${i}_causes`] = relation.causes(i);
      out[`pair_${i}_caused_by`] = relation.causedBy(i);
      out[`pair_${i}_same_episode`] = relation.sameEpisode(i);
      if (opts.alias?.(i) ?? true) out[`pair_${i}_entity_alias`] = relation.entityAlias(i);
      if (opts.temporalOrder?.(i) ?? true) out[`pair_${i}_temporal_order`] = relation.temporalOrder(i);
    }
    return out as RelationBatch;
  },
  /** `candidate_i_{relevance,relation_usefulness,new_information,supports_current_evidence}` on `{ query, candidates, evidence }`. */
  scoring: (count: number) => {
    const out: Record<string, Noul> = {};
    countOf(count);
    for (let i = 0; i < count; i++) {
      out[`candidate_${i}_relevance`] = scoring.relevance(i);
      out[`candidate_${i}_relation_usefulness`] = scoring.relationUsefulness(i);
      out[`candidate_${i}_new_information`] = scoring.newInformation(i);
      out[`candidate_${i}_supports_current_evidence`] = scoring.supportsCurrentEvidence(i);
    }
    return out;
  },
};

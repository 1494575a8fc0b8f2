/**
 * Hand-labelled System-One cases (ours) and how they are stored: one JSON file per set
 * (`bench/data/*.json`), a row per state, each row's labels keyed by the short names of `FAMILIES`.
 * `labelledCases` expands the rows into one case per labelled question kind, in the order of
 * `FAMILIES` and of the rows; a label left out of a row is no case. The sets: `dataset.ts` (the
 * development set), `holdout.ts` (never tuned on), `routing-extra.ts` (routing training only).
 */
import type { CatalogueKind } from '../src/catalogue.js';

export interface LabelledCase {
  kind: CatalogueKind;
  state: Record<string, unknown>;
  /** 1 / 0 for a Noul; the correct label for a Choice. */
  label: number | string;
}

interface Family {
  /** The row fields that make the question state, in state order. */
  state: readonly string[];
  /** Each label: its key in a row's `labels`, the question kind it answers. */
  labels: readonly (readonly [string, CatalogueKind])[];
  /** Each case gets a state object of its own (routing, typing); else a row's cases share one. */
  perKindState?: boolean;
}

/** The question families of a labelled set, in expansion order. Pair questions always use candidate 0. */
export const FAMILIES = {
  routing: {
    state: ['query'],
    perKindState: true,
    labels: [
      ['semantic', 'routing.semantic'],
      ['temporal', 'routing.temporal'],
      ['causal', 'routing.causal'],
      ['entity', 'routing.entity'],
      ['multi_hop_need', 'routing.multi_hop_need'],
      ['recency_importance', 'routing.recency_importance'],
    ],
  },
  typing: {
    state: ['observation'],
    perKindState: true,
    labels: [
      ['episodic', 'typing.episodic'],
      ['semantic', 'typing.semantic'],
      ['procedural', 'typing.procedural'],
      ['preference', 'typing.preference'],
    ],
  },
  relation: {
    state: ['new_memory', 'candidates'],
    labels: [
      ['semantic', 'relation.semantic'],
      ['causes', 'relation.causes'],
      ['caused_by', 'relation.caused_by'],
      ['same_episode', 'relation.same_episode'],
      ['alias', 'relation.entity_alias'],
      ['order', 'relation.temporal_order'],
    ],
  },
  consolidation: {
    state: ['new_memory', 'candidates'],
    labels: [
      ['redundant', 'consolidation.redundant'],
      ['contradiction', 'consolidation.contradiction'],
      ['obsolete', 'consolidation.obsolete'],
      ['link', 'consolidation.link'],
      ['rep', 'consolidation.representation'],
    ],
  },
  scoring: {
    state: ['query', 'candidates', 'evidence'],
    labels: [
      ['relevance', 'scoring.relevance'],
      ['usefulness', 'scoring.relation_usefulness'],
      ['newInfo', 'scoring.new_information'],
      ['supports', 'scoring.supports_current_evidence'],
    ],
  },
  stopping: {
    state: ['query', 'evidence', 'depth'],
    labels: [
      ['sufficient', 'stopping.evidence_sufficient'],
      ['cont', 'stopping.continue_useful'],
      ['missing', 'stopping.missing_evidence'],
      ['contradiction', 'stopping.contradiction'],
    ],
  },
} as const satisfies Record<string, Family>;

/** One stored row: the state fields of its family and its labels. */
export type LabelledRow = Record<string, unknown> & { labels: Record<string, number | string> };
/** A labelled set as stored (`bench/data/*.json`); `about` says what the set is. */
export type LabelledRows = { about?: string } & { [F in keyof typeof FAMILIES]?: LabelledRow[] };

/** The cases of a stored set (see the module comment). */
export function labelledCases(rows: LabelledRows): LabelledCase[] {
  const cases: LabelledCase[] = [];
  for (const [name, family] of Object.entries(FAMILIES) as [keyof typeof FAMILIES, Family][]) {
    for (const row of rows[name] ?? []) {
      const stateOf = () => Object.fromEntries(family.state.map((k) => [k, row[k]]));
      const shared = stateOf();
      for (const [key, kind] of family.labels) {
        const label = row.labels[key];
        if (label !== undefined) cases.push({ kind, state: family.perKindState ? stateOf() : shared, label });
      }
    }
  }
  return cases;
}

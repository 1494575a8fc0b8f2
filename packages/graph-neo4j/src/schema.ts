/**
 * The graph schema of the Neo4j store (ours). Every label, relationship type, property key and
 * index name that appears in a Cypher string comes from this module's closed constants, never
 * from caller input.
 */
import type { RelationView } from '@mem/store-spec';

/** Label of canonical observations. */
export const MEMORY_LABEL = 'Memory';
/** Label of append-only history rows. */
export const HISTORY_LABEL = 'MemoryHistory';
/** Label of the single store-metadata node. */
export const META_LABEL = 'MemoryMeta';
/** Label of per-scope derived state (`MemoryStore.loadState` / `saveState`, e.g. saved gate snapshots). */
export const STATE_LABEL = 'MemoryState';

/** One relationship type per relation view (closed enum → closed set of types). */
export const VIEW_REL_TYPES: Readonly<Record<RelationView, string>> = Object.freeze({
  semantic: 'SEMANTIC',
  temporal: 'TEMPORAL',
  causal: 'CAUSAL',
  entity: 'ENTITY',
});

export const ALL_REL_TYPES: readonly string[] = Object.freeze(Object.values(VIEW_REL_TYPES));

/** Every label / relationship type the store may emit (used by tests to check generated Cypher). */
export const ALLOWED_SCHEMA_NAMES: readonly string[] = Object.freeze([MEMORY_LABEL, HISTORY_LABEL, META_LABEL, STATE_LABEL, ...ALL_REL_TYPES]);

export const INDEX_NAMES = Object.freeze({
  idConstraint: 'mem_memory_id_unique',
  contentConstraint: 'mem_memory_content_unique',
  metaConstraint: 'mem_meta_key_unique',
  stateConstraint: 'mem_state_key_unique',
  stateScope: 'mem_state_scope',
  scope: 'mem_memory_scope',
  scopeId: 'mem_memory_scope_id',
  contentHash: 'mem_memory_content_hash',
  historyScope: 'mem_history_scope_seq',
  vector: 'mem_memory_embedding',
  fulltext: 'mem_memory_text',
  relationUid: 'mem_relation_uid',
});


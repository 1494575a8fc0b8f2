/** The in-flight state of one observation during a scope's write (ours; see writer.ts). */
import type { GateAction, MemoryNode } from '../types.js';
import type { ScheduleRecord } from './gates.js';
import type { EdgeDraft } from './relations.js';
import type { PairPlan } from './questions/index.js';
import type { NormalizedObservation } from './validate.js';

export interface Candidate {
  node: MemoryNode;
  cosine: number;
  score: number;
  sharedEntity: boolean;
}

export interface Pending {
  /** Index in the caller's batch. */
  index: number;
  obs: NormalizedObservation;
  node: MemoryNode;
  entitySet: Set<string>;
  keywordSet: Set<string>;
  action: GateAction;
  stored: boolean;
  committed: boolean;
  drafts: EdgeDraft[];
  plans: PairPlan[];
  candidates: Candidate[];
  relationState: Record<string, unknown> | null;
  calls: number;
  nearest: MemoryNode | null;
  /** The write's consolidation-schedule record for its history row (null with consolidation off). */
  schedule: ScheduleRecord | null;
  /** Older memories this one supersedes per its near-duplicate check (OBSOLETES; issue 17). */
  supersedes?: string[];
  /** The near-duplicate check's controller state (Noop / Update), reused by a consolidation pass. */
  checkState?: { new_memory: Record<string, unknown>; candidates: Record<string, unknown>[] };
}

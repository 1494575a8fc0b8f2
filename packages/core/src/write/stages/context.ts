/**
 * What the stages of one scope's write share (ours; see writer.ts and docs/architecture.md "One
 * `add()`"): the writer's configuration and collaborators bound to the scope, the batch's in-flight
 * state, and the stage clock that fills `stats().timings`.
 */
import type { MemoryNode, ResolvedScope } from '../../types.js';
import type { ScopeRuntime } from '../gates.js';
import type { Pending } from '../pending.js';
import type { ControllerAnswer, ControllerQuestion } from '../ports.js';
import type { EdgeDraft } from '../relations.js';
import type { NormalizedObservation } from '../validate.js';
import type { WriteCounters, WriteStage } from '../write-results.js';
import type { WriterConfig } from '../writer.js';

/** An observation of the caller's batch: its index in the batch and its validated form. */
export interface IndexedObservation {
  index: number;
  obs: NormalizedObservation;
}

/** Entities, keywords and event time of one text (the extractor's answer, deduplicated). */
export interface Extracted {
  entities: string[];
  keywords: string[];
  eventTime: MemoryNode['eventTime'];
}

/**
 * Wall time per write stage: `start()` marks the beginning of a stage, `tick(stage)` adds the time
 * since the last mark to that stage's counter (ms) and marks again.
 */
export class StageClock {
  private t = performance.now();
  constructor(private readonly counters: WriteCounters) {}
  start(): void {
    this.t = performance.now();
  }
  tick(stage: WriteStage): void {
    const now = performance.now();
    this.counters.timings[stage] += now - this.t;
    this.t = now;
  }
}

/** The writer bound to one scope's write. Every function wraps its failure as a MemError of the stage. */
export interface WriteContext {
  cfg: WriterConfig;
  scope: ResolvedScope;
  /** The scope key (`scopeKey(scope)`), the gate's and the queue's name of the scope. */
  key: string;
  rt: ScopeRuntime;
  /** Counters of this write, merged into the memory's counters once the store acknowledged it. */
  counters: WriteCounters;
  clock: StageClock;
  /** One System-One call; `stage` names the stage in a wrapped error. */
  ask(state: Record<string, unknown>, questions: Record<string, ControllerQuestion>, stage: string): Promise<Record<string, ControllerAnswer>>;
  /** Unit embeddings of `texts`, in order (batched by `embedBatchSize`). */
  embedAll(texts: string[]): Promise<Float32Array[]>;
  extract(text: string, observedAt: string, timeZone?: string | null): Promise<Extracted>;
  /** A System-Two node derived from `sources` (needs `cfg.summarizer`). */
  derivedNode(kind: 'update' | 'merge' | 'promote', sources: MemoryNode[]): Promise<MemoryNode>;
}

/** The in-flight state of a batch (observations routed so far, in order). */
export interface BatchState {
  /** Every routed observation, stored or not (index i = the i-th fresh observation). */
  pendings: Pending[];
  /** The stored ones, in order. */
  pendingStored: Pending[];
  /** `pendingStored` by node id. */
  byId: Map<string, Pending>;
  /** Node ids committed to the scope's gate by this write (a rollback removes them). */
  committed: string[];
  /** True once the scope's runtime (episode chain, candidate index) holds something of this write. */
  runtimeTouched: boolean;
}

export function emptyBatch(): BatchState {
  return { pendings: [], pendingStored: [], byId: new Map(), committed: [], runtimeTouched: false };
}

/** A System-Two node (Update merge, consolidation merge / promote) with its edges and the write that owns them. */
export interface DerivedWrite {
  node: MemoryNode;
  drafts: EdgeDraft[];
  owner: Pending;
}

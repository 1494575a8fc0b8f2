/** What a write returns and counts (ours): per-observation results, the Memory's write counters and stage timings. */
import type { GateAction, MemoryNode, Relation } from '../types.js';

/** The outcome of one observation. */
export interface AddResult {
  /** The stored node (or, for `duplicate`, the node already stored; for a dropped Noop, the unstored node). */
  node: MemoryNode;
  /** The gate's routing, or `duplicate` when an identical observation (same content hash) is already stored. */
  action: GateAction | 'duplicate';
  /** False for a Noop under policy `drop` and for duplicates (nothing new was written). */
  stored: boolean;
  /** Relations written by this observation's write (its rule and learned edges, and those of a consolidation pass it triggered). */
  relations: Relation[];
  /** System-One calls spent on this observation (typing, relations, and a consolidation pass it triggered). */
  controllerCalls: number;
}

/** Counters since the Memory was created. */
export interface WriteCounters {
  writes: number;
  duplicates: number;
  gate: { add: number; update: number; noop: number; dropped: number };
  controllerCalls: number;
  /** Relation calls not made because the gate routed the observation to Noop or Update. */
  controllerCallsSaved: number;
  consolidations: number;
  summarizerCalls: number;
  /** Wall time spent per stage of the write path, in ms (batched stages count their whole wall time). */
  timings: Record<WriteStage, number>;
}

/** Write stages timed in `stats().timings`: `gate` = route (the vMF pass), `commit` = the gate's commit. */
export type WriteStage = 'validate' | 'embed' | 'extract' | 'typing' | 'gate' | 'commit' | 'candidates' | 'relations' | 'consolidation' | 'store';
export const WRITE_STAGES: readonly WriteStage[] = ['validate', 'embed', 'extract', 'typing', 'gate', 'commit', 'candidates', 'relations', 'consolidation', 'store'];

export function emptyCounters(): WriteCounters {
  return {
    writes: 0,
    duplicates: 0,
    gate: { add: 0, update: 0, noop: 0, dropped: 0 },
    controllerCalls: 0,
    controllerCallsSaved: 0,
    consolidations: 0,
    summarizerCalls: 0,
    timings: Object.fromEntries(WRITE_STAGES.map((k) => [k, 0])) as Record<WriteStage, number>,
  };
}

/** Add `b` into `a`. */
export function addCounters(a: WriteCounters, b: WriteCounters): void {
  a.writes += b.writes;
  a.duplicates += b.duplicates;
  for (const k of Object.keys(a.gate) as (keyof WriteCounters['gate'])[]) a.gate[k] += b.gate[k];
  a.controllerCalls += b.controllerCalls;
  a.controllerCallsSaved += b.controllerCallsSaved;
  a.consolidations += b.consolidations;
  a.summarizerCalls += b.summarizerCalls;
  for (const k of WRITE_STAGES) a.timings[k] += b.timings[k];
}

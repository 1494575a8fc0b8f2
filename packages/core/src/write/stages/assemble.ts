/**
 * Assembly of a scope's atomic batch and its results (docs/architecture.md "One `add()`":
 * finalizeEdges, history rows; then the results once the store acknowledged).
 */
import type { HistoryEntry, MemoryNode, Relation } from '../../types.js';
import { SCHEDULE_FIELD } from '../gates.js';
import type { Pending } from '../pending.js';
import { finalizeEdges, type EdgeDraft } from '../relations.js';
import { addCounters, type AddResult, type WriteCounters } from '../write-results.js';
import type { BatchState, DerivedWrite, WriteContext } from './context.js';
import type { ConsolidationOutcome } from './consolidation.js';
import type { DuplicateOf } from './dedup.js';

/** What one `store.write` writes, and the relations each write owns (for its result). */
export interface AssembledBatch {
  nodes: MemoryNode[];
  relations: Relation[];
  history: HistoryEntry[];
  /** `obsoleteBy` of memories stored by earlier writes (the batch's own nodes carry theirs). */
  updates: { id: string; obsoleteBy: string }[];
  owned: Map<Pending, Relation[]>;
}

/** Derived nodes join the gate's memory after the batch's own nodes (sorted by id = replay order). */
export function commitDerived(ctx: WriteContext, batch: BatchState, derived: DerivedWrite[]): void {
  derived.sort((a, b) => (a.node.id < b.node.id ? -1 : 1));
  for (const d of derived) {
    ctx.rt.gate.commit(ctx.key, d.node.id, d.node.embedding);
    batch.committed.push(d.node.id);
  }
}

/**
 * The atomic batch (ours): every edge draft finalized once (finalizeEdges: one edge per (from, to,
 * subtype), highest p), `obsoleteBy` set on the batch's own nodes or listed as updates, and one
 * history row per stored write, derived node and supersession (in that order: a memory's write row
 * comes before the OBSOLETE row naming it or its successor), and one RELATE row. `at`: UTC ISO-8601.
 */
export function assembleBatch(ctx: WriteContext, batch: BatchState, derived: DerivedWrite[], consolidation: ConsolidationOutcome, at: string): AssembledBatch {
  const { scope } = ctx;
  const { pendingStored } = batch;
  const { draftOwner, nodeUpdates } = consolidation;
  const history: HistoryEntry[] = [];
  for (const p of pendingStored) for (const d of p.drafts) draftOwner.set(d, p);
  for (const d of derived) for (const x of d.drafts) draftOwner.set(x, d.owner);
  const allDrafts: EdgeDraft[] = [...pendingStored.flatMap((p) => p.drafts), ...consolidation.drafts, ...derived.flatMap((d) => d.drafts)];
  const finalized = finalizeEdges(allDrafts, at);
  const relations = finalized.map((f) => f.relation);
  const owned = new Map<Pending, Relation[]>();
  for (const f of finalized) {
    const owner = draftOwner.get(f.draft);
    if (!owner) continue;
    let l = owned.get(owner);
    if (!l) owned.set(owner, (l = []));
    l.push(f.relation);
  }
  const pendingIds = new Map(pendingStored.map((p) => [p.node.id, p]));
  const updates: { id: string; obsoleteBy: string }[] = [];
  for (const [id, by] of nodeUpdates) {
    const inBatch = pendingIds.get(id);
    if (inBatch) inBatch.node.obsoleteBy = by;
    else updates.push({ id, obsoleteBy: by });
  }
  for (const p of pendingStored) {
    history.push({
      scope,
      op: p.action === 'add' ? 'ADD' : p.action === 'update' ? 'UPDATE' : 'NOOP',
      nodeId: p.node.id,
      at,
      data: {
        gate: p.node.gate,
        candidates: p.candidates.length,
        relations: owned.get(p)?.length ?? 0,
        sourceId: p.obs.sourceId,
        ...(p.schedule ? { [SCHEDULE_FIELD]: p.schedule } : {}),
      },
    });
  }
  for (const d of derived) {
    history.push({ scope, op: 'CONSOLIDATE', nodeId: d.node.id, at, data: { derivedFrom: d.node.provenance.metadata.derivedFrom } });
  }
  // after the write rows of the batch: a memory's ADD is never listed after what superseded it (history-order.ts)
  for (const [id, by] of nodeUpdates) history.push({ scope, op: 'OBSOLETE', nodeId: id, at, data: { obsoleteBy: by } });
  if (relations.length) {
    history.push({ scope, op: 'RELATE', nodeId: null, at, data: { count: relations.length } });
  }
  const nodes = [...pendingStored.map((p) => p.node), ...derived.map((d) => d.node)];
  return { nodes, relations, history, updates, owned };
}

/**
 * One result per observation of the caller's batch, in its order (duplicates included), and the
 * write's counters merged into the memory's (`into`). Called only after the store acknowledged.
 */
export function writeResults(
  pendings: Pending[],
  duplicates: DuplicateOf[],
  owned: Map<Pending, Relation[]>,
  counters: WriteCounters,
  into: WriteCounters,
): { index: number; result: AddResult }[] {
  const results: { index: number; result: AddResult }[] = [];
  for (const p of pendings) {
    counters.controllerCalls += p.calls;
    if (p.stored) counters.writes++;
    counters.gate[p.action]++;
    if (!p.stored) counters.gate.dropped++;
    results.push({
      index: p.index,
      result: { node: p.node, action: p.action, stored: p.stored, relations: owned.get(p) ?? [], controllerCalls: p.calls },
    });
  }
  for (const d of duplicates) {
    counters.duplicates++;
    const node = d.node ?? pendings[d.batchIndex!]!.node; // pendings[i] is fresh[i]
    results.push({ index: d.index, result: { node, action: 'duplicate', stored: false, relations: [], controllerCalls: 0 } });
  }
  results.sort((a, b) => a.index - b.index);
  addCounters(into, counters);
  return results;
}

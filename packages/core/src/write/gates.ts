/**
 * Per-scope gate state for the write path (ours). The SAGE gate keeps its memory (unit vectors, κ,
 * adaptive τ) in process; the store is the source of truth. On first use of a scope the gate is
 * rebuilt by replaying the scope's commits in their original order (node ids are UUIDv7, so id order
 * is write order), which reproduces the exact same state a long-running process would have: a
 * restarted process decides the same. After a failed write or a `forget` the scope's state is
 * dropped and rebuilt the same way on next use.
 *
 * Replay rule (the same rule the live write path follows): a stored node is committed to the gate
 * unless its gate action is `noop` (SAGE: a Noop adds nothing to the gate's memory; under the
 * `annotate` policy the node is still stored, but it does not count as a new memory for novelty).
 *
 * The consolidation schedule (`writes`, `sinceConsolidation`, `recent`) is not replayed here: it is
 * restored from the scope's history rows by the writer on the scope's first write after a rebuild
 * (`Writer.restoreSchedule`, see {@link ScheduleRecord}), so it survives a restart, a failed write
 * and a `forget` too.
 */
import type { MemoryNode, MemoryStore, ResolvedScope } from '../types.js';
import { CandidateIndex, indexedMemory, NodeCache } from './candidate-index.js';
import { nodeEpisodeKey } from './episode.js';
import { observeId } from './ids.js';
import type { WriteGate } from './ports.js';

/** A node the consolidation pass may review: the node and its top discovered candidates. */
export interface RecentWrite {
  node: MemoryNode;
  candidates: { node: MemoryNode; cosine: number }[];
  /** Candidate ids already linked RELATED_TO by the relation step. */
  related: Set<string>;
  /**
   * The controller state items of the relation call (`new_memory` and the first candidates, same
   * content as `memoryItem`), reused by the consolidation call so a backend's per-item feature
   * cache (keyed by object) still holds them.
   */
  items?: { node: Record<string, unknown>; candidates: Record<string, unknown>[] };
}

/**
 * The consolidation inputs one stored write records in its `ADD` / `UPDATE` / `NOOP` history row, as
 * `data.consolidation` (ours; a backward-compatible extra field, written only when consolidation is
 * on). History rows are append-only and survive `forget`, and a failed write leaves none, so the
 * schedule a long-running process follows can be rebuilt from them exactly.
 */
export interface ScheduleRecord {
  /**
   * 1-based ordinal of this write among the scope's stored, non-derived writes since the schedule
   * was first recorded. The ordinals of a scope's rows are consecutive (a failed write leaves no row
   * and takes no ordinal; a forgotten node's row stays).
   */
  write: number;
  /**
   * Ordinal of the write that ran the last consolidation pass at or before this write (this write's
   * own ordinal when it ran one; 0 = none yet). The next pass runs once `write − pass` reaches
   * `consolidateEvery`, and reviews the writes after `pass`. Absent in records of earlier versions,
   * which ran their passes at the multiples of `consolidateEvery`: read as `write − write mod every`.
   */
  pass?: number;
  /** The `consolidateEvery` in force when this write was stored (bounds the window a restart restores; absent in records of earlier versions). */
  every?: number;
  /** Ids of the candidates a pass reviews for this write, best first (at most `consolidationPairs`); absent when the write is not reviewed (Noop, Update, no candidates). */
  candidates?: string[];
  /** The reviewed candidates this write's relation call linked `RELATED_TO` (a pass adds no second link). */
  related?: string[];
}

/** History row field holding a write's {@link ScheduleRecord}. */
export const SCHEDULE_FIELD = 'consolidation';

/** The ops of a stored observation's own history row (derived nodes write `CONSOLIDATE`). */
export function isWriteOp(op: string): boolean {
  return op === 'ADD' || op === 'UPDATE' || op === 'NOOP';
}

const isIdList = (x: unknown): x is string[] => Array.isArray(x) && x.every((v) => typeof v === 'string');

/** The {@link ScheduleRecord} of a history row's data, or null when it has none (rows of older versions, or written with consolidation off) or it is malformed. */
export function scheduleRecord(data: Record<string, unknown> | null | undefined): ScheduleRecord | null {
  const r = data?.[SCHEDULE_FIELD] as Record<string, unknown> | undefined;
  if (!r || typeof r !== 'object') return null;
  const write = r.write;
  if (typeof write !== 'number' || !Number.isSafeInteger(write) || write < 1) return null;
  const pass = r.pass;
  if (pass !== undefined && (typeof pass !== 'number' || !Number.isSafeInteger(pass) || pass < 0 || pass > write)) return null;
  const every = r.every;
  if (every !== undefined && (typeof every !== 'number' || !Number.isSafeInteger(every) || every < 1)) return null;
  if (r.candidates !== undefined && !isIdList(r.candidates)) return null;
  if (r.related !== undefined && !isIdList(r.related)) return null;
  const out: ScheduleRecord = { write };
  if (pass !== undefined) out.pass = pass;
  if (every !== undefined) out.every = every;
  if (r.candidates) out.candidates = r.candidates as string[];
  if (r.related) out.related = r.related as string[];
  return out;
}

/**
 * Ordinal of the window floor a restart restores from a scope's latest record (ours): the window
 * holds the writes after it. The floor is the last pass (`pass`; records of earlier versions ran
 * their passes at the multiples of `consolidateEvery`, so `write − write mod every`), but at most
 * `max(every, record.every)` writes back: a corrupt or hand-written record cannot make the next
 * pass review more than a legitimate schedule could have left pending.
 *
 * @param every the `consolidateEvery` in force now (≥ 1)
 */
export function scheduleFloor(rec: ScheduleRecord, every: number): number {
  const last = rec.pass ?? rec.write - (rec.write % every);
  const cap = Math.max(every, rec.every ?? every);
  return Math.max(last, rec.write - cap);
}

/** The candidate ids a pass reviews for a recorded write: the first `pairs` distinct ids other than the write's own node (a node is never paired with itself). */
export function reviewIds(nodeId: string, rec: ScheduleRecord, pairs: number): string[] {
  const out: string[] = [];
  for (const id of rec.candidates ?? []) {
    if (out.length >= pairs) break;
    if (id !== nodeId && !out.includes(id)) out.push(id);
  }
  return out;
}

/** In-process state of one scope. */
export interface ScopeRuntime {
  key: string;
  scope: ResolvedScope;
  gate: WriteGate;
  /**
   * Whether `writes`, `sinceConsolidation` and `recent` hold the schedule restored from the store
   * (false after a rebuild until the scope's next write restores it; see `Writer.restoreSchedule`).
   */
  scheduleLoaded: boolean;
  /** Ordinal of the scope's last stored write ({@link ScheduleRecord.write}; 0 = none recorded). */
  writes: number;
  /** Stored writes since the last consolidation pass (its ordinal is `writes − sinceConsolidation`). */
  sinceConsolidation: number;
  /** The reviewed writes (Add with candidates) among the stored writes since the last pass, oldest first. */
  recent: RecentWrite[];
  /** Last stored node id of each episode key, for the SAME_EPISODE chain. */
  lastByEpisode: Map<string, string>;
  /** Entity / keyword postings of the scope's memories, for candidate discovery. */
  index: CandidateIndex;
  /** Recently written or read full nodes of the scope (bounded), for candidate discovery. */
  nodes: NodeCache;
}

/** Snapshot of the cheap parts of a runtime, to restore after a failed write. */
export interface RuntimeSnapshot {
  scheduleLoaded: boolean;
  writes: number;
  sinceConsolidation: number;
  recent: RecentWrite[];
  lastByEpisode: Map<string, string>;
}

/** True when replay commits this node to the gate. */
export function isGateMember(node: Pick<MemoryNode, 'gate'>): boolean {
  return node.gate?.action !== 'noop';
}

const PAGE = 2000;

export class GateRegistry {
  private readonly runtimes = new Map<string, Promise<ScopeRuntime>>();

  /**
   * @param source a shared gate instance, or a factory making one gate per scope (default; exact
   *   rollback and forget by rebuild)
   */
  constructor(
    private readonly store: MemoryStore,
    private readonly source: { shared: WriteGate } | { factory: (scopeKey: string) => WriteGate },
    private readonly nodeCacheSize?: number,
  ) {}

  /** The runtime of a scope, rebuilding its gate from the store on first use. */
  runtime(scope: ResolvedScope, key: string): Promise<ScopeRuntime> {
    let rt = this.runtimes.get(key);
    if (!rt) {
      rt = this.rebuild(scope, key);
      this.runtimes.set(key, rt);
      rt.catch(() => {
        if (this.runtimes.get(key) === rt) this.runtimes.delete(key);
      });
    }
    return rt;
  }

  /** Whether a scope's state is in memory. */
  loaded(key: string): boolean {
    return this.runtimes.has(key);
  }

  /**
   * Drop a scope's in-process state; it is rebuilt from the store on next use. With a shared gate
   * instance the given ids are removed from it instead (its adaptive τ then keeps its EMA history).
   */
  invalidate(key: string, committedIds: readonly string[] = []): void {
    this.runtimes.delete(key);
    if ('shared' in this.source) for (const id of committedIds) this.source.shared.remove(key, id);
  }

  /** Remove one node from a scope's gate (forget); the scope's other in-process state is rebuilt on next use. */
  async forget(key: string, id: string): Promise<void> {
    if ('shared' in this.source) this.source.shared.remove(key, id);
    this.runtimes.delete(key);
  }

  /** Every node of a scope in write order (UUIDv7 id order). */
  private async allNodes(scope: ResolvedScope): Promise<MemoryNode[]> {
    const out: MemoryNode[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await this.store.list(scope, { orderBy: 'createdAt', order: 'asc', limit: PAGE, offset });
      out.push(...page);
      if (page.length < PAGE) break;
    }
    out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return out;
  }

  private async rebuild(scope: ResolvedScope, key: string): Promise<ScopeRuntime> {
    const shared = 'shared' in this.source;
    const gate = shared ? this.source.shared : this.source.factory(key);
    const rt: ScopeRuntime = { key, scope, gate, scheduleLoaded: false, writes: 0, sinceConsolidation: 0, recent: [], lastByEpisode: new Map(), index: new CandidateIndex(), nodes: new NodeCache(this.nodeCacheSize) };
    const count = await this.store.count(scope);
    if (count === 0) return rt;
    const nodes = await this.allNodes(scope);
    // new ids of this scope must sort after its stored ones, whatever the clock says (replay order)
    if (nodes.length) observeId(nodes[nodes.length - 1]!.id);
    const replayGate = !shared || gate.size(key) === 0;
    const cacheFrom = nodes.length - rt.nodes.capacity;
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      if (replayGate && isGateMember(node)) gate.commit(key, node.id, node.embedding);
      rt.index.add(indexedMemory(node));
      if (i >= cacheFrom) rt.nodes.put(node);
      const ep = nodeEpisodeKey(node);
      if (ep) rt.lastByEpisode.set(ep, node.id);
    }
    return rt;
  }

  /** Snapshot the cheap parts of a runtime (not the gate). */
  static snapshot(rt: ScopeRuntime): RuntimeSnapshot {
    return {
      scheduleLoaded: rt.scheduleLoaded,
      writes: rt.writes,
      sinceConsolidation: rt.sinceConsolidation,
      recent: rt.recent.slice(),
      lastByEpisode: new Map(rt.lastByEpisode),
    };
  }

  static restore(rt: ScopeRuntime, s: RuntimeSnapshot): void {
    rt.scheduleLoaded = s.scheduleLoaded;
    rt.writes = s.writes;
    rt.sinceConsolidation = s.sinceConsolidation;
    rt.recent = s.recent;
    rt.lastByEpisode = s.lastByEpisode;
  }

  /** Drop every runtime (close). */
  clear(): void {
    this.runtimes.clear();
  }
}

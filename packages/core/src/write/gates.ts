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
 * Gate snapshots (ours): with the default per-scope gates and a store that keeps derived state
 * (`MemoryStore.saveState`), a scope's gate is also saved, without its vectors (the nodes hold them),
 * once it holds {@link GATE_SAVE_MIN_SIZE} memories and then every 10 % of its size in new commits,
 * and on `close()`. A rebuild then restores the snapshot and replays only the commits after it. The
 * snapshot is used only when it is exactly a prefix of the replay: its ids are the scope's first gate
 * members in id order (same order), it was made with the same gate options, its digest matches
 * ({@link sealGateState}), and the members' stored embeddings add up to its running sum (so a node
 * rewritten in place is noticed); otherwise (a forget drops it, an older, foreign or damaged
 * snapshot, a changed option) the scope is replayed in full. Either way the gate ends in the same
 * state, bit for bit (tested, gate-state*.test.ts). The digest catches damage, not a forger who
 * recomputes it: the store itself is trusted.
 *
 * The consolidation schedule (`writes`, `sinceConsolidation`, `recent`) is not replayed here: it is
 * restored from the scope's history rows by the writer on the scope's first write after a rebuild
 * (`Writer.restoreSchedule`, see {@link ScheduleRecord}), so it survives a restart, a failed write
 * and a `forget` too.
 */
import { createHash } from 'node:crypto';
import type { GateDecisionRecord, HistoryEntry, MemoryNode, MemoryStore, NodeDigest, ResolvedScope } from '../types.js';
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
  /**
   * The largest node id the runtime holds (its gate, index and episode chain were built from every
   * stored node up to it, in id order; '' = none). An incremental catch-up only appends nodes after
   * it (see {@link GateRegistry.catchUp}).
   */
  lastId: string;
  /**
   * Ids of the nodes this process stored in the scope whose history rows may lie after the seq the
   * 'shared' writers' sync last saw: a catch-up skips their rows (already applied), and the set is
   * cleared once the seen seq is past them ({@link GateRegistry.settle}).
   */
  own: Set<string>;
  /** Entity / keyword postings of the scope's memories, for candidate discovery. */
  index: CandidateIndex;
  /** Recently written or read full nodes of the scope (bounded), for candidate discovery. */
  nodes: NodeCache;
  /** Gate commits since the scope's gate was last saved or restored (see {@link GateRegistry.afterCommit}). */
  unsaved: number;
  /**
   * After a failed save: `unsaved` must reach this before the next attempt (another save interval
   * later), so a store whose `saveState` keeps failing costs one snapshot per interval, not one per
   * write. 0 = no failed save pending.
   */
  retryAt?: number;
}

/** Snapshot of the cheap parts of a runtime, to restore after a failed write. */
export interface RuntimeSnapshot {
  scheduleLoaded: boolean;
  writes: number;
  sinceConsolidation: number;
  recent: RecentWrite[];
  lastByEpisode: Map<string, string>;
}

/** What a rebuild reads of a memory: a store's {@link NodeDigest} (`scanNodes`) or a whole node (`list`). */
type ScopeNode = NodeDigest | MemoryNode;
/** A gate member as a rebuild keeps it: id and vector. */
type Member = { id: string; embedding: Float32Array };

/** True when replay commits this node to the gate. */
export function isGateMember(node: { gate: { action: GateDecisionRecord['action'] } | null }): boolean {
  return node.gate?.action !== 'noop';
}

const PAGE = 2000;

/** Name of the gate snapshot in the store's derived state (`MemoryStore.saveState`). */
export const GATE_STATE_NAME = '@mem/gate-vmf';
/** A scope's gate is saved only from this many memories on: below it a replay takes milliseconds (ours). */
export const GATE_SAVE_MIN_SIZE = 1000;
/** …and once the commits since the last save reach max(250, 10 % of the gate's size) (ours): at most ~10 % of a replay is left after a crash. */
export const GATE_SAVE_MIN_COMMITS = 250;
export const GATE_SAVE_FRACTION = 0.1;

/** Field of the saved JSON holding the SHA-256 (base64url) of the rest of it. */
const DIGEST_FIELD = 'digest';
const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

/**
 * The text saved for a gate snapshot (ours): its JSON with a trailing `digest` field, the SHA-256 of
 * the JSON without it. A restore recomputes it, so a snapshot damaged anywhere (a flipped byte in the
 * PCA basis, a truncated write by another tool) is replayed instead of used.
 * @param snapshot a JSON object (the codec's `save` result)
 */
export function sealGateState(snapshot: object): string {
  const { [DIGEST_FIELD]: _old, ...body } = snapshot as Record<string, unknown>;
  const json = JSON.stringify(body);
  return `${json.slice(0, -1)}${json.length > 2 ? ',' : ''}"${DIGEST_FIELD}":"${sha256(json)}"}`;
}

/** The snapshot object of a {@link sealGateState} text, or null when it is not JSON or its digest does not match. */
export function openGateState(text: string): Record<string, unknown> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const { [DIGEST_FIELD]: digest, ...body } = parsed as Record<string, unknown>;
  // JSON.parse keeps the key order, so the body re-serializes to exactly the text that was hashed
  return typeof digest === 'string' && sha256(JSON.stringify(body)) === digest ? body : null;
}

/**
 * Saves and restores the default per-scope gates (`@mem/gate-vmf` snapshots without vectors); see
 * the module comment.
 */
export interface GateStateCodec {
  /** A JSON-safe snapshot of one scope of a gate the factory made, without vectors. */
  save(gate: WriteGate, key: string): unknown;
  /**
   * A gate restored from `state`, its vectors from `vectors` (one per id, as committed).
   * @throws when the snapshot does not apply (other gate options, malformed)
   */
  load(key: string, state: unknown, vectors: (ids: readonly string[]) => ArrayLike<number>[]): WriteGate;
}

/** How scopes' gates were brought back and saved, since the registry was made. */
export interface GateStateCounters {
  /** Scopes rebuilt from a saved snapshot (plus the commits after it). */
  restored: number;
  /** Gate commits replayed from stored nodes (all of a scope without a usable snapshot, else the tail). */
  replayedCommits: number;
  /** Snapshots saved. */
  saved: number;
  /** Saves that failed (the write itself had succeeded; the next rebuild replays more). */
  saveFailures: number;
  /** Scopes rebuilt from the store (every memory of the scope read back; first use, restart, or a catch-up that could not apply). */
  rebuilt: number;
  /** Incremental catch-ups ('shared' writers): another writer's new rows applied without a rebuild ({@link GateRegistry.catchUp}). */
  caughtUp: number;
  /** Memories read back by those catch-ups (only the new ones). */
  caughtUpNodes: number;
  /** Catch-ups that fell back to a rebuild, by reason (see {@link CatchUpFallback}). */
  catchUpFallbacks: Partial<Record<CatchUpFallback, number>>;
  /** Memories read back by those rebuilds (issue 33: every memory of each rebuilt scope, once). */
  rebuildReads: number;
  /**
   * Wall time of those rebuilds in ms, by part (issue 33): `read` = the store's pages (`scanNodes`,
   * else `list`), `index` = the candidate index and episode chain, `gate` = restoring the gate's
   * snapshot (its vectors, PCA projection and sketch) and replaying the commits after it.
   */
  rebuildMs: { read: number; index: number; gate: number };
}

/** Most history rows a catch-up reads; more since the last seen row and the scope is rebuilt instead (ours). */
export const CATCH_UP_MAX_ROWS = 4096;

/** Ops a catch-up applies; any other (FORGET, REEMBED, a later version's op) makes it rebuild. */
const CATCH_UP_OPS: ReadonlySet<string> = new Set(['ADD', 'UPDATE', 'NOOP', 'CONSOLIDATE', 'OBSOLETE', 'RELATE']);

/** Why a catch-up fell back to a full rebuild (the `reason` of {@link GateRegistry.catchUp}). */
export type CatchUpFallback = 'forget' | 'reembed' | 'unknown-op' | 'rewrite' | 'missing' | 'out-of-order' | 'not-loaded' | 'shared-gate';

export class GateRegistry {
  private readonly runtimes = new Map<string, Promise<ScopeRuntime>>();
  readonly counters: GateStateCounters = {
    restored: 0,
    replayedCommits: 0,
    saved: 0,
    saveFailures: 0,
    rebuilt: 0,
    caughtUp: 0,
    caughtUpNodes: 0,
    catchUpFallbacks: {},
    rebuildReads: 0,
    rebuildMs: { read: 0, index: 0, gate: 0 },
  };

  /**
   * @param source a shared gate instance, or a factory making one gate per scope (default; exact
   *   rollback and forget by rebuild), with a codec when its gates can be saved and restored
   */
  constructor(
    private readonly store: MemoryStore,
    private readonly source: { shared: WriteGate } | { factory: (scopeKey: string) => WriteGate; codec?: GateStateCodec },
    private readonly nodeCacheSize?: number,
  ) {}

  private get codec(): GateStateCodec | null {
    if ('shared' in this.source || !this.source.codec) return null;
    return this.store.loadState && this.store.saveState ? this.source.codec : null;
  }

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

  /** True when one caller-supplied gate instance serves every scope (its rows must be removed one by one on forget). */
  get sharedInstance(): boolean {
    return 'shared' in this.source;
  }

  /** Remove one node from a scope's gate (forget); the scope's other in-process state is rebuilt on next use. */
  async forget(key: string, id: string): Promise<void> {
    if ('shared' in this.source) this.source.shared.remove(key, id);
    this.runtimes.delete(key);
  }

  /**
   * Every memory of a scope in write order (UUIDv7 id order), page by page (ours, issue 33): keyset
   * pages of {@link NodeDigest}s when the store has `scanNodes` (no text decoded, no O(N²) offsets),
   * else `list` pages with offsets, sorted once at the end. `visit` sees the pages in id order; a
   * scan whose order is not JavaScript's (ids outside UTF-16's basic plane sort differently) is
   * read again through `list` and sorted. Returns true when the pages were full nodes (`list`).
   */
  private async scanScope(scope: ResolvedScope, visit: (page: readonly ScopeNode[]) => void, reset: () => void): Promise<boolean> {
    const timed = async <T>(read: () => Promise<T>): Promise<T> => {
      const t = performance.now();
      try {
        return await read();
      } finally {
        this.counters.rebuildMs.read += performance.now() - t;
      }
    };
    if (this.store.scanNodes) {
      let last = '';
      let ordered = true;
      for (;;) {
        const page = await timed(() => this.store.scanNodes!(scope, { afterId: last || undefined, limit: PAGE }));
        for (const n of page) {
          if (!(n.id > last)) ordered = false;
          last = n.id;
        }
        if (!ordered) break;
        this.counters.rebuildReads += page.length;
        visit(page);
        if (page.length < PAGE) return false;
      }
      reset(); // not JavaScript's order: read whole nodes and sort them
    }
    const out: MemoryNode[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await timed(() => this.store.list(scope, { orderBy: 'createdAt', order: 'asc', limit: PAGE, offset }));
      out.push(...page);
      if (page.length < PAGE) break;
    }
    out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.counters.rebuildReads += out.length;
    visit(out);
    return true;
  }

  /**
   * The scope's saved gate when it applies to `members` (the scope's gate members in id order):
   * returns the restored gate and how many leading members it already holds, or null (replay all).
   */
  private async restoreGate(scope: ResolvedScope, key: string, members: readonly Member[]): Promise<{ gate: WriteGate; count: number } | null> {
    const codec = this.codec;
    if (!codec || members.length === 0) return null;
    let state: any;
    try {
      const text = await this.store.loadState!(scope, GATE_STATE_NAME);
      if (typeof text !== 'string' || !text) return null;
      state = openGateState(text);
      if (!state) return null; // not JSON, or damaged (digest): replay
    } catch {
      return null; // unreadable: replay
    }
    const ids: unknown = state?.scopes?.[0]?.ids;
    if (!Array.isArray(ids) || !Array.isArray(state.scopes) || state.scopes.length !== 1 || state.scopes[0].scope !== key) return null;
    if (ids.length === 0 || ids.length > members.length) return null;
    // a prefix of the replay: exactly the first |ids| members, in the same order (the gate's rows and
    // running sums follow the commit order, so a permuted prefix is another state)
    const byId = new Map<string, Member>();
    for (let i = 0; i < ids.length; i++) {
      const m = members[i]!;
      if (ids[i] !== m.id) return null;
      byId.set(m.id, m);
    }
    try {
      const gate = codec.load(key, state, (wanted) => wanted.map((id) => byId.get(id)!.embedding));
      return { gate, count: ids.length };
    } catch {
      return null; // other gate options, malformed: replay
    }
  }

  private async rebuild(scope: ResolvedScope, key: string): Promise<ScopeRuntime> {
    const shared = 'shared' in this.source;
    const rt: ScopeRuntime = {
      key,
      scope,
      gate: null as unknown as WriteGate,
      scheduleLoaded: false,
      writes: 0,
      sinceConsolidation: 0,
      recent: [],
      lastByEpisode: new Map(),
      lastId: '',
      own: new Set(),
      index: new CandidateIndex(),
      nodes: new NodeCache(this.nodeCacheSize),
      unsaved: 0,
    };
    const count = await this.store.count(scope);
    this.counters.rebuilt++;
    const fresh = () => ('shared' in this.source ? this.source.shared : this.source.factory(key));
    if (count === 0) {
      rt.gate = fresh();
      return rt;
    }
    // one pass over the scope in id order: the candidate index and the episode chain are fed page by
    // page, the gate members kept (id and vector only) for the gate below
    let members: Member[] = [];
    let tIndex = 0;
    await this.scanScope(
      scope,
      (page) => {
        const t = performance.now();
        for (const node of page) {
          if (isGateMember(node)) members.push({ id: node.id, embedding: node.embedding });
          rt.index.add(indexedMemory(node));
          const ep = nodeEpisodeKey(node);
          if (ep) rt.lastByEpisode.set(ep, node.id);
          rt.lastId = node.id;
        }
        // whole nodes (a store without scanNodes): the most recent ones fill the node cache
        if (page.length && 'text' in page[0]!) for (let i = Math.max(0, page.length - rt.nodes.capacity); i < page.length; i++) rt.nodes.put(page[i] as MemoryNode);
        tIndex += performance.now() - t;
      },
      () => {
        members = [];
        rt.index = new CandidateIndex();
        rt.lastByEpisode = new Map();
        rt.lastId = '';
      },
    );
    this.counters.rebuildMs.index += tIndex;
    // new ids of this scope must sort after its stored ones, whatever the clock says (replay order)
    if (rt.lastId) observeId(rt.lastId);
    const tGate = performance.now();
    let replayFrom = 0;
    const restored = shared ? null : await this.restoreGate(scope, key, members);
    if (restored) {
      rt.gate = restored.gate;
      replayFrom = restored.count;
      this.counters.restored++;
    } else rt.gate = fresh();
    const replayGate = !shared || rt.gate.size(key) === 0 || restored !== null;
    if (replayGate) {
      for (let i = replayFrom; i < members.length; i++) rt.gate.commit(key, members[i]!.id, members[i]!.embedding);
      const replayed = members.length - replayFrom;
      this.counters.replayedCommits += replayed;
      rt.unsaved = replayed;
    }
    this.counters.rebuildMs.gate += performance.now() - tGate;
    return rt;
  }

  /**
   * Incremental catch-up ('shared' writers, ours, issue 32): bring a loaded scope's runtime up to date
   * with the history rows other writers appended since this process last saw the scope (`rows`:
   * every row after the last seen `seq`, ascending, as `store.history(scope, { afterSeq })` gives
   * them), reading back only the memories those rows name (one `getMany`). The new memories are
   * applied exactly as {@link rebuild} applies a scope's memories — in id order, a gate member
   * committed to the gate, every one added to the candidate index, the node cache and the episode
   * chain — so the runtime ends in the state a full rebuild would give, bit for bit (tested,
   * catch-up.test.ts). An `OBSOLETE` row of a memory already held updates the cached node; `RELATE`
   * rows change nothing held here. The consolidation schedule is restored from the history on the
   * scope's next write (`scheduleLoaded = false`, as after a rebuild).
   *
   * Falls back to dropping the runtime (a full rebuild on next use) on a `FORGET` row (the gate
   * cannot un-commit exactly), a `REEMBED` row (every vector changed), an op it does not know (a later version's), a row naming a memory
   * the runtime holds with an op other than `OBSOLETE` / `RELATE` (an in-place rewrite, as a
   * re-embedding makes), a named memory the store no longer has (a forget between the reads), a new
   * id that does not sort after every id held (`lastId`: another writer's memory whose id is older
   * than one this runtime already committed, so replay order differs), a scope not loaded, or a
   * caller-supplied shared gate instance.
   *
   * @returns `null` when applied, else the reason it fell back (the runtime is then dropped)
   * @throws what the store's `getMany` throws (the runtime is dropped first)
   */
  async catchUp(scope: ResolvedScope, key: string, rows: readonly HistoryEntry[]): Promise<CatchUpFallback | null> {
    const fallback = (reason: CatchUpFallback): CatchUpFallback => {
      this.invalidate(key);
      this.counters.catchUpFallbacks[reason] = (this.counters.catchUpFallbacks[reason] ?? 0) + 1;
      return reason;
    };
    const p = this.runtimes.get(key);
    if (!p) return 'not-loaded';
    if ('shared' in this.source) return fallback('shared-gate');
    const rt = await p.catch(() => null);
    if (!rt || this.runtimes.get(key) !== p) return fallback('not-loaded');
    const fresh = new Set<string>();
    const obsolete = new Map<string, string>();
    for (const h of rows) {
      if (h.op === 'FORGET') return fallback('forget');
      if (h.op === 'REEMBED') return fallback('reembed');
      if (!CATCH_UP_OPS.has(h.op)) return fallback('unknown-op');
      if (h.nodeId === null || rt.own.has(h.nodeId)) continue;
      if (fresh.has(h.nodeId) || !rt.index.get(h.nodeId)) fresh.add(h.nodeId);
      else if (h.op === 'OBSOLETE' && typeof h.data?.obsoleteBy === 'string') obsolete.set(h.nodeId, h.data.obsoleteBy);
      else if (h.op !== 'RELATE') return fallback('rewrite');
    }
    let nodes: MemoryNode[] = [];
    if (fresh.size) {
      try {
        nodes = await this.store.getMany(scope, [...fresh]);
      } catch (e) {
        this.invalidate(key);
        throw e;
      }
      if (nodes.length !== fresh.size) return fallback('missing');
      nodes.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      if (nodes[0]!.id <= rt.lastId) return fallback('out-of-order');
    }
    for (const [id, by] of obsolete) rt.nodes.markObsolete(id, by);
    let commits = 0;
    for (const node of nodes) {
      if (isGateMember(node)) {
        rt.gate.commit(key, node.id, node.embedding);
        commits++;
      }
      rt.index.add(indexedMemory(node));
      rt.nodes.put(node);
      const ep = nodeEpisodeKey(node);
      if (ep) rt.lastByEpisode.set(ep, node.id);
    }
    if (nodes.length) {
      rt.lastId = nodes[nodes.length - 1]!.id;
      observeId(rt.lastId);
    }
    rt.own.clear();
    // another writer's writes moved the schedule's ordinals: restored from the history on the next write
    if (nodes.length) rt.scheduleLoaded = false;
    rt.unsaved += commits;
    this.counters.caughtUp++;
    this.counters.caughtUpNodes += nodes.length;
    this.counters.replayedCommits += commits;
    return null;
  }

  /** The seen seq is past every row of this process's own writes to the scope: forget their ids (see `ScopeRuntime.own`). */
  async settle(key: string): Promise<void> {
    const rt = await this.runtimes.get(key)?.catch(() => null);
    rt?.own.clear();
  }

  /**
   * After a scope's write was stored (under the scope's queue): count its gate commits and save the
   * gate once enough accumulated (see {@link GATE_SAVE_MIN_SIZE}). A failed save is counted, never
   * thrown: the write is already stored and the next rebuild just replays more.
   */
  async afterCommit(rt: ScopeRuntime, commits: number): Promise<void> {
    rt.unsaved += commits;
    const size = rt.gate.size(rt.key);
    if (!this.codec || size < GATE_SAVE_MIN_SIZE) return;
    const interval = Math.max(GATE_SAVE_MIN_COMMITS, Math.ceil(size * GATE_SAVE_FRACTION));
    if (rt.unsaved < Math.max(interval, rt.retryAt ?? 0)) return;
    if (!(await this.save(rt))) rt.retryAt = rt.unsaved + interval;
  }

  /** Save the scope's gate now; false when the store refused it (counted). */
  private async save(rt: ScopeRuntime): Promise<boolean> {
    const codec = this.codec;
    if (!codec) return false;
    try {
      const text = sealGateState(codec.save(rt.gate, rt.key) as object);
      await this.store.saveState!(rt.scope, GATE_STATE_NAME, text);
      rt.unsaved = 0;
      rt.retryAt = 0;
      this.counters.saved++;
      return true;
    } catch {
      this.counters.saveFailures++;
      return false;
    }
  }

  /** Save every loaded scope's gate with unsaved commits (on close; the caller holds every queue idle). */
  async saveAll(): Promise<void> {
    if (!this.codec) return;
    for (const p of [...this.runtimes.values()]) {
      const rt = await p.catch(() => null);
      if (rt && rt.unsaved > 0 && rt.gate.size(rt.key) >= GATE_SAVE_MIN_SIZE) await this.save(rt);
    }
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

/** The gate's routing decision as the record stored on a memory (`MemoryNode.gate`; ours): a route's answer (`NoveltyGate.route` or a `WriteGate`) reduced to the stored fields, `nearest` to id and cosine. */
export function gateDecisionRecord(d: GateDecisionRecord): GateDecisionRecord {
  return {
    action: d.action,
    novelty: d.novelty,
    score: d.score,
    threshold: d.threshold,
    kappa: d.kappa,
    density: d.density,
    nearest: d.nearest ? { id: d.nearest.id, cosine: d.nearest.cosine } : null,
    ...(d.scoreError ? { scoreError: d.scoreError } : {}),
    ...(d.nearestExact === false ? { nearestExact: false } : {}),
  };
}

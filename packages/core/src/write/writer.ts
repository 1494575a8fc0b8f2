/**
 * The Jev-Mem write path behind the SAGE gate (seed 000 "write path"; seed 001 §3; DESIGN.md
 * "Write path"). One call writes the observations of ONE scope atomically (one `store.write`):
 *
 *   validate (caller) → dedup by content hash → embed (batched) → extract entities / keywords /
 *   event time → type scores (4 Nouls) → SAGE gate → candidate discovery (K_w, four signals) →
 *   rule edges (episode chain, timestamps, exact entities) → ONE relation call per Add (pair_i_*)
 *   → edges with p ≥ θ_rel → consolidation every `consolidateEvery` stored writes → store.write.
 *
 * Batches keep sequential semantics: observation i is routed by a gate that already holds
 * observations < i and sees them as candidates (an in-memory "pending" index next to the store),
 * while the expensive calls (embedding, typing, relations, consolidation) are issued in batches.
 * Anything that fails before the store acknowledges the write leaves the store untouched and the
 * scope's gate state is rebuilt (see gates.ts), so nothing partial remains.
 */
import { MemError } from '../errors.js';
import type { Embedder, GateAction, HistoryEntry, MemoryNode, MemoryStore, Relation, ResolvedScope, TypeScores } from '../types.js';
import { normalizeEntity } from '../extract/index.js';
import { episodeKey, nodeEpisodeKey } from './episode.js';
import { indexedMemory, type IndexedMemory } from './candidate-index.js';
import { GateRegistry, isGateMember, isWriteOp, reviewIds, SCHEDULE_FIELD, scheduleFloor, scheduleRecord, type RecentWrite, type ScheduleRecord, type ScopeRuntime } from './gates.js';
import { uuidv7 } from './ids.js';
import type { ControllerAnswer, ControllerQuestion, Extractor, Summarizer, WriteController } from './ports.js';
import {
  consolidationEdges,
  differentEpisodes,
  edgesFromPairAnswers,
  finalizeEdges,
  noulValue,
  temporalRuleEdge,
  type EdgeDraft,
  type PairPlan,
  type RelationBatchBuilder,
} from './relations.js';
import {
  candidateScore,
  entitySignal,
  keywordSignal,
  normalizeKeyword,
  timeSignal,
  vectorSignal,
} from './signals.js';
import { contentHash, type NormalizedObservation } from './validate.js';

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

/** A scope's write with all fallible work done except the store write (see `Writer.prepareScope`). */
export interface PreparedWrite {
  commit(): Promise<{ index: number; result: AddResult }[]>;
  rollback(): void;
}

export interface QuestionSet {
  /** The four typing Nouls on `{ observation }`. */
  typing: () => Record<string, ControllerQuestion>;
  relations: RelationBatchBuilder;
  /**
   * `pair_i_{redundant,contradiction,obsolete,link[,representation]}` on `{ new_memory, candidates }`;
   * `representation` only when `opts.representation` (its answer is used only with a summarizer).
   */
  consolidation: (count: number, opts?: { representation?: boolean }) => Record<string, ControllerQuestion>;
}

export interface WriterConfig {
  store: MemoryStore;
  embedder: Embedder;
  controller: WriteController;
  extractor: Extractor;
  gates: GateRegistry;
  questions: QuestionSet;
  policy: 'annotate' | 'drop';
  summarizer?: Summarizer;
  /** θ_rel, default 0.60. */
  relationThreshold: number;
  /** Threshold of consolidation edges and escalations, default 0.85. */
  consolidationThreshold: number;
  /** Default 20. 0 disables consolidation. */
  consolidateEvery: number;
  /** K_w, default 10. */
  candidateK: number;
  /** HNSW ef of the candidate k-NN query, default 64 (see MemoryOptions.candidateEfSearch). */
  candidateEfSearch: number;
  /** Candidates per reviewed node in a consolidation pass, default 3. */
  consolidationPairs: number;
  /** Texts per embedder call, default 128. */
  embedBatchSize: number;
  now: () => number;
  counters: WriteCounters;
}

interface Candidate {
  node: MemoryNode;
  cosine: number;
  score: number;
  sharedEntity: boolean;
}

interface Pending {
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
}

const TYPE_KEYS = ['episodic', 'semantic', 'procedural', 'preference'] as const;
/**
 * Vector part of candidate discovery inside one `add([...])` call: the store's k-NN plus an exact scan
 * of the last PENDING_SCAN observations of the same call (ours; older ones of a very large call are
 * still reached through shared entities and keywords), so a call of n observations costs O(n) scans.
 */
export const PENDING_SCAN = 1024;

/** Dot product in index order (= cosine of unit vectors); the one function behind every candidate cosine, so a restored schedule's cosines are bit-identical. */
function dot(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let s = 0;
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
}

function wrapError(stage: string, e: unknown): MemError {
  if (MemError.isInstance(e) && (e as MemError).code === 'WRITE_FAILED') return e as MemError;
  const msg = e instanceof Error ? e.message : String(e);
  const code = stage === 'embed' && !MemError.isInstance(e) ? 'EMBEDDER_ERROR' : 'WRITE_FAILED';
  const category = MemError.isInstance(e) ? ((e as MemError).category ?? 'internal') : 'unavailable';
  return new MemError(code, category === 'validation' ? 'internal' : category, `Write failed at ${stage}; nothing was written: ${msg}`, {
    cause: e,
    details: { stage, causeCode: MemError.isInstance(e) ? (e as MemError).code : undefined },
  });
}

/** Validate one embedder output vector (dimension, finite, non-zero) and return it at unit norm. */
export function unitEmbedding(v: ArrayLike<number> | undefined, dimension: number, index: number): Float32Array {
  if (!v || v.length !== dimension) {
    throw new MemError('DIMENSION_MISMATCH', 'internal', `Embedder returned a vector of length ${v?.length ?? 0} for text ${index}; expected ${dimension}`, {
      details: { index, expected: dimension, actual: v?.length ?? 0 },
    });
  }
  let sq = 0;
  let max = 0;
  for (let i = 0; i < dimension; i++) {
    const x = v[i]!;
    if (!Number.isFinite(x)) {
      throw new MemError('NON_FINITE_VECTOR', 'internal', `Embedder returned a non-finite value for text ${index}`, { details: { index } });
    }
    sq += x * x;
    const a = Math.abs(x);
    if (a > max) max = a;
  }
  if (!(max > 0)) throw new MemError('ZERO_VECTOR', 'internal', `Embedder returned a zero vector for text ${index}`, { details: { index } });
  const out = new Float32Array(dimension);
  if (Number.isFinite(sq) && sq > 1e-200) {
    const inv = 1 / Math.sqrt(sq);
    for (let i = 0; i < dimension; i++) out[i] = v[i]! * inv;
    return out;
  }
  // a finite vector whose squared norm over- or underflows (entries like 1e200 or 1e-200): scale by
  // the largest |x| first, so it keeps its direction instead of becoming a zero vector (adversarial.test.ts)
  let sq2 = 0;
  for (let i = 0; i < dimension; i++) sq2 += (v[i]! / max) ** 2;
  const inv = 1 / Math.sqrt(sq2);
  for (let i = 0; i < dimension; i++) out[i] = (v[i]! / max) * inv;
  return out;
}

/** The memory item a controller state carries for a node (see `@mem/system-one` catalogue `MemoryItem`). */
export function memoryItem(node: MemoryNode, cosine?: number): Record<string, unknown> {
  const item: Record<string, unknown> = { text: node.text, time: node.observedAt };
  if (node.speaker) item.speaker = node.speaker;
  if (node.eventTime) {
    item.start = node.eventTime.start;
    if (node.eventTime.end) item.end = node.eventTime.end;
  }
  // copies: the items of a write's relation call are reused by a later consolidation pass, after the
  // caller got the node back (and may have mutated its arrays)
  if (node.entities.length) item.entities = node.entities.slice();
  if (node.keywords.length) item.keywords = node.keywords.slice();
  const ep = nodeEpisodeKey(node);
  if (ep) item.session = ep;
  if (cosine !== undefined) item.cosine = cosine;
  return item;
}

/** Write path of one memory instance; `writeScope` must be called under the scope's queue. */
export class Writer {
  constructor(private readonly cfg: WriterConfig) {}

  private async ask(state: Record<string, unknown>, questions: Record<string, ControllerQuestion>, stage: string) {
    try {
      const r = await this.cfg.controller.ask(state, questions);
      return r.answers;
    } catch (e) {
      throw wrapError(stage, e);
    }
  }

  private async embedAll(texts: string[]): Promise<Float32Array[]> {
    const { embedder, embedBatchSize } = this.cfg;
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += embedBatchSize) {
      const chunk = texts.slice(i, i + embedBatchSize);
      let vs: ArrayLike<number>[];
      try {
        vs = await embedder.embed(chunk);
      } catch (e) {
        throw wrapError('embed', e);
      }
      if (!Array.isArray(vs) || vs.length !== chunk.length) {
        throw new MemError('EMBEDDER_ERROR', 'internal', `Embedder returned ${vs?.length} vectors for ${chunk.length} texts`);
      }
      chunk.forEach((_, j) => out.push(unitEmbedding(vs[j], embedder.dimension, i + j)));
    }
    return out;
  }

  private async extract(text: string, observedAt: string, timeZone?: string | null) {
    try {
      const r = await (timeZone ? this.cfg.extractor.extract(text, observedAt, { timeZone }) : this.cfg.extractor.extract(text, observedAt));
      const ev = r.eventTime;
      return {
        entities: [...new Set(r.entities)],
        keywords: [...new Set(r.keywords)],
        eventTime: ev ? { start: ev.start, end: ev.end ?? null, expression: ev.expression } : null,
      };
    } catch (e) {
      throw wrapError('extract', e);
    }
  }

  private typeScores(answers: Record<string, ControllerAnswer>): TypeScores {
    const out = {} as TypeScores;
    for (const k of TYPE_KEYS) out[k] = noulValue(answers[k]);
    return out;
  }

  /**
   * Candidate discovery for a new node (DESIGN.md step 3): the union of the top-K_w vector hits
   * (store k-NN plus earlier observations of the same batch) and the memories sharing an entity or
   * keyword (the scope's in-memory postings, see candidate-index.ts), scored by the four signals;
   * the top K_w are kept. O(K_w) store work per write: one k-NN query and one getMany.
   */
  private async discover(scope: ResolvedScope, rt: ScopeRuntime, p: Pending, pendingStored: Pending[], byId: Map<string, Pending>): Promise<Candidate[]> {
    const { store, candidateK: K } = this.cfg;
    if (K === 0) return [];
    const v = p.node.embedding;
    // the store's top-K_w by cosine, as ids (its fast path) or as nodes (then cached)
    const vecHits: { id: string; cosine: number }[] = [];
    try {
      if (store.vectorSearchIds) {
        for (const h of await store.vectorSearchIds(scope, v, K, { efSearch: this.cfg.candidateEfSearch })) vecHits.push({ id: h.id, cosine: h.score });
      } else {
        for (const h of await store.vectorSearch(scope, v, K)) {
          rt.nodes.put(h.node);
          vecHits.push({ id: h.node.id, cosine: h.score });
        }
      }
    } catch (e) {
      throw wrapError('candidates', e);
    }
    // earlier observations of this call are not in the store yet: scan the last PENDING_SCAN exactly
    for (let i = Math.max(0, pendingStored.length - PENDING_SCAN); i < pendingStored.length; i++) {
      const q = pendingStored[i]!;
      vecHits.push({ id: q.node.id, cosine: dot(v, q.node.embedding) });
    }
    vecHits.sort((a, b) => b.cosine - a.cosine);
    const topVector = new Map<string, number>();
    const pool = new Map<string, IndexedMemory>();
    const unindexed: string[] = [];
    for (const h of vecHits.slice(0, K)) {
      topVector.set(h.id, h.cosine);
      const m = rt.index.get(h.id);
      if (m) pool.set(h.id, m);
      else unindexed.push(h.id);
    }
    const nodeOf = (id: string) => byId.get(id)?.node ?? rt.nodes.get(id);
    const read = async (ids: string[]) => {
      const missing = ids.filter((id) => !nodeOf(id));
      if (!missing.length) return;
      let got: MemoryNode[];
      try {
        got = await store.getMany(scope, missing);
      } catch (e) {
        throw wrapError('candidates', e);
      }
      for (const n of got) rt.nodes.put(n);
    };
    if (unindexed.length) {
      // every stored memory of the scope is indexed; this only runs for a store changed behind our back
      await read(unindexed);
      for (const id of unindexed) {
        const n = nodeOf(id);
        if (n) pool.set(id, indexedMemory(n));
      }
    }
    for (const m of rt.index.lookup(p.entitySet, p.keywordSet)) pool.set(m.id, m);
    pool.delete(p.node.id);
    const t0 = Date.parse(p.node.observedAt);
    const entities = [...p.entitySet];
    // the K best by score (ties: larger id first), kept sorted by insertion: O(pool · K) at worst
    const top: { m: IndexedMemory; score: number; shared: boolean }[] = [];
    const before = (a: number, aid: string, b: { score: number; m: IndexedMemory }) => a > b.score || (a === b.score && aid > b.m.id);
    for (const m of pool.values()) {
      let shared = false;
      for (const e of entities) {
        if (m.entities.has(e)) {
          shared = true;
          break;
        }
      }
      const cos = topVector.get(m.id);
      const score = candidateScore({
        vector: vectorSignal(cos ?? 0, cos !== undefined),
        entity: entitySignal(shared),
        keyword: keywordSignal(p.keywordSet, m.keywords),
        time: timeSignal(t0 - m.observedAtMs),
      });
      if (top.length === K && !before(score, m.id, top[K - 1]!)) continue;
      let i = top.length === K ? K - 1 : top.length;
      while (i > 0 && before(score, m.id, top[i - 1]!)) {
        top[i] = top[i - 1]!;
        i--;
      }
      top[i] = { m, score, shared };
    }
    await read(top.map((x) => x.m.id));
    const out: Candidate[] = [];
    for (const x of top) {
      const node = nodeOf(x.m.id);
      if (!node) continue;
      out.push({ node, cosine: dot(v, node.embedding), score: x.score, sharedEntity: x.shared });
    }
    return out;
  }

  /** Build a derived node (System-Two merge / promotion); never called without a summarizer. */
  private async derivedNode(
    scope: ResolvedScope,
    key: string,
    kind: 'update' | 'merge' | 'promote',
    sources: MemoryNode[],
    counters: WriteCounters,
  ): Promise<MemoryNode> {
    const summarizer = this.cfg.summarizer!;
    const ordered = [...sources].sort((a, b) => a.observedAt.localeCompare(b.observedAt));
    let text: string;
    try {
      counters.summarizerCalls++;
      text = await summarizer.summarize({
        kind,
        scope,
        memories: ordered.map((n) => ({ id: n.id, text: n.text, speaker: n.speaker, observedAt: n.observedAt })),
      });
    } catch (e) {
      throw wrapError('summarize', e);
    }
    if (typeof text !== 'string' || !text.trim()) {
      throw new MemError('WRITE_FAILED', 'internal', 'Summarizer returned an empty text; nothing was written', { details: { stage: 'summarize' } });
    }
    const observedAt = ordered[ordered.length - 1]!.observedAt;
    const [embedding] = await this.embedAll([text]);
    const ex = await this.extract(text, observedAt);
    const types = {} as TypeScores;
    for (const k of TYPE_KEYS) types[k] = Math.max(...sources.map((s) => s.types[k] ?? 0));
    const metadata = { derivedFrom: ordered.map((n) => n.id), derivation: kind };
    return {
      id: uuidv7(this.cfg.now()),
      scope,
      text,
      speaker: null,
      observedAt,
      eventTime: ex.eventTime,
      entities: ex.entities,
      keywords: ex.keywords,
      types,
      embedding: embedding!,
      gate: null,
      provenance: { sourceId: null, contentHash: contentHash({ scopeKey: key, text, speaker: null, observedAt, sourceId: null }), metadata },
      obsoleteBy: null,
      createdAt: new Date(this.cfg.now()).toISOString(),
    };
  }

  /**
   * Restore a scope's consolidation schedule from its history rows (ours; DESIGN.md "Write path"
   * step 7 made restart-safe). Called once per runtime rebuild, on the scope's next write, so a
   * restarted process, and a long-running one after a failed write or a `forget` (both rebuild the
   * runtime), run their passes at the same writes over the same inputs:
   *
   * - `writes` = the ordinal in the latest write row's {@link ScheduleRecord}; the last pass = its
   *   `pass` (records of earlier versions: `write − write mod consolidateEvery`);
   * - the window = the write rows after the last pass, walking back from the latest while each
   *   ordinal is exactly one less than the newer row's (a gap, repeat or backwards ordinal — a
   *   corrupt or foreign row — ends it), at most `max(consolidateEvery, latest record's every)`
   *   writes; `sinceConsolidation` = `writes −` the window's floor. With the same
   *   `consolidateEvery` this is `writes mod consolidateEvery`, as a long-running process has it (a
   *   failed write left no row, so it does not count; a forgotten node's row stays, so its write
   *   still counts). After `consolidateEvery` changed, the next pass comes `consolidateEvery` writes
   *   after the last one (at the next write if that is already overdue) and reviews every write
   *   since it: no write is reviewed twice or skipped;
   * - `recent` = the reviewed writes of the window, in write order, with their recorded candidates
   *   (first `consolidationPairs`, without the node itself and repeats) and `RELATED_TO` links;
   *   nodes and candidates are read with one `getMany`, so a forgotten node leaves the window and a
   *   forgotten candidate leaves its write's review; cosines are recomputed with `dot`,
   *   bit-identical to the write-time ones; the controller state items are rebuilt by `memoryItem`
   *   at the pass.
   *
   * Reads only the history tail (`limit` growing ×4 until the window is covered), plus one
   * `getMany` of at most `window · (1 + consolidationPairs)` ids. A row without a record (a store
   * written by an older version, or with consolidation off) ends the window: if the latest write
   * row has none, the schedule starts at 0 with an empty window (the behaviour before schedules
   * were recorded), and the ordinals start again from 1.
   */
  private async restoreSchedule(scope: ResolvedScope, rt: ScopeRuntime): Promise<void> {
    const { store, consolidateEvery: every, consolidationPairs: pairs } = this.cfg;
    let writes = 0;
    let floor = 0;
    let picked: { nodeId: string; rec: ScheduleRecord }[] = [];
    for (let limit = 4 * every + 16; ; limit *= 4) {
      const rows = await store.history(scope, { limit });
      writes = 0;
      floor = 0;
      picked = [];
      let latest = true;
      let closed = false;
      // newest first: the latest write row fixes the ordinal and the floor, then collect rows back to it
      for (let i = rows.length - 1; i >= 0; i--) {
        const h = rows[i]!;
        if (!h.nodeId || !isWriteOp(h.op)) continue;
        const rec = scheduleRecord(h.data);
        if (latest) {
          latest = false;
          if (!rec) {
            closed = true;
            break;
          }
          writes = rec.write;
          floor = scheduleFloor(rec, every);
        } else if (!rec || rec.write !== writes - picked.length) {
          closed = true;
          break;
        }
        if (rec.write <= floor) {
          closed = true;
          break;
        }
        picked.push({ nodeId: h.nodeId, rec });
      }
      if (closed || rows.length < limit) break;
    }
    picked.reverse();
    const reviewed = picked.map((x) => ({ nodeId: x.nodeId, rec: x.rec, candidates: reviewIds(x.nodeId, x.rec, pairs) })).filter((x) => x.candidates.length);
    const ids = new Set<string>();
    for (const x of reviewed) {
      ids.add(x.nodeId);
      for (const id of x.candidates) ids.add(id);
    }
    const byId = new Map((ids.size ? await store.getMany(scope, [...ids]) : []).map((n) => [n.id, n]));
    const recent: RecentWrite[] = [];
    for (const x of reviewed) {
      const node = byId.get(x.nodeId);
      if (!node) continue; // forgotten: out of the window (its write still counted)
      const candidates: RecentWrite['candidates'] = [];
      for (const id of x.candidates) {
        const c = byId.get(id);
        if (c) candidates.push({ node: c, cosine: dot(node.embedding, c.embedding) });
      }
      recent.push({ node, candidates, related: new Set(x.rec.related ?? []) });
    }
    rt.writes = writes;
    rt.sinceConsolidation = writes - floor;
    rt.recent = recent;
    rt.scheduleLoaded = true;
  }

  /**
   * Write the observations of one scope (all validated, same scope) atomically. Must run under the
   * scope's queue. Returns one result per observation in order.
   */
  async writeScope(scope: ResolvedScope, key: string, observations: { index: number; obs: NormalizedObservation }[]): Promise<{ index: number; result: AddResult }[]> {
    const prepared = await this.prepareScope(scope, key, observations);
    return prepared.commit();
  }

  /**
   * Everything of a scope's write that can fail, except the store write: returns `commit` (one
   * atomic `store.write`, then results and counters) and `rollback` (restores the scope's in-process
   * state; nothing was written). A failure inside `prepareScope` or `commit` rolls back by itself.
   * Must run under the scope's queue; `commit` or `rollback` must be called before releasing it.
   */
  async prepareScope(scope: ResolvedScope, key: string, observations: { index: number; obs: NormalizedObservation }[]): Promise<PreparedWrite> {
    const cfg = this.cfg;
    const { store } = cfg;
    // counters of this write, merged into the memory's counters only once the store acknowledged
    const counters = emptyCounters();
    const rt = await cfg.gates.runtime(scope, key);
    if (cfg.consolidateEvery > 0 && !rt.scheduleLoaded) {
      // once per runtime rebuild (first use, restart, after a failed write or a forget)
      try {
        await this.restoreSchedule(scope, rt);
      } catch (e) {
        throw wrapError('consolidation', e);
      }
    }
    const snapshot = GateRegistry.snapshot(rt);
    const pendings: Pending[] = [];
    const results: { index: number; result: AddResult }[] = [];
    const committed: string[] = [];
    let runtimeTouched = false;
    let done = false;
    const rollback = () => {
      if (done) return;
      done = true;
      GateRegistry.restore(rt, snapshot);
      if (runtimeTouched || committed.length) cfg.gates.invalidate(key, committed);
    };
    try {
      // 1. dedup against the store and within the batch (content hash)
      const fresh: { index: number; obs: NormalizedObservation }[] = [];
      const seen = new Map<string, number>();
      const existing = await Promise.all(
        observations.map((o) => store.findByContentHash(scope, o.obs.contentHash).catch((e) => Promise.reject(wrapError('dedup', e)))),
      );
      const dupOf: { index: number; node: MemoryNode | null; batchIndex?: number }[] = [];
      observations.forEach((o, i) => {
        const hit = existing[i];
        if (hit) dupOf.push({ index: o.index, node: hit });
        else if (seen.has(o.obs.contentHash)) dupOf.push({ index: o.index, node: null, batchIndex: seen.get(o.obs.contentHash)! });
        else {
          seen.set(o.obs.contentHash, fresh.length);
          fresh.push(o);
        }
      });

      // 2. embed (batched) + extraction + typing (one call per observation, issued together)
      let t = performance.now();
      const tick = (stage: WriteStage) => {
        const now = performance.now();
        counters.timings[stage] += now - t;
        t = now;
      };
      const vectors = await this.embedAll(fresh.map((f) => f.obs.text));
      tick('embed');
      const extracted = await Promise.all(fresh.map((f) => this.extract(f.obs.text, f.obs.observedAt, f.obs.timeZone)));
      tick('extract');
      const typingQs = cfg.questions.typing();
      const typed = await Promise.all(fresh.map((f) => this.ask({ observation: f.obs.text }, typingQs, 'typing')));
      tick('typing');
      const createdAt = new Date(cfg.now()).toISOString();

      // 3. sequential: gate → candidates → rule edges → relation plan
      const pendingStored: Pending[] = [];
      const byId = new Map<string, Pending>();
      for (let i = 0; i < fresh.length; i++) {
        const { index, obs } = fresh[i]!;
        const ex = extracted[i]!;
        const embedding = vectors[i]!;
        t = performance.now();
        const decision = rt.gate.route(key, embedding);
        tick('gate');
        const node: MemoryNode = {
          id: uuidv7(cfg.now()),
          scope,
          text: obs.text,
          speaker: obs.speaker,
          observedAt: obs.observedAt,
          eventTime: ex.eventTime,
          entities: ex.entities,
          keywords: ex.keywords,
          types: this.typeScores(typed[i]!),
          embedding,
          gate: {
            action: decision.action,
            novelty: decision.novelty,
            score: decision.score,
            threshold: decision.threshold,
            kappa: decision.kappa,
            density: decision.density,
            nearest: decision.nearest ? { id: decision.nearest.id, cosine: decision.nearest.cosine } : null,
            ...(decision.scoreError ? { scoreError: decision.scoreError } : {}),
            ...(decision.nearestExact === false ? { nearestExact: false } : {}),
          },
          provenance: { sourceId: obs.sourceId, contentHash: obs.contentHash, metadata: obs.metadata },
          obsoleteBy: null,
          createdAt,
        };
        const p: Pending = {
          index,
          obs,
          node,
          entitySet: new Set(ex.entities.map(normalizeEntity).filter(Boolean)),
          keywordSet: new Set(ex.keywords.map(normalizeKeyword).filter(Boolean)),
          action: decision.action,
          stored: !(cfg.policy === 'drop' && decision.action === 'noop'),
          committed: false,
          drafts: [],
          plans: [],
          candidates: [],
          relationState: null,
          calls: 1,
          nearest: null,
          schedule: null,
        };
        pendings.push(p);
        if (!p.stored) continue;

        // nearest memory for Noop / Update (gate's nearest by cosine)
        if (decision.nearest && decision.action !== 'add') {
          p.nearest = byId.get(decision.nearest.id)?.node ?? rt.nodes.get(decision.nearest.id) ?? null;
          if (!p.nearest) {
            try {
              p.nearest = await store.get(scope, decision.nearest.id);
            } catch (e) {
              throw wrapError('gate', e);
            }
            if (p.nearest) rt.nodes.put(p.nearest);
          }
        }
        // SAME_EPISODE chain (rule, ours): previous stored observation of the same episode
        const ep = episodeKey(obs.sourceId, obs.metadata);
        if (ep) {
          const prev = rt.lastByEpisode.get(ep);
          if (prev) p.drafts.push({ from: prev, to: node.id, subtype: 'SAME_EPISODE', probability: 1, origin: 'rule' });
          rt.lastByEpisode.set(ep, node.id);
        }
        if (decision.action === 'add') {
          p.candidates = await this.discover(scope, rt, p, pendingStored, byId);
          tick('candidates');
          for (const c of p.candidates) {
            const t = temporalRuleEdge(node, c.node);
            if (t) t.probability = 1;
            if (t) p.drafts.push(t);
            if (c.sharedEntity) p.drafts.push({ from: node.id, to: c.node.id, subtype: 'SAME_ENTITY', probability: 1, origin: 'rule' });
          }
          const self = { eventTime: node.eventTime, observedAt: node.observedAt, episode: ep };
          p.plans = p.candidates.map((c) => ({
            candidateId: c.node.id,
            askAlias: !c.sharedEntity && node.entities.length > 0 && c.node.entities.length > 0,
            askTemporalOrder: temporalRuleEdge(node, c.node) === null,
            askEpisode: !differentEpisodes(self, { eventTime: c.node.eventTime, observedAt: c.node.observedAt, episode: nodeEpisodeKey(c.node) }),
          }));
          if (p.candidates.length) {
            p.relationState = { new_memory: memoryItem(node), candidates: p.candidates.map((c) => memoryItem(c.node, c.cosine)) };
          }
        } else if (p.nearest) {
          const cos = Math.max(0, Math.min(1, decision.nearest!.cosine));
          p.drafts.push({
            from: node.id,
            to: p.nearest.id,
            subtype: decision.action === 'noop' ? 'REDUNDANT_WITH' : 'UPDATES',
            probability: cos,
            origin: 'rule',
          });
          counters.controllerCallsSaved++;
        }
        // commit to the gate (SAGE: Add and Update grow the gate's memory; Noop does not)
        if (isGateMember(node)) {
          t = performance.now();
          rt.gate.commit(key, node.id, embedding);
          tick('commit');
          committed.push(node.id);
          p.committed = true;
        }
        pendingStored.push(p);
        byId.set(node.id, p);
        runtimeTouched = true;
        rt.index.add({ id: node.id, observedAtMs: Date.parse(node.observedAt), entities: p.entitySet, keywords: p.keywordSet });
      }

      // 4. relation calls (one per Add with candidates), issued together
      t = performance.now();
      await Promise.all(
        pendingStored.map(async (p) => {
          if (!p.relationState) return;
          const qs = cfg.questions.relations(p.plans.length, {
            alias: (i) => p.plans[i]!.askAlias,
            temporalOrder: (i) => p.plans[i]!.askTemporalOrder,
            sameEpisode: (i) => p.plans[i]!.askEpisode !== false,
          });
          const answers = await this.ask(p.relationState, qs, 'relations');
          p.calls++;
          p.drafts.push(...edgesFromPairAnswers(p.node.id, p.plans, answers, cfg.relationThreshold));
        }),
      );

      tick('relations');
      // 5. System-Two merge on Update (only with a summarizer)
      const derived: { node: MemoryNode; drafts: EdgeDraft[]; owner: Pending }[] = [];
      if (cfg.summarizer) {
        for (const p of pendingStored) {
          if (p.action !== 'update' || !p.nearest) continue;
          const d = await this.derivedNode(scope, key, 'update', [p.nearest, p.node], counters);
          derived.push({
            node: d,
            owner: p,
            drafts: [
              { from: d.id, to: p.nearest.id, subtype: 'UPDATES', probability: 1, origin: 'rule' },
              { from: d.id, to: p.node.id, subtype: 'UPDATES', probability: 1, origin: 'rule' },
            ],
          });
        }
      }

      // 6. consolidation every `consolidateEvery` stored writes (seed 000 "periodic maintenance")
      const nodeUpdates = new Map<string, string>();
      const consolidationDrafts: EdgeDraft[] = [];
      const draftOwner = new Map<EdgeDraft, Pending>();
      const history: HistoryEntry[] = [];
      const at = new Date(cfg.now()).toISOString();
      if (cfg.consolidateEvery > 0) {
        const passes: { owner: Pending; reviewed: RecentWrite[] }[] = [];
        for (const p of pendingStored) {
          // every stored write gets the next ordinal and records its review inputs in its history
          // row (see ScheduleRecord), so restoreSchedule rebuilds exactly this state from the store
          rt.writes++;
          p.schedule = { write: rt.writes };
          if (p.action !== 'noop' && p.candidates.length) {
            const related = new Set(p.drafts.filter((d) => d.subtype === 'RELATED_TO').map((d) => d.to));
            const st = p.relationState as { new_memory: Record<string, unknown>; candidates: Record<string, unknown>[] } | null;
            const reviewed = p.candidates.slice(0, cfg.consolidationPairs);
            p.schedule.candidates = reviewed.map((c) => c.node.id);
            const linked = p.schedule.candidates.filter((id) => related.has(id));
            if (linked.length) p.schedule.related = linked;
            rt.recent.push({
              node: p.node,
              candidates: reviewed.map((c) => ({ node: c.node, cosine: c.cosine })),
              related,
              items: st ? { node: st.new_memory, candidates: st.candidates.slice(0, cfg.consolidationPairs) } : undefined,
            });
            // no cap here: `recent` holds only writes since the last pass (≤ sinceConsolidation), and
            // a restart's overdue window (consolidateEvery lowered) must be reviewed whole
          }
          rt.sinceConsolidation++;
          // a pass once `consolidateEvery` writes were stored since the last one (with an unchanged
          // setting: at each multiple of it; after a lowered one: at once if overdue)
          if (rt.sinceConsolidation >= cfg.consolidateEvery) {
            rt.sinceConsolidation = 0;
            passes.push({ owner: p, reviewed: rt.recent });
            rt.recent = [];
          }
          p.schedule.pass = rt.writes - rt.sinceConsolidation;
          p.schedule.every = cfg.consolidateEvery;
        }
        for (const pass of passes) {
          counters.consolidations++;
          await Promise.all(
            pass.reviewed.map(async (w) => {
              // never the node itself: discovery drops it from the pool, and a restored record's ids go
              // through reviewIds (so an `obsolete` answer cannot make a node obsolete by itself)
              const cands = w.candidates;
              if (!cands.length) return;
              // the representation Choice only matters when a summarizer can act on it
              const qs = cfg.questions.consolidation(cands.length, { representation: cfg.summarizer !== undefined });
              const answers = await this.ask(
                w.items
                  ? { new_memory: w.items.node, candidates: w.items.candidates }
                  : { new_memory: memoryItem(w.node), candidates: cands.map((c) => memoryItem(c.node, c.cosine)) },
                qs,
                'consolidation',
              );
              pass.owner.calls++;
              const th = cfg.consolidationThreshold;
              for (let i = 0; i < cands.length; i++) {
                const c = cands[i]!.node;
                const red = noulValue(answers[`pair_${i}_redundant`]);
                const con = noulValue(answers[`pair_${i}_contradiction`]);
                const obs = noulValue(answers[`pair_${i}_obsolete`]);
                const link = noulValue(answers[`pair_${i}_link`]);
                const ce = consolidationEdges(w.node.id, c.id, { redundant: red, contradiction: con, obsolete: obs, link }, th, w.related.has(c.id));
                for (const d of ce.drafts) {
                  consolidationDrafts.push(d);
                  draftOwner.set(d, pass.owner);
                }
                if (ce.obsolete) {
                  // obsoleteBy points to the newest memory that made it obsolete (ids are time-ordered)
                  const prev = nodeUpdates.get(c.id);
                  if (!prev || prev < w.node.id) nodeUpdates.set(c.id, w.node.id);
                }
                const rep = answers[`pair_${i}_representation`];
                if (cfg.summarizer && rep && typeof rep === 'object' && (rep.choice === 'merge' || rep.choice === 'promote')) {
                  const pr = rep.probabilities?.[rep.choice] ?? 0;
                  if (pr >= th && con < th) {
                    const d = await this.derivedNode(scope, key, rep.choice, [c, w.node], counters);
                    derived.push({
                      node: d,
                      owner: pass.owner,
                      drafts: [
                        { from: d.id, to: c.id, subtype: 'UPDATES', probability: pr, origin: 'controller' },
                        { from: d.id, to: w.node.id, subtype: 'UPDATES', probability: pr, origin: 'controller' },
                      ],
                    });
                  }
                }
              }
            }),
          );
        }
      }

      tick('consolidation');
      // derived nodes join the gate's memory after the batch's own nodes (id order = replay order)
      derived.sort((a, b) => (a.node.id < b.node.id ? -1 : 1));
      for (const d of derived) {
        rt.gate.commit(key, d.node.id, d.node.embedding);
        committed.push(d.node.id);
      }

      // 7. assemble the atomic batch
      for (const p of pendingStored) for (const d of p.drafts) draftOwner.set(d, p);
      for (const d of derived) for (const x of d.drafts) draftOwner.set(x, d.owner);
      const allDrafts = [...pendingStored.flatMap((p) => p.drafts), ...consolidationDrafts, ...derived.flatMap((d) => d.drafts)];
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
        history.push({ scope, op: 'OBSOLETE', nodeId: id, at, data: { obsoleteBy: by } });
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
      if (relations.length) {
        history.push({ scope, op: 'RELATE', nodeId: null, at, data: { count: relations.length } });
      }
      const nodes = [...pendingStored.map((p) => p.node), ...derived.map((d) => d.node)];
      const commit = async (): Promise<{ index: number; result: AddResult }[]> => {
        if (done) throw new MemError('INTERNAL', 'internal', 'This write was already committed or rolled back');
        t = performance.now();
        if (nodes.length || updates.length) {
          try {
            await store.write({ scope, nodes, relations, history, nodeUpdates: updates.length ? updates : undefined });
          } catch (e) {
            rollback();
            throw wrapError('store', e);
          }
        }
        done = true;
        for (const n of nodes) rt.nodes.put(n);
        for (const u of updates) rt.nodes.markObsolete(u.id, u.obsoleteBy);
        tick('store');
        // the gate snapshot, now and then (never throws; see GateRegistry.afterCommit)
        if (committed.length) await cfg.gates.afterCommit(rt, committed.length);
        return finish();
      };

      // 8. results and counters (only after the store acknowledged)
      const finish = (): { index: number; result: AddResult }[] => {
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
        for (const d of dupOf) {
          counters.duplicates++;
          const node = d.node ?? pendings[d.batchIndex!]!.node; // pendings[i] is fresh[i]
          results.push({ index: d.index, result: { node, action: 'duplicate', stored: false, relations: [], controllerCalls: 0 } });
        }
        results.sort((a, b) => a.index - b.index);
        addCounters(cfg.counters, counters);
        return results;
      };
      return { commit, rollback };
    } catch (e) {
      // nothing was written: restore the scope's in-process state
      rollback();
      if (MemError.isInstance(e)) throw e;
      throw wrapError('write', e);
    }
  }
}

export type { ScopeRuntime };

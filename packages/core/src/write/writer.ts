/**
 * The Jev-Mem write path behind the SAGE gate (seed 000 "write path"; seed 001 §3; docs/design.md
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
import type { Embedder, MemoryNode, MemoryStore, ResolvedScope, TypeScores } from '../types.js';
import { GateRegistry, type ScopeRuntime } from './gates.js';
import { uuidv7 } from './ids.js';
import type { ControllerQuestion, Extractor, Summarizer, WriteController } from './ports.js';
import type { QuestionSet } from './questions/index.js';
import { contentHash, type NormalizedObservation } from './validate.js';
import { unitEmbedding } from './embedding.js';
import { restoreSchedule } from './schedule.js';
import { assembleBatch, commitDerived, writeResults } from './stages/assemble.js';
import { linkObservation } from './stages/candidates.js';
import { consolidate, mergeUpdates } from './stages/consolidation.js';
import { emptyBatch, StageClock, type WriteContext } from './stages/context.js';
import { dedupObservations } from './stages/dedup.js';
import { admitObservation, routeObservation } from './stages/gate.js';
import { askRelations } from './stages/relations.js';
import { typeObservations } from './stages/typing.js';
import { wrapError } from './write-errors.js';
import { emptyCounters, type AddResult, type WriteCounters } from './write-results.js';

export { PENDING_SCAN } from './candidates.js';
export { unitEmbedding } from './embedding.js';
export { memoryItem } from './items.js';
export { addCounters, emptyCounters, WRITE_STAGES, type AddResult, type WriteCounters, type WriteStage } from './write-results.js';
export type { QuestionSet } from './questions/index.js';

/** A scope's write with all fallible work done except the store write (see `Writer.prepareScope`). */
export interface PreparedWrite {
  commit(): Promise<{ index: number; result: AddResult }[]>;
  rollback(): void;
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
    for (const k of Object.keys(sources[0]!.types) as (keyof TypeScores)[]) types[k] = Math.max(...sources.map((s) => s.types[k] ?? 0));
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
    // counters of this write, merged into the memory's counters only once the store acknowledged
    const counters = emptyCounters();
    const rt = await cfg.gates.runtime(scope, key);
    if (cfg.consolidateEvery > 0 && !rt.scheduleLoaded) {
      // once per runtime rebuild (first use, restart, after a failed write or a forget)
      try {
        await restoreSchedule(cfg, scope, rt);
      } catch (e) {
        throw wrapError('consolidation', e);
      }
    }
    const snapshot = GateRegistry.snapshot(rt);
    const batch = emptyBatch();
    let done = false;
    const rollback = () => {
      if (done) return;
      done = true;
      GateRegistry.restore(rt, snapshot);
      if (batch.runtimeTouched || batch.committed.length) cfg.gates.invalidate(key, batch.committed);
    };
    const ctx = this.context(scope, key, rt, counters);
    try {
      // 1. dedup against the store and within the batch (content hash)
      const { fresh, duplicates } = await dedupObservations(cfg.store, scope, observations);
      // 2. typing: embed (batched) + extraction + typing Nouls (one call per observation, issued together)
      const typed = await typeObservations(ctx, fresh);
      const createdAt = new Date(cfg.now()).toISOString();
      // 3. sequential: gate → near-duplicate check → candidates and rule edges → relation plan → gate commit
      for (let i = 0; i < fresh.length; i++) {
        const { p, decision } = await routeObservation(ctx, batch, { ...fresh[i]!, features: typed[i]!, createdAt });
        if (!p.stored) continue;
        await linkObservation(ctx, batch, p, decision);
        admitObservation(ctx, batch, p);
      }
      // 4. relations: one call per Add with candidates, issued together
      await askRelations(ctx, batch.pendingStored);
      // 5. System-Two merge on Update (only with a summarizer)
      const derived = await mergeUpdates(ctx, batch.pendingStored);
      // 6. consolidation every `consolidateEvery` stored writes (seed 000 "periodic maintenance")
      const at = new Date(cfg.now()).toISOString();
      const consolidation = await consolidate(ctx, batch, derived);
      commitDerived(ctx, batch, derived);
      // 7. the atomic batch
      const { nodes, relations, history, updates, owned } = assembleBatch(ctx, batch, derived, consolidation, at);
      const commit = async (): Promise<{ index: number; result: AddResult }[]> => {
        if (done) throw new MemError('INTERNAL', 'internal', 'This write was already committed or rolled back');
        ctx.clock.start();
        if (nodes.length || updates.length) {
          try {
            await cfg.store.write({ scope, nodes, relations, history, nodeUpdates: updates.length ? updates : undefined });
          } catch (e) {
            rollback();
            throw wrapError('store', e);
          }
        }
        done = true;
        for (const n of nodes) {
          rt.nodes.put(n);
          rt.own.add(n.id);
          if (n.id > rt.lastId) rt.lastId = n.id;
        }
        for (const u of updates) rt.nodes.markObsolete(u.id, u.obsoleteBy);
        ctx.clock.tick('store');
        // the gate snapshot, now and then (never throws; see GateRegistry.afterCommit)
        if (batch.committed.length) await cfg.gates.afterCommit(rt, batch.committed.length);
        // 8. results and counters (only after the store acknowledged)
        return writeResults(batch.pendings, duplicates, owned, counters, cfg.counters);
      };
      return { commit, rollback };
    } catch (e) {
      // nothing was written: restore the scope's in-process state
      rollback();
      if (MemError.isInstance(e)) throw e;
      throw wrapError('write', e);
    }
  }

  /** The writer bound to one scope's write (the stages' context). */
  private context(scope: ResolvedScope, key: string, rt: ScopeRuntime, counters: WriteCounters): WriteContext {
    return {
      cfg: this.cfg,
      scope,
      key,
      rt,
      counters,
      clock: new StageClock(counters),
      ask: (state, questions, stage) => this.ask(state, questions, stage),
      embedAll: (texts) => this.embedAll(texts),
      extract: (text, observedAt, timeZone) => this.extract(text, observedAt, timeZone),
      derivedNode: (kind, sources) => this.derivedNode(scope, key, kind, sources, counters),
    };
  }
}

export type { ScopeRuntime };

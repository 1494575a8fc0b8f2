/**
 * Re-embedding a SQLite store into a new embedding space (ours, issue 32 point 4): every memory's
 * vector is recomputed with the new embedder, the SAGE gate's decisions and saved state are rebuilt
 * in the new space (each memory routed, in write order, against the memories before it; System One
 * is not asked again: a Noop the write path promoted to an Update because it changed a value stays
 * an Update, and relations are kept as they are), the ANN index is dropped (rebuilt from the new vectors on first use), and the
 * store records the new embedder. Resumable and crash-safe: see src/store/sqlite-reembed.ts (new
 * vectors are staged batch by batch; the switch is one transaction; a kill -9 at any point leaves
 * the old space or the new one, never a mix).
 *
 * τ: the write path's adaptive threshold τ_t (seed 001 §3.3: τ_min + τ_0·exp(−λρ), EMA α) follows
 * the density of the space, and the gate replay recomputes it from the new vectors, so it is
 * re-derived, not carried over. The fixed τ_noop of the Noop pre-filter (`createNoopFilter`,
 * `mem gate serve`), and any custom `tau0` / `tauMin` tuned for the old embedder, are not stored in
 * the store: the report gives App. G's calibration (80th percentile of s_vMF) in both spaces and
 * says they must be re-calibrated.
 */
import { createNoveltyGate, type GateOptions, type NoveltyGate } from '@mem/gate-vmf';
import { MemValidationError, StoreConflictError } from '../errors.js';
import { EmbedderError } from '../embed/util.js';
import { scopeKey } from '../scope.js';
import type { SqliteStore } from '../store/sqlite.js';
import type { RegateNode } from '../store/sqlite-reembed.js';
import { checkVector } from '../store/validate.js';
import type { Embedder, GateAction, GateDecisionRecord, ResolvedScope, StoreMeta } from '../types.js';
import { GATE_SAVE_MIN_SIZE, GATE_STATE_NAME, gateDecisionRecord, sealGateState } from '../write/gates.js';
import { DEFAULT_WRITE_GATE_OPTIONS, noveltyGateCodec } from '../write/memory.js';

/** Memories per scope (the first ones, in write order) in the τ_noop calibration stream (App. G: a calibration stream, each item against all before it). */
export const TAU_CALIBRATION_ITEMS = 1000;
/** App. G's quantile of s_vMF for τ_noop. */
export const TAU_NOOP_QUANTILE = 0.8;

export interface ReembedProgress {
  /** `embed`: vectors staged (done of total); `switch`: scopes rewritten in the switch transaction. */
  phase: 'embed' | 'switch';
  done: number;
  total: number;
}

export interface ReembedOptions {
  /** Texts per embedder call and per staging transaction. Default 64. */
  batchSize?: number;
  /** Gate options of the write path that will use the store (as `createMemory`'s `gate` option object). Default: `createMemory`'s. */
  gate?: Record<string, unknown>;
  /** Progress callback (called inside the switch transaction for `switch`: keep it short). */
  onProgress?: (e: ReembedProgress) => void;
}

type ActionCounts = Record<GateAction | 'none', number>;

export interface ReembedReport {
  from: { model: string; dimension: number };
  to: { model: string; dimension: number };
  /** Memories in the store when it switched. */
  memories: number;
  /** Vectors computed by this call (a resumed run computes only the missing ones). */
  embedded: number;
  /** Vectors an earlier, interrupted run had staged for the same embedder. */
  resumedFrom: number;
  gate: {
    /** Recorded gate actions before (old space) and after (new space, the replay's). */
    actions: { old: ActionCounts; new: ActionCounts };
    /** Mean adaptive τ_t the decisions were taken at, old and new space (re-derived by the replay). */
    meanTau: { old: number | null; new: number | null };
    /** τ_noop calibrated as seed 001 App. G (80th percentile of s_vMF) in each space, over the first {@link TAU_CALIBRATION_ITEMS} memories of each scope; null with fewer than 2 memories. */
    tauNoop: { old: number | null; new: number | null; quantile: number };
    /** What the caller must re-calibrate (printed by `mem reembed`). */
    notice: string;
  };
}


/** Linear-interpolated quantile of a sample (as `calibrateTauNoop` in apps/demo-agent); null when empty. */
export function quantile(values: number[], q: number): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const pos = q * (s.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}

/** s_vMF of each item of a stream against all items before it (all committed): App. G's calibration scores. */
function calibrationScores(vectors: Float32Array[], options: GateOptions): number[] {
  const g = createNoveltyGate({ ...options, mode: 'exact' });
  const out: number[] = [];
  vectors.slice(0, TAU_CALIBRATION_ITEMS).forEach((v, i) => {
    if (i > 0) out.push(g.route('calibration', v).score);
    g.commit('calibration', String(i), v);
  });
  return out;
}

const mean = (xs: number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/**
 * Re-embed a SQLite store with `embedder` (see the module comment). Open Memory objects on the
 * store's file must not write meanwhile with the old embedder: another process's handle is refused
 * from the switch on (STORE_META_MISMATCH, until reopened with the new embedder), and memories it
 * wrote before the switch are embedded by the switch's retry; do not share `store` with a Memory.
 * Run again after a crash: it resumes from the staged vectors.
 * @throws MemValidationError INVALID_INPUT (not a SQLite store, e.g. Neo4j: `details.store`; store never opened, already in this embedder's space, bad options),
 *   EmbedderError EMBEDDER_ERROR (the embedder failed or returned a bad vector; what was staged stays for a resume),
 *   StoreConflictError STORE_CONFLICT (another reembedStore is running on the file, in this process or another: `details.owner`;
 *   or other writers kept adding memories through 5 switch attempts), store errors
 */
export async function reembedStore(store: SqliteStore, embedder: Embedder, options: ReembedOptions = {}): Promise<ReembedReport> {
  if (!embedder || typeof embedder.embed !== 'function' || typeof embedder.model !== 'string' || !Number.isInteger(embedder.dimension)) {
    throw new MemValidationError('INVALID_INPUT', 'reembedStore needs an Embedder ({ model, dimension, embed })');
  }
  const kind = (store as { kind?: string } | null)?.kind;
  if (!store || typeof (store as Partial<SqliteStore>).reembedBegin !== 'function') {
    throw new MemValidationError(
      'INVALID_INPUT',
      `reembedStore re-embeds SQLite stores only (this store is ${kind ?? 'not a SQLite store'}). Re-embed a ${kind ?? 'other'} store through a SQLite file: export every scope (mem export --all), import it into a new SQLite file, re-embed that file, export it and import it into an empty ${kind ?? 'target'} database (docs/reliability.md)`,
      { details: { store: kind ?? null, supported: ['sqlite'] } },
    );
  }
  const batchSize = options.batchSize ?? 64;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new MemValidationError('INVALID_INPUT', 'batchSize must be a positive integer');
  const meta = await store.meta();
  if (!meta) throw new MemValidationError('INVALID_INPUT', 'The store holds nothing to re-embed (it was never opened with an embedder)');
  await store.open(meta);
  const target = { model: embedder.model, dimension: embedder.dimension };
  const gateOptions = { ...DEFAULT_WRITE_GATE_OPTIONS, ...(options.gate ?? {}) } as GateOptions;
  let probe: NoveltyGate;
  try {
    probe = createNoveltyGate(gateOptions);
  } catch (e) {
    throw new MemValidationError('INVALID_INPUT', `Invalid gate options: ${(e as Error).message}`, { cause: e });
  }
  const codec = noveltyGateCodec(probe.options);
  const begin = await store.reembedBegin(target);
  try {
    return await runReembed(store, embedder, meta, target, begin, gateOptions, codec, batchSize, options);
  } catch (e) {
    // another run may start now; what was staged stays for it (or for this one run again)
    await store.reembedRelease();
    throw e;
  }
}

async function runReembed(
  store: SqliteStore,
  embedder: Embedder,
  meta: StoreMeta,
  target: { model: string; dimension: number },
  begin: { staged: number; total: number; resumed: boolean },
  gateOptions: GateOptions,
  codec: ReturnType<typeof noveltyGateCodec>,
  batchSize: number,
  options: ReembedOptions,
): Promise<ReembedReport> {
  let embedded = 0;
  const progress = (phase: ReembedProgress['phase'], done: number, total: number) => options.onProgress?.({ phase, done, total });

  /** Stage every node lacking a vector of its current text; returns how many were staged. */
  const stageAll = async (total: number): Promise<void> => {
    let cursor = 0;
    let done = 0;
    for (;;) {
      const { rows, lastRid } = store.reembedPending(cursor, batchSize);
      if (rows.length === 0) break;
      let vectors: Float32Array[];
      try {
        const raw = await embedder.embed(rows.map((r) => r.text));
        if (!Array.isArray(raw) || raw.length !== rows.length) throw new Error(`returned ${Array.isArray(raw) ? raw.length : typeof raw} vectors for ${rows.length} texts`);
        vectors = raw.map((v, i) => checkVector(v, target.dimension, `embedding of node row ${rows[i]!.rid}`));
      } catch (e) {
        throw new EmbedderError(`Re-embedding stopped: the embedder ${target.model} failed (${(e as Error).message}); the ${begin.staged + embedded} vectors staged so far are kept: run it again to resume`, {
          cause: e,
          details: { staged: begin.staged + embedded },
        });
      }
      await store.reembedStage(rows.map((r, i) => ({ rid: r.rid, text: r.text, embedding: vectors[i]! })));
      embedded += rows.length;
      done += rows.length;
      progress('embed', Math.min(begin.staged + done, Math.max(total, begin.staged + done)), Math.max(total, begin.staged + done));
      cursor = lastRid ?? cursor;
    }
  };

  const actions = { old: { add: 0, update: 0, noop: 0, none: 0 } as ActionCounts, new: { add: 0, update: 0, noop: 0, none: 0 } as ActionCounts };
  const taus = { old: [] as number[], new: [] as number[] };
  const scores = { old: [] as number[], new: [] as number[] };
  let memories = 0;
  const regate = (scope: ResolvedScope, nodes: RegateNode[]) => {
    const key = scopeKey(scope);
    const gate = createNoveltyGate(gateOptions);
    const gates: (GateDecisionRecord | null)[] = [];
    for (const n of nodes) {
      memories++;
      actions.old[n.gate?.action ?? 'none']++;
      if (n.gate) taus.old.push(n.gate.threshold);
      if (n.gate === null) {
        // a node the write path stored without a decision (consolidation output): a gate member, as in replay
        gates.push(null);
        gate.commit(key, n.id, n.embedding);
        actions.new.none++;
        continue;
      }
      let record = gateDecisionRecord(gate.route(key, n.embedding));
      // the write path promoted a gate Noop that changed a value to an Update (issue 37, `routed`):
      // the state question is about the texts, not the space, so the promotion stands here too
      if (record.action === 'noop' && n.gate.action === 'update' && n.gate.routed === 'noop') record = { ...record, action: 'update', routed: 'noop' };
      gates.push(record);
      actions.new[record.action]++;
      taus.new.push(record.threshold);
      if (record.action !== 'noop') gate.commit(key, n.id, n.embedding);
    }
    scores.old.push(...calibrationScores(nodes.map((n) => n.oldEmbedding), gateOptions));
    scores.new.push(...calibrationScores(nodes.map((n) => n.embedding), gateOptions));
    const state = gate.size(key) >= GATE_SAVE_MIN_SIZE ? [{ name: GATE_STATE_NAME, value: sealGateState(codec.save(gate as never, key) as object) }] : [];
    return { gates, state };
  };

  let switched = false;
  for (let attempt = 0; attempt < 5 && !switched; attempt++) {
    await stageAll(Math.max(0, begin.total - begin.staged));
    // a failed attempt (writers added memories meanwhile) must not count its scopes twice
    for (const k of Object.keys(actions.old) as (keyof ActionCounts)[]) actions.old[k] = actions.new[k] = 0;
    taus.old.length = taus.new.length = scores.old.length = scores.new.length = 0;
    memories = 0;
    const r = await store.reembedSwitch(target, regate, (done, total) => progress('switch', done, total));
    switched = r.missing === 0;
  }
  if (!switched) throw new StoreConflictError('Other writers kept adding memories while re-embedding (5 attempts); the staged vectors are kept: run it again when they pause');
  const tauNoop = { old: quantile(scores.old, TAU_NOOP_QUANTILE), new: quantile(scores.new, TAU_NOOP_QUANTILE), quantile: TAU_NOOP_QUANTILE };
  const meanTau = { old: mean(taus.old), new: mean(taus.new) };
  const f = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));
  const notice =
    `The gate's decisions were replayed in the new space: the adaptive τ_t follows the new space's density (mean τ_t ${f(meanTau.old)} → ${f(meanTau.new)}). ` +
    `A fixed τ_noop (the Noop pre-filter, \`mem gate serve\`) or custom tau0 / tauMin chosen for ${meta.embeddingModel} must be re-calibrated: ` +
    `seed 001 App. G's 80th percentile of s_vMF is ${f(tauNoop.old)} in the old space and ${f(tauNoop.new)} in the new one.`;
  return {
    from: { model: meta.embeddingModel, dimension: meta.dimension },
    to: target,
    memories,
    embedded,
    resumedFrom: begin.resumed ? begin.staged : 0,
    gate: { actions, meanTau, tauNoop, notice },
  };
}

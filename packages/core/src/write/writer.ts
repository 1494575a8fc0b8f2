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
import type { Embedder, HistoryEntry, MemoryNode, MemoryStore, Relation, ResolvedScope, TypeScores } from '../types.js';
import { normalizeEntity } from '../extract/index.js';
import { episodeKey, nodeEpisodeKey } from './episode.js';
import { GateRegistry, isGateMember, SCHEDULE_FIELD, type RecentWrite, type ScopeRuntime } from './gates.js';
import { uuidv7 } from './ids.js';
import type { ControllerQuestion, Extractor, Summarizer, WriteController } from './ports.js';
import { differentEpisodes, finalizeEdges, sharesEntity, temporalRuleEdge, type EdgeDraft } from './relations.js';
import {
  NEAR_DUPLICATE_PAIRS,
  consolidationEdges,
  nearDuplicateEdges,
  noulValue,
  relationEdges,
  stateJudgment,
  stateKey,
  typeScores,
  type QuestionSet,
  type StateOutcome,
} from './questions/index.js';
import { normalizeKeyword } from './signals.js';
import { contentHash, type NormalizedObservation } from './validate.js';
import { discoverCandidates } from './candidates.js';
import { dot, unitEmbedding } from './embedding.js';
import { memoryItem } from './items.js';
import type { Candidate, Pending } from './pending.js';
import { restoreSchedule } from './schedule.js';
import { wrapError } from './write-errors.js';
import { addCounters, emptyCounters, type AddResult, type WriteCounters, type WriteStage } from './write-results.js';

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

  /**
   * The near-duplicate check of a Noop / Update (ours; questions/): one call with the state Choice
   * per pair against the gate's nearest memory and the best other candidates (at most
   * NEAR_DUPLICATE_PAIRS). Sets `p.candidates` to the memories compared (consolidation reviews them).
   */
  private async nearDuplicateCheck(
    scope: ResolvedScope,
    rt: ScopeRuntime,
    p: Pending,
    nearest: MemoryNode,
    nearestCosine: number,
    pendingStored: Pending[],
    byId: Map<string, Pending>,
  ): Promise<StateOutcome> {
    const cfg = this.cfg;
    let others = (await discoverCandidates(cfg, scope, rt, p, pendingStored, byId)).filter((c) => c.node.id !== nearest.id).slice(0, NEAR_DUPLICATE_PAIRS - 1);
    // memories of earlier writes must still exist (another connection may have forgotten one): one read
    const stored = others.filter((c) => !byId.has(c.node.id));
    if (stored.length) {
      let found: Set<string>;
      try {
        found = new Set((await cfg.store.getMany(scope, stored.map((c) => c.node.id))).map((n) => n.id));
      } catch (e) {
        throw wrapError('candidates', e);
      }
      others = others.filter((c) => byId.has(c.node.id) || found.has(c.node.id));
    }
    const checked: Candidate[] = [
      // the cosine as discovery and a restored schedule compute it (bit-identical after a restart)
      { node: nearest, cosine: dot(p.node.embedding, nearest.embedding), score: 1, sharedEntity: sharesEntity(p.node.entities, nearest.entities) },
      ...others,
    ];
    const qs = cfg.questions.nearDuplicate(checked.length);
    const state = { new_memory: memoryItem(p.node), candidates: checked.map((c) => memoryItem(c.node, c.cosine)) };
    const answers = await this.ask(state, qs, 'relations');
    p.calls++;
    p.candidates = checked;
    p.checkState = state; // a later consolidation pass reviews these items (copies made now)
    return nearDuplicateEdges(p.node.id, checked.map((c) => c.node.id), answers, cfg.relationThreshold, { id: nearest.id, cosine: nearestCosine });
  }

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
    const { store } = cfg;
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
          types: typeScores(typed[i]!),
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
          // the near-duplicate check (ours, questions/): the state Choice — contradicts / supersedes / same fact
          if (p.nearest) {
            const nd = await this.nearDuplicateCheck(scope, rt, p, p.nearest, decision.nearest.cosine, pendingStored, byId);
            tick('relations');
            // the gate and the state question agree (issue 37): a Noop that changes a value is an
            // Update — stored under every policy (`drop` included), linked, the old memory superseded
            if (nd.changesState && p.action === 'noop') {
              p.action = 'update';
              p.stored = true;
              node.gate = { ...node.gate!, action: 'update', routed: 'noop' };
            }
            p.drafts.push(...nd.drafts);
            p.supersedes = nd.supersedes;
          }
        }
        if (!p.stored) continue;
        // SAME_EPISODE chain (rule, ours): previous stored observation of the same episode
        const ep = episodeKey(obs.sourceId, obs.metadata);
        if (ep) {
          const prev = rt.lastByEpisode.get(ep);
          if (prev) p.drafts.push({ from: prev, to: node.id, subtype: 'SAME_EPISODE', probability: 1, origin: 'rule' });
          rt.lastByEpisode.set(ep, node.id);
        }
        if (decision.action === 'add') {
          p.candidates = await discoverCandidates(cfg, scope, rt, p, pendingStored, byId);
          tick('candidates');
          for (const c of p.candidates) {
            const t = temporalRuleEdge(node, c.node);
            if (t) t.probability = 1;
            if (t) p.drafts.push(t);
            if (c.sharedEntity) p.drafts.push({ from: node.id, to: c.node.id, subtype: 'SAME_ENTITY', probability: 1, origin: 'rule' });
          }
          const self = { eventTime: node.eventTime, observedAt: node.observedAt, episode: ep };
          p.plans = p.candidates.map((c, i) => ({
            candidateId: c.node.id,
            askAlias: !c.sharedEntity && node.entities.length > 0 && c.node.entities.length > 0,
            askTemporalOrder: temporalRuleEdge(node, c.node) === null,
            askEpisode: !differentEpisodes(self, { eventTime: c.node.eventTime, observedAt: c.node.observedAt, episode: nodeEpisodeKey(c.node) }),
            // the state question (issue 37) for the best few candidates: an Add may change a value too
            askState: i < NEAR_DUPLICATE_PAIRS,
          }));
          if (p.candidates.length) {
            p.relationState = { new_memory: memoryItem(node), candidates: p.candidates.map((c) => memoryItem(c.node, c.cosine)) };
          }
        } else if (p.nearest) {
          // SAGE's Update: the new memory updates its nearest (rule edge, p = the gate's cosine); the
          // near-duplicate check above added what the pair's questions found (a Noop gets no rule edge)
          if (decision.action === 'update') {
            const cos = Math.max(0, Math.min(1, decision.nearest!.cosine));
            p.drafts.push({ from: node.id, to: p.nearest.id, subtype: 'UPDATES', probability: cos, origin: 'rule' });
          }
          // the full relation batch an Add gets was not asked
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
          const qs = cfg.questions.relations(p.plans);
          const answers = await this.ask(p.relationState, qs, 'relations');
          p.calls++;
          const out = relationEdges(p.node.id, p.plans, answers, cfg.relationThreshold);
          p.drafts.push(...out.drafts);
          if (out.supersedes.length) p.supersedes = [...(p.supersedes ?? []), ...out.supersedes];
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
      // memories a near-duplicate superseded (OBSOLETES): obsoleteBy = the newest memory that did
      for (const p of pendingStored) {
        for (const id of p.supersedes ?? []) {
          const prev = nodeUpdates.get(id);
          if (!prev || prev < p.node.id) nodeUpdates.set(id, p.node.id);
        }
      }
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
          // Adds, and (issue 17) Noops and Updates with the memories their near-duplicate check compared
          if (p.candidates.length) {
            const related = new Set(p.drafts.filter((d) => d.subtype === 'RELATED_TO').map((d) => d.to));
            const st = (p.relationState ?? p.checkState ?? null) as { new_memory: Record<string, unknown>; candidates: Record<string, unknown>[] } | null;
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
          // the reviewed writes and their candidates must still exist: another connection may have
          // forgotten some since (one read per pass; the batch's own nodes are not stored yet)
          const earlier = new Set<string>();
          for (const w of pass.reviewed) for (const id of [w.node.id, ...w.candidates.map((c) => c.node.id)]) if (!byId.has(id)) earlier.add(id);
          let present = earlier;
          if (earlier.size) {
            try {
              present = new Set((await store.getMany(scope, [...earlier])).map((n) => n.id));
            } catch (e) {
              throw wrapError('consolidation', e);
            }
          }
          const exists = (id: string) => byId.has(id) || present.has(id);
          await Promise.all(
            pass.reviewed.map(async (w) => {
              if (!exists(w.node.id)) return;
              // never the node itself: discovery drops it from the pool, and a restored record's ids go
              // through reviewIds (so an `obsolete` answer cannot make a node obsolete by itself)
              const kept = w.candidates.map((c, i) => ({ c, i })).filter((x) => exists(x.c.node.id));
              if (kept.length !== w.candidates.length) {
                w = {
                  ...w,
                  candidates: kept.map((x) => x.c),
                  items: w.items ? { node: w.items.node, candidates: kept.map((x) => w.items!.candidates[x.i]!) } : undefined,
                };
              }
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
                const state = stateJudgment(answers[stateKey(i)]);
                const link = noulValue(answers[`pair_${i}_link`]);
                const ce = consolidationEdges(w.node.id, c.id, state, link, { change: cfg.relationThreshold, same: th }, w.related.has(c.id));
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
                  if (pr >= th && (state?.p.contradiction ?? 0) < th) {
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

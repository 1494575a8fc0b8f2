/**
 * The consolidation stage (docs/architecture.md "One `add()`": Writer.derivedNode, consolidation
 * every 20 writes → consolidationEdges; seed 000 "periodic maintenance"): System-Two merges of
 * Updates, the consolidation schedule, and the review passes it triggers.
 */
import type { Pending } from '../pending.js';
import type { RecentWrite } from '../gates.js';
import { memoryItem } from '../items.js';
import { consolidationEdges, noulValue, stateJudgment, stateKey } from '../questions/index.js';
import type { EdgeDraft } from '../relations.js';
import { wrapError } from '../write-errors.js';
import type { BatchState, DerivedWrite, WriteContext } from './context.js';

/** A consolidation pass: the write that triggered it (it owns the pass's edges) and the writes it reviews. */
export interface ConsolidationPass {
  owner: Pending;
  reviewed: RecentWrite[];
}

/** What consolidation adds to the batch. */
export interface ConsolidationOutcome {
  /** Memory id → the newest memory that made it obsolete (near-duplicate supersession and passes). */
  nodeUpdates: Map<string, string>;
  /** Edges of the passes, in the order they were found. */
  drafts: EdgeDraft[];
  /** The write that owns each pass edge (its result reports it). */
  draftOwner: Map<EdgeDraft, Pending>;
}

/**
 * System-Two merge on an SAGE Update (only with a summarizer): one derived node per stored Update
 * with a nearest memory, linked UPDATES (p = 1) to both. Throws MemError (stage `summarize`, `embed`, `extract`).
 */
export async function mergeUpdates(ctx: WriteContext, pendingStored: Pending[]): Promise<DerivedWrite[]> {
  const derived: DerivedWrite[] = [];
  if (!ctx.cfg.summarizer) return derived;
  for (const p of pendingStored) {
    if (p.action !== 'update' || !p.nearest) continue;
    const d = await ctx.derivedNode('update', [p.nearest, p.node]);
    derived.push({
      node: d,
      owner: p,
      drafts: [
        { from: d.id, to: p.nearest.id, subtype: 'UPDATES', probability: 1, origin: 'rule' },
        { from: d.id, to: p.node.id, subtype: 'UPDATES', probability: 1, origin: 'rule' },
      ],
    });
  }
  return derived;
}

/** Memories the batch's near-duplicate checks and relation calls superseded (OBSOLETES): id → the newest memory that did. */
export function supersessions(pendingStored: Pending[]): Map<string, string> {
  const nodeUpdates = new Map<string, string>();
  for (const p of pendingStored) {
    for (const id of p.supersedes ?? []) {
      const prev = nodeUpdates.get(id);
      if (!prev || prev < p.node.id) nodeUpdates.set(id, p.node.id);
    }
  }
  return nodeUpdates;
}

/**
 * Consolidation of a batch: the supersessions, then (with `consolidateEvery` > 0) the schedule and
 * every pass it triggers; derived nodes of merge / promote answers are appended to `derived`. Times
 * `consolidation`. Throws MemError (stage `consolidation`, `summarize`).
 */
export async function consolidate(ctx: WriteContext, batch: BatchState, derived: DerivedWrite[]): Promise<ConsolidationOutcome> {
  const out: ConsolidationOutcome = { nodeUpdates: supersessions(batch.pendingStored), drafts: [], draftOwner: new Map() };
  if (ctx.cfg.consolidateEvery > 0) {
    for (const pass of scheduleConsolidation(ctx, batch.pendingStored)) await runConsolidationPass(ctx, batch, pass, out, derived);
  }
  ctx.clock.tick('consolidation');
  return out;
}

/**
 * The consolidation schedule (seed 000 "periodic maintenance"; ours in detail): every stored write
 * gets the next ordinal and records its review inputs in its history row (`p.schedule`, see
 * ScheduleRecord, so restoreSchedule rebuilds exactly this state from the store); writes with
 * candidates join the scope's `recent` list, and a pass is due once `consolidateEvery` writes were
 * stored since the last one. Returns the passes due, in order.
 */
export function scheduleConsolidation(ctx: WriteContext, pendingStored: Pending[]): ConsolidationPass[] {
  const { cfg, rt } = ctx;
  const passes: ConsolidationPass[] = [];
  for (const p of pendingStored) {
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
  return passes;
}

/**
 * One consolidation pass: drops reviewed writes and candidates another connection has forgotten
 * since (one read; the batch's own nodes are not stored yet), then reviews every write together.
 */
export async function runConsolidationPass(ctx: WriteContext, batch: BatchState, pass: ConsolidationPass, out: ConsolidationOutcome, derived: DerivedWrite[]): Promise<void> {
  const { byId } = batch;
  ctx.counters.consolidations++;
  const earlier = new Set<string>();
  for (const w of pass.reviewed) for (const id of [w.node.id, ...w.candidates.map((c) => c.node.id)]) if (!byId.has(id)) earlier.add(id);
  let present = earlier;
  if (earlier.size) {
    try {
      present = new Set((await ctx.cfg.store.getMany(ctx.scope, [...earlier])).map((n) => n.id));
    } catch (e) {
      throw wrapError('consolidation', e);
    }
  }
  const exists = (id: string) => byId.has(id) || present.has(id);
  await Promise.all(pass.reviewed.map((w) => reviewWrite(ctx, pass.owner, w, exists, out, derived)));
}

/**
 * Review one write against its candidates (one consolidation call): state edges (consolidationEdges;
 * an obsolete candidate gets `obsoleteBy`), and with a summarizer a merge / promote derived node
 * when p ≥ the consolidation threshold and p(contradiction) is below it.
 */
export async function reviewWrite(
  ctx: WriteContext,
  owner: Pending,
  write: RecentWrite,
  exists: (id: string) => boolean,
  out: ConsolidationOutcome,
  derived: DerivedWrite[],
): Promise<void> {
  const { cfg } = ctx;
  let w = write;
  if (!exists(w.node.id)) return;
  // never the node itself: discovery drops it from the pool, and a restored record's ids go
  // through reviewIds (so an `obsolete` answer cannot make a node obsolete by itself)
  const kept = w.candidates.map((c, i) => ({ c, i })).filter((x) => exists(x.c.node.id));
  if (kept.length !== w.candidates.length) {
    w = {
      ...w,
      candidates: kept.map((x) => x.c),
      items: w.items ? { node: w.items.node, candidates: kept.map((x) => write.items!.candidates[x.i]!) } : undefined,
    };
  }
  const cands = w.candidates;
  if (!cands.length) return;
  // the representation Choice only matters when a summarizer can act on it
  const qs = cfg.questions.consolidation(cands.length, { representation: cfg.summarizer !== undefined });
  const answers = await ctx.ask(
    w.items ? { new_memory: w.items.node, candidates: w.items.candidates } : { new_memory: memoryItem(w.node), candidates: cands.map((c) => memoryItem(c.node, c.cosine)) },
    qs,
    'consolidation',
  );
  owner.calls++;
  const th = cfg.consolidationThreshold;
  for (let i = 0; i < cands.length; i++) {
    const c = cands[i]!.node;
    const state = stateJudgment(answers[stateKey(i)]);
    const link = noulValue(answers[`pair_${i}_link`]);
    const ce = consolidationEdges(w.node.id, c.id, state, link, { change: cfg.relationThreshold, same: th }, w.related.has(c.id));
    for (const d of ce.drafts) {
      out.drafts.push(d);
      out.draftOwner.set(d, owner);
    }
    if (ce.obsolete) {
      // obsoleteBy points to the newest memory that made it obsolete (ids are time-ordered)
      const prev = out.nodeUpdates.get(c.id);
      if (!prev || prev < w.node.id) out.nodeUpdates.set(c.id, w.node.id);
    }
    const rep = answers[`pair_${i}_representation`];
    if (cfg.summarizer && rep && typeof rep === 'object' && (rep.choice === 'merge' || rep.choice === 'promote')) {
      const pr = rep.probabilities?.[rep.choice] ?? 0;
      if (pr >= th && (state?.p.contradiction ?? 0) < th) {
        const d = await ctx.derivedNode(rep.choice, [c, w.node]);
        derived.push({
          node: d,
          owner,
          drafts: [
            { from: d.id, to: c.id, subtype: 'UPDATES', probability: pr, origin: 'controller' },
            { from: d.id, to: w.node.id, subtype: 'UPDATES', probability: pr, origin: 'controller' },
          ],
        });
      }
    }
  }
}

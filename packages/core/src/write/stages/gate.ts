/**
 * The gate stage (docs/architecture.md "One `add()`": WriteGate.route, the Noop / Update branch, and
 * WriteGate.commit; SAGE seed 001 §3.4): route one observation, build its node, and for a Noop or an
 * Update ask the near-duplicate (state) question against the gate's nearest memory.
 */
import { normalizeEntity } from '../../extract/index.js';
import type { GateDecisionRecord, MemoryNode } from '../../types.js';
import { discoverCandidates } from '../candidates.js';
import { dot } from '../embedding.js';
import { gateDecisionRecord, isGateMember } from '../gates.js';
import { uuidv7 } from '../ids.js';
import { memoryItem } from '../items.js';
import type { Candidate, Pending } from '../pending.js';
import { NEAR_DUPLICATE_PAIRS, nearDuplicateEdges, typeScores, type StateOutcome } from '../questions/index.js';
import { sharesEntity } from '../relations.js';
import { normalizeKeyword } from '../signals.js';
import { wrapError } from '../write-errors.js';
import type { BatchState, IndexedObservation, WriteContext } from './context.js';
import type { TypedObservation } from './typing.js';

/** One fresh observation with its typing-stage features and the batch's creation time. */
export interface GateInput extends IndexedObservation {
  features: TypedObservation;
  /** UTC ISO-8601, the same for every node of the batch. */
  createdAt: string;
}

/** The routed observation (already in `batch.pendings`) and the gate's own decision. */
export interface Routed {
  p: Pending;
  /** The gate's decision as routed (a Noop the state question promoted stays `noop` here). */
  decision: GateDecisionRecord;
}

/**
 * Route one observation through the scope's gate (seed 001 §3.4), build its node and pending state,
 * and for a Noop / Update with a nearest memory run the near-duplicate check: a Noop whose state
 * question finds a changed value becomes an Update (issue 37), stored under every policy. Times the
 * `gate` and (near-duplicate check) `relations` stages. Throws MemError (stage `gate`, `candidates`
 * or `relations`).
 */
export async function routeObservation(ctx: WriteContext, batch: BatchState, input: GateInput): Promise<Routed> {
  const { cfg, rt, key, scope, clock } = ctx;
  const { index, obs, createdAt } = input;
  const { extracted: ex, embedding, typed } = input.features;
  clock.start();
  const decision = rt.gate.route(key, embedding);
  clock.tick('gate');
  const node: MemoryNode = {
    id: uuidv7(cfg.now()),
    scope,
    text: obs.text,
    speaker: obs.speaker,
    observedAt: obs.observedAt,
    eventTime: ex.eventTime,
    entities: ex.entities,
    keywords: ex.keywords,
    types: typeScores(typed),
    embedding,
    gate: gateDecisionRecord(decision),
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
  batch.pendings.push(p);

  // nearest memory for Noop / Update (gate's nearest by cosine)
  if (decision.nearest && decision.action !== 'add') {
    p.nearest = batch.byId.get(decision.nearest.id)?.node ?? rt.nodes.get(decision.nearest.id) ?? null;
    if (!p.nearest) {
      try {
        p.nearest = await ctx.cfg.store.get(scope, decision.nearest.id);
      } catch (e) {
        throw wrapError('gate', e);
      }
      if (p.nearest) rt.nodes.put(p.nearest);
    }
    // the near-duplicate check (ours, questions/): the state Choice — contradicts / supersedes / same fact
    if (p.nearest) {
      const nd = await nearDuplicateCheck(ctx, batch, p, p.nearest, decision.nearest.cosine);
      clock.tick('relations');
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
  return { p, decision };
}

/**
 * The near-duplicate check of a Noop / Update (ours; questions/): one call with the state Choice
 * per pair against the gate's nearest memory and the best other candidates (at most
 * NEAR_DUPLICATE_PAIRS). Sets `p.candidates` to the memories compared (consolidation reviews them).
 */
export async function nearDuplicateCheck(ctx: WriteContext, batch: BatchState, p: Pending, nearest: MemoryNode, nearestCosine: number): Promise<StateOutcome> {
  const { cfg, scope, rt } = ctx;
  const { byId } = batch;
  let others = (await discoverCandidates(cfg, scope, rt, p, batch.pendingStored, byId)).filter((c) => c.node.id !== nearest.id).slice(0, NEAR_DUPLICATE_PAIRS - 1);
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
  const answers = await ctx.ask(state, qs, 'relations');
  p.calls++;
  p.candidates = checked;
  p.checkState = state; // a later consolidation pass reviews these items (copies made now)
  return nearDuplicateEdges(p.node.id, checked.map((c) => c.node.id), answers, cfg.relationThreshold, { id: nearest.id, cosine: nearestCosine });
}

/**
 * Admit a stored observation: commit it to the scope's gate when it is a gate member (SAGE: Add and
 * Update grow the gate's memory, Noop does not; times `commit`), and make it visible to the next
 * observations of the batch (`pendingStored`, the candidate index).
 */
export function admitObservation(ctx: WriteContext, batch: BatchState, p: Pending): void {
  const { rt, key, clock } = ctx;
  const node = p.node;
  if (isGateMember(node)) {
    clock.start();
    rt.gate.commit(key, node.id, node.embedding);
    clock.tick('commit');
    batch.committed.push(node.id);
    p.committed = true;
  }
  batch.pendingStored.push(p);
  batch.byId.set(node.id, p);
  batch.runtimeTouched = true;
  rt.index.add({ id: node.id, observedAtMs: Date.parse(node.observedAt), entities: p.entitySet, keywords: p.keywordSet });
}

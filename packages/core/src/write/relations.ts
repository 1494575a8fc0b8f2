/**
 * Relation building of the Jev-Mem write path (seed 000, "write path"; docs/design.md step 4):
 * deterministic rule edges (timestamps, exact entities, episode chain) and the mapping of the
 * controller's pair answers (`pair_i_*`) to learned edges kept when p ≥ θ_rel.
 */
import { RELATION_SUBTYPES, type MemoryNode, type Relation, type RelationSubtype } from '../types.js';
import type { ControllerAnswer, ControllerQuestion } from './ports.js';
import { normalizeEntity } from '../extract/index.js';
import { uuidv7 } from './ids.js';

/** Default θ_rel: a learned edge is inserted only when p ≥ 0.60 (seed 000; docs/design.md step 4). */
export const DEFAULT_RELATION_THRESHOLD = 0.6;
/** Two times closer than this are CONCURRENT (ours). */
export const CONCURRENT_TOLERANCE_MS = 60_000;

/** A relation before it gets an id and a creation time. */
export interface EdgeDraft {
  from: string;
  to: string;
  subtype: RelationSubtype;
  probability: number;
  origin: 'rule' | 'controller';
}

/** Finalise drafts: assign ids and createdAt, derive the view, and keep one edge per (from, to, subtype) with the highest p (a rule edge wins ties). */
export function finalizeEdges(drafts: EdgeDraft[], createdAt: string): { relation: Relation; draft: EdgeDraft }[] {
  const best = new Map<string, EdgeDraft>();
  for (const d of drafts) {
    if (d.from === d.to) continue;
    const k = `${d.from}\u0000${d.to}\u0000${d.subtype}`;
    const prev = best.get(k);
    if (!prev || d.probability > prev.probability || (d.probability === prev.probability && d.origin === 'rule')) best.set(k, d);
  }
  return [...best.values()].map((d) => ({
    draft: d,
    relation: {
      id: uuidv7(),
      from: d.from,
      to: d.to,
      view: RELATION_SUBTYPES[d.subtype],
      subtype: d.subtype,
      probability: Math.min(1, Math.max(0, d.probability)),
      origin: d.origin,
      createdAt,
    },
  }));
}

/** Time interval of a node in ms: its resolved event time when known, else its observation time (ours). */
export function nodeInterval(node: Pick<MemoryNode, 'eventTime' | 'observedAt'>): { start: number; end: number } | null {
  const start = Date.parse(node.eventTime?.start ?? node.observedAt);
  if (!Number.isFinite(start)) return null;
  const endRaw = node.eventTime?.end ? Date.parse(node.eventTime.end) : start;
  return { start, end: Number.isFinite(endRaw) && endRaw >= start ? endRaw : start };
}

/**
 * Deterministic temporal edge when both times are known (seed 000: "timestamp ordering directly
 * creates temporal relations"): CONCURRENT when the intervals overlap or the starts are within
 * 1 minute, else PRECEDES from the earlier to the later (weight 1). Null when a time is unknown.
 */
export function temporalRuleEdge(
  a: Pick<MemoryNode, 'id' | 'eventTime' | 'observedAt'>,
  b: Pick<MemoryNode, 'id' | 'eventTime' | 'observedAt'>,
): EdgeDraft | null {
  const ia = nodeInterval(a);
  const ib = nodeInterval(b);
  if (!ia || !ib) return null;
  const overlap = ia.start <= ib.end && ib.start <= ia.end;
  if (overlap || Math.abs(ia.start - ib.start) < CONCURRENT_TOLERANCE_MS) {
    return { from: a.id, to: b.id, subtype: 'CONCURRENT', probability: 1, origin: 'rule' };
  }
  return ia.start < ib.start
    ? { from: a.id, to: b.id, subtype: 'PRECEDES', probability: 1, origin: 'rule' }
    : { from: b.id, to: a.id, subtype: 'PRECEDES', probability: 1, origin: 'rule' };
}

/** Two memories whose times are farther apart than this can't share an episode (ours; see `differentEpisodes`). */
export const EPISODE_MAX_GAP_MS = 2 * 86_400_000;

/**
 * True when structured data already says two memories belong to different episodes, so the
 * `same_episode` question is not asked (seed 000: "whenever reliable structured information is
 * already available, Jev-Mem avoids unnecessary learned inference"; the rule is ours): both have an
 * episode (session) key, the keys differ, and their times (`nodeInterval`) are more than
 * `EPISODE_MAX_GAP_MS` apart — different conversations, not "at about the same time". The offline
 * backend scores such pairs far below θ_rel anyway (session mismatch and a gap over 2 days).
 */
export function differentEpisodes(
  a: Pick<MemoryNode, 'eventTime' | 'observedAt'> & { episode: string | null },
  b: Pick<MemoryNode, 'eventTime' | 'observedAt'> & { episode: string | null },
): boolean {
  if (a.episode === null || b.episode === null || a.episode === b.episode) return false;
  const ia = nodeInterval(a);
  const ib = nodeInterval(b);
  if (!ia || !ib) return false;
  const gap = Math.max(ia.start, ib.start) - Math.min(ia.end, ib.end);
  return gap > EPISODE_MAX_GAP_MS;
}

/** True when the two entity lists share one exact normalized name. */
export function sharesEntity(a: readonly string[], b: readonly string[]): boolean {
  if (a.length === 0 || b.length === 0) return false;
  const set = new Set(a.map(normalizeEntity).filter(Boolean));
  return b.some((e) => set.has(normalizeEntity(e)));
}

/** Map the temporal_order Choice label (new memory is <label> the candidate) to an edge. */
export function temporalOrderEdge(label: string, newId: string, candId: string, p: number): EdgeDraft | null {
  switch (label) {
    case 'before':
      return { from: newId, to: candId, subtype: 'PRECEDES', probability: p, origin: 'controller' };
    case 'after':
      return { from: candId, to: newId, subtype: 'PRECEDES', probability: p, origin: 'controller' };
    case 'during':
      return { from: newId, to: candId, subtype: 'DURING', probability: p, origin: 'controller' };
    case 'contains':
      return { from: candId, to: newId, subtype: 'DURING', probability: p, origin: 'controller' };
    case 'overlaps':
      return { from: newId, to: candId, subtype: 'OVERLAPS', probability: p, origin: 'controller' };
    case 'same_time':
      return { from: newId, to: candId, subtype: 'CONCURRENT', probability: p, origin: 'controller' };
    default:
      return null;
  }
}

/** p of a Noul answer (0 when absent or not a number). */
export function noulValue(a: ControllerAnswer | undefined): number {
  return typeof a === 'number' && Number.isFinite(a) ? a : 0;
}

/** Per-pair plan of which questions to ask (the paper asks entity_alias only without an exact entity match, temporal_order only when a time is missing). */
export interface PairPlan {
  candidateId: string;
  askAlias: boolean;
  askTemporalOrder: boolean;
  /** False when `differentEpisodes` settles the pair (same_episode not asked, no edge). Default true. */
  askEpisode?: boolean;
}

/**
 * Learned edges from the answers of one relation call (keys `pair_i_*`), each kept only when
 * p ≥ θ_rel: semantic → RELATED_TO; causes → LEADS_TO new→cand; caused_by → LEADS_TO cand→new;
 * same_episode → SAME_EPISODE; entity_alias → ENTITY_ALIAS; temporal_order → PRECEDES / DURING /
 * OVERLAPS / CONCURRENT (chosen label's probability).
 */
export function edgesFromPairAnswers(
  newId: string,
  plans: readonly PairPlan[],
  answers: Record<string, ControllerAnswer>,
  threshold: number,
): EdgeDraft[] {
  const out: EdgeDraft[] = [];
  plans.forEach((plan, i) => {
    const c = plan.candidateId;
    const keep = (p: number, d: EdgeDraft) => {
      if (p >= threshold) out.push(d);
    };
    const sem = noulValue(answers[`pair_${i}_semantic`]);
    keep(sem, { from: newId, to: c, subtype: 'RELATED_TO', probability: sem, origin: 'controller' });
    const causes = noulValue(answers[`pair_${i}_causes`]);
    keep(causes, { from: newId, to: c, subtype: 'LEADS_TO', probability: causes, origin: 'controller' });
    const causedBy = noulValue(answers[`pair_${i}_caused_by`]);
    keep(causedBy, { from: c, to: newId, subtype: 'LEADS_TO', probability: causedBy, origin: 'controller' });
    if (plan.askEpisode !== false) {
      const episode = noulValue(answers[`pair_${i}_same_episode`]);
      keep(episode, { from: newId, to: c, subtype: 'SAME_EPISODE', probability: episode, origin: 'controller' });
    }
    if (plan.askAlias) {
      const alias = noulValue(answers[`pair_${i}_entity_alias`]);
      keep(alias, { from: newId, to: c, subtype: 'ENTITY_ALIAS', probability: alias, origin: 'controller' });
    }
    if (plan.askTemporalOrder) {
      const a = answers[`pair_${i}_temporal_order`];
      if (a && typeof a === 'object') {
        const p = a.probabilities?.[a.choice] ?? 0;
        const d = temporalOrderEdge(a.choice, newId, c, p);
        if (d) keep(p, d);
      }
    }
  });
  return out;
}

/**
 * Consolidation edges of one reviewed pair (seed 000 "periodic maintenance"; docs/design.md step 5).
 * - Without `changeThreshold`: the strongest of redundant → REDUNDANT_WITH, contradiction →
 *   CONTRADICTS, link → RELATED_TO is added when that max ≥ `threshold` (a link only when the pair is
 *   not already RELATED_TO); obsolete ≥ `threshold` adds OBSOLETES newer → older (the caller records
 *   `obsoleteBy`).
 * - With `changeThreshold` (ours, issue 17; the write path passes θ_rel): a change of state is decided
 *   as by the near-duplicate check (`near-duplicates.ts`) — p_change = min(1, p_contradiction +
 *   p_obsolete) ≥ `changeThreshold` gives ONE edge, CONTRADICTS when p_contradiction ≥ p_obsolete
 *   else OBSOLETES, with p_change, and `obsolete` is true either way (the newer statement is the
 *   current one); otherwise the strongest of redundant / link ≥ `threshold` as above. The relation
 *   model's probabilities are calibrated, so the same θ_rel applies to an Add's review as to a
 *   near-duplicate (before, 0.85 on p_obsolete alone missed most paraphrased changes).
 * Nothing is deleted.
 */
export function consolidationEdges(
  newerId: string,
  olderId: string,
  p: { redundant: number; contradiction: number; obsolete: number; link: number },
  threshold: number,
  alreadyRelated: boolean,
  changeThreshold?: number,
): { drafts: EdgeDraft[]; obsolete: boolean } {
  const drafts: EdgeDraft[] = [];
  if (changeThreshold !== undefined) {
    const change = Math.min(1, p.contradiction + p.obsolete);
    if (change >= changeThreshold) {
      drafts.push({ from: newerId, to: olderId, subtype: p.contradiction >= p.obsolete ? 'CONTRADICTS' : 'OBSOLETES', probability: change, origin: 'controller' });
      return { drafts, obsolete: true };
    }
    const best: [number, RelationSubtype] = p.redundant >= p.link ? [p.redundant, 'REDUNDANT_WITH'] : [p.link, 'RELATED_TO'];
    if (best[0] >= threshold && !(best[1] === 'RELATED_TO' && alreadyRelated)) {
      drafts.push({ from: newerId, to: olderId, subtype: best[1], probability: best[0], origin: 'controller' });
    }
    return { drafts, obsolete: false };
  }
  const options: [number, RelationSubtype][] = [
    [p.contradiction, 'CONTRADICTS'],
    [p.redundant, 'REDUNDANT_WITH'],
    [p.link, 'RELATED_TO'],
  ];
  let best = options[0]!;
  for (const o of options) if (o[0] > best[0]) best = o;
  if (best[0] >= threshold && !(best[1] === 'RELATED_TO' && alreadyRelated)) {
    drafts.push({ from: newerId, to: olderId, subtype: best[1], probability: best[0], origin: 'controller' });
  }
  const obsolete = p.obsolete >= threshold;
  if (obsolete) drafts.push({ from: newerId, to: olderId, subtype: 'OBSOLETES', probability: p.obsolete, origin: 'controller' });
  return { drafts, obsolete };
}

/** Builds the relation batch; `questions` is `@mem/system-one`'s `batches.relations` (without the `same_episode` keys where `sameEpisode(i)` is false). */
export type RelationBatchBuilder = (
  count: number,
  opts: { alias: (i: number) => boolean; temporalOrder: (i: number) => boolean; sameEpisode?: (i: number) => boolean },
) => Record<string, ControllerQuestion>;

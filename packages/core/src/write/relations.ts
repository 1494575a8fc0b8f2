/**
 * Relation building of the Jev-Mem write path (seed 000, "write path"; docs/design.md step 4):
 * deterministic rule edges (timestamps, exact entities, episode chain) and the finalising of edge
 * drafts. The controller's answers are turned into learned edges by `./questions` (the state rule
 * included).
 */
import { RELATION_SUBTYPES, type MemoryNode, type Relation, type RelationSubtype } from '../types.js';
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

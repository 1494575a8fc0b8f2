/**
 * The one evidence shape of the demo agent (ours): `mem ask --json`, `/v1/search`, `/v1/ask`, the
 * MCP `recall` tool and the playground all show retrieved evidence as `EvidenceItem`s, best first.
 */
import type { Evidence, MemoryNode } from '@mem/core';
import { shortId } from './output.js';
import type { TraceView } from './trace.js';

export interface EvidenceItem {
  /** Node id (use it with inspect / forget / history). */
  id: string;
  text: string;
  speaker: string | null;
  /** ISO-8601 UTC: when the observation was made. */
  observedAt: string;
  /** The time the text talks about, when one was resolved (e.g. "yesterday" → that day). */
  eventTime: MemoryNode['eventTime'] | null;
  sourceId: string | null;
  /** The retriever's score (higher = better; not comparable across retrievers). */
  score: number;
  /** Relation subtypes followed from an anchor to reach this item (empty for anchors). */
  via: string[];
  /**
   * 'current', or 'superseded' when a later memory changed what this one says (issue 37; core's
   * `MemoryState`). A superseded memory stays evidence (for questions about the past).
   */
  status: 'current' | 'superseded';
  /**
   * For a superseded item: `id` of the newer memory, `at` = its observation time (UTC ISO-8601),
   * `p` = the edge's probability (null when only `obsoleteBy` records it), `relation` = CONTRADICTS /
   * OBSOLETES (null likewise). Null for a current item.
   */
  supersededBy: { id: string; at: string; p: number | null; relation: string | null } | null;
}

/** One line's note on an item's state (ours): '' when current, else `superseded by <short id> (<date>, OBSOLETES p=0.94)`, the short id the evidence list and `inspect` use. */
export function stateNote(e: Pick<EvidenceItem, 'status' | 'supersededBy'>): string {
  const s = e.supersededBy;
  if (e.status !== 'superseded' || !s) return '';
  const how = [s.at ? s.at.slice(0, 10) : null, s.relation ? `${s.relation}${s.p === null ? '' : ` p=${s.p.toFixed(2)}`}` : s.p === null ? null : `p=${s.p.toFixed(2)}`].filter(Boolean).join(', ');
  return `superseded by ${shortId(s.id)}${how ? ` (${how})` : ''}`;
}

export function toEvidenceItem(e: Evidence): EvidenceItem {
  return {
    id: e.node.id,
    text: e.node.text,
    speaker: e.node.speaker,
    observedAt: e.node.observedAt,
    eventTime: e.node.eventTime ?? null,
    sourceId: e.node.provenance?.sourceId ?? null,
    score: e.score,
    via: (e.path ?? []).map((r) => r.subtype),
    status: e.state?.status ?? 'current',
    supersededBy: e.state?.status === 'superseded' ? { id: e.state.by, at: e.state.at, p: e.state.p, relation: e.state.relation } : null,
  };
}

/** A few numbers that say how an answer was found (for agents: small enough to keep in context). */
export interface CompactTrace {
  retriever: string | null;
  /** Routing probability per relation view (Jev; null for flat retrievers). */
  routing: Record<string, number> | null;
  activeViews: string[];
  depth: number | null;
  rounds: number;
  stopReason: string | null;
  controllerCalls: number | null;
  ms: number | null;
}

export function compactTrace(t: TraceView): CompactTrace {
  const round = (v: number) => Math.round(v * 1000) / 1000;
  return {
    retriever: t.retriever,
    routing: t.routing ? Object.fromEntries(Object.entries(t.routing).map(([k, v]) => [k, round(v)])) : null,
    activeViews: t.activeViews,
    depth: t.depth,
    rounds: t.rounds.length,
    stopReason: t.stopReason,
    controllerCalls: t.controllerCalls,
    ms: t.totalMs === null ? null : round(t.totalMs),
  };
}

/**
 * The one evidence shape of the demo agent (ours): `mem ask --json`, `/v1/search`, `/v1/ask`, the
 * MCP `recall` tool and the playground all show retrieved evidence as `EvidenceItem`s, best first.
 */
import type { Evidence, MemoryNode } from '@mem/core';
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

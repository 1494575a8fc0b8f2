/**
 * Episode (session) keys for the deterministic SAME_EPISODE chain (ours).
 *
 * Consecutive observations of one conversation session are linked by a temporal SAME_EPISODE edge
 * (previous → next, weight 1, origin `rule`). This lets a multi-hop read path walk from a question
 * turn to its answer turn, or from "that concert" to the turn that named it, even when the two turns
 * share no words. Only the immediately preceding observation of the session is linked (a chain, not
 * a clique), so the edge count stays linear in the number of observations.
 */
import type { MemoryNode } from '../types.js';

/** `D3:12`, `s3:12`, `session-3/12`, `conv1#3` → the part before the last `:`/`#`/`/` when it ends in a turn number. */
const DIALOGUE_ID = /^(.+?)[:#/](\d+)$/u;

/**
 * The episode key of an observation, or null: `metadata.session` / `metadata.sessionId` (string or
 * number) when given, else the session part of a dialogue-like `sourceId` (`D3:12` → `D3`).
 */
export function episodeKey(sourceId: string | null, metadata: Record<string, unknown> | undefined): string | null {
  const m = metadata ?? {};
  for (const k of ['session', 'sessionId', 'session_id']) {
    const v = m[k];
    if ((typeof v === 'string' && v.trim()) || (typeof v === 'number' && Number.isFinite(v))) return `m:${String(v).trim()}`;
  }
  if (sourceId) {
    const match = DIALOGUE_ID.exec(sourceId);
    if (match) return `s:${match[1]}`;
  }
  return null;
}

/** The turn number of a dialogue-like sourceId (`D3:12` → 12), or null. */
export function turnNumber(sourceId: string | null): number | null {
  if (!sourceId) return null;
  const match = DIALOGUE_ID.exec(sourceId);
  return match ? Number(match[2]) : null;
}

/** Episode key of a stored node. */
export function nodeEpisodeKey(node: { provenance: Pick<MemoryNode['provenance'], 'sourceId' | 'metadata'> }): string | null {
  return episodeKey(node.provenance.sourceId, node.provenance.metadata);
}

/** Memory nodes as the items of System-One controller states (ours). */
import type { MemoryNode } from '../types.js';
import { nodeEpisodeKey } from './episode.js';

/** The memory item a controller state carries for a node (see `@mem/system-one` catalogue `MemoryItem`). */
export function memoryItem(node: MemoryNode, cosine?: number): Record<string, unknown> {
  const item: Record<string, unknown> = { text: node.text, time: node.observedAt };
  if (node.speaker) item.speaker = node.speaker;
  if (node.eventTime) {
    item.start = node.eventTime.start;
    if (node.eventTime.end) item.end = node.eventTime.end;
  }
  // copies: the items of a write's relation call are reused by a later consolidation pass, after the
  // caller got the node back (and may have mutated its arrays)
  if (node.entities.length) item.entities = node.entities.slice();
  if (node.keywords.length) item.keywords = node.keywords.slice();
  const ep = nodeEpisodeKey(node);
  if (ep) item.session = ep;
  if (cosine !== undefined) item.cosine = cosine;
  return item;
}

/**
 * The nodes a Jev-Mem search visits (ours): the Visit record, its order, its controller state item,
 * edge decay along a relation, and the successor of a superseded memory.
 */
import type { MemoryNode, Relation, RelationSubtype, RelationView } from '@mem/core';
import { clamp01 } from './equations.js';
import { type ScopeSnapshot } from './lexical.js';

export interface Visit {
  node: MemoryNode;
  path: Relation[];
  /** View the node was reached through (null for anchors). */
  view: RelationView | null;
  cosine: number;
  edgeProbability: number;
  /** Retrieval prior: anchors their fused RRF score; neighbours parent prior × edge probability × edge decay, plus support (ours). */
  prior: number;
  score: number;
  depth: number;
  /** Learned expansion (issue 38): the best path score p(evidence) of an edge that reached this memory; absent when no expansion model asked. */
  pathP?: number;
  /** Link stage (issue 38; `jev-links.ts`): p(evidence) from the link model (own p and the edges to the top memories); absent without a link model. */
  linkP?: number;
}

export const ZERO_BUDGET = (): Record<RelationView, number> => ({ semantic: 0, temporal: 0, causal: 0, entity: 0 });

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

export function nodeTimeMs(n: MemoryNode): number {
  return Date.parse(n.eventTime?.start ?? n.observedAt);
}

export function stateItem(v: Visit) {
  const n = v.node;
  return {
    id: n.id,
    text: n.text,
    ...(n.speaker ? { speaker: n.speaker } : {}),
    time: n.observedAt,
    ...(n.eventTime ? { start: n.eventTime.start, ...(n.eventTime.end ? { end: n.eventTime.end } : {}) } : {}),
    entities: n.entities,
    keywords: n.keywords,
    cosine: v.cosine,
    relation: v.view ?? 'anchor',
    probability: v.edgeProbability,
  };
}

/**
 * The id of the memory that supersedes `node` (ours): `node.obsoleteBy` when set, else the latest
 * `from` of an edge of one of `subtypes` (default UPDATES, OBSOLETES) into it from a memory observed
 * later (snapshot only); null if none.
 */
export function successorOf(
  node: MemoryNode,
  snap: ScopeSnapshot | null,
  subtypes: readonly RelationSubtype[] = ['UPDATES', 'OBSOLETES'],
): string | null {
  if (node.obsoleteBy) return node.obsoleteBy;
  if (!snap) return null;
  // memoised per snapshot for the snapshot's own node objects (ours, for latency)
  const own = snap.byId.get(node.id) === node;
  const key = `${subtypes.join(',')}|${node.id}`;
  let memo = successorMemo.get(snap);
  if (own) {
    if (!memo) successorMemo.set(snap, (memo = new Map()));
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
  }
  const found = latestSuccessor(node, snap, subtypes);
  if (own) memo!.set(key, found);
  return found;
}

const successorMemo = new WeakMap<ScopeSnapshot, Map<string, string | null>>();

function latestSuccessor(node: MemoryNode, snap: ScopeSnapshot, subtypes: readonly RelationSubtype[]): string | null {
  let best: MemoryNode | null = null;
  for (const r of snap.adjacency.get(node.id) ?? []) {
    if (!subtypes.includes(r.subtype) || r.to !== node.id || r.from === node.id) continue;
    const n = snap.byId.get(r.from);
    if (n && n.observedAt > node.observedAt && (!best || n.observedAt > best.observedAt)) best = n;
  }
  return best ? best.id : null;
}

const speakerCache = new WeakMap<ScopeSnapshot, string[]>();
/** The distinct speakers of a snapshot's nodes (cached per snapshot). */
export function snapshotSpeakers(snap: ScopeSnapshot): string[] {
  let s = speakerCache.get(snap);
  if (!s) speakerCache.set(snap, (s = [...new Set(snap.nodes.flatMap((n) => (n.speaker ? [n.speaker] : [])))]));
  return s;
}

/** Decay of the prior along `relation` walked in `direction` (ours). */
export function edgeDecay(
  relation: Relation,
  direction: 'out' | 'in',
  table: Partial<Record<RelationSubtype, { out: number; in: number }>>,
  fallback: number,
): number {
  const e = table[relation.subtype];
  return clamp01(e ? e[direction] : fallback);
}

export function byScore(a: Visit, b: Visit): number {
  return b.score - a.score || a.depth - b.depth || (a.node.id < b.node.id ? -1 : a.node.id > b.node.id ? 1 : 0);
}

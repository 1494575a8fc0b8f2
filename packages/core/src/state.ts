/**
 * The state of a memory as reads report it (ours, issue 37): current, or superseded by a later
 * memory that changed what it says (a CONTRADICTS / OBSOLETES edge from the later memory, or the
 * node's `obsoleteBy`). Nothing is deleted: a superseded memory stays evidence for questions about
 * the past.
 */
import type { MemoryNode, MemoryState, MemoryStore, Relation, RelationSubtype, ResolvedScope } from './types.js';
import { SUPERSEDING_SUBTYPES, supersessionOf } from './write/questions/state.js';

/**
 * Relation subtypes by which a LATER memory (the edge's `from`) supersedes an earlier one (its `to`):
 * the older statement no longer holds — the write side's `SUPERSEDING_SUBTYPES` (OBSOLETES,
 * CONTRADICTS). UPDATES (the gate's "close but new") and REDUNDANT_WITH (the same fact restated) are
 * not state changes.
 */
export const STATE_CHANGE_SUBTYPES: readonly RelationSubtype[] = SUPERSEDING_SUBTYPES;

export const CURRENT_STATE: MemoryState = Object.freeze({ status: 'current' }) as MemoryState;

/**
 * The state of `node` from the relations that touch it (`relations`, any direction; others are
 * ignored) and a lookup of the nodes at their other end (`nodeOf`, may return undefined for a node
 * not at hand). With `node.obsoleteBy` set, the write side's record (`supersessionOf`: by = obsoleteBy,
 * the newest memory that superseded it, with its edge's p); without it (a store written before the
 * state rule), the NEWEST later memory with a {@link STATE_CHANGE_SUBTYPES} edge into `node`. Pure; ours.
 */
export function stateFromRelations(node: MemoryNode, relations: Iterable<Relation>, nodeOf: (id: string) => MemoryNode | undefined): MemoryState {
  const list = [...relations];
  if (node.obsoleteBy) {
    const by = nodeOf(node.obsoleteBy);
    if (by) {
      const s = supersessionOf(node, list, by);
      if (s) {
        const edge = s.edgeId ? list.find((r) => r.id === s.edgeId) : undefined;
        return { status: 'superseded', by: s.by, at: s.at, p: s.p, relation: edge?.subtype ?? null };
      }
    }
  }
  let best: { n: MemoryNode; r: Relation } | null = null;
  for (const r of list) {
    if (r.to !== node.id || r.from === node.id || !STATE_CHANGE_SUBTYPES.includes(r.subtype)) continue;
    const n = nodeOf(r.from);
    if (!n || n.observedAt <= node.observedAt) continue;
    if (!best || n.observedAt > best.n.observedAt || (n.observedAt === best.n.observedAt && r.probability > best.r.probability)) best = { n, r };
  }
  if (best) return { status: 'superseded', by: best.n.id, at: best.n.observedAt, p: best.r.probability, relation: best.r.subtype };
  return CURRENT_STATE;
}

/**
 * The state of each of `nodes` (same scope) read from the store: one `neighbors` call for the
 * state-change edges into them, one `getMany` for `obsoleteBy` targets not reached that way. Returns
 * a map by node id. Store errors propagate (StoreUnavailableError etc.). Ours.
 */
export async function memoryStates(store: MemoryStore, scope: ResolvedScope, nodes: readonly MemoryNode[]): Promise<Map<string, MemoryState>> {
  const out = new Map<string, MemoryState>();
  if (nodes.length === 0) return out;
  const ids = [...new Set(nodes.map((n) => n.id))];
  const incoming = await store.neighbors(scope, ids, { subtypes: [...STATE_CHANGE_SUBTYPES], direction: 'in' });
  const other = new Map<string, MemoryNode>();
  const byTarget = new Map<string, Relation[]>();
  for (const nb of incoming) {
    other.set(nb.node.id, nb.node);
    const list = byTarget.get(nb.relation.to) ?? [];
    list.push(nb.relation);
    byTarget.set(nb.relation.to, list);
  }
  const missing = [...new Set(nodes.flatMap((n) => (n.obsoleteBy && !other.has(n.obsoleteBy) ? [n.obsoleteBy] : [])))];
  if (missing.length) for (const n of await store.getMany(scope, missing)) other.set(n.id, n);
  for (const n of nodes) out.set(n.id, stateFromRelations(n, byTarget.get(n.id) ?? [], (id) => other.get(id)));
  return out;
}

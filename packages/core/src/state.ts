/**
 * The state of a memory as reads report it (ours, issue 37): current, or superseded by a later
 * memory that changed what it says (a CONTRADICTS / OBSOLETES edge from the later memory, or the
 * node's `obsoleteBy`). Nothing is deleted: a superseded memory stays evidence for questions about
 * the past.
 */
import type { Evidence, MemoryNode, MemoryState, MemoryStore, Relation, RelationSubtype, ResolvedScope } from './types.js';
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

/** Links of a supersession chain that `withSuccessors` follows from one evidence item (ours). */
export const SUCCESSOR_CHAIN_MAX = 3;

/**
 * Bring the memory that superseded an evidence item into the evidence (ours, issue 37). A read that
 * returns a superseded memory without the one that replaced it shows the stale fact alone (`mem ask -k 3`
 * when the newer memory ranks fourth). For each item whose `state` is `superseded` and whose successor
 * (`state.by`, then ITS successor while that one is superseded too, at most {@link SUCCESSOR_CHAIN_MAX}
 * links) is not in the list, the successors are read from the store (one `getMany` and one
 * `memoryStates` per link) and inserted next to the item: just ABOVE it (newest first), or just BELOW
 * it when `asks` is `'past'` (the question asks for the earlier state). A successor is inserted once,
 * next to the first item it supersedes; it carries the item's score, an empty path and its own state.
 * Nothing is dropped: the list grows by the successors brought in (at most {@link SUCCESSOR_CHAIN_MAX}
 * per item). Items without `state` are left alone. A successor the store no longer holds is skipped.
 * Store errors propagate. Returns a new array (the input when nothing is brought in).
 */
export async function withSuccessors(
  store: MemoryStore,
  scope: ResolvedScope,
  evidence: readonly Evidence[],
  asks?: 'present' | 'past',
): Promise<Evidence[]> {
  const have = new Set(evidence.map((e) => e.node.id));
  const fetched = new Map<string, { node: MemoryNode; state: MemoryState }>();
  let want = [...new Set(evidence.flatMap((e) => (e.state?.status === 'superseded' && !have.has(e.state.by) ? [e.state.by] : [])))];
  for (let hop = 0; hop < SUCCESSOR_CHAIN_MAX && want.length; hop++) {
    const nodes = await store.getMany(scope, want);
    const states = await memoryStates(store, scope, nodes);
    for (const n of nodes) fetched.set(n.id, { node: n, state: states.get(n.id) ?? CURRENT_STATE });
    want = [...new Set(nodes.flatMap((n) => {
      const s = fetched.get(n.id)!.state;
      return s.status === 'superseded' && !have.has(s.by) && !fetched.has(s.by) ? [s.by] : [];
    }))];
  }
  if (!fetched.size) return [...evidence];
  const placed = new Set<string>();
  const out: Evidence[] = [];
  for (const e of evidence) {
    const chain: Evidence[] = [];
    for (let s = e.state, hop = 0; s?.status === 'superseded' && hop < SUCCESSOR_CHAIN_MAX; hop++) {
      const next = fetched.get(s.by);
      if (!next || have.has(s.by) || placed.has(s.by)) break;
      placed.add(s.by);
      chain.push({ node: next.node, score: e.score, path: [], state: next.state });
      s = next.state;
    }
    if (asks === 'past') out.push(e, ...chain);
    else out.push(...chain.reverse(), e);
  }
  return out;
}

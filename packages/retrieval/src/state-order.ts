/**
 * What is true now, and what was true before (ours, issue 37): the read path's use of the memory's
 * state. A memory superseded by a later one (a CONTRADICTS / OBSOLETES edge from it, or `obsoleteBy`;
 * `@mem/core`'s `stateFromRelations`) stays evidence; the question decides which of the two comes
 * first: the newer for a question about the present, the older for a question that asks for an
 * earlier state (the routing Noul `past_state`).
 */
import { CURRENT_STATE, STATE_CHANGE_SUBTYPES, stateFromRelations, type MemoryNode, type MemoryState } from '@mem/core';
import type { ScopeSnapshot } from './lexical.js';

/** p(past) from which a question counts as asking for an earlier state (ours). */
export const PAST_STATE_THRESHOLD = 0.5;
/** Edge p from which a state change reorders a ranking (ours; an edge without p — `obsoleteBy` only — counts). */
export const STATE_EDGE_MIN_P = 0.5;

/**
 * The state of `node` from the scope snapshot (its adjacency), or from `node.obsoleteBy` alone when
 * there is no snapshot (the successor's time is then unknown: `at` = ''). Memoised per snapshot.
 */
export function snapshotState(node: MemoryNode, snap: ScopeSnapshot | null): MemoryState {
  if (!snap) return node.obsoleteBy ? { status: 'superseded', by: node.obsoleteBy, at: '', p: null, relation: null } : CURRENT_STATE;
  let memo = stateMemo.get(snap);
  if (!memo) stateMemo.set(snap, (memo = new Map()));
  const own = snap.byId.get(node.id) === node;
  const hit = own ? memo.get(node.id) : undefined;
  if (hit) return hit;
  const s = stateFromRelations(node, snap.adjacency.get(node.id) ?? [], (id) => snap.byId.get(id));
  if (own) memo.set(node.id, s);
  return s;
}
const stateMemo = new WeakMap<ScopeSnapshot, Map<string, MemoryState>>();

/** The older memories `node` supersedes (state-change edges from it to earlier memories), from the snapshot; [] without one. */
export function predecessorsOf(node: MemoryNode, snap: ScopeSnapshot | null): { id: string; p: number }[] {
  if (!snap) return [];
  const out: { id: string; p: number }[] = [];
  for (const r of snap.adjacency.get(node.id) ?? []) {
    if (r.from !== node.id || r.to === node.id || !STATE_CHANGE_SUBTYPES.includes(r.subtype)) continue;
    const older = snap.byId.get(r.to);
    if (older && older.observedAt < node.observedAt) out.push({ id: older.id, p: r.probability });
  }
  return out;
}

/**
 * Every later memory that supersedes `node` with a state-change edge of p ≥ {@link STATE_EDGE_MIN_P}
 * (from the snapshot; `obsoleteBy` alone without one), newest first (ours). A memory can be superseded
 * by several ("I am a vegetarian" ← "I was never a vegetarian" ← a later change).
 */
export function successorsOf(node: MemoryNode, snap: ScopeSnapshot | null): string[] {
  if (!snap) return node.obsoleteBy ? [node.obsoleteBy] : [];
  const out: { id: string; at: string }[] = [];
  for (const r of snap.adjacency.get(node.id) ?? []) {
    if (r.to !== node.id || r.from === node.id || !STATE_CHANGE_SUBTYPES.includes(r.subtype) || r.probability < STATE_EDGE_MIN_P) continue;
    const n = snap.byId.get(r.from);
    if (n && n.observedAt > node.observedAt && !out.some((o) => o.id === n.id)) out.push({ id: n.id, at: n.observedAt });
  }
  if (!out.length && node.obsoleteBy && snap.byId.has(node.obsoleteBy)) return [node.obsoleteBy];
  return out.sort((a, b) => (a.at < b.at ? 1 : -1)).map((o) => o.id);
}

/**
 * p of the strongest state-change edge `newerId` → `older` in the snapshot (ours); 1 when only
 * `older.obsoleteBy` names it (or there is no snapshot), 0 when nothing links them.
 */
export function stateEdgeP(older: MemoryNode, newerId: string, snap: ScopeSnapshot | null): number {
  let p = -1;
  for (const r of snap?.adjacency.get(older.id) ?? []) {
    if (r.from === newerId && r.to === older.id && STATE_CHANGE_SUBTYPES.includes(r.subtype)) p = Math.max(p, r.probability);
  }
  if (p >= 0) return p;
  return older.obsoleteBy === newerId ? 1 : 0;
}

/**
 * Joint p(evidence) of the memory of a state pair that a question asks for (ours, issue 37):
 * max(p_want, p_edge · (1 − (1 − p_want)(1 − p_other))). Both memories of a pair hold the same
 * attribute (the edge says so with p_edge); when either is evidence for a question about that
 * attribute, the one the question asks for is (the current value for a present question, the earlier
 * one for a past question). Inputs and output are probabilities in [0, 1].
 */
export function jointStateEvidence(pWant: number, pOther: number, pEdge: number): number {
  return Math.max(pWant, pEdge * (1 - (1 - pWant) * (1 - pOther)));
}

/** True when a superseded state's edge is strong enough to reorder a ranking ({@link STATE_EDGE_MIN_P}). */
export function ordersRanking(s: MemoryState): s is Extract<MemoryState, { status: 'superseded' }> {
  return s.status === 'superseded' && (s.p === null || s.p >= STATE_EDGE_MIN_P);
}

/**
 * Reorder a ranking by state (ours, issue 37). For each pair (older, newer) in `list` where `successors`
 * says the newer superseded the older: for a question about the present (`past` false) the newer one
 * must rank above the older; for a question about an earlier state (`past` true) the older one must
 * rank above the newer. When the wanted one ranks below, it moves up to just above the other and takes
 * the other's value (`value` is written through `setValue`); nothing else changes place. Only pairs
 * whose both members are among the first `window` items are reordered (default all), so the set of the
 * top `window` never changes. Chains (a → b → c) settle in at most `list.length` passes. Returns a new array.
 *
 * With `lift` (a value for the wanted memory from the pair, e.g. `jointStateEvidence`), the wanted
 * memory of each pair in the window first takes that value when it is higher than its own and moves up,
 * within the window, to just below the last item whose value is at least as high; then the pairs are
 * ordered as above. The set of the top `window` still never changes.
 */
export function orderByState<T>(
  list: readonly T[],
  idOf: (x: T) => string,
  successors: (x: T) => readonly string[],
  past: boolean,
  value: (x: T) => number,
  setValue: (x: T, v: number) => void,
  window = list.length,
  lift?: (want: T, other: T, older: T, newerId: string) => number,
): T[] {
  const arr = [...list];
  const head = new Set(arr.slice(0, window));
  const pairs: [T, string][] = [];
  for (const x of head) for (const s of successors(x)) pairs.push([x, s]);
  if (!pairs.length) return arr;
  if (lift) {
    for (const [older, newerId] of pairs) {
      const newer = arr.find((x) => idOf(x) === newerId);
      if (!newer || !head.has(newer)) continue;
      const [want, other] = past ? [older, newer] : [newer, older];
      const v = lift(want, other, older, newerId);
      if (!(v > value(want))) continue;
      setValue(want, v);
      const at = arr.indexOf(want);
      let to = at;
      while (to > 0 && value(arr[to - 1]!) < v) to--;
      arr.splice(at, 1);
      arr.splice(to, 0, want);
    }
  }
  for (let pass = 0; pass < arr.length; pass++) {
    let moved = false;
    for (const [older, newerId] of pairs) {
      const i = arr.indexOf(older);
      const j = arr.findIndex((x) => idOf(x) === newerId);
      if (j < 0 || !head.has(arr[j]!)) continue;
      const [want, other, wi, oi] = past ? [older, arr[j]!, i, j] : [arr[j]!, older, j, i];
      if (wi < oi) continue;
      arr.splice(wi, 1);
      arr.splice(oi, 0, want);
      setValue(want, Math.max(value(want), value(other)));
      moved = true;
    }
    if (!moved) break;
  }
  return arr;
}

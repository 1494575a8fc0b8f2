/**
 * The order history is shown in (ours; issue "break it" point 5): by time (`at`), then, for rows of
 * the same instant (one `add()` writes all its rows with one `at`), the memory's own write row
 * (ADD / UPDATE / NOOP) before what happened to it later in that write (CONSOLIDATE, OBSOLETE,
 * RELATE), then FORGET and REEMBED, then by `seq` (the store's append order). The write path
 * appends the rows of one batch in this order already; this also orders rows written by older
 * versions (which appended a batch's OBSOLETE rows before its ADD rows).
 */
import type { HistoryEntry, HistoryOp } from '../types.js';

/** Rank of an op among rows with the same `at`: lower first. An unknown op (a later version's) goes last. */
const OP_RANK: Readonly<Record<HistoryOp, number>> = { ADD: 0, UPDATE: 0, NOOP: 0, CONSOLIDATE: 1, OBSOLETE: 2, RELATE: 3, FORGET: 4, REEMBED: 5 };

function rank(op: string): number {
  return Object.prototype.hasOwnProperty.call(OP_RANK, op) ? OP_RANK[op as HistoryOp] : 6;
}

/** Epoch ms of a row's `at` (UTC ISO-8601); an unreadable one sorts first (NaN → -Infinity). */
function atMs(at: string): number {
  const ms = Date.parse(at);
  return Number.isNaN(ms) ? -Infinity : ms;
}

/**
 * Compare two history rows for display: `at` ascending, then the op rank above, then `seq`
 * ascending (a row without `seq` after those with one). A total order for rows of one store.
 */
export function compareHistory(a: HistoryEntry, b: HistoryEntry): number {
  const t = atMs(a.at) - atMs(b.at);
  if (t !== 0 && !Number.isNaN(t)) return t < 0 ? -1 : 1;
  const r = rank(a.op) - rank(b.op);
  if (r !== 0) return r;
  return (a.seq ?? Number.MAX_SAFE_INTEGER) - (b.seq ?? Number.MAX_SAFE_INTEGER);
}

/** A new array of `rows` in display order ({@link compareHistory}); `rows` is not changed. */
export function orderHistory(rows: readonly HistoryEntry[]): HistoryEntry[] {
  return [...rows].sort(compareHistory);
}

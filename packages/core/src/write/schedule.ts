/** The consolidation schedule, restored from a scope's history rows after a restart (ours; see gates.ts ScheduleRecord). */
import type { ResolvedScope } from '../types.js';
import { dot } from './embedding.js';
import { isWriteOp, reviewIds, scheduleFloor, scheduleRecord, type RecentWrite, type ScheduleRecord, type ScopeRuntime } from './gates.js';
import type { WriterConfig } from './writer.js';

/**
 * Restore a scope's consolidation schedule from its history rows (ours; docs/design.md "Write path"
 * step 5 made restart-safe). Called once per runtime rebuild, on the scope's next write, so a
 * restarted process, and a long-running one after a failed write or a `forget` (both rebuild the
 * runtime), run their passes at the same writes over the same inputs:
 *
 * - `writes` = the ordinal in the latest write row's {@link ScheduleRecord}; the last pass = its
 *   `pass` (records of earlier versions: `write − write mod consolidateEvery`);
 * - the window = the write rows after the last pass, walking back from the latest while each
 *   ordinal is exactly one less than the newer row's (a gap, repeat or backwards ordinal — a
 *   corrupt or foreign row — ends it), at most `max(consolidateEvery, latest record's every)`
 *   writes; `sinceConsolidation` = `writes −` the window's floor. With the same
 *   `consolidateEvery` this is `writes mod consolidateEvery`, as a long-running process has it (a
 *   failed write left no row, so it does not count; a forgotten node's row stays, so its write
 *   still counts). After `consolidateEvery` changed, the next pass comes `consolidateEvery` writes
 *   after the last one (at the next write if that is already overdue) and reviews every write
 *   since it: no write is reviewed twice or skipped;
 * - `recent` = the reviewed writes of the window, in write order, with their recorded candidates
 *   (first `consolidationPairs`, without the node itself and repeats) and `RELATED_TO` links;
 *   nodes and candidates are read with one `getMany`, so a forgotten node leaves the window and a
 *   forgotten candidate leaves its write's review; cosines are recomputed with `dot`,
 *   bit-identical to the write-time ones; the controller state items are rebuilt by `memoryItem`
 *   at the pass.
 *
 * Reads only the history tail (`limit` growing ×4 until the window is covered), plus one
 * `getMany` of at most `window · (1 + consolidationPairs)` ids. A row without a record (a store
 * written by an older version, or with consolidation off) ends the window: if the latest write
 * row has none, the schedule starts at 0 with an empty window (the behaviour before schedules
 * were recorded), and the ordinals start again from 1.
 */
export async function restoreSchedule(
cfg: Pick<WriterConfig, 'store' | 'consolidateEvery' | 'consolidationPairs'>,
scope: ResolvedScope,
rt: ScopeRuntime,
): Promise<void> {
  const { store, consolidateEvery: every, consolidationPairs: pairs } = cfg;
  let writes = 0;
  let floor = 0;
  let picked: { nodeId: string; rec: ScheduleRecord }[] = [];
  for (let limit = 4 * every + 16; ; limit *= 4) {
    const rows = await store.history(scope, { limit });
    writes = 0;
    floor = 0;
    picked = [];
    let latest = true;
    let closed = false;
    // newest first: the latest write row fixes the ordinal and the floor, then collect rows back to it
    for (let i = rows.length - 1; i >= 0; i--) {
      const h = rows[i]!;
      if (!h.nodeId || !isWriteOp(h.op)) continue;
      const rec = scheduleRecord(h.data);
      if (latest) {
        latest = false;
        if (!rec) {
          closed = true;
          break;
        }
        writes = rec.write;
        floor = scheduleFloor(rec, every);
      } else if (!rec || rec.write !== writes - picked.length) {
        closed = true;
        break;
      }
      if (rec.write <= floor) {
        closed = true;
        break;
      }
      picked.push({ nodeId: h.nodeId, rec });
    }
    if (closed || rows.length < limit) break;
  }
  picked.reverse();
  const reviewed = picked.map((x) => ({ nodeId: x.nodeId, rec: x.rec, candidates: reviewIds(x.nodeId, x.rec, pairs) })).filter((x) => x.candidates.length);
  const ids = new Set<string>();
  for (const x of reviewed) {
    ids.add(x.nodeId);
    for (const id of x.candidates) ids.add(id);
  }
  const byId = new Map((ids.size ? await store.getMany(scope, [...ids]) : []).map((n) => [n.id, n]));
  const recent: RecentWrite[] = [];
  for (const x of reviewed) {
    const node = byId.get(x.nodeId);
    if (!node) continue; // forgotten: out of the window (its write still counted)
    const candidates: RecentWrite['candidates'] = [];
    for (const id of x.candidates) {
      const c = byId.get(id);
      if (c) candidates.push({ node: c, cosine: dot(node.embedding, c.embedding) });
    }
    recent.push({ node, candidates, related: new Set(x.rec.related ?? []) });
  }
  rt.writes = writes;
  rt.sinceConsolidation = writes - floor;
  rt.recent = recent;
  rt.scheduleLoaded = true;
}

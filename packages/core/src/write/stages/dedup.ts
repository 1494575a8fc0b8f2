/** Dedup of a scope's batch by content hash, against the store and within the batch (ours; writer step 1). */
import type { MemoryNode, MemoryStore, ResolvedScope } from '../../types.js';
import { wrapError } from '../write-errors.js';
import type { IndexedObservation } from './context.js';

/** An observation already stored (`node`) or repeated earlier in the same batch (`batchIndex` into `fresh`). */
export interface DuplicateOf {
  index: number;
  node: MemoryNode | null;
  batchIndex?: number;
}

/**
 * Split `observations` into the fresh ones (first occurrence, not stored) and the duplicates. One
 * `findByContentHash` per observation, issued together. Throws MemError (stage `dedup`) when the store fails.
 */
export async function dedupObservations(
  store: MemoryStore,
  scope: ResolvedScope,
  observations: IndexedObservation[],
): Promise<{ fresh: IndexedObservation[]; duplicates: DuplicateOf[] }> {
  const fresh: IndexedObservation[] = [];
  const seen = new Map<string, number>();
  const existing = await Promise.all(
    observations.map((o) => store.findByContentHash(scope, o.obs.contentHash).catch((e) => Promise.reject(wrapError('dedup', e)))),
  );
  const duplicates: DuplicateOf[] = [];
  observations.forEach((o, i) => {
    const hit = existing[i];
    if (hit) duplicates.push({ index: o.index, node: hit });
    else if (seen.has(o.obs.contentHash)) duplicates.push({ index: o.index, node: null, batchIndex: seen.get(o.obs.contentHash)! });
    else {
      seen.set(o.obs.contentHash, fresh.length);
      fresh.push(o);
    }
  });
  return { fresh, duplicates };
}

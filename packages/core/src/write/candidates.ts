/**
 * Candidate discovery (docs/design.md "Write path" step 3; ours): the memories a new Add is compared with,
 * from the store's k-NN, the earlier observations of the same call, and shared entities / keywords,
 * scored by the four candidate signals (signals.ts).
 */
import type { MemoryNode, ResolvedScope } from '../types.js';
import { indexedMemory, type IndexedMemory } from './candidate-index.js';
import { dot } from './embedding.js';
import type { ScopeRuntime } from './gates.js';
import type { Candidate, Pending } from './pending.js';
import { candidateScore, entitySignal, keywordSignal, timeSignal, vectorSignal } from './signals.js';
import { wrapError } from './write-errors.js';
import type { WriterConfig } from './writer.js';

/**
 * Vector part of candidate discovery inside one `add([...])` call: the store's k-NN plus an exact scan
 * of the last PENDING_SCAN observations of the same call (ours; older ones of a very large call are
 * still reached through shared entities and keywords), so a call of n observations costs O(n) scans.
 */
export const PENDING_SCAN = 1024;

/**
 * Candidate discovery for a new node (docs/design.md step 3): the union of the top-K_w vector hits
 * (store k-NN plus earlier observations of the same batch) and the memories sharing an entity or
 * keyword (the scope's in-memory postings, see candidate-index.ts), scored by the four signals;
 * the top K_w are kept. O(K_w) store work per write: one k-NN query and one getMany.
 */
export async function discoverCandidates(
cfg: Pick<WriterConfig, 'store' | 'candidateK' | 'candidateEfSearch'>,
scope: ResolvedScope,
rt: ScopeRuntime,
p: Pending,
pendingStored: Pending[],
byId: Map<string, Pending>,
): Promise<Candidate[]> {
  const { store, candidateK: K } = cfg;
  if (K === 0) return [];
  const v = p.node.embedding;
  // the store's top-K_w by cosine, as ids (its fast path) or as nodes (then cached)
  const vecHits: { id: string; cosine: number }[] = [];
  try {
    if (store.vectorSearchIds) {
      for (const h of await store.vectorSearchIds(scope, v, K, { efSearch: cfg.candidateEfSearch })) vecHits.push({ id: h.id, cosine: h.score });
    } else {
      for (const h of await store.vectorSearch(scope, v, K)) {
        rt.nodes.put(h.node);
        vecHits.push({ id: h.node.id, cosine: h.score });
      }
    }
  } catch (e) {
    throw wrapError('candidates', e);
  }
  // earlier observations of this call are not in the store yet: scan the last PENDING_SCAN exactly
  for (let i = Math.max(0, pendingStored.length - PENDING_SCAN); i < pendingStored.length; i++) {
    const q = pendingStored[i]!;
    vecHits.push({ id: q.node.id, cosine: dot(v, q.node.embedding) });
  }
  vecHits.sort((a, b) => b.cosine - a.cosine);
  const topVector = new Map<string, number>();
  const pool = new Map<string, IndexedMemory>();
  const unindexed: string[] = [];
  for (const h of vecHits.slice(0, K)) {
    topVector.set(h.id, h.cosine);
    const m = rt.index.get(h.id);
    if (m) pool.set(h.id, m);
    else unindexed.push(h.id);
  }
  const nodeOf = (id: string) => byId.get(id)?.node ?? rt.nodes.get(id);
  const read = async (ids: string[]) => {
    const missing = ids.filter((id) => !nodeOf(id));
    if (!missing.length) return;
    let got: MemoryNode[];
    try {
      got = await store.getMany(scope, missing);
    } catch (e) {
      throw wrapError('candidates', e);
    }
    for (const n of got) rt.nodes.put(n);
  };
  if (unindexed.length) {
    // every stored memory of the scope is indexed; this only runs for a store changed behind our back
    await read(unindexed);
    for (const id of unindexed) {
      const n = nodeOf(id);
      if (n) pool.set(id, indexedMemory(n));
    }
  }
  for (const m of rt.index.lookup(p.entitySet, p.keywordSet)) pool.set(m.id, m);
  pool.delete(p.node.id);
  const t0 = Date.parse(p.node.observedAt);
  const entities = [...p.entitySet];
  // the K best by score (ties: larger id first), kept sorted by insertion: O(pool · K) at worst
  const top: { m: IndexedMemory; score: number; shared: boolean }[] = [];
  const before = (a: number, aid: string, b: { score: number; m: IndexedMemory }) => a > b.score || (a === b.score && aid > b.m.id);
  for (const m of pool.values()) {
    let shared = false;
    for (const e of entities) {
      if (m.entities.has(e)) {
        shared = true;
        break;
      }
    }
    const cos = topVector.get(m.id);
    const score = candidateScore({
      vector: vectorSignal(cos ?? 0, cos !== undefined),
      entity: entitySignal(shared),
      keyword: keywordSignal(p.keywordSet, m.keywords),
      time: timeSignal(t0 - m.observedAtMs),
    });
    if (top.length === K && !before(score, m.id, top[K - 1]!)) continue;
    let i = top.length === K ? K - 1 : top.length;
    while (i > 0 && before(score, m.id, top[i - 1]!)) {
      top[i] = top[i - 1]!;
      i--;
    }
    top[i] = { m, score, shared };
  }
  await read(top.map((x) => x.m.id));
  const out: Candidate[] = [];
  for (const x of top) {
    const node = nodeOf(x.m.id);
    if (!node) continue;
    out.push({ node, cosine: dot(v, node.embedding), score: x.score, sharedEntity: x.shared });
  }
  return out;
}

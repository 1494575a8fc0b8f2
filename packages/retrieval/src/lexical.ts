/**
 * Lemma BM25 (ours): Okapi BM25 (Robertson & Zaragoza 2009; k1 = 1.2, b = 0.75) over each memory's
 * content-word lemmas (`node.keywords`, from `@mem/core`'s `extractKeywords`) plus its speaker, so
 * "painted" matches "paint" and a question naming a speaker leans to that speaker's turns. The
 * index is part of a per-scope snapshot ({@link createSnapshotCache}). It is an extra lexical ranking
 * for the anchors, next to the store's own BM25.
 */
import { bm25Term as okapiTerm, extractKeywords, scopeKey } from '@mem/core';
import type { MemoryNode, MemoryStore, Neighbor, Relation, RelationView, ResolvedScope } from '@mem/core';

/**
 * BM25 term weight idf · tf (k1 + 1) / (tf + k1 (1 − b + b · len / avgLen)), idf = ln(1 + (N − df + 0.5)/(df + 0.5)):
 * `@mem/core`'s `bm25Term` (one implementation) with this index's argument order (documents before lengths).
 */
export function bm25Term(tf: number, df: number, docs: number, len: number, avgLen: number, k1 = 1.2, b = 0.75): number {
  return okapiTerm(tf, df, len, avgLen, docs, k1, b);
}

export interface LemmaIndex {
  readonly size: number;
  /** Top `k` node ids by BM25 of the query's lemmas, best first (only nodes matching ≥ 1 term). */
  search(query: string, k: number): { node: MemoryNode; score: number }[];
}

const termsMemo = new WeakMap<MemoryNode, string[]>();
/**
 * The terms a node is indexed under: its keywords, plus its speaker (lower case) when `speaker` is set.
 * A fresh array per call; the keyword part is memoised per node object (ours, for latency: a
 * snapshot's nodes are read by every search of the scope).
 */
export function nodeTerms(n: MemoryNode, speaker = true): string[] {
  let own = termsMemo.get(n);
  if (!own) termsMemo.set(n, (own = (n.keywords?.length ? n.keywords : extractKeywords(n.text)).map((k) => k.toLowerCase())));
  const terms = [...own];
  if (speaker && n.speaker) terms.push(...n.speaker.toLowerCase().split(/\s+/).filter(Boolean));
  return terms;
}

const queryTermsMemo = new Map<string, readonly string[]>();
/** Queries whose keywords are kept (the lemma and context indexes of one search read the same query). */
const QUERY_TERMS_MEMO = 64;
/**
 * The lower-case keywords of a query (`extractKeywords`, from `@mem/core`), memoised for the last
 * {@link QUERY_TERMS_MEMO} distinct queries (ours, issue 33 point 2: one search parsed its query once
 * per lemma index, and a parse is most of a lemma search). The same terms as parsing every time.
 */
export function queryKeywords(query: string): readonly string[] {
  let terms = queryTermsMemo.get(query);
  if (terms === undefined) {
    terms = extractKeywords(query).map((t) => t.toLowerCase());
    if (queryTermsMemo.size >= QUERY_TERMS_MEMO) queryTermsMemo.delete(queryTermsMemo.keys().next().value as string);
    queryTermsMemo.set(query, terms);
  }
  return terms;
}

/** Build an index over `nodes` (ours). */
export function buildLemmaIndex(
  nodes: MemoryNode[],
  options: { k1?: number; b?: number; speaker?: boolean; context?: (n: MemoryNode) => string[] } = {},
): LemmaIndex {
  const k1 = options.k1 ?? 1.2;
  const b = options.b ?? 0.75;
  const postings = new Map<string, { i: number; tf: number }[]>();
  const lens: number[] = [];
  nodes.forEach((n, i) => {
    const terms = nodeTerms(n, options.speaker ?? true);
    if (options.context) terms.push(...options.context(n));
    lens.push(terms.length);
    const tf = new Map<string, number>();
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, c] of tf) {
      let p = postings.get(t);
      if (!p) postings.set(t, (p = []));
      p.push({ i, tf: c });
    }
  });
  const speakers = new Set(nodes.flatMap((n) => (n.speaker ? n.speaker.toLowerCase().split(/\s+/) : [])));
  const avg = lens.reduce((a, x) => a + x, 0) / Math.max(1, lens.length);
  return {
    size: nodes.length,
    search(query, k) {
      const q = new Set(queryKeywords(query));
      for (const w of query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) if (speakers.has(w)) q.add(w);
      const score = new Map<number, number>();
      for (const t of q) {
        const p = postings.get(t);
        if (!p) continue;
        for (const { i, tf } of p) score.set(i, (score.get(i) ?? 0) + bm25Term(tf, p.length, nodes.length, lens[i], avg, k1, b));
      }
      return [...score.entries()]
        .sort((a, b2) => b2[1] - a[1] || a[0] - b2[0])
        .slice(0, k)
        .map(([i, s]) => ({ node: nodes[i], score: s }));
    },
  };
}

/**
 * A read-path snapshot of one scope (ours): its nodes, an adjacency list of its relations and the
 * lemma index, built from the store on first use and rebuilt whenever the scope's version changes
 * (node count + latest history sequence number, which every write, relation and forget advances).
 */
export interface ScopeSnapshot {
  version: string;
  nodes: MemoryNode[];
  byId: Map<string, MemoryNode>;
  /** Relations touching each node id (both directions). */
  adjacency: Map<string, Relation[]>;
  lemma: LemmaIndex;
  /** Built on first use: lemma BM25 over each node's terms plus its previous turn's keywords ({@link contextLemmaIndex}). */
  contextLemma?: LemmaIndex;
}

const previousMemo = new WeakMap<ScopeSnapshot, Map<string, MemoryNode | null>>();
/**
 * The previous turn of `id` in its episode: the `from` of a rule SAME_EPISODE edge into it (ours).
 * Memoised per snapshot (a snapshot never changes; a new scope version is a new snapshot).
 */
export function previousTurn(snap: ScopeSnapshot, id: string): MemoryNode | null {
  let memo = previousMemo.get(snap);
  if (!memo) previousMemo.set(snap, (memo = new Map()));
  const hit = memo.get(id);
  if (hit !== undefined) return hit;
  let prev: MemoryNode | null = null;
  for (const r of snap.adjacency.get(id) ?? []) {
    if (r.subtype === 'SAME_EPISODE' && r.to === id && r.from !== id && r.origin === 'rule') {
      prev = snap.byId.get(r.from) ?? null;
      break;
    }
  }
  memo.set(id, prev);
  return prev;
}

/**
 * Lemma BM25 with document expansion by dialogue context (ours): each node is indexed under its own
 * terms plus the keywords (not the speaker) of its previous turn, so an answer turn ("Yes, last
 * Friday!") is found by the words of the question turn it answers. Cached on the snapshot.
 */
export function contextLemmaIndex(snap: ScopeSnapshot, options: { k1?: number; b?: number; speaker?: boolean } = {}): LemmaIndex {
  if (!snap.contextLemma) {
    snap.contextLemma = buildLemmaIndex(snap.nodes, {
      ...options,
      context: (n) => {
        const prev = previousTurn(snap, n.id);
        return prev ? nodeTerms(prev, false) : [];
      },
    });
  }
  return snap.contextLemma;
}

/** In- and out-neighbours of `ids` in `views` from a snapshot, like `MemoryStore.neighbors` (ours). */
export function snapshotNeighbors(snap: ScopeSnapshot, ids: readonly string[], views: readonly RelationView[], limit = Infinity): Neighbor[] {
  const out: Neighbor[] = [];
  for (const id of ids) {
    for (const r of snap.adjacency.get(id) ?? []) {
      if (!views.includes(r.view)) continue;
      const other = r.from === id ? r.to : r.from;
      const node = snap.byId.get(other);
      if (!node) continue;
      out.push({ relation: r, node, fromId: id });
      if (out.length >= limit) return out;
    }
  }
  return out;
}

/**
 * Per-store, per-scope snapshot cache; `get` returns null when the scope has more than `maxNodes`
 * nodes. At most `maxScopes` (default 8) snapshots per store are kept, the least recently read
 * dropped first (a server reading many scopes would otherwise keep every scope's nodes alive).
 */
export function createSnapshotCache(options: { maxNodes?: number; maxScopes?: number; k1?: number; b?: number; speaker?: boolean } = {}) {
  const maxNodes = options.maxNodes ?? 20_000;
  const maxScopes = options.maxScopes ?? 8;
  const cache = new WeakMap<MemoryStore, Map<string, ScopeSnapshot>>();
  /** Snapshots being built, per store and scope: concurrent searches of one version share one build. */
  const building = new WeakMap<MemoryStore, Map<string, { version: string; snap: Promise<ScopeSnapshot> }>>();
  return async function get(store: MemoryStore, scope: ResolvedScope): Promise<ScopeSnapshot | null> {
    let byScope = cache.get(store);
    if (!byScope) cache.set(store, (byScope = new Map()));
    const [count, last] = await Promise.all([store.count(scope), store.history(scope, { limit: 1 })]);
    if (count > maxNodes) return null;
    const version = `${count}:${last[0]?.seq ?? 0}:${last[0]?.at ?? ''}`;
    const key = scopeKey(scope);
    const hit = byScope.get(key);
    if (hit) byScope.delete(key); // re-inserted below: the Map keeps least recently read first
    if (hit && hit.version === version) {
      byScope.set(key, hit);
      return hit;
    }
    let inFlight = building.get(store);
    if (!inFlight) building.set(store, (inFlight = new Map()));
    const pending = inFlight.get(key);
    if (pending && pending.version === version) return pending.snap;
    const snap = build(store, scope, count, version);
    inFlight.set(key, { version, snap });
    try {
      const built = await snap;
      byScope.set(key, built);
      while (byScope.size > maxScopes) byScope.delete(byScope.keys().next().value as string);
      return built;
    } finally {
      if (inFlight.get(key)?.snap === snap) inFlight.delete(key);
    }
  };

  async function build(store: MemoryStore, scope: ResolvedScope, count: number, version: string): Promise<ScopeSnapshot> {
    const [nodes, relations] = await Promise.all([
      count > 0 ? store.list(scope, { limit: count, orderBy: 'observedAt', order: 'asc' }) : Promise.resolve([]),
      count > 0 ? store.relations(scope) : Promise.resolve([]),
    ]);
    const adjacency = new Map<string, Relation[]>();
    for (const r of relations) {
      for (const id of r.from === r.to ? [r.from] : [r.from, r.to]) {
        let list = adjacency.get(id);
        if (!list) adjacency.set(id, (list = []));
        list.push(r);
      }
    }
    const snap: ScopeSnapshot = {
      version,
      nodes,
      byId: new Map(nodes.map((n) => [n.id, n])),
      adjacency,
      lemma: buildLemmaIndex(nodes, options),
    };
    return snap;
  }
}

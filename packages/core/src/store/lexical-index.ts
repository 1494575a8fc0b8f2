/**
 * In-process inverted index of one scope (ours, issue 33): for each term of the scope (words of
 * {@link docTokens}), the scope's documents holding it and their term frequencies, plus each
 * document's length. The SQLite store's `lexicalSearch` scores Okapi BM25 with the scope's own
 * statistics from it, so no candidate text is read or re-tokenized per query and every document of
 * the scope is scored (no candidate pool). Built from the scope's texts on the first lexical query,
 * kept in step by the store's own writes and forgets, and dropped when another connection commits
 * (like the vector cache).
 *
 * Memory: about 8 bytes per (document, distinct term) pair, plus ~100 bytes per distinct term and
 * 16 per document ({@link ScopeTerms.bytes}).
 */
import { BM25_B, BM25_K1 } from './bm25.js';

/** One term's postings: `[slot, tf, slot, tf, …]` in the first `2 · n` cells. */
interface Postings {
  cells: Int32Array;
  n: number;
}

/** A top-k hit of {@link ScopeTerms.search}: node row id and BM25 score (> 0). */
export interface RidScore {
  rid: number;
  score: number;
}

const TERM_OVERHEAD = 100;

/** The scope's inverted index (see the module comment). Not thread-safe; owned by one store connection. */
export class ScopeTerms {
  private readonly postings = new Map<string, Postings>();
  /** rid of each slot (-1 = free). */
  private rids = new Int32Array(64);
  private lens = new Int32Array(64);
  private slots = 0;
  private readonly slotOf = new Map<number, number>();
  private readonly free: number[] = [];
  private docs = 0;
  private tokens = 0;
  private cells = 0;
  private acc = new Float64Array(64);
  lastUsed = 0;

  /** Documents indexed. */
  get size(): number {
    return this.docs;
  }

  /** Estimated heap bytes held. */
  get bytes(): number {
    return this.cells * 4 + this.postings.size * TERM_OVERHEAD + this.rids.length * 16 + this.acc.length * 8;
  }

  /** Index document `rid` with its tokens (with repeats, as {@link docTokens} returns them). A rid already indexed is replaced. */
  add(rid: number, tokens: readonly string[]): void {
    if (this.slotOf.has(rid)) throw new Error(`ScopeTerms: rid ${rid} is already indexed`);
    const slot = this.free.pop() ?? this.slots++;
    if (slot >= this.rids.length) this.grow(slot + 1);
    this.rids[slot] = rid;
    this.lens[slot] = tokens.length;
    this.slotOf.set(rid, slot);
    this.docs++;
    this.tokens += tokens.length;
    const tf = new Map<string, number>();
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, c] of tf) {
      let p = this.postings.get(t);
      if (!p) this.postings.set(t, (p = { cells: new Int32Array(4), n: 0 }));
      if (2 * p.n + 2 > p.cells.length) {
        const next = new Int32Array(Math.max(4, p.cells.length * 2));
        next.set(p.cells);
        this.cells += next.length - p.cells.length;
        p.cells = next;
      } else if (p.n === 0) {
        this.cells += p.cells.length;
      }
      p.cells[2 * p.n] = slot;
      p.cells[2 * p.n + 1] = c;
      p.n++;
    }
  }

  /** Remove document `rid`, given the tokens it was indexed with. No-op when it is not indexed. */
  remove(rid: number, tokens: readonly string[]): void {
    const slot = this.slotOf.get(rid);
    if (slot === undefined) return;
    for (const t of new Set(tokens)) {
      const p = this.postings.get(t);
      if (!p) continue;
      for (let i = 0; i < p.n; i++) {
        if (p.cells[2 * i] !== slot) continue;
        // order within a posting list does not matter: move the last entry here
        p.n--;
        p.cells[2 * i] = p.cells[2 * p.n];
        p.cells[2 * i + 1] = p.cells[2 * p.n + 1];
        break;
      }
      if (p.n === 0) {
        this.cells -= p.cells.length;
        this.postings.delete(t);
      }
    }
    this.slotOf.delete(rid);
    this.rids[slot] = -1;
    this.docs--;
    this.tokens -= this.lens[slot];
    this.lens[slot] = 0;
    this.free.push(slot);
  }

  /**
   * Top `k` documents by Okapi BM25 (`bm25Term` of bm25.ts) of the query `terms` (de-duplicated words of
   * the query), with this scope's N, average length and document frequencies; best first, ties by
   * lower rid. Only documents holding at least one term are returned (score > 0).
   */
  search(terms: readonly string[], k: number): RidScore[] {
    if (k <= 0 || this.docs === 0) return [];
    const avgdl = this.tokens / this.docs;
    const acc = this.acc;
    const touched: number[] = [];
    const seen = new Set<string>();
    for (const t of terms) {
      if (seen.has(t)) continue;
      seen.add(t);
      const p = this.postings.get(t);
      if (!p) continue;
      const df = p.n;
      const cells = p.cells;
      const lens = this.lens;
      // bm25Term(tf, df, len, avgdl, N) with its idf hoisted out of the loop (same operations in the same order)
      const idf = Math.log(1 + (this.docs - df + 0.5) / (df + 0.5));
      const avg = Math.max(1e-9, avgdl);
      for (let i = 0; i < p.n; i++) {
        const slot = cells[2 * i];
        const tf = cells[2 * i + 1];
        // > 0: tf ≥ 1 and the idf ln(1 + …) is positive
        if (acc[slot] === 0) touched.push(slot);
        acc[slot] += (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * lens[slot]) / avg));
      }
    }
    const rids = this.rids;
    // bounded selection: keep the best k in a sorted array (k is small next to the touched set)
    const better = (a: number, b: number) => acc[a] > acc[b] || (acc[a] === acc[b] && rids[a] < rids[b]);
    const top: number[] = [];
    for (const slot of touched) {
      if (top.length === k && !better(slot, top[k - 1])) continue;
      let lo = 0;
      let hi = top.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (better(slot, top[mid])) hi = mid;
        else lo = mid + 1;
      }
      top.splice(lo, 0, slot);
      if (top.length > k) top.pop();
    }
    const out = top.map((slot) => ({ rid: rids[slot], score: acc[slot] }));
    for (const slot of touched) acc[slot] = 0;
    return out;
  }

  private grow(min: number): void {
    let cap = this.rids.length;
    while (cap < min) cap *= 2;
    const rids = new Int32Array(cap).fill(-1);
    rids.set(this.rids);
    const lens = new Int32Array(cap);
    lens.set(this.lens);
    this.rids = rids;
    this.lens = lens;
    this.acc = new Float64Array(cap);
  }
}

/** Okapi BM25 term scoring of the SQLite store's lexical search (Robertson & Zaragoza 2009). */

/** Okapi BM25 parameters (Robertson & Zaragoza 2009; the FTS5 and Lucene defaults). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/**
 * One term's Okapi BM25 contribution: idf · tf(k1+1) / (tf + k1(1 − b + b·dl/avgdl)), with the
 * non-negative idf = ln(1 + (N − df + 0.5)/(df + 0.5)) used by Lucene. Source: Robertson &
 * Zaragoza (2009), "The Probabilistic Relevance Framework: BM25 and Beyond", eq. 3.15.
 */
export function bm25Term(tf: number, df: number, docLen: number, avgDocLen: number, docCount: number): number {
  const idf = Math.log(1 + (docCount - df + 0.5) / (df + 0.5));
  return (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * docLen) / avgDocLen));
}

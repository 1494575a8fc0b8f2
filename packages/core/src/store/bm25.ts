/** Okapi BM25 term scoring (Robertson & Zaragoza 2009): the SQLite store's lexical search and `@mem/retrieval`'s lemma index. */

/** Okapi BM25 parameters (Robertson & Zaragoza 2009; the FTS5 and Lucene defaults). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/**
 * One term's Okapi BM25 contribution: idf · tf(k1+1) / (tf + k1(1 − b + b·dl/avgdl)), with the
 * non-negative idf = ln(1 + (N − df + 0.5)/(df + 0.5)) used by Lucene. Source: Robertson &
 * Zaragoza (2009), "The Probabilistic Relevance Framework: BM25 and Beyond", eq. 3.15.
 * 0 when tf ≤ 0 or there are no documents; avgDocLen is floored at 1e−9.
 * @param tf term frequency in the document; df documents containing the term; docLen / avgDocLen in tokens
 */
export function bm25Term(tf: number, df: number, docLen: number, avgDocLen: number, docCount: number, k1 = BM25_K1, b = BM25_B): number {
  if (tf <= 0 || docCount <= 0) return 0;
  const idf = Math.log(1 + (docCount - df + 0.5) / (df + 0.5));
  return (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * docLen) / Math.max(1e-9, avgDocLen)));
}

// Shared by the read-path scripts (train.ts, score-dumps.ts): recall of a dumped candidate list.

/**
 * Recall@k of a dumped question's candidates ordered by `score` (higher first; `null` keeps the dump
 * order), counting distinct source ids (the parts of a split turn share one) against `evidence`.
 */
export function recallAt<C extends { sourceId: string }>(r: { candidates: C[]; evidence: string[] }, score: ((c: C, i: number) => number) | null, k: number): number {
  const idx = r.candidates.map((c, i) => ({ c, i, s: score ? score(c, i) : -i }));
  idx.sort((a, b) => b.s - a.s || a.i - b.i);
  const top: string[] = [];
  for (const x of idx) {
    if (!top.includes(x.c.sourceId)) top.push(x.c.sourceId);
    if (top.length >= k) break;
  }
  const gold = new Set(r.evidence);
  return top.filter((s) => gold.has(s)).length / gold.size;
}

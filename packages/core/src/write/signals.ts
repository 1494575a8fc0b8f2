/**
 * Candidate-discovery signals of the Jev-Mem write path (seed 000, "candidate discovery"; docs/design.md
 * Write path step 3), one named function per term:
 *
 *   score(v, u) = 2·cos⁺(v, u) [u among the top-K_w vector hits]
 *               + 2·[v and u share an entity]
 *               + |kw(v) ∩ kw(u)| / max(1, |kw(v)|)
 *               + 0.25 / (1 + |Δt| / 1 day)
 *
 * Δt is the difference of the two observation times (observedAt), in ms.
 */

/** One day in milliseconds. */
export const DAY_MS = 86_400_000;

/** cos⁺ = max(0, cos): negative similarity carries no evidence of relatedness. */
export function positiveCosine(cosine: number): number {
  return cosine > 0 ? cosine : 0;
}

/** 2·cos⁺(v, u) when u is among v's top-K_w vector hits, else 0. */
export function vectorSignal(cosine: number, isTopVectorHit: boolean): number {
  return isTopVectorHit ? 2 * positiveCosine(cosine) : 0;
}

/** 2·[shared entity]: 2 when the two nodes share at least one normalized entity, else 0. */
export function entitySignal(sharesEntity: boolean): number {
  return sharesEntity ? 2 : 0;
}

/** |kw ∩ kw′| / max(1, |kw|), with kw the new node's keyword set (asymmetric by design). */
export function keywordSignal(newKeywords: ReadonlySet<string>, candidateKeywords: ReadonlySet<string>): number {
  if (newKeywords.size === 0) return 0;
  let shared = 0;
  for (const k of newKeywords) if (candidateKeywords.has(k)) shared++;
  return shared / Math.max(1, newKeywords.size);
}

/** 0.25 / (1 + |Δt| / 1 day), Δt in ms. */
export function timeSignal(deltaMs: number): number {
  return 0.25 / (1 + Math.abs(deltaMs) / DAY_MS);
}

/** The sum of the four signals (the candidate score used to keep the top K_w). */
export function candidateScore(signals: { vector: number; entity: number; keyword: number; time: number }): number {
  return signals.vector + signals.entity + signals.keyword + signals.time;
}

/** Keyword normalisation for overlap (ours): NFKC, case-folded, trimmed. */
export function normalizeKeyword(word: string): string {
  return word.normalize('NFKC').toLowerCase().trim();
}

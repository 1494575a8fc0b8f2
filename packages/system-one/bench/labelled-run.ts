/**
 * Ask labelled cases (./dataset.ts, ./holdout.ts) through one System One and score them (bench and
 * integration-test helper, ours): accuracy at p ≥ 0.5 for Nouls, argmax for Choices; answers checked
 * to be valid distributions; fallbacks and errors counted from the traces.
 */
import { createSystemOne } from '../src/controller.js';
import type { SystemOneBackend } from '../src/backend.js';
import type { CatalogueKind } from '../src/catalogue.js';
import type { LabelledCase } from './dataset.js';
import { TEMPLATES } from './templates.js';

export interface KindResult {
  kind: CatalogueKind;
  n: number;
  correct: number;
  /** Answered by the fallback backend. */
  fallbacks: number;
  /** Failed by the primary with no fallback answer (neutral answer). */
  errors: number;
  /** Answers that were not a valid distribution (must stay 0). */
  invalid: number;
  /** Correct answers among those the primary backend gave itself (not the fallback). */
  primaryCorrect: number;
}

/** True for a Noul p in [0, 1] or a Choice whose probabilities over exactly its labels are in [0, 1], sum to 1 and whose `choice` is an argmax. */
export function validAnswer(a: unknown, labels: string[] | null): boolean {
  if (labels === null) return typeof a === 'number' && a >= 0 && a <= 1;
  const c = a as { choice?: string; probabilities?: Record<string, number> };
  if (!c || typeof c.choice !== 'string' || !c.probabilities) return false;
  const ps = labels.map((l) => c.probabilities![l]);
  if (Object.keys(c.probabilities).length !== labels.length || ps.some((p) => typeof p !== 'number' || !(p >= 0 && p <= 1))) return false;
  return Math.abs(ps.reduce((s, p) => s + p, 0) - 1) < 1e-6 && c.probabilities[c.choice] >= Math.max(...ps) - 1e-12;
}

/** Run `cases` through `backend` (with `fallback`), one question per `ask`, sequentially. Per kind, in first-seen order. */
export async function runLabelled(cases: readonly LabelledCase[], backend: SystemOneBackend, fallback: SystemOneBackend | null): Promise<{ kinds: KindResult[]; stats: ReturnType<ReturnType<typeof createSystemOne>['stats']>; seconds: number }> {
  const s1 = createSystemOne({ backend, fallback, cache: false, timeoutMs: 120_000 });
  const by = new Map<CatalogueKind, KindResult>();
  const t0 = performance.now();
  for (const c of cases) {
    const r = by.get(c.kind) ?? { kind: c.kind, n: 0, correct: 0, fallbacks: 0, errors: 0, invalid: 0, primaryCorrect: 0 };
    by.set(c.kind, r);
    const q = TEMPLATES[c.kind]();
    const { answers, traces } = await s1.ask(c.state, { q });
    const a = answers.q as unknown;
    r.n++;
    const fell = traces.some((t) => t.fallback);
    if (fell) r.fallbacks++;
    else if (traces.some((t) => t.error)) r.errors++; // no fallback and the primary failed: a neutral answer
    if (!validAnswer(a, q.type === 'choice' ? Object.keys(q.criteria) : null)) r.invalid++;
    const ok = typeof a === 'number' ? (a >= 0.5 ? 1 : 0) === c.label : (a as { choice: string }).choice === c.label;
    if (ok) r.correct++;
    if (ok && !fell) r.primaryCorrect++;
  }
  return { kinds: [...by.values()], stats: s1.stats(), seconds: (performance.now() - t0) / 1000 };
}

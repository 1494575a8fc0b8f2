/**
 * Typing (docs/architecture.md "One `add()`": embed, extract, typing Nouls; seed 000 write path): the
 * per-observation work that needs no other observation, issued together for the whole batch.
 */
import type { ControllerAnswer } from '../ports.js';
import type { Extracted, IndexedObservation, WriteContext } from './context.js';

/** What the gate and the later stages need of one fresh observation. */
export interface TypedObservation {
  /** Unit embedding (cosine = dot product). */
  embedding: Float32Array;
  extracted: Extracted;
  /** Answers of the typing Nouls (`typeScores` reads them). */
  typed: Record<string, ControllerAnswer>;
}

/**
 * Embed (batched), extract and type every fresh observation; result i belongs to `fresh[i]`. Times
 * the `embed`, `extract` and `typing` stages. Throws MemError of the failing stage.
 */
export async function typeObservations(ctx: WriteContext, fresh: IndexedObservation[]): Promise<TypedObservation[]> {
  ctx.clock.start();
  const vectors = await ctx.embedAll(fresh.map((f) => f.obs.text));
  ctx.clock.tick('embed');
  const extracted = await Promise.all(fresh.map((f) => ctx.extract(f.obs.text, f.obs.observedAt, f.obs.timeZone)));
  ctx.clock.tick('extract');
  const typingQs = ctx.cfg.questions.typing();
  const typed = await Promise.all(fresh.map((f) => ctx.ask({ observation: f.obs.text }, typingQs, 'typing')));
  ctx.clock.tick('typing');
  return fresh.map((_, i) => ({ embedding: vectors[i]!, extracted: extracted[i]!, typed: typed[i]! }));
}

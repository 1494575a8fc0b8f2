/**
 * The run's one embedder, shared by every system of an evaluation run (ours): the kind comes from
 * `runLocomoEval({ embedder })` (stored in `runShared` under `embedderKind`), default glove.
 */
import type { Embedder } from '@mem/core';
import { createEmbedderFor, type EmbedderKind } from '../../embedder.js';
import type { EvalSystemContext } from '../types.js';

/** The embedder every system of this run uses (created once, on first use). */
export function runEmbedder(ctx: Pick<EvalSystemContext, 'runShared'>): Embedder {
  let e = ctx.runShared.get('embedder') as Embedder | undefined;
  if (!e) {
    e = createEmbedderFor((ctx.runShared.get('embedderKind') as EmbedderKind | undefined) ?? 'glove');
    ctx.runShared.set('embedder', e);
  }
  return e;
}

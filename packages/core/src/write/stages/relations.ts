/**
 * The relations stage (docs/architecture.md "One `add()`": one relation call per Add → relationEdges;
 * seed 000 write path step 5): the learned edges of the batch's Adds, asked together.
 */
import type { Pending } from '../pending.js';
import { relationEdges } from '../questions/index.js';
import type { WriteContext } from './context.js';

/**
 * One System-One relation call per stored observation with a relation plan (an Add with
 * candidates), issued together; edges with p ≥ θ_rel (and, by the state rule, the memories each
 * supersedes) are added to its pending state. Times `relations`. Throws MemError (stage `relations`).
 */
export async function askRelations(ctx: WriteContext, pendingStored: Pending[]): Promise<void> {
  const { cfg } = ctx;
  ctx.clock.start();
  await Promise.all(
    pendingStored.map(async (p) => {
      if (!p.relationState) return;
      const qs = cfg.questions.relations(p.plans);
      const answers = await ctx.ask(p.relationState, qs, 'relations');
      p.calls++;
      const out = relationEdges(p.node.id, p.plans, answers, cfg.relationThreshold);
      p.drafts.push(...out.drafts);
      if (out.supersedes.length) p.supersedes = [...(p.supersedes ?? []), ...out.supersedes];
    }),
  );
  ctx.clock.tick('relations');
}

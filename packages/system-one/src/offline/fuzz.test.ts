// Property tests: any JSON in the referenced fields gives valid answers from the offline backend,
// and every Choice answer is a distribution summing to 1.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { batches, catalogue } from '../catalogue.js';
import { createSystemOne } from '../controller.js';
import { normalizeAnswer } from '../schema.js';

const item = fc.oneof(
  fc.string(),
  fc.record(
    {
      text: fc.string({ maxLength: 120 }),
      time: fc.oneof(fc.constant('2024-05-01T10:00:00Z'), fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), fc.string()),
      start: fc.oneof(fc.constant(undefined), fc.constant('2024-05-01T08:00:00Z'), fc.string()),
      entities: fc.array(fc.string({ maxLength: 12 }), { maxLength: 3 }),
      cosine: fc.oneof(fc.double({ min: -1, max: 1, noNaN: true }), fc.constant(Number.NaN)),
      session: fc.oneof(fc.string({ maxLength: 4 }), fc.integer()),
      relation: fc.constantFrom('semantic', 'temporal', 'causal', 'entity', 'anchor', 'LEADS_TO'),
    },
    { requiredKeys: ['text'] },
  ),
  fc.jsonValue({ maxDepth: 2 }),
);

describe('offline backend under arbitrary states', () => {
  it('answers every catalogue question without error', async () => {
    const s1 = createSystemOne({ cache: false });
    const qs = {
      ...batches.relations(2), ...batches.scoring(2), ...batches.stopping(),
      typ: catalogue.typing.episodic(), pref: catalogue.typing.preference(), r_t: catalogue.routing.temporal(), r_m: catalogue.routing.multiHopNeed(),
      red: catalogue.consolidation.redundant(1), con: catalogue.consolidation.contradiction(0), obs: catalogue.consolidation.obsolete(1),
      link: catalogue.consolidation.link(0), rep: catalogue.consolidation.representation(1),
    };
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 100 }), item, item, item, fc.array(item, { maxLength: 4 }), fc.integer({ min: 0, max: 10 }),
        async (query, observation, a, b, evidence, depth) => {
          const r = await s1.ask({ query, observation, new_memory: a, candidates: [a, b], evidence, depth }, qs as Record<string, any>);
          for (const t of r.traces) expect(t.error).toBeUndefined();
          for (const v of Object.values(r.answers) as any[]) {
            if (typeof v === 'number') expect(v >= 0 && v <= 1).toBe(true);
            else expect(Math.abs(Object.values(v.probabilities as Record<string, number>).reduce((x, y) => x + y, 0) - 1)).toBeLessThan(1e-6);
          }
        }),
      { numRuns: 60 },
    );
  });

  it('normalizeAnswer turns any non-negative label masses into a distribution or rejects them', () => {
    const q = catalogue.relation.temporalOrder(0);
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('before', 'after', 'during', 'unknown'), fc.double({ min: 0, max: 5, noNaN: true })), (probs) => {
        let a;
        try {
          a = normalizeAnswer('x', q, { probabilities: probs });
        } catch (e: any) {
          expect(e.code).toBe('INVALID_ANSWER');
          return;
        }
        const p = a as { choice: string; probabilities: Record<string, number> };
        expect(Math.abs(Object.values(p.probabilities).reduce((x, y) => x + y, 0) - 1)).toBeLessThan(1e-6);
        expect(p.probabilities[p.choice]).toBe(Math.max(...Object.values(p.probabilities)));
      }),
    );
  });
});

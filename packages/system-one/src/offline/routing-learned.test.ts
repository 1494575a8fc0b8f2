import { describe, expect, it } from 'vitest';
import { ROUTING_HEADS, learnedRoute, routingFeatureRecord, routingFeatureVector, routingModels } from './routing-learned.js';
import { routeFeatures } from './routing.js';

describe('learned routing models', () => {
  it('one shipped mem.learned/1 model per head, trained by the script, with the cue answer among the features', () => {
    const m = routingModels();
    for (const h of ROUTING_HEADS) {
      expect(m[h].name).toBe(`routing.${h}`);
      expect(m[h].features[0]).toBe('cue');
      expect(m[h].features.length).toBeGreaterThan(6); // a learned vocabulary, not a placeholder
      expect((m[h].training as { script: string }).script).toBe('packages/system-one/scripts/train-routing.ts');
    }
  });

  it('feature records: words, first word, shape, cue logit', () => {
    const r = routingFeatureRecord('Why did Ana quit her job in May 2024?', 'causal');
    expect(r.get('w:why')).toBe(1);
    expect(r.get('first:why')).toBe(1);
    expect(r.get('digits')).toBe(1);
    expect(r.get('qmark')).toBe(1);
    const p = routeFeatures('Why did Ana quit her job in May 2024?').causal;
    expect(r.get('cue')).toBeCloseTo(Math.log(p / (1 - p)), 12);
    const m = routingModels().causal;
    expect(routingFeatureVector(m, r)).toHaveLength(m.features.length);
  });

  it("routes the paper's running example to the causal view, and a plain when-question away from it", () => {
    const why = learnedRoute('When did Mira buy a new bicycle, and why?');
    expect(why.causal).toBeGreaterThan(0.5);
    expect(why.temporal).toBeGreaterThan(0.5);
    const when = learnedRoute('When did Mira buy a new bicycle?');
    expect(when.causal).toBeLessThan(0.2);
    for (const h of ROUTING_HEADS) {
      expect(why[h]).toBeGreaterThanOrEqual(0);
      expect(why[h]).toBeLessThanOrEqual(1);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { createSystemOne } from '../controller.js';
import { errorCodeOf } from '@mem/test-utils';
import { SystemOneError } from '../errors.js';
import { catalogue } from '../catalogue.js';
import { createOfflineBackend } from './index.js';
import { STOPPING_DEPTH_FEATURES, STOPPING_FEATURES, STOPPING_HEADS, learnedStopping, learnedStoppingApplies, stoppingFeatureRecord, stoppingModels } from './stopping-learned.js';

const item = (text: string, relevance: number, round: number) => ({ text, relevance, round });

describe('learned stopping models', () => {
  it('one shipped mem.learned/1 model per head, trained by the read-path script over STOPPING_FEATURES', () => {
    const m = stoppingModels();
    for (const h of STOPPING_HEADS) {
      expect(m[h].name).toBe(`stopping.${h}`);
      // the sufficiency question does not reference {{depth}}, so its model reads no depth feature
      expect(m[h].features).toEqual(h === 'continue_useful' ? [...STOPPING_FEATURES] : STOPPING_FEATURES.filter((f) => !(STOPPING_DEPTH_FEATURES as readonly string[]).includes(f)));
      expect((m[h].training as { script: string }).script).toBe('apps/demo-agent/scripts/read-path/train-stopping.ts');
      // a fitted model, not the zero placeholder: some weight is far from 0
      expect(Math.max(...m[h].weights[0].map(Math.abs))).toBeGreaterThan(0.1);
    }
  });

  it('features of a state: the top five relevances, what the last round added, the routing of the query', () => {
    const ev = [item('a', 0.9, 0), item('b', 0.5, 1), item('c', 0.4, 0), item('d', 0.2, 1), item('e', 0.1, 0), item('f', 0.05, 1)];
    const f = stoppingFeatureRecord('When did Mira buy a new bicycle, and why?', ev, 1);
    expect(f.depth).toBe(1);
    expect(f.top1).toBe(0.9);
    expect(f.top5_sum).toBeCloseTo(2.1, 12); // the sixth item is not read
    expect(f.top5_min).toBe(0.1);
    expect(f.gap12).toBeCloseTo(0.4, 12);
    expect(f.new_in_top).toBeCloseTo(2 / 5, 12);
    expect(f.new_best).toBe(0.5);
    expect(f.anchors_in_top).toBeCloseTo(3 / 5, 12);
    expect(f.causal).toBeGreaterThan(0.5);
    expect(Object.keys(f)).toEqual([...STOPPING_FEATURES]);
  });

  it('applies only when every evidence item carries a numeric relevance and round', () => {
    expect(learnedStoppingApplies([])).toBe(false);
    expect(learnedStoppingApplies([{ text: 'x' }])).toBe(false);
    expect(learnedStoppingApplies([{ text: 'x', relevance: 0.3 } as never])).toBe(false);
    expect(learnedStoppingApplies([item('x', 0.3, 0), { text: 'y', relevance: Number.NaN, round: 0 } as never])).toBe(false);
    expect(learnedStoppingApplies([item('x', 0.3, 0)])).toBe(true);
  });

  it('a non-finite or negative depth falls back to the cue scorers; bad heads and models are typed errors (break-it)', async () => {
    const s1 = createSystemOne({ backend: createOfflineBackend(), cache: false });
    const ev = [item('bike', 0.5, 0)];
    const u = catalogue.stopping.continueUseful();
    for (const depth of [Number.POSITIVE_INFINITY, Number.NaN, -1]) {
      const r = await s1.ask({ query: 'bike?', evidence: ev, depth }, { u });
      const cue = await s1.ask({ query: 'bike?', evidence: [{ text: 'bike' }], depth }, { u });
      expect(r.answers.u).toBe(cue.answers.u);
    }
    expect(learnedStoppingApplies(ev, 2)).toBe(true);
    expect(learnedStoppingApplies(ev, Number.NaN)).toBe(false);
    const codeOf = (f: () => unknown) => errorCodeOf(f, SystemOneError);
    expect(codeOf(() => learnedStopping('bogus' as never, 'q', ev, 1))).toBe('INVALID_QUESTION');
    expect(codeOf(() => learnedStopping('continue_useful', 'q', ev, 1, {} as never))).toBe('INVALID_MODEL');
  });

  it('a confident best candidate reads as more sufficient than a weak one', () => {
    const strong = [item('a', 0.97, 0), item('b', 0.1, 0), item('c', 0.05, 0), item('d', 0.04, 0), item('e', 0.03, 0)];
    const weak = [item('a', 0.15, 0), item('b', 0.12, 0), item('c', 0.1, 0), item('d', 0.09, 0), item('e', 0.08, 0)];
    const q = 'What does Mira drink?';
    expect(learnedStopping('evidence_sufficient', q, strong, 1)).toBeGreaterThan(learnedStopping('evidence_sufficient', q, weak, 1));
  });

  it('the offline backend answers the stopping Nouls with the models when the state carries relevance, else with the cue scorers', async () => {
    const s1 = createSystemOne({ backend: createOfflineBackend(), cache: false });
    const qs = { s: catalogue.stopping.evidenceSufficient(), u: catalogue.stopping.continueUseful(), m: catalogue.stopping.missingEvidence() };
    const query = 'What does Mira drink?';
    const ev = [item('I prefer tea over coffee.', 0.8, 0), item('My old bicycle broke.', 0.05, 0)];
    const learned = (await s1.ask({ query, evidence: ev, depth: 1 }, qs)).answers;
    expect(learned.s).toBeCloseTo(learnedStopping('evidence_sufficient', query, ev, 1), 12);
    expect(learned.m).toBeCloseTo(1 - (learned.s as number), 12);
    expect(learned.u).toBeCloseTo(learnedStopping('continue_useful', query, ev, 1), 12);
    const plain = (await s1.ask({ query, evidence: ev.map((e) => ({ text: e.text })), depth: 1 }, qs)).answers;
    expect(plain.s).not.toBeCloseTo(learned.s as number, 6);
  });
});

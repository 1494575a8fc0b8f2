// Keeps the README quick start honest: the values its comments claim.
import { expect, it } from 'vitest';
import { batches, createSystemOne, noul } from './index.js';

it('README quick start', async () => {
  const s1 = createSystemOne();
  const { answers, traces } = await s1.ask({ query: 'When did Caroline go to the LGBTQ support group?' }, batches.routing());
  expect(answers.temporal).toBeCloseTo(0.96, 2);
  expect(answers.causal).toBeCloseTo(0.01, 2);
  // the paper's running example routes to the causal view (learned routing; the cue scorer gave 0.07)
  const why = await s1.ask({ query: 'When did Mira buy a new bicycle, and why?' }, batches.routing());
  expect(why.answers.causal).toBeGreaterThan(0.5);
  expect(why.answers.temporal).toBeGreaterThan(0.9);
  expect(traces[1]).toMatchObject({ id: 'temporal', kind: 'routing.temporal', type: 'noul', value: answers.temporal, backend: 'offline', cacheHit: false, fallback: false });
  const state = {
    new_memory: { text: 'Mira: I bought a new bicycle yesterday because my old one broke.', time: '2024-05-16T10:00:00Z' },
    candidates: [{ text: 'Mira: My old bicycle broke.', time: '2024-05-14T10:00:00Z' }],
  };
  const rel = await s1.ask(state, batches.relations(1));
  expect(Math.abs(rel.answers.pair_0_caused_by - 0.85)).toBeLessThan(0.01);
  expect(rel.answers.pair_0_temporal_order.choice).toBe('after');
  const q = noul({ instructions: 'Is {{note}} about a pet?', criteria: { true: 'it is about a pet animal', false: 'it is not' } });
  const mine = await s1.ask({ note: 'My kitten sleeps all day.' }, { pet: q });
  expect(mine.answers.pet).toBeGreaterThan(0.5);
  expect(s1.stats()).toEqual({ calls: 4, questions: 19, cacheHits: 0, fallbacks: 0, errors: 0 });
});

import { describe, expect, it } from 'vitest';
import { catalogue } from '../catalogue.js';
import { createSystemOne } from '../controller.js';
import { ourPairs } from '../../scripts/relation-data.js';
import { expectedCalibrationError } from '../learned/index.js';
import { RELATION_CLASSES, RELATION_FEATURES, classOfLabel, relationFeatures, relationModel, relationProbabilities } from './relation-model.js';

describe('the pair-relation model (issue 17)', () => {
  it('the shipped weights are a valid mem.learned/1 softmax over RELATION_FEATURES, trained and calibrated', () => {
    const m = relationModel();
    expect(m.kind).toBe('softmax');
    expect(m.classes).toEqual([...RELATION_CLASSES]);
    expect(m.features).toEqual([...RELATION_FEATURES]);
    expect(m.weights.flat().some((w) => w !== 0)).toBe(true); // not the zero bootstrap file
    expect(m.temperature).toBeGreaterThan(0);
    expect(m.training?.heldOut).toMatch(/index % 4 == 3/);
    expect(relationFeatures('I love jazz.', 'I really dislike jazz.')).toHaveLength(RELATION_FEATURES.length);
  });

  it('probabilities sum to 1 and are deterministic', () => {
    const p = relationProbabilities('My favourite player is Alvarez.', 'My current favourite player is Brandt.');
    expect(Object.values(p).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    expect(relationProbabilities('My favourite player is Alvarez.', 'My current favourite player is Brandt.')).toEqual(p);
  });

  // held-out scenarios (index % 4 == 3) were never trained on; the bounds are below what the shipped
  // model measures (bench: `pnpm --filter @mem/demo-agent bench:memory-state`), above chance
  it('on the held-out pairs: accuracy well above chance, a change of state (contradiction or update) found with useful precision, calibrated', () => {
    const held = ourPairs().filter((p) => p.heldOut);
    expect(held.length).toBeGreaterThanOrEqual(100);
    let correct = 0;
    let tp = 0;
    let fp = 0;
    let fn = 0;
    const conf: number[] = [];
    const hit: number[] = [];
    for (const p of held) {
      const r = relationProbabilities(p.older, p.newer);
      const probs = RELATION_CLASSES.map((c) => r[c]);
      const top = RELATION_CLASSES[probs.indexOf(Math.max(...probs))]!;
      const ok = top === classOfLabel(p.label);
      if (ok) correct++;
      conf.push(Math.max(...probs));
      hit.push(ok ? 1 : 0);
      const changed = r.contradiction + r.update >= 0.6;
      const gold = p.label === 'contradiction' || p.label === 'update';
      if (changed && gold) tp++;
      else if (changed) fp++;
      else if (gold) fn++;
    }
    expect(correct / held.length).toBeGreaterThan(0.5); // 4 classes: chance ≈ 0.39 (the majority class)
    expect(tp / (tp + fp)).toBeGreaterThan(0.7);
    expect(tp / (tp + fn)).toBeGreaterThan(0.5);
    expect(expectedCalibrationError(conf, hit)).toBeLessThan(0.15);
  });

  // break-it finding (issue 17): templated notes that differ only in numbers, objects or times are two
  // events (or one event noted twice), not a supersession
  it('templated facts differing only in numbers, objects or times are neither contradictions nor updates', () => {
    const pairs: [string, string][] = [
      ['Pablo repaired the drone at the beach yesterday (note 12).', 'Pablo repaired the drone at the beach yesterday (note 873).'],
      ['Kenji painted the lamp at the museum on Monday (note 40).', 'Kenji photographed the violin at the farm last month (note 41).'],
      ['Zoe cleaned the canoe at the harbour this morning (note 7).', 'Zoe cleaned the canoe at the park two days ago (note 3120).'],
      ['Cabin 4 sleeps 6 people.', 'Cabin 9 sleeps 2 people.'],
    ];
    for (const [o, n] of pairs) {
      const p = relationProbabilities(o, n);
      expect(p.contradiction + p.update, `${o} → ${n}`).toBeLessThan(0.6);
    }
  });

  it('answers consolidation.contradiction / obsolete / redundant through the offline backend; a question supersedes nothing', async () => {
    const s1 = createSystemOne({ cache: false });
    const qs = { con: catalogue.consolidation.contradiction(0), obs: catalogue.consolidation.obsolete(0), red: catalogue.consolidation.redundant(0) };
    const ask = async (older: string, newer: string) => (await s1.ask({ new_memory: { text: newer }, candidates: [{ text: older }] }, qs)).answers as Record<string, number>;
    const jazz = await ask('I love jazz.', 'I really dislike jazz.');
    const p = relationProbabilities('I love jazz.', 'I really dislike jazz.');
    expect(jazz.con).toBeCloseTo(p.contradiction, 9);
    expect(jazz.con + jazz.obs).toBeGreaterThan(0.6);
    const q = await ask('I love jazz.', 'Do you really dislike jazz?');
    expect(q.con + q.obs).toBeLessThan(0.1);
    // a newer memory about an earlier time cannot make the candidate obsolete
    const earlier = (await s1.ask({ new_memory: { text: 'I drank espresso then.', start: '2020-01-01T00:00:00Z', end: '2020-01-02T00:00:00Z' }, candidates: [{ text: 'I drink green tea now.', start: '2024-01-01T00:00:00Z', end: '2024-01-02T00:00:00Z' }] }, { obs: qs.obs })).answers as Record<string, number>;
    expect(earlier.obs).toBeLessThan(0.05);
    // another speaker's statement neither contradicts nor supersedes; the same speaker's does
    const spk = async (a: string, b: string) =>
      (await s1.ask({ new_memory: { text: 'I really dislike jazz.', speaker: b }, candidates: [{ text: 'I love jazz.', speaker: a }] }, qs)).answers as Record<string, number>;
    const other = await spk('Maya', 'Sam');
    expect(other.con + other.obs).toBeLessThan(0.1);
    const same = await spk('Maya', 'Maya');
    expect(same.con + same.obs).toBeGreaterThan(0.6);
  });
});

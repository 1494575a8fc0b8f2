import { describe, expect, it } from 'vitest';
import { catalogue, STATE_LABELS } from '../catalogue.js';
import { createSystemOne } from '../controller.js';
import { SystemOneError } from '../errors.js';
import { STATE_FEATURES, kindOf, parseStateWeights, stateFeatures, stateModels, stateProbabilities } from './state-model.js';
import weights from './models/state.json';
import { expectMemError } from '@mem/test-utils';

describe('state model (issue 37): the offline answer of state.change', () => {
  it('ships a model that fits the code: five labels, calibrated probabilities summing to 1', () => {
    const m = stateModels();
    expect(m.state.classes).toEqual([...STATE_LABELS]);
    expect(stateFeatures('I live in Oslo.', 'I moved to Bergen.').length).toBe(STATE_FEATURES.length);
    const p = stateProbabilities('I live in Oslo.', 'I moved to Bergen.');
    expect(Object.values(p).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
    expect(m.state.temperature).toBeGreaterThan(0);
  });
  it('refuses a weights file that does not fit (INVALID_MODEL)', async () => {
    await expectMemError(() => parseStateWeights([weights[0]]), SystemOneError, 'INVALID_MODEL');
    expect(() => parseStateWeights([weights[1], weights[0]])).toThrow(/write.state_kind/);
    const w = structuredClone(weights) as { features: string[] }[];
    w[1]!.features = [...w[1]!.features.slice(1), 'renamed'];
    expect(() => parseStateWeights(w)).toThrow(/STATE_FEATURES/);
  });
  it('the subject kind model names the attribute of plain statements', () => {
    expect(kindOf('My husband and I got divorced.')).toBe('relationship');
    expect(kindOf('We moved to a flat in Madrid.')).toBe('residence');
  });
  it('through the controller: a question or another speaker never changes state; an earlier time cannot supersede', async () => {
    const s1 = createSystemOne({ cache: false });
    const q = { s: catalogue.state.change(0) };
    const ask = async (n: object, c: object) => ((await s1.ask({ new_memory: n, candidates: [c] }, q)).answers.s as { probabilities: Record<string, number> }).probabilities;
    const base = await ask({ text: 'I hate jazz now.' }, { text: 'I love jazz.' });
    expect(base.update + base.contradiction).toBeGreaterThan(0.5);
    const other = await ask({ text: 'I hate jazz now.', speaker: 'Sam' }, { text: 'I love jazz.', speaker: 'Maya' });
    expect(other.update + other.contradiction).toBe(0);
    const question = await ask({ text: 'Do you hate jazz now?' }, { text: 'I love jazz.' });
    expect(question.update + question.contradiction).toBe(0);
    const earlier = await ask({ text: 'I hate jazz now.', time: '2024-01-01T00:00:00Z' }, { text: 'I love jazz.', time: '2025-01-01T00:00:00Z' });
    expect(earlier.update + earlier.contradiction).toBe(0);
    // a change said after the candidate, whose event lies before it, still changes it ("last month")
    const moved = await ask({ text: 'I moved to Bergen last month.' }, { text: 'I live in Oslo.' });
    const sameDay = await ask({ text: 'I moved to Bergen last month.', time: '2026-12-07T10:05:00Z' }, { text: 'I live in Oslo.', time: '2026-12-07T10:00:00Z' });
    expect(sameDay.update + sameDay.contradiction).toBeGreaterThan(0);
    expect(sameDay).toEqual(moved);
    // …but a past event said later, before the candidate's time, does not
    const event = await ask({ text: 'I visited Bergen last month.', time: '2026-12-07T10:05:00Z' }, { text: 'I live in Oslo.', time: '2026-12-07T10:00:00Z' });
    expect(event.update + event.contradiction).toBe(0);
  });
});

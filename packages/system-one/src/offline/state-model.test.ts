import { describe, expect, it } from 'vitest';
import { catalogue, STATE_LABELS } from '../catalogue.js';
import { createSystemOne } from '../controller.js';
import { SystemOneError } from '../errors.js';
import { KIND_FEATURES, STATE_FEATURES, STATE_FEATURES_V2, STATE_KINDS, encodeLexicon, kindOf, lexMean, otherSubject, parseLexicon, parseStateWeights, stateFeatures, stateModels, stateProbabilities, type StateModels } from './state-model.js';
import weights from './models/state.json';
import { expectMemError } from '@mem/test-utils';

/** A v3 weights file built from the shipped v2 one: a lexicon of five words (residence / relationship rows), the kind model reading it, and a state model whose update logit reads `new_only_touches_older_kind`. */
function v3File(touchWeight = 6): unknown[] {
  const [kind, state] = weights as unknown as { features: string[]; weights: number[][] }[];
  const C = STATE_KINDS.length;
  const words = ['oslo', 'bergen', 'moved', 'sister', 'cello'];
  const rows = new Float32Array(words.length * C);
  words.forEach((_, r) => (rows[r * C + (r < 3 ? STATE_KINDS.indexOf('residence') : STATE_KINDS.indexOf('relationship'))] = 8));
  const k = { ...kind, features: [...KIND_FEATURES], weights: kind!.weights.map((w, c) => [...w, ...STATE_KINDS.map((_, j) => (j === c ? 1 : 0))]) };
  const touch = STATE_FEATURES.indexOf('new_only_touches_older_kind');
  const u = STATE_LABELS.indexOf('update');
  const st = {
    ...state,
    features: [...STATE_FEATURES],
    weights: state!.weights.map((w, c) => [...w, ...STATE_FEATURES.slice(STATE_FEATURES_V2).map((_, j) => (c === u && STATE_FEATURES_V2 + j === touch ? touchWeight : 0))]),
  };
  return [k, st, encodeLexicon(words, rows)];
}

describe('state model (issue 37): the offline answer of state.change', () => {
  it('ships a model that fits the code: five labels, calibrated probabilities summing to 1', () => {
    const m = stateModels();
    expect(m.state.classes).toEqual([...STATE_LABELS]);
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
    // a v2 state model with a lexicon (a v3 list) does not fit: a v3 list needs v3 features
    const lex = encodeLexicon(['oslo'], new Float32Array(STATE_KINDS.length));
    expect(() => parseStateWeights([weights[0], weights[1], lex])).toThrow(/KIND_FEATURES/);
    expect(() => parseStateWeights([...v3File().slice(0, 2), { ...lex, classes: ['a'] }])).toThrow(/STATE_KINDS/);
  });
  it('the lexicon round-trips through its int8 encoding (centred rows) and refuses a wrong size', async () => {
    const C = STATE_KINDS.length;
    const rows = new Float32Array(2 * C);
    for (let i = 0; i < C; i++) {
      rows[i] = i; // word "alpha": rising with the class index
      rows[C + i] = i === 1 ? 3 : 0; // word "beta": class 1 only
    }
    const lex = parseLexicon(encodeLexicon(['alpha', 'beta'], rows));
    const { v, found } = lexMean(['beta', 'unknown'], lex);
    expect(found).toBe(1);
    expect(v[1]! - v[0]!).toBeCloseTo(3, 1);
    expect(v[2]! - v[0]!).toBeCloseTo(0, 1);
    const a = lexMean(['alpha'], lex).v;
    expect(a[C - 1]! - a[0]!).toBeCloseTo(C - 1, 1);
    const file = encodeLexicon(['alpha', 'beta'], rows);
    await expectMemError(() => parseLexicon({ ...file, words: 'alpha' }), SystemOneError, 'INVALID_MODEL');
  });
  it('v3 (a lexicon in the file): the words only the newer statement has are weighed against the older statement\'s attribute', () => {
    const m = parseStateWeights(v3File());
    expect(m.lexicon).not.toBeNull();
    expect(stateFeatures('I live in Oslo.', 'I moved to Bergen.', { model: m.kind, lexicon: m.lexicon }).length).toBe(STATE_FEATURES.length);
    expect(stateFeatures('I live in Oslo.', 'I moved to Bergen.').length).toBe(stateModels().lexicon ? STATE_FEATURES.length : STATE_FEATURES_V2);
    const move = 'I moved to Bergen last month for a new job as a data engineer.';
    const gap = (w: StateModels) => stateProbabilities('I live in Oslo.', move, w).update - stateProbabilities('My sister Ingrid plays the cello in an orchestra.', move, w).update;
    // the move's new words ("moved", "bergen") are residence words, and "I live in Oslo" is about residence:
    // the feature's weight lifts p(update) of (Oslo, move) far more than that of (sister, move)
    expect(gap(m) - gap(parseStateWeights(v3File(0)))).toBeGreaterThan(0.2);
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
  it('another subject never changes the speaker\'s state: first person on one side, only third-person pronouns on the other', async () => {
    const s1 = createSystemOne({ cache: false });
    const q = { s: catalogue.state.change(0) };
    const ask = async (n: string, c: string) => ((await s1.ask({ new_memory: { text: n }, candidates: [{ text: c }] }, q)).answers.s as { probabilities: Record<string, number> }).probabilities;
    expect(otherSubject('I run every morning before work.', 'Lena is doing well. She moved to Lisbon last year.')).toBe(true);
    expect(otherSubject('She lives in Lisbon.', 'I moved to Bergen last month.')).toBe(true);
    // the same person ("I" on both sides, or no pronoun on either) and a first-person statement about someone else are not ruled out
    expect(otherSubject('I live in Oslo.', 'I moved to Bergen last month.')).toBe(false);
    expect(otherSubject('I love jazz.', 'Jazz bores me now.')).toBe(false);
    expect(otherSubject('My sister lives in Lisbon.', 'She moved to Porto.')).toBe(false);
    const p = await ask('Lena is doing well. She moved to Lisbon last year.', 'I run every morning before work.');
    expect(p.update + p.contradiction).toBe(0);
    const probs = stateProbabilities('I run every morning before work.', 'Lena is doing well. She moved to Lisbon last year.');
    expect(p.unrelated).toBeCloseTo(probs.unrelated + probs.update + probs.contradiction, 10);
  });
});

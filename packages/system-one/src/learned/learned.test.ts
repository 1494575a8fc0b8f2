import { describe, expect, it } from 'vitest';
import { SystemOneError } from '../errors.js';
import {
  LEARNED_FORMAT,
  LearnedModelSchema,
  accuracy,
  compileLearnedModel,
  compileStagedLogistic,
  expectedCalibrationError,
  featureVector,
  fitTemperature,
  hiddenUnits,
  logLoss,
  modelLogits,
  parseLearnedModel,
  predictProbabilities,
  predictProbability,
  rocAuc,
  sigmoid,
  softmax,
  trainLearnedModel,
  withTemperature,
  type LearnedModel,
} from './index.js';
import routingJson from '../offline/models/routing.json';
import stoppingJson from '../offline/models/stopping.json';
import stateJson from '../offline/models/state.json';
import pastStateJson from '../offline/models/past-state.json';
import relationJson from '../offline/relation.weights.json';
// deterministic PRNG (mulberry32) so the synthetic data is the same on every run
import { rng } from '../../bench/write-workload.js';
import { errorCodeOf, expectMemError } from '@mem/test-utils';

import { gauss, overconfidentLogits } from '../../test/synthetic.js';

const logistic: LearnedModel = {
  format: LEARNED_FORMAT,
  name: 'test.logistic',
  kind: 'logistic',
  features: ['a', 'b'],
  classes: ['no', 'yes'],
  weights: [[2, -1]],
  bias: [0.5],
  temperature: 1,
};

const codeOf = (f: () => unknown) => errorCodeOf(f, SystemOneError);

describe('learned model format', () => {
  it('round-trips through JSON and computes W x + b', () => {
    const m = parseLearnedModel(JSON.stringify(logistic));
    expect(modelLogits(m, { a: 1, b: 2 })).toEqual([0.5]);
    expect(modelLogits(m, [1, 0])).toEqual([2.5]);
    expect(predictProbability(m, { a: 1, b: 2 })).toBeCloseTo(sigmoid(0.5), 12);
    const [pn, py] = predictProbabilities(m, [1, 0]);
    expect(pn + py).toBeCloseTo(1, 12);
  });

  it('divides the logits by the temperature', () => {
    const hot = withTemperature(logistic, 2);
    expect(predictProbability(hot, [1, 0])).toBeCloseTo(sigmoid(2.5 / 2), 12);
    expect(codeOf(() => withTemperature(logistic, 0))).toBe('INVALID_MODEL');
  });

  it('softmax models give a distribution in class order', () => {
    const m = parseLearnedModel({
      ...logistic,
      name: 'test.softmax',
      kind: 'softmax',
      classes: ['x', 'y', 'z'],
      weights: [[1, 0], [0, 1], [0, 0]],
      bias: [0, 0, 1],
      temperature: 1,
    });
    const p = predictProbabilities(m, [3, 0]);
    expect(p).toEqual(softmax([3, 0, 1]));
    expect(predictProbability(m, [3, 0], 'x')).toBeCloseTo(p[0], 12);
    expect(codeOf(() => predictProbability(m, [3, 0]))).toBe('INVALID_MODEL');
    expect(codeOf(() => predictProbability(m, [3, 0], 'w'))).toBe('INVALID_MODEL');
  });

  it('refuses files whose shapes do not fit, and missing or non-finite features', () => {
    const bad: unknown[] = [
      '{not json',
      { ...logistic, format: 'mem.learned/0' },
      { ...logistic, weights: [[1]] },
      { ...logistic, weights: [[1, 2], [3, 4]] },
      { ...logistic, bias: [0, 1] },
      { ...logistic, classes: ['a', 'b', 'c'] },
      { ...logistic, features: ['a', 'a'] },
      { ...logistic, temperature: -1 },
      { ...logistic, extra: 1 },
      { ...logistic, kind: 'softmax' }, // 2 classes need 2 rows
    ];
    for (const b of bad) expect(codeOf(() => parseLearnedModel(b))).toBe('INVALID_MODEL');
    expect(codeOf(() => featureVector(logistic, { a: 1 }))).toBe('INVALID_MODEL');
    expect(codeOf(() => featureVector(logistic, [1]))).toBe('INVALID_MODEL');
    expect(codeOf(() => featureVector(logistic, { a: 1, b: NaN }))).toBe('INVALID_MODEL');
    // inherited properties are not features
    expect(codeOf(() => featureVector({ ...logistic, features: ['a', 'toString'], weights: [[1, 1]] }, { a: 1 }))).toBe('INVALID_MODEL');
  });

  it('reads every shipped weights file exactly as zod does (the hand check is only a faster path), and what zod refuses still fails', () => {
    const shipped = [...(routingJson as unknown[]), ...(stoppingJson as unknown[]), ...(stateJson as unknown[]).slice(0, 2) /* a v3 file adds a mem.lexicon/1 table (state-model.test.ts) */, pastStateJson, relationJson];
    expect(shipped.length).toBeGreaterThan(4);
    for (const m of shipped) {
      const viaZod = LearnedModelSchema.parse(m);
      const parsed = parseLearnedModel(m);
      expect(parsed).toEqual(viaZod);
      expect(Object.keys(parsed)).toEqual(Object.keys(viaZod));
      expect(parsed.weights).not.toBe((m as LearnedModel).weights); // a copy, as zod returns
    }
    const withHidden = { ...logistic, hidden: { weights: [[1, 0], [0, 1]], bias: [0, 0] }, training: { n: 3 } };
    expect(parseLearnedModel(withHidden)).toEqual(LearnedModelSchema.parse(withHidden));
    // cases the hand check leaves to zod: zod's verdict stands
    const bad: unknown[] = [
      { ...logistic, name: '' },
      { ...logistic, weights: [[1, Infinity]] },
      { ...logistic, bias: [] },
      { ...logistic, features: [] },
      { ...logistic, temperature: 0 },
      { ...logistic, training: [1] },
      { ...logistic, hidden: { weights: [[1, 0]], bias: [0], extra: 1 } },
      Object.assign(Object.create({ inherited: 1 }), logistic),
    ];
    for (const b of bad) expect(codeOf(() => parseLearnedModel(b)), JSON.stringify(b)).toBe('INVALID_MODEL');
    // optional fields given as undefined: zod decides (accepts)
    expect(parseLearnedModel({ ...logistic, hidden: undefined })).toEqual(LearnedModelSchema.parse({ ...logistic, hidden: undefined }));
  });

  it('a forged file whose finite numbers overflow the logits gives INVALID_MODEL, never NaN', () => {
    const huge = parseLearnedModel({ ...logistic, kind: 'softmax', classes: ['x', 'y'], weights: [[1e308, 1e308], [1, 1]], bias: [0, 0] });
    expect(codeOf(() => predictProbabilities(huge, [1, 1]))).toBe('INVALID_MODEL');
    const tinyT = parseLearnedModel({ ...logistic, temperature: 5e-324 });
    expect(codeOf(() => predictProbabilities(tinyT, [1, 1]))).toBe('INVALID_MODEL');
    expect(codeOf(() => predictProbability(tinyT, [1, 1]))).toBe('INVALID_MODEL');
    // huge but finite inputs overflow too
    expect(codeOf(() => predictProbabilities(logistic, [1e308, 1e308]))).toBe('INVALID_MODEL');
  });
});

describe('compiled predictor', () => {
  it('gives the probabilities of predictProbabilities bit for bit (logistic with a hidden layer, softmax) and its errors', () => {
    const r = rng(11);
    const mat = (rows: number, cols: number) => Array.from({ length: rows }, () => Array.from({ length: cols }, () => gauss(r)));
    const features = ['a', 'b', 'c', 'd', 'e'];
    const mlp: LearnedModel = { format: LEARNED_FORMAT, name: 'mlp', kind: 'logistic', features, classes: ['no', 'yes'], hidden: { weights: mat(7, 5), bias: mat(1, 7)[0] }, weights: mat(1, 7), bias: [0.3], temperature: 0.9 };
    const soft: LearnedModel = { format: LEARNED_FORMAT, name: 'soft', kind: 'softmax', features, classes: ['x', 'y', 'z'], weights: mat(3, 5), bias: [0.1, -0.2, 0], temperature: 1.3 };
    for (const m of [mlp, soft, logistic]) {
      const predict = compileLearnedModel(m);
      for (let n = 0; n < 200; n++) {
        const x = m.features.map(() => (n % 10 === 0 ? 0 : gauss(r) * 3));
        expect(predict(x)).toEqual(predictProbabilities(m, x));
      }
      expect(codeOf(() => predict([1]))).toBe('INVALID_MODEL');
      expect(codeOf(() => predict(m.features.map(() => Number.NaN)))).toBe('INVALID_MODEL');
    }
    const huge = compileLearnedModel({ ...logistic, weights: [[1e308, 1e308]] });
    expect(codeOf(() => huge([10, 10]))).toBe('INVALID_MODEL');
  });
});

describe('staged logistic predictor', () => {
  it('gives compileLearnedModel\'s p bit for bit at every split point, with zero features and zero hidden units, and its errors', () => {
    const r = rng(12);
    const mat = (rows: number, cols: number) => Array.from({ length: rows }, () => Array.from({ length: cols }, () => gauss(r)));
    const features = ['a', 'b', 'c', 'd', 'e', 'f'];
    const mlp: LearnedModel = { format: LEARNED_FORMAT, name: 'mlp', kind: 'logistic', features, classes: ['no', 'yes'], hidden: { weights: mat(9, 6), bias: mat(1, 9)[0] }, weights: mat(1, 9), bias: [0.3], temperature: 0.9 };
    const flat: LearnedModel = { ...mlp, name: 'flat', hidden: undefined, weights: mat(1, 6), bias: [-0.2] };
    for (const m of [mlp, flat]) {
      const predict = compileLearnedModel(m);
      const staged = compileStagedLogistic(m);
      const acc = new Float64Array(staged.units);
      let bits = 0;
      for (let n = 0; n < 300; n++) {
        // about a third of the features are zero (and -0), as in the read path's candidates
        const x = Float64Array.from(m.features, (_, i) => ((n + i) % 3 === 0 ? (n % 2 ? -0 : 0) : gauss(r) * 3));
        const want = predict(x)[1]!;
        for (let split = 0; split <= features.length; split++) {
          staged.start(x, split, acc);
          const got = staged.finish(x, split, acc);
          if (Object.is(got, want)) bits++;
        }
      }
      expect(bits).toBe(300 * (features.length + 1));
      expect(codeOf(() => staged.start([1], 0, acc))).toBe('INVALID_MODEL');
      expect(codeOf(() => staged.finish(features.map(() => Number.NaN), 0, acc))).toBe('INVALID_MODEL');
    }
    expect(codeOf(() => compileStagedLogistic({ ...mlp, kind: 'softmax', classes: ['x', 'y', 'z'], weights: mat(3, 9), bias: [0, 0, 0] }))).toBe('INVALID_MODEL');
    const huge = compileStagedLogistic({ ...logistic, weights: [[1e308, 1e308]] });
    const a = new Float64Array(1);
    huge.start([10, 10], 0, a);
    expect(codeOf(() => huge.finish([10, 10], 0, a))).toBe('INVALID_MODEL');
  });
});

describe('metrics', () => {
  it('AUC counts ties as one half and matches the pairwise definition', () => {
    expect(rocAuc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])).toBeCloseTo(0.75, 12);
    expect(rocAuc([0.5, 0.5], [0, 1])).toBe(0.5);
    expect(rocAuc([1, 2], [1, 1])).toBeNaN();
    const r = rng(7);
    const s = Array.from({ length: 200 }, () => Math.round(r() * 20) / 20);
    const y = s.map((v) => (r() < v ? 1 : 0));
    let u = 0;
    let np = 0;
    for (let i = 0; i < s.length; i++) for (let j = 0; j < s.length; j++) if (y[i] === 1 && y[j] === 0) {
      np++;
      u += s[i] > s[j] ? 1 : s[i] === s[j] ? 0.5 : 0;
    }
    expect(rocAuc(s, y)).toBeCloseTo(u / np, 12);
  });

  it('ECE is 0 for calibrated bins and the gap for miscalibrated ones', () => {
    expect(expectedCalibrationError([0.25, 0.25, 0.25, 0.25], [1, 0, 0, 0])).toBeCloseTo(0, 12);
    expect(expectedCalibrationError([0.9, 0.9], [false, false])).toBeCloseTo(0.9, 12);
    expect(expectedCalibrationError([1, 0], [1, 0])).toBeCloseTo(0, 12); // p = 1 lands in the last bin
    expect(expectedCalibrationError([], [])).toBeNaN();
  });

  it('log loss and accuracy', () => {
    expect(logLoss([[0.5, 0.5]], [1])).toBeCloseTo(Math.log(2), 12);
    expect(accuracy([[0.2, 0.8], [0.6, 0.4]], [1, 1])).toBe(0.5);
  });
});

describe('training and calibration', () => {
  it('a trained logistic model separates held-apart data and its probabilities are calibrated', () => {
    const r = rng(1);
    const make = (n: number) => {
      const X: number[][] = [];
      const y: number[] = [];
      for (let i = 0; i < n; i++) {
        const a = gauss(r) * 3 + 10; // unscaled feature: training standardises it
        const b = gauss(r);
        const z = 0.8 * (a - 10) - 1.5 * b;
        X.push([a, b]);
        y.push(r() < sigmoid(z) ? 1 : 0);
      }
      return { X, y };
    };
    const tr = make(1500);
    const te = make(1500);
    const m = parseLearnedModel(trainLearnedModel(tr.X, tr.y, { name: 't', kind: 'logistic', features: ['a', 'b'], classes: ['no', 'yes'], training: { n: 1500 } }));
    expect(m.weights[0][0]).toBeCloseTo(0.8, 0);
    expect(m.weights[0][1]).toBeCloseTo(-1.5, 0);
    const p = te.X.map((x) => predictProbability(m, x));
    expect(rocAuc(p, te.y)).toBeGreaterThan(0.85);
    expect(expectedCalibrationError(p, te.y)).toBeLessThan(0.05);
    expect(m.training).toEqual({ n: 1500 });
  });

  it('temperature scaling repairs over-confident logits', () => {
    const { logits, labels } = overconfidentLogits(rng(2), 4000, 3); // 3× over-confident
    const T = fitTemperature(logits, labels);
    expect(T).toBeGreaterThan(2.5);
    expect(T).toBeLessThan(3.5);
    const before = expectedCalibrationError(logits.map(sigmoid), labels);
    const after = expectedCalibrationError(logits.map((z) => sigmoid(z / T)), labels);
    expect(after).toBeLessThan(before / 2);
    expect(fitTemperature([], [])).toBe(1);
  });

  it('a softmax model learns three classes, and a row-logit temperature fit works', () => {
    const r = rng(3);
    const centres = [[0, 0], [3, 0], [0, 3]];
    const X: number[][] = [];
    const y: number[] = [];
    for (let i = 0; i < 900; i++) {
      const c = i % 3;
      X.push([centres[c][0] + gauss(r), centres[c][1] + gauss(r)]);
      y.push(c);
    }
    const m = trainLearnedModel(X, y, { name: 's', kind: 'softmax', features: ['u', 'v'], classes: ['c0', 'c1', 'c2'] });
    const probs = X.map((x) => predictProbabilities(m, x));
    expect(accuracy(probs, y)).toBeGreaterThan(0.85);
    const T = fitTemperature(X.map((x) => modelLogits(m, x)), y);
    expect(T).toBeGreaterThan(0.3);
    expect(T).toBeLessThan(3);
  });

  it('a hidden layer learns XOR, which no linear model can; the file round-trips and shapes are checked', async () => {
    const X: number[][] = [];
    const y: number[] = [];
    for (let i = 0; i < 400; i++) {
      const a = i % 2;
      const b = Math.floor(i / 2) % 2;
      X.push([a + ((i * 7) % 10) / 100, b + ((i * 3) % 10) / 100]);
      y.push(a ^ b);
    }
    const o = { name: 'xor', kind: 'logistic' as const, features: ['a', 'b'], classes: ['no', 'yes'] };
    const linear = trainLearnedModel(X, y, { ...o, epochs: 300 });
    const mlp = trainLearnedModel(X, y, { ...o, hidden: 8, epochs: 200, batchSize: 32, learningRate: 0.01, seed: 3 });
    const acc = (m: LearnedModel) => X.filter((x, i) => (predictProbability(m, x) >= 0.5 ? 1 : 0) === y[i]).length / X.length;
    expect(acc(linear)).toBeLessThan(0.8);
    expect(acc(mlp)).toBeGreaterThan(0.95);
    expect(mlp.hidden!.weights).toHaveLength(8);
    const again = parseLearnedModel(JSON.stringify(mlp));
    expect(predictProbability(again, [1, 0])).toBeCloseTo(predictProbability(mlp, [1, 0]), 12);
    // z = W · ReLU(W_h x + b_h) + b
    const h = hiddenUnits(mlp.hidden!, [1, 0]);
    expect(h.every((v) => v >= 0)).toBe(true);
    expect(modelLogits(mlp, [1, 0])[0]).toBeCloseTo(h.reduce((s2, v, i) => s2 + v * mlp.weights[0][i], mlp.bias[0]), 12);
    // the same seed gives the same model
    expect(trainLearnedModel(X, y, { ...o, hidden: 8, epochs: 5, seed: 3 }).weights).toEqual(trainLearnedModel(X, y, { ...o, hidden: 8, epochs: 5, seed: 3 }).weights);
    await expectMemError(() => parseLearnedModel({ ...mlp, weights: [[1, 2]] }), SystemOneError, 'INVALID_MODEL');
    await expectMemError(() => parseLearnedModel({ ...mlp, hidden: { weights: mlp.hidden!.weights, bias: [0] } }), SystemOneError, 'INVALID_MODEL');
    await expectMemError(() => parseLearnedModel({ ...mlp, hidden: { weights: [[1, 2, 3]], bias: [0] } }), SystemOneError, 'INVALID_MODEL');
  });

  it('refuses bad training data with INVALID_MODEL', () => {
    const o = { name: 'x', kind: 'logistic' as const, features: ['a'], classes: ['n', 'y'] };
    expect(codeOf(() => trainLearnedModel([], [], o))).toBe('INVALID_MODEL');
    expect(codeOf(() => trainLearnedModel([[1, 2]], [1], o))).toBe('INVALID_MODEL');
    expect(codeOf(() => trainLearnedModel([[1]], [2], o))).toBe('INVALID_MODEL');
    expect(codeOf(() => trainLearnedModel([[Infinity]], [1], o))).toBe('INVALID_MODEL');
    expect(codeOf(() => trainLearnedModel([[1]], [1], { ...o, classes: ['a', 'b', 'c'] }))).toBe('INVALID_MODEL');
  });
});

describe('standardise (constant columns)', () => {
  it('a column whose values are equal up to rounding gets std 1, so a fit stays finite', async () => {
    const { standardise } = await import('./train.js');
    const X = Array.from({ length: 7 }, (_, i) => [0.2 * (i % 3), 0.1 + 0.2]); // second column: the same float every row
    const rows = X.map((r) => [r[0], r[1] * (1 + 1e-16)]);
    const { std } = standardise(rows, 2);
    expect(std[1]).toBe(1);
    const { std: s2 } = standardise(Array.from({ length: 5 }, () => [1 / 3]).concat([[1 / 3 + 1e-17]]), 1);
    expect(s2[0]).toBe(1);
    // real variation at a small scale, or on a large offset (epoch ms one second apart), keeps its std (break-it)
    const tiny = standardise(Array.from({ length: 8 }, (_, i) => [(i % 2) * 1e-10]), 1).std[0];
    expect(tiny).toBeCloseTo(5e-11, 20);
    const epoch = standardise(Array.from({ length: 8 }, (_, i) => [1.7e12 + (i % 2) * 1000]), 1).std[0];
    expect(epoch).toBeCloseTo(500, 6);
  });
});

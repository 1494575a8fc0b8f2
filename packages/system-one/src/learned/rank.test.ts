import { describe, expect, it } from 'vitest';
import { compileLearnedModel, expectedCalibrationError, fitPlatt, modelLogits, parseLearnedModel, predictProbabilities, predictProbability, rankGradient, sigmoid, trainRankingModel, withPlatt } from './index.js';
// deterministic PRNG (mulberry32) so the synthetic data is the same on every run
import { rng } from '../../bench/write-workload.js';
import { errorCodeOf } from '@mem/test-utils';
import { SystemOneError } from '../errors.js';

import { gauss, overconfidentLogits } from '../../test/synthetic.js';

const codeOf = (f: () => unknown) => errorCodeOf(f, SystemOneError);

/** Softmax cross-entropy against the uniform distribution over the positives (the loss of `softmax`). */
const softmaxLoss = (z: number[], y: number[]) => {
  const max = Math.max(...z);
  const lse = max + Math.log(z.reduce((s, v) => s + Math.exp(v - max), 0));
  const pos = y.reduce((s, v) => s + v, 0);
  return z.reduce((s, v, i) => s - (y[i] / pos) * (v - lse), 0);
};
const bceLoss = (z: number[], y: number[]) => z.reduce((s, v, i) => s - Math.log(y[i] ? sigmoid(v) : 1 - sigmoid(v)), 0) / z.length;

/**
 * Groups with a Simpson's paradox: within a group the positive has a LOWER `c` than the negatives, but
 * groups with a high offset (high `c`) are small, so across groups a high `c` goes with a high positive
 * rate. A pointwise fit learns the across-group trend; a listwise one the within-group order.
 */
function simpson(seed: number, groups: number) {
  const r = rng(seed);
  const X: number[][] = [];
  const y: number[] = [];
  const g: number[] = [];
  for (let q = 0; q < groups; q++) {
    const o = gauss(r) * 2;
    const n = Math.max(2, Math.round(12 - 4 * o));
    const pos = Math.floor(r() * n);
    for (let i = 0; i < n; i++) {
      const isPos = i === pos ? 1 : 0;
      X.push([gauss(r) + isPos, o + gauss(r) * 0.5 - 0.8 * isPos]);
      y.push(isPos);
      g.push(q);
    }
  }
  return { X, y, g };
}

/** Share of groups whose best-scored member is a positive. */
function top1(d: { X: number[][]; y: number[]; g: number[] }, score: (x: number[]) => number): number {
  const best = new Map<number, number>();
  d.g.forEach((q, i) => {
    const b = best.get(q);
    if (b === undefined || score(d.X[i]) > score(d.X[b])) best.set(q, i);
  });
  return [...best.values()].reduce((s, i) => s + d.y[i], 0) / best.size;
}

describe('ranking objectives', () => {
  it('rankGradient is the derivative of the softmax and pointwise losses (finite differences)', () => {
    const z = [0.3, -1.2, 2.0, 0.1];
    const y = [0, 1, 0, 1];
    const mu = 0.5;
    const loss = (v: number[]) => softmaxLoss(v, y) + mu * bceLoss(v, y);
    const g = rankGradient(z, y, 'softmax', mu);
    for (let i = 0; i < z.length; i++) {
      const h = 1e-6;
      const up = z.map((v, j) => (j === i ? v + h : v));
      const dn = z.map((v, j) => (j === i ? v - h : v));
      expect(g[i]).toBeCloseTo((loss(up) - loss(dn)) / (2 * h), 6);
    }
    const pw = rankGradient(z, y, 'pointwise');
    z.forEach((v, i) => expect(pw[i]).toBeCloseTo((sigmoid(v) - y[i]) / z.length, 12));
    // a group without a positive (or without a negative) has only its pointwise part
    expect(rankGradient(z, [0, 0, 0, 0], 'softmax', 0)).toEqual([0, 0, 0, 0]);
    expect(rankGradient(z, [1, 1, 1, 1], 'lambdarank', 0)).toEqual([0, 0, 0, 0]);
  });

  it('lambdarank pushes a positive ranked below a negative up, harder the more NDCG the swap gains', () => {
    const g = rankGradient([2, 1, 0], [0, 0, 1], 'lambdarank');
    expect(g[2]).toBeLessThan(0); // descent raises the positive's logit
    expect(g[0]).toBeGreaterThan(0);
    expect(g[0]).toBeGreaterThan(g[1]); // swapping with rank 1 gains more than with rank 2
    expect(g.reduce((s, v) => s + v, 0)).toBeCloseTo(0, 12);
  });

  it('a listwise fit learns the within-group order where a pointwise fit follows the across-group trend', () => {
    const tr = simpson(1, 200);
    const te = simpson(2, 200);
    const o = { name: 't', features: ['a', 'c'], classes: ['n', 'y'], hidden: 0, epochs: 20, learningRate: 0.01 };
    const pw = trainRankingModel(tr.X, tr.y, tr.g, { ...o, objective: 'pointwise' });
    const sm = trainRankingModel(tr.X, tr.y, tr.g, { ...o, objective: 'softmax' });
    const lr = trainRankingModel(tr.X, tr.y, tr.g, { ...o, objective: 'lambdarank' });
    const z = (m: typeof pw) => (x: number[]) => modelLogits(m, x)[0];
    expect(pw.weights[0][1]).toBeGreaterThan(0); // the across-group trend
    expect(sm.weights[0][1]).toBeLessThan(0); // the within-group one
    expect(top1(te, z(sm))).toBeGreaterThan(top1(te, z(pw)) + 0.15);
    expect(top1(te, z(lr))).toBeGreaterThan(top1(te, z(pw)) + 0.15);
  });

  it('a hidden-layer ranker round-trips as a mem.learned/1 file; the same seed gives the same model', () => {
    const tr = simpson(3, 60);
    const o = { name: 'h', features: ['a', 'c'], classes: ['n', 'y'], objective: 'softmax' as const, hidden: 4, epochs: 3, seed: 5 };
    const m = trainRankingModel(tr.X, tr.y, tr.g, o);
    expect(m.hidden!.weights).toHaveLength(4);
    const again = parseLearnedModel(JSON.stringify(m));
    expect(predictProbability(again, [0.5, -1])).toBeCloseTo(predictProbability(m, [0.5, -1]), 12);
    expect(trainRankingModel(tr.X, tr.y, tr.g, o).weights).toEqual(m.weights);
  });

  it('a Platt-scaled ranker predicts through compileLearnedModel with the probabilities of predictProbabilities, bit for bit', () => {
    const tr = simpson(6, 60);
    for (const hidden of [0, 4]) {
      const m = trainRankingModel(tr.X, tr.y, tr.g, { name: 'c', features: ['a', 'c'], classes: ['n', 'y'], objective: 'softmax', hidden, epochs: 3, seed: 7 });
      const scaled = withPlatt(m, fitPlatt(tr.X.map((x) => modelLogits(m, x)[0]), tr.y));
      const predict = compileLearnedModel(scaled);
      for (const x of tr.X.slice(0, 100)) expect(predict(x)).toEqual(predictProbabilities(scaled, x));
    }
  });

  it('Platt scaling recovers a shifted, over-confident logit and keeps the order', () => {
    // 3× over-confident and shifted by +5 (a listwise logit has no fixed offset)
    const { logits: z, labels: y } = overconfidentLogits(rng(4), 4000, 3, 5);
    const { a, b } = fitPlatt(z, y);
    expect(a).toBeGreaterThan(0.25);
    expect(a).toBeLessThan(0.42);
    expect(b).toBeCloseTo(-5 * a, 0);
    expect(expectedCalibrationError(z.map((v) => sigmoid(a * v + b)), y)).toBeLessThan(expectedCalibrationError(z.map(sigmoid), y) / 4);
    const m = withPlatt({ format: 'mem.learned/1', name: 'p', kind: 'logistic', features: ['x'], classes: ['n', 'y'], weights: [[2]], bias: [1], temperature: 2 }, { a, b });
    expect(predictProbability(m, [0.7])).toBeCloseTo(sigmoid(a * ((2 * 0.7 + 1) / 2) + b), 12);
    expect(fitPlatt([], [])).toEqual({ a: 1, b: 0 });
  });

  it('refuses bad training data with INVALID_MODEL', () => {
    const o = { name: 'x', features: ['a'], classes: ['n', 'y'], objective: 'softmax' as const };
    expect(codeOf(() => trainRankingModel([], [], [], o))).toBe('INVALID_MODEL');
    expect(codeOf(() => trainRankingModel([[1]], [1], [], o))).toBe('INVALID_MODEL');
    expect(codeOf(() => trainRankingModel([[1, 2]], [1], [0], o))).toBe('INVALID_MODEL');
    expect(codeOf(() => trainRankingModel([[1]], [2], [0], o))).toBe('INVALID_MODEL');
    expect(codeOf(() => trainRankingModel([[NaN]], [1], [0], o))).toBe('INVALID_MODEL');
    expect(codeOf(() => trainRankingModel([[1]], [1], [0], { ...o, hidden: -1 }))).toBe('INVALID_MODEL');
    expect(codeOf(() => trainRankingModel([[1]], [1], [0], { ...o, groupWeights: [1, 2] }))).toBe('INVALID_MODEL');
  });
});

/**
 * Training and calibration of learned System-One models (ours; standard methods): L2-regularised
 * logistic / softmax regression fitted by full-batch gradient descent (Adam) on standardised features,
 * with the standardisation baked back into the weights, and temperature scaling (Guo et al. 2017)
 * fitted on held-apart data. Used by the training scripts in `packages/<pkg>/scripts/`; nothing here
 * runs at query time.
 */
import { SystemOneError } from '../errors';
import { LEARNED_FORMAT, sigmoid, softmax, type LearnedModel } from './model';

export interface TrainOptions {
  /** Model name written into the file, e.g. `retrieval.route`. */
  name: string;
  /** `logistic` (labels 0 / 1) or `softmax` (labels = class indices). */
  kind: 'logistic' | 'softmax';
  features: string[];
  /** Class names: [negative, positive] for logistic; one per class for softmax. */
  classes: string[];
  /** L2 penalty on the (standardised) weights, per example. Default 1e-3. */
  l2?: number;
  /** Gradient steps. Default 400. */
  epochs?: number;
  /** Adam step size. Default 0.05. */
  learningRate?: number;
  /** Per-example weights (e.g. to balance classes). Default 1 each. */
  sampleWeights?: readonly number[];
  /** Free-form metadata stored as `training`. */
  training?: Record<string, unknown>;
}

/**
 * Fit a model on rows `X` (n × features) and labels `y`. Returns a `LearnedModel` with temperature 1
 * (calibrate with `fitTemperature` on other data). Throws `SystemOneError` `INVALID_MODEL` for empty
 * data, ragged rows, non-finite values or labels out of range.
 */
export function trainLearnedModel(X: readonly (readonly number[])[], y: readonly number[], o: TrainOptions): LearnedModel {
  const n = X.length;
  const F = o.features.length;
  const C = o.classes.length;
  const bad = (m: string) => new SystemOneError('INVALID_MODEL', `train ${o.name}: ${m}`);
  if (!n || y.length !== n) throw bad(`need as many labels as rows (got ${n} rows, ${y.length} labels)`);
  if (o.kind === 'logistic' && C !== 2) throw bad('a logistic model has exactly 2 classes');
  if (C < 2) throw bad('need at least 2 classes');
  for (let i = 0; i < n; i++) {
    if (X[i].length !== F) throw bad(`row ${i} has ${X[i].length} values, expected ${F}`);
    for (const v of X[i]) if (!Number.isFinite(v)) throw bad(`row ${i} holds a non-finite value`);
    if (!Number.isInteger(y[i]) || y[i] < 0 || y[i] >= C) throw bad(`label ${i} = ${y[i]} is not a class index`);
  }
  const sw = o.sampleWeights ?? new Array<number>(n).fill(1);
  if (sw.length !== n || sw.some((w) => !(w >= 0) || !Number.isFinite(w))) throw bad('sampleWeights must be n finite numbers ≥ 0');
  const l2 = o.l2 ?? 1e-3;
  const epochs = o.epochs ?? 400;
  const lr = o.learningRate ?? 0.05;

  // standardise
  const mean = new Array<number>(F).fill(0);
  const std = new Array<number>(F).fill(0);
  for (const row of X) for (let j = 0; j < F; j++) mean[j] += row[j] / n;
  for (const row of X) for (let j = 0; j < F; j++) std[j] += (row[j] - mean[j]) ** 2 / n;
  for (let j = 0; j < F; j++) std[j] = Math.sqrt(std[j]) || 1;
  const Z = X.map((row) => row.map((v, j) => (v - mean[j]) / std[j]));

  const R = o.kind === 'logistic' ? 1 : C;
  const W = Array.from({ length: R }, () => new Array<number>(F).fill(0));
  const b = new Array<number>(R).fill(0);
  const mW = W.map((r) => r.map(() => 0));
  const vW = W.map((r) => r.map(() => 0));
  const mb = b.map(() => 0);
  const vb = b.map(() => 0);
  const wsum = sw.reduce((a, c) => a + c, 0) || 1;
  const b1 = 0.9;
  const b2 = 0.999;
  for (let t = 1; t <= epochs; t++) {
    const gW = W.map((r) => r.map(() => 0));
    const gb = b.map(() => 0);
    for (let i = 0; i < n; i++) {
      const zi = Z[i];
      const z = W.map((row, r) => row.reduce((s, w, j) => s + w * zi[j], b[r]));
      // gradient of the NLL w.r.t. the logits
      const d = o.kind === 'logistic' ? [sigmoid(z[0]) - y[i]] : softmax(z).map((p, r) => p - (r === y[i] ? 1 : 0));
      const wi = sw[i] / wsum;
      for (let r = 0; r < R; r++) {
        gb[r] += wi * d[r];
        for (let j = 0; j < F; j++) gW[r][j] += wi * d[r] * zi[j];
      }
    }
    for (let r = 0; r < R; r++) {
      for (let j = 0; j < F; j++) {
        const g = gW[r][j] + l2 * W[r][j];
        mW[r][j] = b1 * mW[r][j] + (1 - b1) * g;
        vW[r][j] = b2 * vW[r][j] + (1 - b2) * g * g;
        W[r][j] -= (lr * (mW[r][j] / (1 - b1 ** t))) / (Math.sqrt(vW[r][j] / (1 - b2 ** t)) + 1e-8);
      }
      mb[r] = b1 * mb[r] + (1 - b1) * gb[r];
      vb[r] = b2 * vb[r] + (1 - b2) * gb[r] * gb[r];
      b[r] -= (lr * (mb[r] / (1 - b1 ** t))) / (Math.sqrt(vb[r] / (1 - b2 ** t)) + 1e-8);
    }
  }
  // bake the standardisation in: w' = w / std, b' = b − Σ w mean / std
  const weights = W.map((row) => row.map((w, j) => w / std[j]));
  const bias = W.map((row, r) => row.reduce((s, w, j) => s - (w * mean[j]) / std[j], b[r]));
  return {
    format: LEARNED_FORMAT,
    name: o.name,
    kind: o.kind,
    features: [...o.features],
    classes: [...o.classes],
    weights,
    bias,
    temperature: 1,
    ...(o.training ? { training: o.training } : {}),
  };
}

/**
 * Temperature T > 0 minimising the mean NLL of softmax(z / T) (or σ(z / T) for one logit per row) on
 * held-apart data (Guo et al. 2017). `logits[i]` is a row of logits (a single number for a binary
 * model), `labels[i]` the class index (0 / 1 for binary). Golden-section search over log T ∈
 * [log 0.05, log 20]. Returns 1 for no data.
 */
export function fitTemperature(logits: readonly (number | readonly number[])[], labels: readonly number[]): number {
  if (!logits.length) return 1;
  const nll = (T: number) => {
    let s = 0;
    for (let i = 0; i < logits.length; i++) {
      const z = logits[i];
      if (typeof z === 'number') {
        const p = sigmoid(z / T);
        s -= Math.log(Math.max(1e-12, labels[i] === 1 ? p : 1 - p));
      } else {
        s -= Math.log(Math.max(1e-12, softmax(z, T)[labels[i]]));
      }
    }
    return s / logits.length;
  };
  let lo = Math.log(0.05);
  let hi = Math.log(20);
  const g = (Math.sqrt(5) - 1) / 2;
  let a = hi - g * (hi - lo);
  let c = lo + g * (hi - lo);
  let fa = nll(Math.exp(a));
  let fc = nll(Math.exp(c));
  for (let it = 0; it < 60; it++) {
    if (fa < fc) {
      hi = c;
      c = a;
      fc = fa;
      a = hi - g * (hi - lo);
      fa = nll(Math.exp(a));
    } else {
      lo = a;
      a = c;
      fa = fc;
      c = lo + g * (hi - lo);
      fc = nll(Math.exp(c));
    }
  }
  return Math.exp((lo + hi) / 2);
}

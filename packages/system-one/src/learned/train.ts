/**
 * Training and calibration of learned System-One models (ours; standard methods): L2-regularised
 * logistic / softmax regression fitted by full-batch gradient descent (Adam) on standardised features,
 * with the standardisation baked back into the weights, and temperature scaling (Guo et al. 2017)
 * fitted on held-apart data. Used by the training scripts in `packages/<pkg>/scripts/`; nothing here
 * runs at query time.
 */
import { SystemOneError } from '../errors.js';
import { LEARNED_FORMAT, sigmoid, softmax, type LearnedModel } from './model.js';

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
  /**
   * Hidden ReLU units (ours): > 0 fits a one-hidden-layer perceptron (`hidden` in the file) by
   * mini-batch Adam with He-initialised weights from a seeded generator (`seed`), `epochs` passes over
   * the data in batches of `batchSize`. Default 0 (a linear model, full-batch).
   */
  hidden?: number;
  /** Mini-batch size of the hidden-layer fit. Default 256. */
  batchSize?: number;
  /** Seed of the hidden-layer fit's initialisation and shuffling. Default 1. */
  seed?: number;
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

  const { mean, std, Z } = standardise(X, F);
  if (o.hidden !== undefined && o.hidden > 0) {
    if (!Number.isInteger(o.hidden)) throw bad('hidden must be a positive integer');
    return trainHidden(Z, y, sw, mean, std, { ...o, hidden: o.hidden, l2, epochs, learningRate: lr });
  }

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
  return modelFile(o, weights, bias);
}

/** The model file of a trained model: output layer `weights`/`bias`, and the hidden layer when there is one. */
function modelFile(o: TrainOptions, weights: number[][], bias: number[], hidden?: { weights: number[][]; bias: number[] }): LearnedModel {
  return {
    format: LEARNED_FORMAT,
    name: o.name,
    kind: o.kind,
    features: [...o.features],
    classes: [...o.classes],
    weights,
    bias,
    temperature: 1,
    ...(hidden ? { hidden } : {}),
    ...(o.training ? { training: o.training } : {}),
  };
}

/**
 * Per-feature z-scores of a design matrix: mean and population standard deviation of each of the F
 * columns (a constant column, or one constant up to rounding — std ≤ 1e-12 × its largest |value| — gets std 1) and the standardised rows Z[i][j] = (X[i][j] − mean[j]) / std[j].
 * Shapes: X is n × F; mean and std have length F. Source: ours.
 */
export function standardise(X: readonly (readonly number[])[], F: number): { mean: number[]; std: number[]; Z: number[][] } {
  const n = X.length;
  const mean = new Array<number>(F).fill(0);
  const std = new Array<number>(F).fill(0);
  for (const row of X) for (let j = 0; j < F; j++) mean[j] += row[j] / n;
  for (const row of X) for (let j = 0; j < F; j++) std[j] += (row[j] - mean[j]) ** 2 / n;
  // a constant column (std 0, or the rounding residue of summing its values, far below the float
  // precision of its largest magnitude) gets std 1; real variation at any scale keeps its std
  const maxAbs = new Array<number>(F).fill(0);
  for (const row of X) for (let j = 0; j < F; j++) maxAbs[j] = Math.max(maxAbs[j], Math.abs(row[j]));
  for (let j = 0; j < F; j++) {
    const sd = Math.sqrt(std[j]);
    std[j] = sd > 1e-12 * maxAbs[j] && sd > 0 ? sd : 1;
  }
  return { mean, std, Z: X.map((row) => row.map((v, j) => (v - mean[j]) / std[j])) };
}

/** mulberry32: a small seeded generator in [0, 1) (reproducible initialisation and shuffling; the benches' workloads too). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The one-hidden-layer fit of `trainLearnedModel` on standardised rows `Z` (ours). */
function trainHidden(
  Z: number[][],
  y: readonly number[],
  sw: readonly number[],
  mean: number[],
  std: number[],
  o: TrainOptions & { hidden: number; l2: number; epochs: number; learningRate: number },
): LearnedModel {
  const n = Z.length;
  const F = Z[0].length;
  const H = o.hidden;
  const R = o.kind === 'logistic' ? 1 : o.classes.length;
  const rnd = seeded(o.seed ?? 1);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
  // parameters: hidden Wh (H × F), bh (H); output Wo (R × H), bo (R) — flat, with Adam moments
  const P = H * F + H + R * H + R;
  const p = new Float64Array(P);
  const iBh = H * F;
  const iWo = iBh + H;
  const iBo = iWo + R * H;
  for (let i = 0; i < H * F; i++) p[i] = gauss() * Math.sqrt(2 / F);
  for (let i = 0; i < R * H; i++) p[iWo + i] = gauss() * Math.sqrt(1 / H);
  const m1 = new Float64Array(P);
  const m2 = new Float64Array(P);
  const g = new Float64Array(P);
  const h = new Float64Array(H);
  const dh = new Float64Array(H);
  const z = new Float64Array(R);
  const batch = Math.max(1, o.batchSize ?? 256);
  const order = Array.from({ length: n }, (_, i) => i);
  const meanW = sw.reduce((a, c) => a + c, 0) / n || 1;
  let t = 0;
  for (let ep = 0; ep < o.epochs; ep++) {
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (let s0 = 0; s0 < n; s0 += batch) {
      const end = Math.min(n, s0 + batch);
      g.fill(0);
      for (let s = s0; s < end; s++) {
        const i = order[s];
        const zi = Z[i];
        for (let u = 0; u < H; u++) {
          let a = p[iBh + u];
          const off = u * F;
          for (let j = 0; j < F; j++) a += p[off + j] * zi[j];
          h[u] = a > 0 ? a : 0;
        }
        for (let r = 0; r < R; r++) {
          let a = p[iBo + r];
          for (let u = 0; u < H; u++) a += p[iWo + r * H + u] * h[u];
          z[r] = a;
        }
        const d = R === 1 ? [sigmoid(z[0]) - y[i]] : softmax(Array.from(z)).map((q, r) => q - (r === y[i] ? 1 : 0));
        const wi = sw[i] / meanW / (end - s0);
        dh.fill(0);
        for (let r = 0; r < R; r++) {
          const dr = wi * d[r];
          g[iBo + r] += dr;
          for (let u = 0; u < H; u++) {
            g[iWo + r * H + u] += dr * h[u];
            dh[u] += dr * p[iWo + r * H + u];
          }
        }
        for (let u = 0; u < H; u++) {
          if (h[u] <= 0) continue;
          g[iBh + u] += dh[u];
          const off = u * F;
          for (let j = 0; j < F; j++) g[off + j] += dh[u] * zi[j];
        }
      }
      t++;
      const b1 = 0.9;
      const b2 = 0.999;
      for (let k = 0; k < P; k++) {
        const isWeight = k < iBh || (k >= iWo && k < iBo);
        const gk = g[k] + (isWeight ? o.l2 * p[k] : 0);
        m1[k] = b1 * m1[k] + (1 - b1) * gk;
        m2[k] = b2 * m2[k] + (1 - b2) * gk * gk;
        p[k] -= (o.learningRate * (m1[k] / (1 - b1 ** t))) / (Math.sqrt(m2[k] / (1 - b2 ** t)) + 1e-8);
      }
    }
  }
  // bake the standardisation into the hidden layer: w' = w / std, b' = b − Σ w mean / std
  const hw: number[][] = [];
  const hb: number[] = [];
  for (let u = 0; u < H; u++) {
    const row: number[] = [];
    let b = p[iBh + u];
    for (let j = 0; j < F; j++) {
      row.push(p[u * F + j] / std[j]);
      b -= (p[u * F + j] * mean[j]) / std[j];
    }
    hw.push(row);
    hb.push(b);
  }
  const weights = Array.from({ length: R }, (_, r) => Array.from(p.subarray(iWo + r * H, iWo + (r + 1) * H)));
  return modelFile(o, weights, Array.from(p.subarray(iBo, iBo + R)), { weights: hw, bias: hb });
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

/**
 * Learned System-One models (ours): the JSON weights format shared by every small model the project
 * trains and ships (read-path routing, candidate relevance, stopping; the write path's relation model),
 * and their inference — a logistic model (one logit, p = σ(z / T)) or a softmax model (one logit per
 * class, p = softmax(z / T)). Weights are trained by scripts in `packages/<pkg>/scripts/` and shipped
 * as JSON next to the code that asks the question; `parseLearnedModel` validates a file before use.
 *
 * Shape (`format: 'mem.learned/1'`):
 * ```json
 * { "format": "mem.learned/1", "name": "retrieval.route", "kind": "softmax",
 *   "features": ["f1", "f2"], "classes": ["semantic", "causal"],
 *   "weights": [[0.1, -2], [1.3, 0.4]], "bias": [0, -0.2], "temperature": 1.4,
 *   "training": { "data": "locomo dev 0-3", "n": 812, "metrics": { "auc": 0.91, "ece": 0.03 } } }
 * ```
 * - `kind: 'logistic'`: `classes` = [negative, positive], `weights` has ONE row, `bias` one value;
 *   the probability is that of `classes[1]`.
 * - `kind: 'softmax'`: `weights` has one row per class (≥ 2), `bias` one value per class.
 * - Every row has one weight per feature; features are applied as given (any scaling is baked into
 *   the weights by the trainer). `temperature` > 0 divides the logits (calibration, Guo et al. 2017).
 * - Optional `hidden` (a one-hidden-layer perceptron, ours): `hidden.weights` has H rows of one weight
 *   per feature and `hidden.bias` H values; the hidden units are h = ReLU(W_h x + b_h), and then every
 *   row of `weights` has H values (one per hidden unit) instead of one per feature: z = W h + b.
 * - `training` is free-form metadata (data, split, sizes, metrics, script); never read by inference.
 */
import { z } from 'zod';
import { SystemOneError } from '../errors.js';

/** Format tag of the weights file. */
export const LEARNED_FORMAT = 'mem.learned/1' as const;

const finite = z.number().finite();

/** zod schema of a weights file (shape checks between fields are done in `parseLearnedModel`). */
export const LearnedModelSchema = z
  .object({
    format: z.literal(LEARNED_FORMAT),
    name: z.string().min(1),
    kind: z.enum(['logistic', 'softmax']),
    features: z.array(z.string().min(1)).min(1),
    classes: z.array(z.string().min(1)).min(2),
    weights: z.array(z.array(finite)).min(1),
    bias: z.array(finite).min(1),
    temperature: finite.positive(),
    hidden: z.object({ weights: z.array(z.array(finite)).min(1), bias: z.array(finite).min(1) }).strict().optional(),
    training: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/** A learned model: see the module comment for the meaning of each field. */
export type LearnedModel = z.infer<typeof LearnedModelSchema>;

/** Features given by name (every model feature must be present) or as a vector in `model.features` order. */
export type FeatureInput = Readonly<Record<string, number>> | readonly number[];

function invalid(message: string, details?: Record<string, unknown>): SystemOneError {
  return new SystemOneError('INVALID_MODEL', message, { details });
}

const MODEL_KEYS = new Set(['format', 'name', 'kind', 'features', 'classes', 'weights', 'bias', 'temperature', 'hidden', 'training']);
const HIDDEN_KEYS = new Set(['weights', 'bias']);

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
const nonEmptyStrings = (v: unknown, min: number): v is string[] => Array.isArray(v) && v.length >= min && v.every((x) => typeof x === 'string' && x.length > 0);
const finiteRow = (v: unknown, min = 0): v is number[] => Array.isArray(v) && v.length >= min && v.every((x) => typeof x === 'number' && Number.isFinite(x));
const finiteRows = (v: unknown): v is number[][] => Array.isArray(v) && v.length >= 1 && v.every((row) => finiteRow(row));
const onlyKeys = (o: Record<string, unknown>, keys: Set<string>) => Object.keys(o).every((k) => keys.has(k) && o[k] !== undefined);

/**
 * {@link LearnedModelSchema} checked by hand (ours): the same copy zod returns (fields in schema order,
 * fresh arrays) when `value` is a plain object that the schema surely accepts, else undefined (then
 * zod decides and words the error). It accepts a subset of what the schema accepts, never more.
 */
function fastParse(value: unknown): LearnedModel | undefined {
  if (!isPlainObject(value) || !onlyKeys(value, MODEL_KEYS)) return undefined;
  const { format, name, kind, features, classes, weights, bias, temperature, hidden, training } = value;
  if (format !== LEARNED_FORMAT || typeof name !== 'string' || !name || (kind !== 'logistic' && kind !== 'softmax')) return undefined;
  if (!nonEmptyStrings(features, 1) || !nonEmptyStrings(classes, 2) || !finiteRows(weights) || !finiteRow(bias, 1)) return undefined;
  if (typeof temperature !== 'number' || !Number.isFinite(temperature) || !(temperature > 0)) return undefined;
  if (hidden !== undefined && !(isPlainObject(hidden) && onlyKeys(hidden, HIDDEN_KEYS) && finiteRows(hidden.weights) && finiteRow(hidden.bias, 1))) return undefined;
  if (training !== undefined && !isPlainObject(training)) return undefined;
  const m: LearnedModel = { format, name, kind, features: [...features], classes: [...classes], weights: weights.map((r) => [...r]), bias: [...bias], temperature };
  if (hidden !== undefined) m.hidden = { weights: (hidden.weights as number[][]).map((r) => [...r]), bias: [...(hidden.bias as number[])] };
  if (training !== undefined) m.training = { ...training };
  return m;
}

/**
 * Validate a parsed weights file (or a JSON string) and return it typed.
 * Throws `SystemOneError` `INVALID_MODEL` when the format, the shapes (rows × features, bias per row,
 * classes per row) or any number is wrong, or the feature / class names repeat.
 */
export function parseLearnedModel(json: unknown): LearnedModel {
  let value = json;
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json);
    } catch (e) {
      throw new SystemOneError('INVALID_MODEL', `learned model: not JSON (${(e as Error).message})`, { cause: e });
    }
  }
  // the shipped weights are valid: check them by hand (zod costs ~0.1 s per process on the ask path,
  // most of it on the number arrays); zod reads anything the hand check does not accept, for its message
  let m = fastParse(value);
  if (!m) {
    const r = LearnedModelSchema.safeParse(value);
    if (!r.success) throw invalid(`learned model: ${r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
    m = r.data;
  }
  const rows = m.kind === 'logistic' ? 1 : m.classes.length;
  if (m.kind === 'logistic' && m.classes.length !== 2) throw invalid(`learned model ${m.name}: a logistic model has exactly 2 classes`);
  if (m.weights.length !== rows) throw invalid(`learned model ${m.name}: ${m.weights.length} weight rows, expected ${rows}`);
  if (m.bias.length !== rows) throw invalid(`learned model ${m.name}: ${m.bias.length} biases, expected ${rows}`);
  const inputs = m.hidden ? m.hidden.weights.length : m.features.length;
  m.weights.forEach((row, i) => {
    if (row.length !== inputs) throw invalid(`learned model ${m.name}: weight row ${i} has ${row.length} values, expected ${inputs}`);
  });
  if (m.hidden) {
    if (m.hidden.bias.length !== m.hidden.weights.length) throw invalid(`learned model ${m.name}: ${m.hidden.bias.length} hidden biases, expected ${m.hidden.weights.length}`);
    m.hidden.weights.forEach((row, i) => {
      if (row.length !== m.features.length) throw invalid(`learned model ${m.name}: hidden row ${i} has ${row.length} values, expected ${m.features.length}`);
    });
  }
  if (new Set(m.features).size !== m.features.length) throw invalid(`learned model ${m.name}: repeated feature names`);
  if (new Set(m.classes).size !== m.classes.length) throw invalid(`learned model ${m.name}: repeated class names`);
  return m;
}

/**
 * The feature vector of `x` in `model.features` order. Throws `INVALID_MODEL` when a named feature is
 * missing or not finite, or a vector has the wrong length (a model silently fed zeros would be wrong).
 */
export function featureVector(model: LearnedModel, x: FeatureInput): number[] {
  const f = model.features;
  let v: number[];
  if (Array.isArray(x)) {
    if (x.length !== f.length) throw invalid(`learned model ${model.name}: ${x.length} features given, expected ${f.length}`);
    v = x as number[];
  } else {
    const rec = x as Readonly<Record<string, number>>;
    v = f.map((name) => {
      const val = Object.prototype.hasOwnProperty.call(rec, name) ? rec[name] : undefined;
      if (val === undefined) throw invalid(`learned model ${model.name}: feature "${name}" missing`, { feature: name });
      return val;
    });
  }
  for (let i = 0; i < v.length; i++) {
    if (typeof v[i] !== 'number' || !Number.isFinite(v[i])) throw invalid(`learned model ${model.name}: feature "${f[i]}" is not a finite number`, { feature: f[i] });
  }
  return v;
}

/** Hidden units h = ReLU(W_h x + b_h) of a model with a hidden layer (ours). */
export function hiddenUnits(hidden: NonNullable<LearnedModel['hidden']>, v: readonly number[]): number[] {
  return hidden.weights.map((row, r) => {
    let z = hidden.bias[r];
    for (let i = 0; i < row.length; i++) z += row[i] * v[i];
    return z > 0 ? z : 0;
  });
}

/**
 * Raw logits z = W x + b (before temperature), or z = W h + b with h = {@link hiddenUnits} for a
 * model with a hidden layer: one value for logistic, one per class for softmax.
 */
export function modelLogits(model: LearnedModel, x: FeatureInput): number[] {
  const fv = featureVector(model, x);
  const v = model.hidden ? hiddenUnits(model.hidden, fv) : fv;
  return model.weights.map((row, r) => {
    let z = model.bias[r];
    for (let i = 0; i < row.length; i++) z += row[i] * v[i];
    return z;
  });
}

/** σ(z) = 1 / (1 + e^−z), stable for large |z|. */
export function sigmoid(z: number): number {
  if (z >= 0) return 1 / (1 + Math.exp(-z));
  const e = Math.exp(z);
  return e / (1 + e);
}

/** softmax(z / T) (max-shifted); `temperature` > 0, default 1. */
export function softmax(logits: readonly number[], temperature = 1): number[] {
  let mx = -Infinity;
  for (const z of logits) mx = Math.max(mx, z / temperature);
  const e = logits.map((z) => Math.exp(z / temperature - mx));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

/**
 * Calibrated class probabilities of `x`, in `model.classes` order (sum 1). Logistic: [1 − p, p] with
 * p = σ(z / T). Throws `INVALID_MODEL` as `featureVector` does, and when a logit z / T is not finite.
 */
export function predictProbabilities(model: LearnedModel, x: FeatureInput): number[] {
  const z = modelLogits(model, x);
  // Finite weights, inputs and T can still overflow (e.g. forged weights of 1e308, T of 1e-320): never
  // answer NaN or a probability from an infinite logit.
  for (const zi of z) {
    if (!Number.isFinite(zi / model.temperature)) throw invalid(`learned model ${model.name}: logit overflow (not a finite number after W·x + b and / T)`);
  }
  if (model.kind === 'logistic') {
    const p = sigmoid(z[0] / model.temperature);
    return [1 - p, p];
  }
  return softmax(z, model.temperature);
}

/**
 * The calibrated probability of one class (default: the positive class `classes[1]` of a logistic
 * model; required for softmax). Throws `INVALID_MODEL` for an unknown class.
 */
export function predictProbability(model: LearnedModel, x: FeatureInput, cls?: string): number {
  const k = cls === undefined ? (model.kind === 'logistic' ? 1 : -1) : model.classes.indexOf(cls);
  if (k < 0) throw invalid(`learned model ${model.name}: ${cls === undefined ? 'name the class of a softmax model' : `unknown class "${cls}"`}`);
  return predictProbabilities(model, x)[k];
}

/**
 * A predictor of `model` for hot loops (ours, for latency): the weights are packed once into typed
 * arrays, and `predict(x)` computes {@link predictProbabilities} of a feature vector (in
 * `model.features` order) with the same arithmetic in the same order, so the same probabilities bit
 * for bit, without a new array per hidden row. The weights are read here: a model changed afterwards
 * needs a new predictor. `predict` throws `INVALID_MODEL` as `predictProbabilities` does (wrong
 * length, a non-finite feature, a logit overflow).
 */
export function compileLearnedModel(model: LearnedModel): (x: ArrayLike<number>) => number[] {
  const F = model.features.length;
  const hidden = model.hidden;
  const H = hidden ? hidden.weights.length : 0;
  const hw = new Float64Array(H * F);
  const hb = new Float64Array(H);
  hidden?.weights.forEach((row, r) => {
    hb[r] = hidden.bias[r];
    for (let i = 0; i < F; i++) hw[r * F + i] = row[i];
  });
  const inputs = hidden ? H : F;
  const rows = model.weights.length;
  const w = new Float64Array(rows * inputs);
  model.weights.forEach((row, r) => {
    for (let i = 0; i < inputs; i++) w[r * inputs + i] = row[i];
  });
  const bias = Float64Array.from(model.bias);
  const h = new Float64Array(H);
  const z = new Array<number>(rows);
  const { kind, temperature, name } = model;
  return (x) => {
    if (x.length !== F) throw invalid(`learned model ${name}: ${x.length} features given, expected ${F}`);
    for (let i = 0; i < F; i++) {
      if (typeof x[i] !== 'number' || !Number.isFinite(x[i])) throw invalid(`learned model ${name}: feature "${model.features[i]}" is not a finite number`, { feature: model.features[i] });
    }
    let v: ArrayLike<number> = x;
    if (hidden) {
      for (let r = 0; r < H; r++) {
        let a = hb[r];
        const o = r * F;
        for (let i = 0; i < F; i++) a += hw[o + i] * x[i];
        h[r] = a > 0 ? a : 0;
      }
      v = h;
    }
    for (let r = 0; r < rows; r++) {
      let a = bias[r];
      const o = r * inputs;
      for (let i = 0; i < inputs; i++) a += w[o + i] * v[i];
      z[r] = a;
    }
    for (const zi of z) {
      if (!Number.isFinite(zi / temperature)) throw invalid(`learned model ${name}: logit overflow (not a finite number after W·x + b and / T)`);
    }
    if (kind === 'logistic') {
      const p = sigmoid(z[0] / temperature);
      return [1 - p, p];
    }
    return softmax(z, temperature);
  };
}

/** A logistic model's predictor in two stages (see {@link compileStagedLogistic}). */
export interface StagedLogistic {
  /** Length of the `acc` arrays: the hidden units, or 1 (the logit) without a hidden layer. */
  readonly units: number;
  /** acc = the first layer's bias plus its terms of the features before `end` (in order). */
  start(x: ArrayLike<number>, end: number, acc: Float64Array): void;
  /** p = σ(z / T) from a copy of `acc` (made by `start(x, from, acc)`) plus the terms of the features from `from` on. */
  finish(x: ArrayLike<number>, from: number, acc: Float64Array): number;
}

/**
 * A logistic model's p(positive class) in two stages (ours, issue 33 point 2: the read path predicts
 * p(evidence) of one candidate many times, and between two predictions often only its last
 * features move): `start` sums the first layer over the features before a split point, `finish` goes
 * on from a copy of those sums. For every split point, `finish(x, s, acc)` after `start(x, s, acc)`
 * equals `compileLearnedModel(model)(x)[1]` bit for bit: each sum adds the same terms in the same
 * order. A zero feature (and a zero hidden unit) adds no term: w · 0 is a zero, which leaves a
 * non-zero sum unchanged and can only flip the sign of a zero sum, which no later sum, ReLU or σ
 * reads (the weights are finite). Throws INVALID_MODEL for a model that is not logistic, a vector
 * of the wrong length, a non-finite feature or a logit overflow, as `compileLearnedModel` does.
 */
export function compileStagedLogistic(model: LearnedModel): StagedLogistic {
  if (model.kind !== 'logistic') throw invalid(`learned model ${model.name}: a staged predictor needs a logistic model`);
  const F = model.features.length;
  const hidden = model.hidden;
  const H = hidden ? hidden.weights.length : 1;
  // the first layer by feature (column i holds every unit's weight of feature i)
  const cols = new Float64Array(F * H);
  const b0 = new Float64Array(H);
  const first = hidden ? hidden.weights : model.weights;
  first.forEach((row, r) => {
    b0[r] = (hidden ? hidden.bias : model.bias)[r]!;
    for (let i = 0; i < F; i++) cols[i * H + r] = row[i]!;
  });
  const out = hidden ? Float64Array.from(model.weights[0]!) : null;
  const outBias = model.bias[0]!;
  const { temperature, name } = model;
  const h = new Float64Array(H);
  const add = (x: ArrayLike<number>, from: number, to: number, acc: Float64Array) => {
    if (x.length !== F) throw invalid(`learned model ${name}: ${x.length} features given, expected ${F}`);
    for (let i = from; i < to; i++) {
      const xi = x[i]!;
      if (typeof xi !== 'number' || !Number.isFinite(xi)) throw invalid(`learned model ${name}: feature "${model.features[i]}" is not a finite number`, { feature: model.features[i] });
      if (xi === 0) continue;
      const o = i * H;
      for (let r = 0; r < H; r++) acc[r]! += cols[o + r]! * xi;
    }
  };
  return {
    units: H,
    start(x, end, acc) {
      acc.set(b0);
      add(x, 0, end, acc);
    },
    finish(x, from, acc) {
      h.set(acc);
      add(x, from, F, h);
      let z = h[0]!;
      if (out) {
        z = outBias;
        for (let r = 0; r < H; r++) if (h[r]! > 0) z += out[r]! * h[r]!;
      }
      if (!Number.isFinite(z / temperature)) throw invalid(`learned model ${name}: logit overflow (not a finite number after W·x + b and / T)`);
      return sigmoid(z / temperature);
    },
  };
}

/** The same model with another temperature (e.g. from `fitTemperature`); checks T > 0. */
export function withTemperature(model: LearnedModel, temperature: number): LearnedModel {
  if (!(Number.isFinite(temperature) && temperature > 0)) throw invalid(`learned model ${model.name}: temperature must be a finite number > 0`);
  return { ...model, temperature };
}

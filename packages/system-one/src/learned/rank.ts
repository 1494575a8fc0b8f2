/**
 * Ranking objectives for a learned scorer (ours; standard methods): a one-hidden-layer perceptron (or
 * a linear model) whose single logit orders the members of a group (the candidates of one query),
 * fitted on the group's labels by mini-batch Adam over groups.
 *
 * - `pointwise`: binary cross-entropy of σ(z) per member (the member weighs the group's weight / |g|).
 * - `softmax` (ListNet top-one, Cao et al. 2007, §4): cross-entropy between softmax(z) over the group
 *   and the uniform distribution over its positives.
 * - `lambdarank` (Burges 2010, "From RankNet to LambdaRank to LambdaMART", §4): pairwise logistic loss
 *   on every (positive, negative) pair of a group, each pair weighted by |ΔNDCG| of swapping the two
 *   in the current order (normalised by the ideal DCG).
 *
 * `pointwiseMix` adds μ × the pointwise loss to a listwise one (keeps the logit on a probability
 * scale). A listwise logit is shift-invariant, so its probabilities come from {@link fitPlatt} on
 * held-apart data, baked in by {@link withPlatt}. Used by training scripts only; nothing here runs at
 * query time.
 */
import { SystemOneError } from '../errors.js';
import { LEARNED_FORMAT, sigmoid, type LearnedModel } from './model.js';
import { seeded, standardise } from './train.js';

export type RankObjective = 'pointwise' | 'softmax' | 'lambdarank';

export interface RankTrainOptions {
  /** Model name written into the file. */
  name: string;
  features: string[];
  /** Class names [negative, positive] of the resulting logistic file. */
  classes: string[];
  objective: RankObjective;
  /** Weight μ ≥ 0 of the pointwise loss added to a listwise objective. Default 0. */
  pointwiseMix?: number;
  /** Per-group weights (e.g. to balance datasets). Default 1 each. */
  groupWeights?: readonly number[];
  /** Hidden ReLU units; 0 = a linear scorer. Default 16. */
  hidden?: number;
  /** L2 penalty on the (standardised) weights. Default 1e-3. */
  l2?: number;
  /** Passes over the groups. Default 10. */
  epochs?: number;
  /** Adam step size. Default 0.003. */
  learningRate?: number;
  /** Groups per mini-batch. Default 8. */
  batchGroups?: number;
  /** Seed of initialisation and shuffling. Default 1. */
  seed?: number;
}

/**
 * The gradient dL/dz of one group's loss w.r.t. its members' logits `z` (labels `y` ∈ {0, 1}), for
 * `objective` plus μ × the pointwise loss. A group without a positive, or (listwise) without a
 * negative, contributes only its pointwise part.
 */
export function rankGradient(z: readonly number[], y: readonly number[], objective: RankObjective, pointwiseMix = 0): number[] {
  const n = z.length;
  const g = new Array<number>(n).fill(0);
  const pos = y.reduce((s, v) => s + v, 0);
  const mu = objective === 'pointwise' ? 1 : pointwiseMix;
  if (mu > 0) for (let i = 0; i < n; i++) g[i] += (mu * (sigmoid(z[i]) - y[i])) / n;
  if (objective === 'pointwise' || pos === 0 || pos === n) return g;
  if (objective === 'softmax') {
    let max = -Infinity;
    for (const v of z) if (v > max) max = v;
    let s = 0;
    const e = z.map((v) => Math.exp(v - max));
    for (const v of e) s += v;
    for (let i = 0; i < n; i++) g[i] += e[i] / s - y[i] / pos;
    return g;
  }
  // lambdarank: ranks in the current order, DCG gains 1 / log2(1 + rank)
  const order = z.map((v, i) => i).sort((a, b) => z[b] - z[a] || a - b);
  const rank = new Array<number>(n);
  order.forEach((i, r) => (rank[i] = r + 1));
  const disc = (r: number) => 1 / Math.log2(1 + r);
  let ideal = 0;
  for (let r = 1; r <= pos; r++) ideal += disc(r);
  for (let i = 0; i < n; i++) {
    if (!y[i]) continue;
    for (let j = 0; j < n; j++) {
      if (y[j]) continue;
      const delta = Math.abs(disc(rank[i]) - disc(rank[j])) / ideal;
      const l = delta * sigmoid(z[j] - z[i]);
      g[i] -= l;
      g[j] += l;
    }
  }
  return g;
}

/**
 * Fit a scorer on rows `X` (n × features), labels `y` (0 / 1) and `groups` (a group id per row; rows
 * of a group need not be contiguous). Returns a `logistic` `LearnedModel` (temperature 1; its
 * probabilities mean something only after {@link withPlatt} for a listwise objective). Throws
 * `SystemOneError` `INVALID_MODEL` for empty or ragged data, non-finite values, labels other than 0 / 1,
 * or bad options.
 */
export function trainRankingModel(X: readonly (readonly number[])[], y: readonly number[], groups: readonly number[], o: RankTrainOptions): LearnedModel {
  const n = X.length;
  const F = o.features.length;
  const bad = (m: string) => new SystemOneError('INVALID_MODEL', `train ${o.name}: ${m}`);
  if (!n || y.length !== n || groups.length !== n) throw bad(`need as many labels and groups as rows (got ${n} rows, ${y.length} labels, ${groups.length} groups)`);
  for (let i = 0; i < n; i++) {
    if (X[i].length !== F) throw bad(`row ${i} has ${X[i].length} values, expected ${F}`);
    for (const v of X[i]) if (!Number.isFinite(v)) throw bad(`row ${i} holds a non-finite value`);
    if (y[i] !== 0 && y[i] !== 1) throw bad(`label ${i} = ${y[i]} is not 0 or 1`);
  }
  const H = o.hidden ?? 16;
  if (!Number.isInteger(H) || H < 0) throw bad('hidden must be an integer ≥ 0');
  const mu = o.pointwiseMix ?? 0;
  if (!(mu >= 0)) throw bad('pointwiseMix must be ≥ 0');
  const l2 = o.l2 ?? 1e-3;
  const epochs = o.epochs ?? 10;
  const lr = o.learningRate ?? 0.003;
  const batch = Math.max(1, o.batchGroups ?? 8);

  const byGroup = new Map<number, number[]>();
  groups.forEach((gid, i) => {
    const list = byGroup.get(gid);
    if (list) list.push(i);
    else byGroup.set(gid, [i]);
  });
  const members = [...byGroup.values()];
  const gw = o.groupWeights ?? new Array<number>(members.length).fill(1);
  if (gw.length !== members.length || gw.some((w) => !(w >= 0) || !Number.isFinite(w))) throw bad(`groupWeights must be ${members.length} finite numbers ≥ 0 (one per distinct group, in order of first appearance)`);
  const meanGw = gw.reduce((a, c) => a + c, 0) / gw.length || 1;

  const { mean, std, Z } = standardise(X, F);

  const rnd = seeded(o.seed ?? 1);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
  // parameters: hidden Wh (H × F), bh (H), output wo (H, or F when linear), bo — flat, with Adam moments
  const I = H > 0 ? H : F;
  const iBh = H * F;
  const iWo = iBh + H;
  const iBo = iWo + I;
  const P = iBo + 1;
  const p = new Float64Array(P);
  for (let i = 0; i < H * F; i++) p[i] = gauss() * Math.sqrt(2 / F);
  if (H > 0) for (let i = 0; i < I; i++) p[iWo + i] = gauss() * Math.sqrt(1 / H);
  const m1 = new Float64Array(P);
  const m2 = new Float64Array(P);
  const g = new Float64Array(P);
  const hOf = (zi: readonly number[], h: Float64Array) => {
    for (let u = 0; u < H; u++) {
      let a = p[iBh + u];
      const off = u * F;
      for (let j = 0; j < F; j++) a += p[off + j] * zi[j];
      h[u] = a > 0 ? a : 0;
    }
  };
  const order = members.map((_, i) => i);
  let t = 0;
  for (let ep = 0; ep < epochs; ep++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (let s0 = 0; s0 < order.length; s0 += batch) {
      const end = Math.min(order.length, s0 + batch);
      g.fill(0);
      for (let s = s0; s < end; s++) {
        const rows = members[order[s]];
        const hs = rows.map(() => new Float64Array(H));
        const z = rows.map((r, k) => {
          const v = H > 0 ? (hOf(Z[r], hs[k]), hs[k]) : Z[r];
          let a = p[iBo];
          for (let u = 0; u < I; u++) a += p[iWo + u] * v[u];
          return a;
        });
        const dz = rankGradient(
          z,
          rows.map((r) => y[r]),
          o.objective,
          mu,
        );
        const w = gw[order[s]] / meanGw / (end - s0);
        rows.forEach((r, k) => {
          const d = w * dz[k];
          if (d === 0) return;
          g[iBo] += d;
          const v = H > 0 ? hs[k] : Z[r];
          for (let u = 0; u < I; u++) g[iWo + u] += d * v[u];
          for (let u = 0; u < H; u++) {
            if (hs[k][u] <= 0) continue;
            const dh = d * p[iWo + u];
            g[iBh + u] += dh;
            const off = u * F;
            for (let j = 0; j < F; j++) g[off + j] += dh * Z[r][j];
          }
        });
      }
      t++;
      const b1 = 0.9;
      const b2 = 0.999;
      for (let k = 0; k < P; k++) {
        const isWeight = k < iBh || (k >= iWo && k < iBo);
        const gk = g[k] + (isWeight ? l2 * p[k] : 0);
        m1[k] = b1 * m1[k] + (1 - b1) * gk;
        m2[k] = b2 * m2[k] + (1 - b2) * gk * gk;
        p[k] -= (lr * (m1[k] / (1 - b1 ** t))) / (Math.sqrt(m2[k] / (1 - b2 ** t)) + 1e-8);
      }
    }
  }
  // bake the standardisation in: w' = w / std, b' = b − Σ w mean / std (hidden layer, or the output when linear)
  const bake = (w: ArrayLike<number>, b: number) => {
    const row: number[] = [];
    for (let j = 0; j < F; j++) {
      row.push(w[j] / std[j]);
      b -= (w[j] * mean[j]) / std[j];
    }
    return { row, b };
  };
  const base = { format: LEARNED_FORMAT, name: o.name, kind: 'logistic' as const, features: [...o.features], classes: [...o.classes], temperature: 1 };
  if (H === 0) {
    const { row, b } = bake(p.subarray(iWo, iWo + F), p[iBo]);
    return { ...base, weights: [row], bias: [b] };
  }
  const hw: number[][] = [];
  const hb: number[] = [];
  for (let u = 0; u < H; u++) {
    const { row, b } = bake(p.subarray(u * F, (u + 1) * F), p[iBh + u]);
    hw.push(row);
    hb.push(b);
  }
  return { ...base, weights: [Array.from(p.subarray(iWo, iWo + H))], bias: [p[iBo]], hidden: { weights: hw, bias: hb } };
}

/**
 * Platt scaling (Platt 1999; the Newton method with backtracking line search of Lin, Lin & Weng 2007):
 * a and b minimising the mean NLL of σ(a z + b) on held-apart logits `z` and labels 0 / 1, with Platt's
 * smoothed targets. Returns { a: 1, b: 0 } for no data; a is floored at 1e-3 so the order is kept.
 */
export function fitPlatt(z: readonly number[], labels: readonly number[]): { a: number; b: number } {
  if (!z.length) return { a: 1, b: 0 };
  const np = labels.filter((v) => v === 1).length;
  const nn = labels.length - np;
  const hi = (np + 1) / (np + 2);
  const lo = 1 / (nn + 2);
  const tgt = labels.map((v) => (v === 1 ? hi : lo));
  // NLL with σ computed stably: −t·log σ(s) − (1 − t)·log(1 − σ(s)) = log(1 + e^s) − t·s
  const loss = (a: number, b: number) => {
    let f = 0;
    for (let i = 0; i < z.length; i++) {
      const s = a * z[i] + b;
      f += (s > 0 ? s + Math.log1p(Math.exp(-s)) : Math.log1p(Math.exp(s))) - tgt[i] * s;
    }
    return f;
  };
  let a = 1;
  let b = Math.log((np + 1) / (nn + 1));
  let f = loss(a, b);
  for (let it = 0; it < 100; it++) {
    let ga = 0;
    let gb = 0;
    let haa = 1e-12;
    let hab = 0;
    let hbb = 1e-12;
    for (let i = 0; i < z.length; i++) {
      const q = sigmoid(a * z[i] + b);
      const d = q - tgt[i];
      const w = q * (1 - q);
      ga += d * z[i];
      gb += d;
      haa += w * z[i] * z[i];
      hab += w * z[i];
      hbb += w;
    }
    if (Math.abs(ga) + Math.abs(gb) < 1e-9 * z.length) break;
    const det = haa * hbb - hab * hab;
    let da = (hbb * ga - hab * gb) / det;
    let db = (haa * gb - hab * ga) / det;
    if (!(Math.abs(det) > 1e-18) || !Number.isFinite(da) || !Number.isFinite(db)) {
      da = ga / haa; // fall back to a diagonal step
      db = gb / hbb;
    }
    let step = 1;
    let moved = false;
    while (step > 1e-10) {
      const fa = loss(a - step * da, b - step * db);
      if (fa < f + 1e-4 * step * -(ga * da + gb * db)) {
        a -= step * da;
        b -= step * db;
        f = fa;
        moved = true;
        break;
      }
      step /= 2;
    }
    if (!moved) break;
  }
  return { a: Math.max(1e-3, a), b };
}

/** `model` (logistic, temperature folded in) with σ(a z + b) baked into its output layer (temperature 1). */
export function withPlatt(model: LearnedModel, platt: { a: number; b: number }): LearnedModel {
  if (model.kind !== 'logistic') throw new SystemOneError('INVALID_MODEL', `Platt scaling needs a logistic model, got ${model.kind}`);
  const s = platt.a / model.temperature;
  return { ...model, weights: [model.weights[0].map((w) => w * s)], bias: [model.bias[0] * s + platt.b], temperature: 1 };
}

/**
 * Metrics of learned System-One models (standard definitions): ROC AUC, expected calibration error,
 * log loss, accuracy. Used by the training scripts and the benches to report calibration beside
 * accuracy / AUC.
 */

/**
 * ROC AUC = P(score of a random positive > score of a random negative), ties counting 1/2
 * (Mann–Whitney U with mid-ranks; O(n log n)). `labels` are 0 / 1 (or booleans). NaN when one class
 * is absent.
 */
export function rocAuc(scores: readonly number[], labels: readonly (number | boolean)[]): number {
  const n = scores.length;
  const idx = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[a] - scores[b]);
  let pos = 0;
  let rankSum = 0;
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && scores[idx[j + 1]] === scores[idx[i]]) j++;
    const mid = (i + j) / 2 + 1; // 1-based mid-rank of the tie group
    for (let k = i; k <= j; k++) if (labels[idx[k]] === 1 || labels[idx[k]] === true) {
      pos++;
      rankSum += mid;
    }
    i = j + 1;
  }
  const neg = n - pos;
  if (!pos || !neg) return NaN;
  return (rankSum - (pos * (pos + 1)) / 2) / (pos * neg);
}

/**
 * Expected calibration error with `bins` equal-width bins over [0, 1] (Guo et al. 2017):
 * Σ_b |B|/N · |mean outcome(B) − mean confidence(B)|.
 * - Binary model: `confidences` = p(positive), `outcomes` = the 0/1 labels (reliability of p itself).
 * - Multi-class (top-label ECE): `confidences` = max probability, `outcomes` = whether argmax was right.
 * NaN for no data.
 */
export function expectedCalibrationError(confidences: readonly number[], outcomes: readonly (number | boolean)[], bins = 10): number {
  const n = confidences.length;
  if (!n) return NaN;
  const sumConf = new Array<number>(bins).fill(0);
  const sumOut = new Array<number>(bins).fill(0);
  const count = new Array<number>(bins).fill(0);
  for (let i = 0; i < n; i++) {
    const c = confidences[i];
    const b = Math.min(bins - 1, Math.max(0, Math.floor(c * bins)));
    sumConf[b] += c;
    sumOut[b] += outcomes[i] === true || outcomes[i] === 1 ? 1 : 0;
    count[b]++;
  }
  let e = 0;
  for (let b = 0; b < bins; b++) if (count[b]) e += (count[b] / n) * Math.abs(sumOut[b] / count[b] - sumConf[b] / count[b]);
  return e;
}

/** Mean negative log-likelihood of the true class; `probs[i]` is a distribution, `labels[i]` its class index. Probabilities are clipped at 1e-12. */
export function logLoss(probs: readonly (readonly number[])[], labels: readonly number[]): number {
  if (!probs.length) return NaN;
  let s = 0;
  for (let i = 0; i < probs.length; i++) s -= Math.log(Math.max(1e-12, probs[i][labels[i]]));
  return s / probs.length;
}

/** Share of rows whose argmax is the label. NaN for no data. */
export function accuracy(probs: readonly (readonly number[])[], labels: readonly number[]): number {
  if (!probs.length) return NaN;
  let ok = 0;
  for (let i = 0; i < probs.length; i++) if (argmax(probs[i]) === labels[i]) ok++;
  return ok / probs.length;
}

/** Index of the largest value (first on ties). */
export function argmax(xs: readonly number[]): number {
  let k = 0;
  for (let i = 1; i < xs.length; i++) if (xs[i] > xs[k]) k = i;
  return k;
}

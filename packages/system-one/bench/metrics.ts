/** Classification metrics for the bench (standard definitions). */

/** ROC AUC by the Mann–Whitney U statistic (ties count 1/2); NaN when one class is absent. */
export function auc(scores: number[], labels: number[]): number {
  const pos = scores.filter((_, i) => labels[i] === 1);
  const neg = scores.filter((_, i) => labels[i] === 0);
  if (!pos.length || !neg.length) return NaN;
  let u = 0;
  for (const p of pos) for (const n of neg) u += p > n ? 1 : p === n ? 0.5 : 0;
  return u / (pos.length * neg.length);
}

/**
 * Expected calibration error with `bins` equal-width bins over the confidence of the predicted class
 * (Guo et al. 2017): Σ_b |B|/N · |acc(B) − conf(B)|.
 */
export function ece(confidences: number[], correct: boolean[], bins = 10): number {
  const n = confidences.length;
  if (!n) return NaN;
  const sumConf = new Array(bins).fill(0);
  const sumAcc = new Array(bins).fill(0);
  const count = new Array(bins).fill(0);
  confidences.forEach((c, i) => {
    const b = Math.min(bins - 1, Math.floor(c * bins));
    sumConf[b] += c;
    sumAcc[b] += correct[i] ? 1 : 0;
    count[b]++;
  });
  let e = 0;
  for (let b = 0; b < bins; b++) if (count[b]) e += (count[b] / n) * Math.abs(sumAcc[b] / count[b] - sumConf[b] / count[b]);
  return e;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.round((p / 100) * (s.length - 1))))];
}

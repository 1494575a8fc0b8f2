/** Classification metrics for the bench (standard definitions). */

/** ROC AUC and top-label ECE: the shared definitions of src/learned. */
export { rocAuc as auc, expectedCalibrationError as ece } from '../src/learned/metrics.js';

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.round((p / 100) * (s.length - 1))))];
}

/** Synthetic data shared by the learned-model tests (deterministic: `r` is a seeded generator). */
import { sigmoid } from '../src/learned/model.js';

/** A standard normal draw (Box–Muller, two draws of `r`). */
export const gauss = (r: () => number) => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());

/**
 * `n` labels drawn from a calibrated logit z ~ N(0, 2²) (label 1 with probability σ(z)), and the
 * logits a model `factor`× over-confident and shifted by `shift` would give: factor · z + shift.
 */
export function overconfidentLogits(r: () => number, n: number, factor: number, shift = 0): { logits: number[]; labels: number[] } {
  const logits: number[] = [];
  const labels: number[] = [];
  for (let i = 0; i < n; i++) {
    const z = gauss(r) * 2;
    labels.push(r() < sigmoid(z) ? 1 : 0);
    logits.push(factor * z + shift);
  }
  return { logits, labels };
}

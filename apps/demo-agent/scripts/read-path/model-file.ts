/**
 * Writing a trained read-path model (ours, shared by train.ts, train-expansion.ts, train-stopping.ts and
 * train-breadth.ts): weights rounded to 6 decimals, the split it was fitted on, and the one explicit step
 * that ships it (`pnpm models:install`; a script never writes into a package's src/).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LearnedModel } from '@mem/system-one';

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** The model with its weights, bias, temperature and hidden layer rounded to 6 decimals (keeps the files small and diffable). */
export function roundedModel<M extends LearnedModel>(model: M): M {
  return {
    ...model,
    weights: model.weights.map((r) => r.map(round6)),
    bias: model.bias.map(round6),
    temperature: round6(model.temperature),
    ...(model.hidden ? { hidden: { weights: model.hidden.weights.map((r) => r.map(round6)), bias: model.hidden.bias.map(round6) } } : {}),
  };
}

/** Metrics as written into `training.metrics`: every number rounded to 6 decimals. */
export function roundedMetrics(metrics: Record<string, Record<string, number>>): Record<string, Record<string, number>> {
  return Object.fromEntries(Object.entries(metrics).map(([k, v]) => [k, Object.fromEntries(Object.entries(v).map(([a, b]) => [a, round6(b)]))]));
}

/** The fixed split (corpus.ts TRAIN) as written into `training`; `swap` = fitted on the held-out half (the reverse fold of a cross-fit). */
export function splitRecord(swap = false): { train_split: Record<string, number[]>; held_out_split: Record<string, number[]> } {
  const train = { locomo: [0, 1, 2, 3], beam: [1, 2, 3, 4, 5] };
  const held = { locomo: [4, 5, 6, 7], beam: [6, 7, 8, 9, 10] };
  return swap ? { train_split: held, held_out_split: train } : { train_split: train, held_out_split: held };
}

/**
 * Writes `content` as JSON to `out` (resolved against the caller's working folder) or to
 * `<scriptDir>/out/<defaultName>`, and prints the `pnpm models:install` line that ships it to `target`
 * (`<package>/src/…/models/<name>.json`).
 */
export function writeModelFile(content: unknown, opts: { out?: string; scriptDir: string; defaultName: string; target: string; indent?: number }): string {
  const file = opts.out ? path.resolve(process.env.INIT_CWD ?? process.cwd(), opts.out) : path.resolve(opts.scriptDir, 'out', opts.defaultName);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(content, null, opts.indent) + '\n');
  console.log(`\nwritten ${file}\nship it with: pnpm models:install ${path.relative(process.cwd(), file)} ${opts.target}`);
  return file;
}

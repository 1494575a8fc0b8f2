/** Numbers and row keys for the read-path scripts' dumps and tables (ours). */

/** The fields every dumped question row starts with (dump.ts, dump-expansion.ts; read by train.ts, train-expansion.ts). */
export interface DumpedQuestion {
  dataset: string;
  conversation: number;
  split: 'train' | 'held';
  qa: number;
  type: string;
  evidence: string[];
}

/** Mean of a list (NaN when empty). */
export const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
/** Three decimals, '–' for NaN. */
export const f3 = (x: number): string => (Number.isFinite(x) ? x.toFixed(3) : '–');

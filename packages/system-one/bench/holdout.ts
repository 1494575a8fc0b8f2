/**
 * A second hand-labelled set (ours; the rows in `data/holdout.json`), written after the first bench
 * run and BEFORE any tuning of the scorers. The scorers are never tuned on it: the bench reports
 * it separately as a held-out check of how much tuning on `dataset.ts` over-fitted.
 */
import rows from './data/holdout.json';
import { labelledCases, type LabelledCase, type LabelledRows } from './labelled.js';

export const holdout: readonly LabelledCase[] = labelledCases(rows as LabelledRows);

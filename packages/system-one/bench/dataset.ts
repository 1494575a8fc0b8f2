/**
 * The development set of the offline backend (ours; the rows in `data/dev.json`, their format in
 * `labelled.ts`). Written before the scorers were tuned; labels are what a careful human would
 * answer, not what the scorers output.
 */
import rows from './data/dev.json';
import { labelledCases, type LabelledCase, type LabelledRows } from './labelled.js';

export type { LabelledCase } from './labelled.js';

export const dataset: readonly LabelledCase[] = labelledCases(rows as LabelledRows);

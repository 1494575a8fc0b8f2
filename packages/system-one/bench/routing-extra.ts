/**
 * Extra hand-labelled routing queries (ours; the rows in `data/routing-extra.json`), added to train
 * the learned routing models (scripts/train-routing.ts): questions whose reason is asked anywhere in
 * the sentence ("…, and why?", "what was the reason …"), and questions that mention a reason word
 * without asking for one. The paper's running example is NOT in this list (it is the check the
 * script prints).
 */
import rows from './data/routing-extra.json';
import { labelledCases, type LabelledCase, type LabelledRows } from './labelled.js';

export const routingExtra: readonly LabelledCase[] = labelledCases(rows as LabelledRows);

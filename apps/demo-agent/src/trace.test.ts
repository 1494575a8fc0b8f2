import { describe, expect, it } from 'vitest';
import { formatBudgets, normalizeTrace } from './trace.js';

describe('formatBudgets', () => {
  const budgets = { given: { semantic: 67, temporal: 10, causal: 0, entity: 13 }, spent: { semantic: 3, temporal: 1, causal: 0, entity: 0 } };

  it('shows active views as spent/given and marks inactive ones (as in the trace)', () => {
    expect(formatBudgets(budgets, ['semantic', 'entity'], true)).toBe('semantic 3/67 · entity 0/13 · temporal 1/10 (view inactive: episode context only) · inactive: causal');
    expect(formatBudgets(budgets, ['semantic', 'entity'], false)).toBe('semantic 3/67 · entity 0/13 · temporal 1/10 (view inactive) · inactive: causal');
    expect(formatBudgets(budgets, ['semantic', 'temporal', 'causal', 'entity'])).toBe('semantic 3/67 · temporal 1/10 · causal 0/0 · entity 0/13');
    expect(formatBudgets(null, [])).toBe('(none)');
  });

  it('normalizeTrace keeps the episode-context flag', () => {
    expect(normalizeTrace({ activeViews: ['semantic'], episodeContext: true }).episodeContext).toBe(true);
    expect(normalizeTrace({}).episodeContext).toBe(false);
  });
});

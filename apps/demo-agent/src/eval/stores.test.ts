import { describe, expect, it } from 'vitest';
import { formatStoreComparison, runEval, type PreparedConversation } from './engine.js';
import type { EvalSystemFactory } from './types.js';
import { MemValidationError } from '@mem/core';
import { expectMemError } from '@mem/test-utils';

// A fake system whose answers depend on the store it is given: finds the evidence on sqlite, not on neo4j.
const seen: (string | undefined)[] = [];
const registry: Record<string, EvalSystemFactory> = {
  fake: (ctx) => {
    seen.push(ctx.store);
    return {
      name: ctx.name,
      build: async () => ({ observations: 1, gate: { add: 1, update: 0, noop: 0 }, seconds: ctx.store === 'neo4j' ? 2 : 1 }),
      search: async () => ({ ids: ctx.store === 'neo4j' ? ['D1:9'] : ['D1:1'], controllerCalls: 0, context: () => '' }),
      close: async () => {},
    };
  },
};
const conv: PreparedConversation = {
  index: 0,
  observations: [{ text: 'a', speaker: 'A', observedAt: '2024-01-01T00:00:00Z', sourceId: 'D1:1', session: 1, turn: 1, metadata: {} } as any],
  questions: [{ qaIndex: 0, category: 1, groups: ['overall', 'single-hop'], answerGroups: [], question: 'q', answer: '', evidence: ['D1:1'] }],
};

describe('eval on several stores (--stores)', () => {
  it('runs every system once per store as <system>@<store>, passes the store to the factory, and prints both side by side', async () => {
    seen.length = 0;
    const report = await runEval([conv], { dataset: 't', groups: ['overall', 'single-hop'], systems: ['fake'], registry, ks: [1], stores: ['sqlite', 'neo4j'] });
    expect(Object.keys(report.systems)).toEqual(['fake@sqlite', 'fake@neo4j']);
    expect(seen).toEqual(['sqlite', 'neo4j']);
    expect(report.config.stores).toEqual(['sqlite', 'neo4j']);
    const table = formatStoreComparison(report);
    expect(table).toContain('| fake | 1.000 / 0.000 (-1.000) | 1.0 / 2.0 (2.00×)');
    expect(table).toContain('largest overall recall difference: 1.000');
  });

  it('one store: names unchanged, no comparison; bad store lists are INVALID_INPUT', async () => {
    const report = await runEval([conv], { dataset: 't', groups: ['overall'], systems: ['fake'], registry, ks: [1], stores: ['neo4j'] });
    expect(Object.keys(report.systems)).toEqual(['fake']);
    expect(formatStoreComparison(report)).toBe('');
    await expectMemError(runEval([conv], { dataset: 't', groups: ['overall'], systems: ['fake'], registry, stores: ['mysql' as any] }), MemValidationError, 'INVALID_INPUT');
    await expectMemError(runEval([conv], { dataset: 't', groups: ['overall'], systems: ['fake'], registry, stores: ['neo4j', 'neo4j'] }), MemValidationError, 'INVALID_INPUT');
  });
});

import { describe, expect, it } from 'vitest';
import { catalogue } from '@mem/system-one';
import type { Embedder } from '@mem/core';
import { createEvalSystemOne } from './mem.js';

function countingEmbedder(): Embedder & { texts: string[] } {
  const texts: string[] = [];
  return {
    model: 'count-test',
    dimension: 4,
    texts,
    async embed(batch) {
      texts.push(...batch);
      return batch.map((t) => {
        const v = new Float32Array(4);
        for (const w of t.toLowerCase().split(/\W+/).filter(Boolean)) v[w.length % 4] += 1;
        const n = Math.hypot(...v) || 1;
        return v.map((x) => x / n);
      });
    },
  };
}

describe('createEvalSystemOne', () => {
  const state = { query: 'Which pet does Ana have?', candidates: [{ text: 'Ana adopted a grey cat last spring' }], evidence: [] };
  const questions = { r: catalogue.scoring.relevance(0) };

  it('answers questions without a precomputed cosine through the injected embedder (default)', async () => {
    const e = countingEmbedder();
    const { answers } = await createEvalSystemOne(e).ask(state, questions as any);
    expect(typeof answers.r).toBe('number');
    expect(e.texts.length).toBeGreaterThan(0);
  });

  it('embed: false gives the lexical-only offline backend', async () => {
    const e = countingEmbedder();
    const { answers } = await createEvalSystemOne(e, { embed: false }).ask(state, questions as any);
    expect(typeof answers.r).toBe('number');
    expect(e.texts).toEqual([]);
  });
});

describe('the @mem eval systems on a memory that was never written (break-it finding, issue 17)', () => {
  it('jev, bm25, dense and hybrid return an empty result, not STORE_ERROR', async () => {
    const { jevSystem, bm25System, denseSystem, hybridSystem } = await import('./mem.js');
    const cleanups: (() => Promise<void> | void)[] = [];
    const ctx = { conversation: 0, shared: new Map<string, unknown>(), runShared: new Map<string, unknown>([['embedder', countingEmbedder()]]), defer: (f: () => Promise<void> | void) => void cleanups.push(f) };
    try {
      for (const [name, factory] of [['jev', jevSystem()], ['bm25', bm25System], ['dense', denseSystem], ['hybrid', hybridSystem]] as const) {
        const system = await factory({ ...ctx, name });
        const stats = await system.build([]);
        expect(stats.observations, name).toBe(0);
        const r = await system.search('Which pet does Ana have?', 5, { budgetTokens: 200 });
        expect(r.ids, name).toEqual([]);
      }
    } finally {
      for (const f of cleanups) await f();
    }
  });
});

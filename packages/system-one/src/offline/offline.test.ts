import { describe, expect, it, vi } from 'vitest';
import { batches, catalogue, CATALOGUE_KINDS } from '../catalogue.js';
import { createSystemOne } from '../controller.js';
import { createOfflineBackend } from './index.js';
import { aliasScore } from './scorers.js';
import { eventInterval, relativeInterval } from './text.js';

const s1 = createSystemOne();
const prefix = <T extends object>(p: string, o: T) => Object.fromEntries(Object.entries(o).map(([k, v]) => [p + k, v])) as Record<string, any>;
const route = async (query: string) => (await s1.ask({ query }, batches.routing())).answers;

describe('routing', () => {
  it('temporal for when-questions, causal for why, multi-hop for would/might', async () => {
    const a = await route('When did Caroline go to the LGBTQ support group?');
    expect(a.temporal).toBeGreaterThan(0.8);
    expect(a.causal).toBeLessThan(0.2);
    expect(a.entity).toBeGreaterThan(0.7);
    const b = await route('Why did Jonas sell his motorbike?');
    expect(b.causal).toBeGreaterThan(0.8);
    expect(b.temporal).toBeLessThan(0.3);
    const c = await route('Would Priya enjoy a pottery class?');
    expect(c.multi_hop_need).toBeGreaterThan(0.6);
    const d = await route('What might Tomas do after he graduates?');
    expect(d.multi_hop_need).toBeGreaterThan(0.6);
    const e = await route('What is the name of my dentist?');
    expect(e.multi_hop_need).toBeLessThan(0.3);
    const f = await route('What is Lena reading these days?');
    expect(f.recency_importance).toBeGreaterThan(0.6);
  });
});

describe('relations (the paper running example)', () => {
  const state = {
    new_memory: { text: 'Mira: I bought a new bicycle yesterday because my old one broke.', time: '2024-05-16T10:00:00Z', entities: ['Mira', 'bicycle'] },
    candidates: [
      { text: 'Mira: My old bicycle broke.', time: '2024-05-14T10:00:00Z', entities: ['Mira', 'bicycle'] },
      { text: 'Oskar plays the cello in a string quartet.', time: '2024-05-02T10:00:00Z' },
    ],
  };
  it('caused_by the broken bicycle, not causes it; related; ordered after', async () => {
    const { answers: a } = await s1.ask(state, batches.relations(2));
    expect(a.pair_0_caused_by).toBeGreaterThan(0.6);
    expect(a.pair_0_causes).toBeLessThan(0.3);
    expect(a.pair_0_semantic).toBeGreaterThan(0.6);
    expect(a.pair_1_semantic).toBeLessThan(0.3);
    expect(a.pair_1_caused_by).toBeLessThan(0.3);
    expect(a.pair_0_temporal_order.choice).toBe('after');
  });
  it('resolves "yesterday" against the observation time (UTC)', () => {
    const i = eventInterval(state.new_memory)!;
    expect(new Date(i.start).toISOString()).toBe('2024-05-15T00:00:00.000Z');
    expect(relativeInterval('nothing relative here', 0)).toBeNull();
  });
});

describe('entity alias', () => {
  it('scores nicknames, acronyms and token subsets above unrelated names', () => {
    expect(aliasScore('robert', 'bob')).toBeGreaterThan(0.8);
    expect(aliasScore('new york city', 'nyc')).toBeGreaterThan(0.8);
    expect(aliasScore('maria lopez', 'lopez')).toBeGreaterThan(0.7);
    expect(aliasScore('anna', 'george')).toBeLessThan(0.2);
  });
});

describe('offline backend', () => {
  it('answers every catalogue kind with a valid value', async () => {
    const state = {
      observation: 'I always preheat the oven to 200 degrees first, then bake the bread for 30 minutes.',
      query: 'How do I bake bread?',
      new_memory: 'I bake bread every Sunday.',
      candidates: [{ text: 'Preheat the oven before baking bread.', relation: 'semantic' }],
      evidence: ['I bake bread every Sunday.'],
      depth: 2,
    };
    const all = {
      ...prefix('typing_', batches.typing()), ...prefix('routing_', batches.routing()), ...batches.stopping(), ...batches.relations(1), ...batches.scoring(1),
      red: catalogue.consolidation.redundant(0), con: catalogue.consolidation.contradiction(0), obs: catalogue.consolidation.obsolete(0),
      link: catalogue.consolidation.link(0), rep: catalogue.consolidation.representation(0), state: catalogue.state.change(0),
    };
    const kinds = new Set(Object.values(all).map((q) => q.kind));
    expect([...kinds].sort()).toEqual([...CATALOGUE_KINDS].sort());
    const r = await createSystemOne({ cache: false }).ask(state, all as Record<string, any>);
    for (const t of r.traces) expect(t.error).toBeUndefined();
    expect((r.answers as Record<string, any>).typing_procedural).toBeGreaterThan(0.7);
  });

  it('recomputes features when a state item is mutated between calls', async () => {
    const s = createSystemOne({ cache: false });
    const cand = { text: 'Oskar plays the cello.' };
    const state = { new_memory: 'Oskar plays the cello in a quartet.', candidates: [cand] };
    const before = (await s.ask(state, { r: catalogue.relation.semantic(0) })).answers.r;
    cand.text = 'The tax return is due in April.';
    const after = (await s.ask(state, { r: catalogue.relation.semantic(0) })).answers.r;
    expect(after).toBeLessThan(before - 0.3);
  });

  it('is deterministic', async () => {
    const st = { query: 'Why did Ana quit her job at the bakery?', evidence: ['Ana quit the bakery because the hours were too long.'], depth: 1 };
    const a = await createSystemOne({ cache: false }).ask(st, batches.stopping());
    const b = await createSystemOne({ cache: false }).ask(st, batches.stopping());
    expect(a.answers).toEqual(b.answers);
    expect(a.answers.evidence_sufficient).toBeGreaterThan(b.answers.missing_evidence);
  });

  it('uses an injected embedder once per batch for free-form Nouls (weak zero-shot path)', async () => {
    const embed = vi.fn(async (texts: string[]) => texts.map((t) => (/\bcat|kitten/.test(t) ? [1, 0] : [0, 1])));
    const s = createSystemOne({ backend: createOfflineBackend({ embed }) });
    const q = { type: 'noul' as const, instructions: 'Is {{x}} about a pet?', criteria: { true: 'a cat or kitten', false: 'a car engine' } };
    const r = await s.ask({ x: 'my kitten sleeps all day', y: 'unused' }, { q });
    expect(embed).toHaveBeenCalledTimes(1);
    expect(r.answers.q).toBeGreaterThan(0.5);
  });

  it('prefers a precomputed cosine to lexical overlap', async () => {
    const st = (cosine: number) => ({ new_memory: 'The trip to the coast was lovely.', candidates: [{ text: 'Seaside holidays relax me.', cosine }] });
    const lo = await s1.ask(st(0.05), { s: catalogue.relation.semantic(0) });
    const hi = await s1.ask(st(0.9), { s: catalogue.relation.semantic(0) });
    expect(hi.answers.s).toBeGreaterThan(lo.answers.s + 0.3);
  });
});

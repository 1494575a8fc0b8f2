import { describe, expect, it, vi } from 'vitest';
import type { SystemOneBackend } from './backend.js';
import { batches, catalogue } from './catalogue.js';
import { createSystemOne } from './controller.js';
import { createOfflineBackend } from './offline/index.js';
import { SystemOneError } from './errors.js';
import { choice, noul } from './schema.js';
import { expectMemError } from '@mem/test-utils';

const spyBackend = (answer: SystemOneBackend['answer'], name = 'spy'): SystemOneBackend & { answer: ReturnType<typeof vi.fn> } =>
  ({ name, answer: vi.fn(answer) }) as any;

describe('validation before any backend call', () => {
  it('rejects a {{path}} missing from the state, naming it, without calling the backend', async () => {
    const b = spyBackend(async () => ({}));
    const s1 = createSystemOne({ backend: b });
    const err = await s1.ask({ new_memory: 'x', candidates: ['a'] }, { p: catalogue.relation.semantic(3) }).catch((e) => e);
    expect(SystemOneError.isInstance(err)).toBe(true);
    expect(err.code).toBe('MISSING_STATE_FIELD');
    expect(err.category).toBe('validation');
    expect(err.message).toContain('candidates.3');
    expect((err as any)[Symbol.for('@mem/error')]).toBe(true);
    expect(b.answer).not.toHaveBeenCalled();
  });

  it('rejects malformed questions and non-object states', async () => {
    const b = spyBackend(async () => ({}));
    const s1 = createSystemOne({ backend: b });
    await expectMemError(s1.ask({ q: 'x' }, { a: { type: 'choice', instructions: 'Pick for {{q}}', criteria: { only: 'one' } } as any }), SystemOneError, 'INVALID_QUESTION');
    await expectMemError(s1.ask({ q: 'x' }, { a: { type: 'noul', instructions: '  ', criteria: { true: 'y', false: 'n' } } as any }), SystemOneError, 'INVALID_QUESTION');
    await expectMemError(s1.ask({ q: 'x' }, { a: { type: 'noul', instructions: 'ok {{q}}', criteria: { true: 'y' } } as any }), SystemOneError, 'INVALID_QUESTION');
    await expectMemError(s1.ask([] as any, { a: catalogue.routing.temporal() }), SystemOneError, 'INVALID_STATE');
    expect(b.answer).not.toHaveBeenCalled();
  });

  it('rejects bad options with INVALID_OPTION', async () => {
    for (const o of [{ timeoutMs: 0 }, { concurrency: 0 }, { maxRetries: -1 }, { cache: 1.5 }]) {
      await expectMemError(() => createSystemOne(o as any), SystemOneError, 'INVALID_OPTION');
    }
  });

  it('accepts bracket paths and nested fields', async () => {
    const s1 = createSystemOne();
    const q = noul({ instructions: 'Is {{items[1].text}} about cats?', criteria: { true: 'about cats', false: 'not about cats' } });
    const r = await s1.ask({ items: [{ text: 'dogs' }, { text: 'my cat sleeps' }] }, { q });
    expect(typeof r.answers.q).toBe('number');
    await expectMemError(s1.ask({ items: [{ text: 'dogs' }, { name: 'no text' }] }, { q }), SystemOneError, 'MISSING_STATE_FIELD');
  });
});

describe('answers', () => {
  it('types answers by id: Noul -> p in [0,1], Choice -> {choice, probabilities} summing to 1', async () => {
    const s1 = createSystemOne();
    const state = { new_memory: { text: 'We hiked up the hill.', time: '2024-05-01T10:00:00Z' }, candidates: [{ text: 'We had lunch at the top of the hill.', time: '2024-05-01T12:00:00Z' }] };
    const { answers, traces } = await s1.ask(state, { rel: catalogue.relation.semantic(0), order: catalogue.relation.temporalOrder(0) });
    expect(answers.rel).toBeGreaterThanOrEqual(0);
    expect(answers.rel).toBeLessThanOrEqual(1);
    const sum = Object.values(answers.order.probabilities).reduce((a, b) => a + b, 0);
    expect(Math.abs(sum - 1)).toBeLessThan(1e-6);
    expect(answers.order.choice).toBe('before');
    expect(traces.map((t) => t.id)).toEqual(['rel', 'order']);
    expect(traces[1]).toMatchObject({ kind: 'relation.temporal_order', type: 'choice', value: 'before', backend: 'offline', cacheHit: false });
  });

  it('sends one batch per call and never feeds answers between questions', async () => {
    const seen: string[][] = [];
    const b = spyBackend(async (req) => {
      seen.push(Object.keys(req.questions));
      expect(req.state).toEqual({ query: 'Why?' });
      return Object.fromEntries(Object.keys(req.questions).map((id) => [id, 0.25]));
    });
    const s1 = createSystemOne({ backend: b, cache: false });
    const r = await s1.ask({ query: 'Why?' }, batches.routing());
    expect(seen).toEqual([['semantic', 'temporal', 'causal', 'entity', 'multi_hop_need', 'recency_importance']]);
    expect(Object.values(r.answers)).toEqual([0.25, 0.25, 0.25, 0.25, 0.25, 0.25]);
  });
});

describe('fallback, retries, cache, stats', () => {
  it('falls back to offline on a backend error, after retries, and records it', async () => {
    const b = spyBackend(async () => {
      throw new Error('boom');
    });
    const s1 = createSystemOne({ backend: b, maxRetries: 2 });
    const r = await s1.ask({ query: 'When did Ana move to Lisbon?' }, { t: catalogue.routing.temporal() });
    expect(b.answer).toHaveBeenCalledTimes(3);
    expect(r.answers.t).toBeGreaterThan(0.8);
    expect(r.traces[0]).toMatchObject({ backend: 'offline', fallback: true, error: { code: 'BACKEND_ERROR' } });
    expect(s1.stats()).toMatchObject({ fallbacks: 1, errors: 1, questions: 1 });
  });

  it('falls back on timeout', async () => {
    const b = spyBackend(() => new Promise(() => {}));
    const s1 = createSystemOne({ backend: b, timeoutMs: 30, maxRetries: 0 });
    const r = await s1.ask({ query: 'Why did Ana move?' }, { c: catalogue.routing.causal() });
    expect(r.traces[0]).toMatchObject({ fallback: true, error: { code: 'BACKEND_TIMEOUT' } });
    expect(r.answers.c).toBeGreaterThan(0.8);
  });

  it('one bad answer never fails its batch: only that question falls back', async () => {
    const b = spyBackend(async () => ({ good: 0.9, bad: 7, pick: { choice: 'nope' } }));
    const s1 = createSystemOne({ backend: b });
    const pick = choice({ kind: 'custom', instructions: 'Colour of {{thing}}?', criteria: { red: 'red', blue: 'blue' } });
    const q = noul({ instructions: 'Is {{thing}} red?', criteria: { true: 'red', false: 'not red' } });
    const r = await s1.ask({ thing: 'a red apple' }, { good: q, bad: q, pick });
    expect(r.answers.good).toBe(0.9);
    expect(r.traces.find((t) => t.id === 'good')).toMatchObject({ backend: 'spy', fallback: false });
    expect(r.traces.find((t) => t.id === 'bad')).toMatchObject({ backend: 'offline', fallback: true, error: { code: 'INVALID_ANSWER' } });
    expect(['red', 'blue']).toContain(r.answers.pick.choice);
    expect(s1.stats().fallbacks).toBe(2);
  });

  it('without a fallback, a failed question gets a neutral answer and an error trace', async () => {
    const b = spyBackend(async () => ({ a: 0.3 }));
    const s1 = createSystemOne({ backend: b, fallback: null });
    const q = noul({ instructions: 'Is {{x}} true?', criteria: { true: 'yes', false: 'no' } });
    const r = await s1.ask({ x: 'x' }, { a: q, b: q });
    expect(r.answers).toEqual({ a: 0.3, b: 0.5 });
    expect(r.traces[1].error?.code).toBe('INVALID_ANSWER');
    expect(s1.stats().errors).toBe(1);
  });

  it('caches by question + referenced state values (LRU), and ignores unreferenced fields', async () => {
    const b = spyBackend(async (req) => Object.fromEntries(Object.keys(req.questions).map((id) => [id, 0.4])));
    const s1 = createSystemOne({ backend: b, cache: 2 });
    const q = catalogue.routing.temporal();
    await s1.ask({ query: 'a' }, { q });
    const r = await s1.ask({ query: 'a', other: 1 }, { q });
    expect(r.traces[0].cacheHit).toBe(true);
    expect(b.answer).toHaveBeenCalledTimes(1);
    await s1.ask({ query: 'b' }, { q });
    await s1.ask({ query: 'c' }, { q }); // evicts 'a'
    await s1.ask({ query: 'a' }, { q });
    expect(b.answer).toHaveBeenCalledTimes(4);
    expect(s1.stats()).toMatchObject({ calls: 4, questions: 5, cacheHits: 1 });
  });

  it('limits concurrent backend calls', async () => {
    let active = 0;
    let peak = 0;
    const b = spyBackend(async (req) => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 10));
      active--;
      return Object.fromEntries(Object.keys(req.questions).map((id) => [id, 0.5]));
    });
    const s1 = createSystemOne({ backend: b, concurrency: 2, cache: false });
    await Promise.all(Array.from({ length: 6 }, (_, i) => s1.ask({ query: `q${i}` }, { t: catalogue.routing.temporal() })));
    expect(peak).toBe(2);
  });
});

describe('answerWhenReady (an in-process backend that sometimes waits)', () => {
  // the read path's scoring state: items carry their cosine to the query, so no scorer embeds
  const scoringState = (query: string) => ({
    query,
    candidates: [{ text: 'Ana moved to Oslo in May', cosine: 0.7 }, { text: 'Bob likes tea', cosine: 0.2, relation: 'semantic' }],
    evidence: [{ text: 'Ana took a job in Oslo', cosine: 0.6 }],
  });
  const questions = { ...batches.scoring(2), ...batches.routing() };
  const embedOf = () => vi.fn(async (texts: string[]) => texts.map((t) => Float32Array.from({ length: 8 }, (_, i) => ((t.charCodeAt(i % t.length) * (i + 1)) % 7) + 1)));

  it('answers without embedding when no scorer reads a vector, with the answers of the waiting path', async () => {
    const embed = embedOf();
    const ready = createSystemOne({ backend: createOfflineBackend({ embed }), cache: false });
    const r = await ready.ask(scoringState('Where does Ana live?'), questions);
    expect(embed).not.toHaveBeenCalled();
    // the same backend's `answer` (it embeds every text first) gives the same answers
    const b = createOfflineBackend({ embed: embedOf() });
    const waiting = createSystemOne({ backend: { name: 'offline', answer: (req, o) => b.answer(req, o) }, cache: false });
    expect(r.answers).toStrictEqual((await waiting.ask(scoringState('Where does Ana live?'), questions)).answers);
    expect(r.traces.every((t) => t.backend === 'offline' && !t.fallback)).toBe(true);
  });

  it('waits for the embedder when a scorer reads a vector of a new text, and reads the state before the ask yields', async () => {
    const embed = embedOf();
    const s1 = createSystemOne({ backend: createOfflineBackend({ embed }) });
    const state = { new_memory: { text: 'Ana started a new job in Oslo' }, candidates: [{ text: 'Ana moved to Oslo last May' }] };
    const expected = await createSystemOne({ backend: createOfflineBackend({ embed: embedOf() }), cache: false }).ask(structuredClone(state), batches.relations(1));
    const pending = s1.ask(state, batches.relations(1));
    state.candidates[0]!.text = 'Bob stopped smoking';
    expect((await pending).answers).toStrictEqual(expected.answers);
    expect(embed).toHaveBeenCalledTimes(1);
  });
});

/** Regression tests from an adversarial pass: hostile inputs must give typed errors or correct answers. */
import { describe, expect, it } from 'vitest';
import type { SystemOneBackend } from './backend.js';
import { createJevHttpBackend } from './backends/jev-http.js';
import { choiceFromLogprobs, createOpenAIBackend, noulFromLogprobs } from './backends/openai.js';
import { batches, catalogue } from './catalogue.js';
import { createSystemOne } from './controller.js';
import { createOfflineBackend } from './offline/index.js';
import { SystemOneError } from './errors.js';
import { parseTime } from './offline/text.js';
import { choice, noul } from './schema.js';

const isMem = (e: unknown) => typeof e === 'object' && e !== null && (e as any)[Symbol.for('@mem/error')] === true;
async function codeOf(p: Promise<unknown> | (() => unknown)): Promise<string> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    expect(isMem(e), `not a typed error: ${String(e)}`).toBe(true);
    return (e as SystemOneError).code;
  }
  return 'no error';
}

const q = noul({ instructions: 'Is {{a}} about cats?', criteria: { true: 'it is about cats', false: 'it is not' } });

describe('adversarial inputs', () => {
  it('a question that is not an object is INVALID_QUESTION, not a TypeError', async () => {
    const s1 = createSystemOne();
    for (const bad of [null, 'hello', 5, undefined, true]) {
      expect(await codeOf(s1.ask({ a: 'x' }, { z: bad as any }))).toBe('INVALID_QUESTION');
    }
  });

  it('a cyclic or BigInt state value is INVALID_STATE, not a RangeError / TypeError', async () => {
    const s1 = createSystemOne();
    const cyc: any = { text: 'cats' };
    cyc.self = cyc;
    expect(await codeOf(s1.ask({ a: cyc }, { q }))).toBe('INVALID_STATE');
    expect(await codeOf(s1.ask({ a: 10n }, { q }))).toBe('INVALID_STATE');
  });

  it('cache keys do not collide when state strings contain the key separator', async () => {
    // answer = a function of the two values, so a collision would return the wrong answer
    const backend: SystemOneBackend = {
      name: 'len',
      answer: async (req) => Object.fromEntries(Object.keys(req.questions).map((id) => [id, (req.state.a as string).length / 100])),
    };
    const s1 = createSystemOne({ backend, fallback: null });
    const q2 = noul({ instructions: 'Is {{a}} like {{b}}?', criteria: { true: 'yes', false: 'no' } });
    const r1 = await s1.ask({ a: 'x\u0001y', b: 'z' }, { q2 });
    const r2 = await s1.ask({ a: 'x', b: 'y\u0001z' }, { q2 });
    expect(r1.answers.q2).toBeCloseTo(0.03);
    expect(r2.traces[0].cacheHit).toBe(false);
    expect(r2.answers.q2).toBeCloseTo(0.01);
    const r3 = await s1.ask({ a: '\u0000x', b: 'z' }, { q2 });
    expect(r3.traces[0].cacheHit).toBe(false);
  });

  it('labels and question ids named __proto__ / constructor are answered, not lost', async () => {
    const backend: SystemOneBackend = {
      name: 'fixed',
      answer: async () => JSON.parse('{"__proto__": {"probabilities": {"__proto__": 0.8, "b": 0.2}}, "constructor": 0.9, "c": {"probabilities": {"toString": 0.7}}}'),
    };
    const s1 = createSystemOne({ backend, fallback: null });
    const questions = JSON.parse(
      '{"__proto__": {"type":"choice","instructions":"Pick for {{a}}","criteria":{"__proto__":"proto label","b":"bee"}},' +
        '"constructor": {"type":"noul","instructions":"Is {{a}}?","criteria":{"true":"t","false":"f"}},' +
        '"c": {"type":"choice","instructions":"Pick {{a}}","criteria":{"constructor":"c","toString":"d"}}}',
    );
    const r = await s1.ask({ a: 'x' }, questions);
    expect(Object.keys(r.answers).sort()).toEqual(['__proto__', 'c', 'constructor']);
    const p = (r.answers as any)['__proto__'];
    expect(p.choice).toBe('__proto__');
    expect(Object.getOwnPropertyDescriptor(p.probabilities, '__proto__')?.value).toBeCloseTo(0.8);
    expect((r.answers as any).constructor).toBeCloseTo(0.9);
    // "constructor" is missing from the reply: it is 0, not Object.prototype.constructor
    expect((r.answers as any).c).toEqual({ choice: 'toString', probabilities: { constructor: 0, toString: 1 } });
    expect(r.traces.every((t) => !t.error)).toBe(true);
    // the offline backend too
    const off = await createSystemOne().ask({ a: 'bee stuff' }, { z: questions['__proto__'] });
    expect(off.traces[0].error).toBeUndefined();
  });

  it('probabilities that overflow to Infinity are an invalid answer (falls back), not an all-zero distribution', async () => {
    const backend: SystemOneBackend = { name: 'inf', answer: async () => ({ c: { probabilities: { a: 1e308, b: 1e308 } } }) };
    const r = await createSystemOne({ backend, fallback: null }).ask({ a: 'x' }, { c: choice({ instructions: '{{a}}', criteria: { a: 'a', b: 'b' } }) });
    expect(r.traces[0].error?.code).toBe('INVALID_ANSWER');
    expect(r.answers.c.probabilities).toEqual({ a: 0.5, b: 0.5 });
  });

  it('an already-aborted signal rejects before the backend is called', async () => {
    let called = 0;
    const backend: SystemOneBackend = { name: 'count', answer: async () => (called++, { q: 0.7 }) };
    const ac = new AbortController();
    ac.abort();
    expect(await codeOf(createSystemOne({ backend }).ask({ a: 'x' }, { q }, { signal: ac.signal }))).toBe('BACKEND_TIMEOUT');
    expect(called).toBe(0);
  });

  it('bad numeric / url backend options are INVALID_OPTION', async () => {
    expect(await codeOf(() => createJevHttpBackend({ url: 'not a url', model: 'm' }))).toBe('INVALID_OPTION');
    expect(await codeOf(() => createJevHttpBackend({ url: 'ftp://127.0.0.1/', model: 'm' }))).toBe('INVALID_OPTION');
    expect(await codeOf(() => createJevHttpBackend({ url: 'http://127.0.0.1:1', model: 'm', maxRetries: NaN }))).toBe('INVALID_OPTION');
    expect(await codeOf(() => createJevHttpBackend({ url: 'http://127.0.0.1:1', model: 'm', requestTimeoutMs: -1 }))).toBe('INVALID_OPTION');
    expect(await codeOf(() => createOpenAIBackend({ model: 'm', concurrency: NaN }))).toBe('INVALID_OPTION');
    expect(await codeOf(() => createOpenAIBackend({ model: 'm', maxRetries: Infinity }))).toBe('INVALID_OPTION');
    expect(await codeOf(() => createOpenAIBackend({ model: 'm', requestTimeoutMs: 0 }))).toBe('INVALID_OPTION');
  });

  it('malformed top_logprobs entries (null / non-finite / positive logprob, non-string token) carry no mass', () => {
    const bad = [
      { token: 'B', logprob: null },
      { token: 'C', logprob: Number.NaN },
      { token: null, logprob: -0.1 },
      null,
    ] as any[];
    // a null logprob used to count as log 0 = probability 1 and outvote the real answer
    const probs = choiceFromLogprobs(['x', 'y', 'z'], [{ token: 'A', logprob: Math.log(0.9) }, ...bad])!;
    expect(probs.x).toBeCloseTo(0.9);
    expect(probs.y).toBeCloseTo(0.05);
    expect(noulFromLogprobs([{ token: 'true', logprob: Math.log(0.8) }, { token: 'false', logprob: null as any }])).toBeCloseTo(1);
    expect(noulFromLogprobs([{ token: 'true', logprob: 800 }, { token: 'false', logprob: 799 }])).toBeCloseTo(0.5); // clamped to log 1
    expect(noulFromLogprobs(bad)).toBeUndefined();
  });

  it('offline time arithmetic reads a zone-less date-time as UTC, whatever the machine time zone', () => {
    const tz = process.env.TZ;
    try {
      process.env.TZ = 'America/New_York';
      expect(parseTime('2024-03-10T10:00:00')).toBe(Date.parse('2024-03-10T10:00:00Z'));
      expect(parseTime('2024-03-10 02:30')).toBe(Date.parse('2024-03-10T02:30:00Z')); // a local time that does not exist in New York (DST gap)
      expect(parseTime('2024-03-10T10:00:00+01:00')).toBe(Date.parse('2024-03-10T09:00:00Z'));
      expect(parseTime('2024-03-10')).toBe(Date.parse('2024-03-10T00:00:00Z'));
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it('catalogue indices and batch counts that are not non-negative integers are INVALID_QUESTION (not a RangeError, not silently 0 or rounded up)', async () => {
    for (const i of [-1, 1.5, Number.NaN, Infinity, '0', null, undefined]) {
      expect(await codeOf(() => catalogue.relation.semantic(i as any))).toBe('INVALID_QUESTION');
      expect(await codeOf(() => batches.relations(i as any))).toBe('INVALID_QUESTION');
      expect(await codeOf(() => batches.scoring(i as any))).toBe('INVALID_QUESTION');
    }
    expect(Object.keys(batches.relations(0))).toEqual([]);
  });

  it('offline + embed: NaN / zero / wrong-length vectors are a BACKEND_ERROR (answered by the lexical fallback), not a silent cosine', async () => {
    const state = { new_memory: { text: 'Mira bought a bike' }, candidates: [{ text: 'Mira got a bicycle' }] };
    const bad = {
      nan: async (t: string[]) => t.map(() => new Float32Array(3).fill(Number.NaN)),
      zero: async (t: string[]) => t.map(() => new Float32Array(3)),
      ragged: async (t: string[]) => t.map((_x, i) => new Float32Array(i + 1).fill(1)),
    };
    for (const embed of Object.values(bad)) {
      const r = await createSystemOne({ backend: createOfflineBackend({ embed }), maxRetries: 0 }).ask(state, { s: batches.relations(1).pair_0_semantic });
      expect(r.traces[0].fallback).toBe(true);
      expect(r.traces[0].error?.code).toBe('BACKEND_ERROR');
    }
  });

  it('offline embeddingCacheSize: negative / NaN is INVALID_OPTION (a negative size looped forever); 0 still uses the embedder', async () => {
    for (const n of [-1, Number.NaN, 1.5]) expect(await codeOf(() => createOfflineBackend({ embeddingCacheSize: n }))).toBe('INVALID_OPTION');
    let calls = 0;
    const embed = async (t: string[]) => (calls++, t.map((x) => Float32Array.from([x.includes('bi') ? 1 : 0, 1, 0])));
    const s1 = createSystemOne({ backend: createOfflineBackend({ embed, embeddingCacheSize: 0 }), fallback: null, cache: false });
    const state = { new_memory: { text: 'Mira bought a bike' }, candidates: [{ text: 'Mira got a bicycle' }] };
    const r = await s1.ask(state, { s: batches.relations(1).pair_0_semantic });
    expect(r.traces[0].error).toBeUndefined();
    expect(calls).toBe(1);
  });

  it('concurrent asks of the same question on the same state values share one backend call', async () => {
    let calls = 0;
    const backend: SystemOneBackend = {
      name: 'slow',
      answer: async (req) => {
        calls++;
        await new Promise((r) => setTimeout(r, 20));
        return Object.fromEntries(Object.keys(req.questions).map((id) => [id, (req.state.a as string).length / 100]));
      },
    };
    const s1 = createSystemOne({ backend, concurrency: 2 });
    const rs = await Promise.all(Array.from({ length: 40 }, (_, i) => s1.ask({ a: 'cat'.repeat(1 + (i % 4)) }, { q })));
    expect(calls).toBe(4); // was 40: every concurrent miss called the backend
    rs.forEach((r, i) => expect(r.answers.q).toBeCloseTo((3 * (1 + (i % 4))) / 100));
    expect(rs.filter((r) => r.traces[0].cacheHit)).toHaveLength(36);
    expect(s1.stats()).toMatchObject({ questions: 40, cacheHits: 36, errors: 0 });
  });

  it('a waiter whose owner failed asks the backend itself (no shared neutral answer, no hang)', async () => {
    let calls = 0;
    const backend: SystemOneBackend = {
      name: 'flaky',
      answer: async () => {
        const n = ++calls;
        await new Promise((r) => setTimeout(r, 20));
        if (n === 1) throw new Error('first call fails');
        return { q: 0.9 };
      },
    };
    const s1 = createSystemOne({ backend, fallback: null, maxRetries: 0 });
    const [a, b] = await Promise.all([s1.ask({ a: 'x' }, { q }), s1.ask({ a: 'x' }, { q })]);
    expect(a.answers.q).toBe(0.5);
    expect(a.traces[0].error?.code).toBe('BACKEND_ERROR');
    expect(b.answers.q).toBe(0.9);
    expect(b.traces[0].error).toBeUndefined();
    expect(calls).toBe(2);
    expect(s1.stats().questions).toBe(2);
  });

  it('a timeout above 2^31 - 1 ms does not fire after 1 ms (setTimeout overflow)', async () => {
    const backend: SystemOneBackend = { name: 'slowish', answer: async () => (await new Promise((r) => setTimeout(r, 30)), { q: 0.8 }) };
    const r = await createSystemOne({ backend, timeoutMs: 1e10, maxRetries: 0 }).ask({ a: 'x' }, { q });
    expect(r.traces[0].error).toBeUndefined();
    expect(r.answers.q).toBe(0.8);
  });

  it('a question object edited between asks is re-validated and never answered from the cache of its old content', async () => {
    const backend: SystemOneBackend = {
      name: 'echo',
      answer: async (req) => Object.fromEntries(Object.entries(req.questions).map(([id, qq]) => [id, qq.instructions.includes('dogs') ? 0.1 : 0.9])),
    };
    const s1 = createSystemOne({ backend, fallback: null });
    const mutable = noul({ instructions: 'Is {{a}} about cats?', criteria: { true: 'yes', false: 'no' } });
    expect((await s1.ask({ a: 'x' }, { m: mutable })).answers.m).toBe(0.9);
    (mutable as any).instructions = 'Is {{a}} about dogs?';
    const r = await s1.ask({ a: 'x' }, { m: mutable });
    expect(r.traces[0].cacheHit).toBe(false);
    expect(r.answers.m).toBe(0.1);
    (mutable as any).criteria = { true: 'yes' }; // now invalid
    expect(await codeOf(s1.ask({ a: 'x' }, { m: mutable }))).toBe('INVALID_QUESTION');
  });
});

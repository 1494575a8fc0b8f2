import { describe, expect, it } from 'vitest';
import { batches, catalogue } from '../catalogue.js';
import { createSystemOne } from '../controller.js';
import { chatCompletion } from '../testing/index.js';
import { createOpenAIBackend, choiceFromLogprobs, noulFromLogprobs } from './openai.js';
import { parseLenientJson } from './parse.js';
import { mockServerPerTest } from '../../test/mock-server.js';

const servers = mockServerPerTest();

const lp = (p: number) => Math.log(p);
const userText = (body: any): string => body.messages[body.messages.length - 1].content;

describe('parsing helpers', () => {
  it('reads p from true/false logprobs and label letters', () => {
    expect(noulFromLogprobs([{ token: 'true', logprob: lp(0.6) }, { token: ' false', logprob: lp(0.2) }])).toBeCloseTo(0.75);
    expect(noulFromLogprobs([{ token: 'maybe', logprob: 0 }])).toBeUndefined();
    const p = choiceFromLogprobs(['a', 'b', 'c'], [{ token: 'B', logprob: lp(0.7) }, { token: 'A', logprob: lp(0.1) }])!;
    expect(p.b).toBeCloseTo(0.7);
    expect(p.c).toBeCloseTo(0.2);
  });
  it('parses leniently: fences, single quotes, trailing commas, prose', () => {
    expect(parseLenientJson("```json\n{'p': 0.3,}\n```")).toEqual({ p: 0.3 });
    expect(parseLenientJson('Sure! Here it is: {"probabilities": {"a": 0.2, "b": 0.8}} hope it helps')).toEqual({ probabilities: { a: 0.2, b: 0.8 } });
    expect(parseLenientJson('{p: 0.5}')).toEqual({ p: 0.5 });
    expect(() => parseLenientJson('I cannot answer that')).toThrow(/not JSON/);
  });
});

describe('createOpenAIBackend against a loopback chat-completions server', () => {
  it('answers Nouls and Choices from one-token logprobs', async () => {
    const server = await servers.start({
      chat: (body) => {
        const t = userText(body);
        if (t.includes('Answer with exactly one letter')) {
          return { json: chatCompletion('B', { topLogprobs: [{ token: 'B', logprob: lp(0.7) }, { token: 'A', logprob: lp(0.2) }, { token: 'G', logprob: lp(0.1) }] }) };
        }
        return { json: chatCompletion('true', { topLogprobs: [{ token: 'true', logprob: lp(0.8) }, { token: 'false', logprob: lp(0.2) }] }) };
      },
    });
    const s1 = createSystemOne({ backend: createOpenAIBackend({ baseURL: server.url, apiKey: 'k', model: 'mock-model' }) });
    const state = { new_memory: 'Mira bought a bike.', candidates: ['Mira broke her old bike.'] };
    const r = await s1.ask(state, { rel: catalogue.relation.causedBy(0), order: catalogue.relation.temporalOrder(0) });
    expect(r.answers.rel).toBeCloseTo(0.8);
    expect(r.answers.order.choice).toBe('after'); // B = second label
    expect(r.answers.order.probabilities.before).toBeCloseTo(0.2);
    expect(r.traces.every((t) => t.backend === 'openai:mock-model' && !t.fallback)).toBe(true);
    const body = server.requests[0].body;
    expect(body).toMatchObject({ model: 'mock-model', logprobs: true, max_tokens: 1, temperature: 0 });
    expect(server.requests[0].headers.authorization).toBe('Bearer k');
    expect(userText(server.requests.find((q) => userText(q.body).includes('letter'))!.body)).toContain('"Mira broke her old bike."');
  });

  it('switches to JSON-schema mode when the server returns no logprobs, and parses leniently', async () => {
    const server = await servers.start({
      chat: (body) => (body.response_format ? { json: chatCompletion("```json\n{'p': 0.3,}\n```") } : { json: chatCompletion('true') }),
    });
    const s1 = createSystemOne({ backend: createOpenAIBackend({ baseURL: server.url, model: 'm', concurrency: 1 }) });
    const r = await s1.ask({ query: 'When did Ana move?' }, { a: catalogue.routing.temporal(), b: catalogue.routing.causal() });
    expect(r.answers).toEqual({ a: 0.3, b: 0.3 });
    // first question: logprobs try + JSON; second: JSON only (mode remembered)
    expect(server.requests.map((q) => !!q.body.response_format)).toEqual([false, true, true]);
    expect(server.requests[1].body.response_format).toMatchObject({ type: 'json_schema', json_schema: { strict: true } });
  });

  it('a server that rejects json_schema (llama-cpp-python: only text / json_object) gets json_object + schema, remembered', async () => {
    const server = await servers.start({
      chat: (body) =>
        body.response_format?.type === 'json_schema'
          ? { status: 500, json: { error: { message: "response_format.type: Input should be 'text' or 'json_object'" } } }
          : { json: chatCompletion('{"p": 0.25}') },
    });
    const s1 = createSystemOne({ backend: createOpenAIBackend({ baseURL: server.url, model: 'm', mode: 'json', concurrency: 1, maxRetries: 0 }) });
    const r = await s1.ask({ query: 'When did Ana move?' }, { a: catalogue.routing.temporal(), b: catalogue.routing.causal() });
    expect(r.answers).toEqual({ a: 0.25, b: 0.25 });
    expect(r.traces.every((t) => !t.fallback)).toBe(true);
    expect(server.requests.map((q) => q.body.response_format?.type)).toEqual(['json_schema', 'json_object', 'json_object']);
    expect(server.requests[1].body.response_format.schema).toMatchObject({ required: ['p'] });
  });

  it('a malformed reply fails only its question (falls back), the others keep the model answer', async () => {
    const server = await servers.start({
      chat: (body) => (userText(body).includes('why something happened') ? { json: chatCompletion('I refuse to answer') } : { json: chatCompletion('{"p": 0.9}') }),
    });
    const s1 = createSystemOne({ backend: createOpenAIBackend({ baseURL: server.url, model: 'm', mode: 'json' }) });
    const r = await s1.ask({ query: 'Why did Ana move to Porto?' }, batches.routing());
    const byId = Object.fromEntries(r.traces.map((t) => [t.id, t]));
    expect(byId.causal).toMatchObject({ fallback: true, backend: 'offline', error: { code: 'INVALID_ANSWER' } });
    expect(r.answers.causal).toBeGreaterThan(0.8); // offline answer
    expect(r.answers.temporal).toBe(0.9);
    expect(s1.stats().fallbacks).toBe(1);
  });

  it('retries 429 (honouring retry-after) and 500 with backoff', async () => {
    let n = 0;
    const server = await servers.start({
      chat: () => {
        n++;
        if (n === 1) return { status: 429, headers: { 'retry-after': '0' }, json: { error: { message: 'slow down', type: 'rate_limit' } } };
        if (n === 2) return { status: 500, json: { error: { message: 'oops', type: 'server_error' } } };
        return { json: chatCompletion('false', { topLogprobs: [{ token: 'false', logprob: lp(0.9) }, { token: 'true', logprob: lp(0.1) }] }) };
      },
    });
    const s1 = createSystemOne({ backend: createOpenAIBackend({ baseURL: server.url, model: 'm', backoffMs: 5, maxRetries: 2 }) });
    const r = await s1.ask({ query: 'q' }, { t: catalogue.routing.temporal() });
    expect(r.answers.t).toBeCloseTo(0.1);
    expect(server.requests).toHaveLength(3);
  });

  it('persistent 500s: gives up after maxRetries, the controller falls back and records the error', async () => {
    const server = await servers.start({ chat: () => ({ status: 500, json: { error: { message: 'down', type: 'server_error' } } }) });
    const s1 = createSystemOne({ backend: createOpenAIBackend({ baseURL: server.url, model: 'm', backoffMs: 1, maxRetries: 1 }), maxRetries: 0 });
    const r = await s1.ask({ query: 'When did Ana move?' }, { t: catalogue.routing.temporal() });
    expect(server.requests).toHaveLength(2);
    expect(r.traces[0]).toMatchObject({ fallback: true, backend: 'offline', error: { code: 'BACKEND_ERROR' } });
    expect(r.answers.t).toBeGreaterThan(0.8);
    expect(s1.stats()).toMatchObject({ fallbacks: 1, errors: 1 });
  });

  it('slow replies time out (request timeout) and fall back', async () => {
    const server = await servers.start({ chat: () => ({ delayMs: 2000, json: chatCompletion('true') }) });
    const s1 = createSystemOne({
      backend: createOpenAIBackend({ baseURL: server.url, model: 'm', requestTimeoutMs: 100, maxRetries: 0 }),
      maxRetries: 0,
    });
    const t0 = Date.now();
    const r = await s1.ask({ query: 'Why did Ana move?' }, { c: catalogue.routing.causal() });
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(r.traces[0]).toMatchObject({ fallback: true, error: { code: 'BACKEND_TIMEOUT' } });
  });

  it('the controller timeout aborts a slow backend call', async () => {
    const server = await servers.start({ chat: () => ({ delayMs: 2000, json: chatCompletion('true') }) });
    const s1 = createSystemOne({ backend: createOpenAIBackend({ baseURL: server.url, model: 'm' }), timeoutMs: 100, maxRetries: 0 });
    const r = await s1.ask({ query: 'Why did Ana move?' }, { c: catalogue.routing.causal() });
    expect(r.traces[0]).toMatchObject({ fallback: true, error: { code: 'BACKEND_TIMEOUT' } });
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    let active = 0;
    let peak = 0;
    const server = await servers.start({
      chat: async () => {
        active++;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 30));
        active--;
        return { json: chatCompletion('true', { topLogprobs: [{ token: 'true', logprob: 0 }] }) };
      },
    });
    const s1 = createSystemOne({ backend: createOpenAIBackend({ baseURL: server.url, model: 'm', concurrency: 2 }) });
    const r = await s1.ask({ query: 'q' }, batches.routing());
    expect(Object.values(r.answers)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(peak).toBe(2);
  });
});

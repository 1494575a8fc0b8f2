import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MemError, MemValidationError } from '@mem/core';
import { createStack, type Stack } from '../stack.js';
import { createApi } from '../http/app.js';
import { systemTwoConfigFromEnv, systemTwoEnvWarning } from './system-two.js';
import { expectMemError } from '@mem/test-utils';

// A loopback stand-in for an OpenAI-compatible server (chat completions only).
let server: http.Server;
let baseURL = '';
const requests: any[] = [];
let fail = false;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const parsed = JSON.parse(body || '{}');
      requests.push({ url: req.url, auth: req.headers.authorization, body: parsed });
      if (fail) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'boom' } }));
        return;
      }
      const user = parsed.messages?.find((m: any) => m.role === 'user')?.content ?? '';
      const system = parsed.messages?.find((m: any) => m.role === 'system')?.content ?? '';
      if (system.includes('System One')) {
        // A System-One question: answer "true" with a logprob, as an OpenAI-compatible server would.
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id: 'cmpl-s1', object: 'chat.completion', created: 0, model: parsed.model,
            choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'true' },
              logprobs: { content: [{ token: 'true', logprob: -0.1, top_logprobs: [{ token: 'true', logprob: -0.1 }, { token: 'false', logprob: -2.4 }] }] } }],
          }),
        );
        return;
      }
      const answer = user.includes('green tea') ? 'Green tea, since late March.' : 'I do not know.';
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'cmpl-1',
          object: 'chat.completion',
          created: 0,
          model: parsed.model,
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: answer } }],
          usage: { prompt_tokens: 50, completion_tokens: 7, total_tokens: 57 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('System One on an OpenAI-compatible endpoint (MEM_SYSTEM_ONE=openai)', () => {
  it('sends the controller questions to MEM_LLM_* with MEM_SYSTEM_ONE_MODEL', async () => {
    const env = { MEM_SYSTEM_ONE: 'openai', MEM_SYSTEM_ONE_MODEL: 'tiny-classifier', MEM_LLM_BASE_URL: baseURL, MEM_LLM_API_KEY: 'k', MEM_LLM_MODEL: 'big' };
    const stack = await createStack({ db: ':memory:', scope: { userId: 's1' }, env });
    try {
      const before = requests.length;
      await stack.add([{ text: 'I adopted a beagle called Biscuit.', observedAt: '2025-02-22T10:00:00Z' }]);
      const calls = requests.slice(before).filter((r) => r.body.model === 'tiny-classifier');
      expect(calls.length).toBeGreaterThan(0);
      expect(stack.systemOne.stats().calls).toBeGreaterThan(0);
      expect(stack.systemTwo?.model).toBe('big');
    } finally {
      await stack.close();
    }
    await expectMemError(createStack({ db: ':memory:', scope: { userId: 's1' }, env: { MEM_SYSTEM_ONE: 'openai' } }), MemValidationError, 'INVALID_INPUT');
    await expectMemError(createStack({ db: ':memory:', scope: { userId: 's1' }, env: { MEM_SYSTEM_ONE: 'gpu' } }), MemValidationError, 'INVALID_INPUT');
  });
});

describe('System Two', () => {
  it('reads its endpoint from MEM_LLM_* (all three or none)', () => {
    expect(systemTwoConfigFromEnv({ MEM_LLM_BASE_URL: 'http://x/v1', MEM_LLM_API_KEY: 'k', MEM_LLM_MODEL: 'm' })).toEqual({ baseURL: 'http://x/v1', apiKey: 'k', model: 'm' });
    expect(systemTwoConfigFromEnv({ MEM_LLM_BASE_URL: 'http://x/v1', MEM_LLM_MODEL: 'm' })).toBeNull();
    expect(systemTwoConfigFromEnv({})).toBeNull();
  });

  it('warns, naming the missing variables, when only some MEM_LLM_* are set', () => {
    expect(systemTwoEnvWarning({ MEM_LLM_BASE_URL: 'http://x/v1', MEM_LLM_MODEL: 'm' })).toBe(
      'MEM_LLM_BASE_URL, MEM_LLM_MODEL are set but MEM_LLM_API_KEY is missing: System Two stays offline (answers are the top evidence)',
    );
    expect(systemTwoEnvWarning({ MEM_LLM_API_KEY: 'k' })).toMatch(/^MEM_LLM_API_KEY is set but MEM_LLM_BASE_URL, MEM_LLM_MODEL are missing/);
    expect(systemTwoEnvWarning({ MEM_LLM_BASE_URL: 'http://x/v1', MEM_LLM_API_KEY: 'k', MEM_LLM_MODEL: 'm' })).toBeNull();
    expect(systemTwoEnvWarning({ MEM_LLM_MODEL: '  ' })).toBeNull();
  });

  it('writes the answer from the packed context through chat completions', async () => {
    let stack: Stack | null = null;
    try {
      stack = await createStack({ db: ':memory:', scope: { userId: 'u' }, systemTwo: { baseURL, apiKey: 'test-key', model: 'stub-model', maxRetries: 0 } });
      await stack.add([
        { text: 'I switched from espresso to green tea in the mornings.', speaker: 'Maya', observedAt: '2025-03-27T19:00:00Z' },
        { text: 'My dog Biscuit is a beagle.', speaker: 'Maya', observedAt: '2025-03-27T19:01:00Z' },
      ]);
      const r = await stack.ask('What does Maya drink in the morning?', { k: 2 });
      expect(r.mode).toBe('llm');
      expect(r.model).toBe('stub-model');
      expect(r.answer).toBe('Green tea, since late March.');
      const last = requests.at(-1);
      expect(last.url).toBe('/v1/chat/completions');
      expect(last.auth).toBe('Bearer test-key');
      expect(last.body.model).toBe('stub-model');
      const user = last.body.messages.find((m: any) => m.role === 'user').content;
      expect(user).toContain('What does Maya drink in the morning?');
      expect(user).toContain('green tea');

      // A failing endpoint: typed LLM_UNAVAILABLE, and the evidence is still the (offline fallback) answer.
      fail = true;
      const err = await stack.systemTwo!.answer('What does Maya drink?', 'ctx').catch((e) => e);
      expect(MemError.isInstance(err)).toBe(true);
      expect(err.category).toBe('unavailable');
      expect(err.code).toBe('LLM_UNAVAILABLE');
      const down = await stack.ask('What does Maya drink?', { k: 1 });
      expect(down.mode).toBe('evidence');
      expect(down.model).toBeNull();
      expect(down.evidence).toHaveLength(1);
      expect(down.answer).toContain(down.evidence[0].text);
      expect(down.systemTwoError).toEqual({ code: 'LLM_UNAVAILABLE', message: expect.stringContaining('stub-model') });
      const res = await createApi({ stack, playground: false }).request('/v1/ask', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ question: 'What does Maya drink?' }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as any;
      expect(body.mode).toBe('evidence');
      expect(body.systemTwoError.code).toBe('LLM_UNAVAILABLE');
    } finally {
      fail = false;
      await stack?.close();
    }
  });
});

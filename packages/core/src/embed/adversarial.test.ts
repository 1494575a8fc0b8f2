/** Regression tests from an adversarial pass over the embedders (hostile inputs, malformed servers, bad options). */
import { startOpenAICompatibleServer, type MockOpenAIServer } from '@mem/system-one/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { MemError } from '../errors.js';
import { createOpenAIEmbedder } from './openai.js';
import { surfaceTokens } from './sif.js';
import { createWinkEmbedder } from './wink.js';

async function codeOf(f: () => unknown): Promise<string> {
  try {
    await f();
  } catch (e) {
    expect(MemError.isInstance(e), `not a typed error: ${String(e)}`).toBe(true);
    return (e as MemError).code;
  }
  return 'no error';
}

let server: MockOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('embedders, adversarial', () => {
  it('zero-width spaces and soft hyphens do not split words into tokens', () => {
    expect(surfaceTokens('Zo\u200Be went to Pa\u200Bris with Ana\u00ADbel\u2060\uFEFF')).toEqual(surfaceTokens('Zoe went to Paris with Anabel'));
  });

  it('wink: a non-finite or negative oovScale is INVALID_INPUT (it silently replaced the vector by a whole-text hash)', async () => {
    for (const oovScale of [Infinity, NaN, -1, '2' as unknown as number]) {
      expect(await codeOf(() => createWinkEmbedder({ oovScale }))).toBe('INVALID_INPUT');
    }
  });

  it('openai: a null item in the reply is EMBEDDER_ERROR, not a TypeError', async () => {
    server = await startOpenAICompatibleServer({ embeddings: () => ({ json: { object: 'list', data: [null], model: 'm' } }) });
    const e = createOpenAIEmbedder({ baseURL: server.url, model: 'm', dimension: 3, maxRetries: 0 });
    expect(await codeOf(() => e.embed(['a']))).toBe('EMBEDDER_ERROR');
  });

  it('openai: bad timeoutMs / maxRetries are INVALID_INPUT at construction (NaN timed out every request)', async () => {
    for (const o of [{ timeoutMs: NaN }, { timeoutMs: -5 }, { timeoutMs: 'x' as unknown as number }, { maxRetries: -1 }, { maxRetries: 1.5 }]) {
      expect(await codeOf(() => createOpenAIEmbedder({ baseURL: 'http://127.0.0.1:9/v1', model: 'm', dimension: 3, ...o }))).toBe('INVALID_INPUT');
    }
  });

  it('openai: a timeoutMs above 2^31 - 1 ms does not time out every request after 1 ms', async () => {
    server = await startOpenAICompatibleServer({
      embeddings: (body) => ({ delayMs: 30, json: { data: (body.input as string[]).map((_t, index) => ({ index, embedding: [1, 0, 0] })) } }),
    });
    const e = createOpenAIEmbedder({ baseURL: server.url, model: 'm', dimension: 3, maxRetries: 0, timeoutMs: 1e10 });
    const [v] = await e.embed(['a']);
    expect(Array.from(v)).toEqual([1, 0, 0]);
  });
});

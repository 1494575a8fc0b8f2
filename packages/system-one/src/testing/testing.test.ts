import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { chatCompletion, embeddingsResponse } from './index.js';
import { mockServerPerTest } from '../../test/mock-server.js';

const servers = mockServerPerTest();

describe('startOpenAICompatibleServer', () => {
  it('serves embeddings and chat to the openai client and records requests', async () => {
    const server = await servers.start({
      embeddings: (body) => ({ json: embeddingsResponse((body.input as string[]).map((t) => [t.length, 1, 0]), { request: body }) }),
      chat: (body) => ({ json: chatCompletion(`echo: ${body.messages.at(-1).content}`) }),
    });
    const client = new OpenAI({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0 });
    const e = await client.embeddings.create({ model: 'm', input: ['ab', 'abcd'] });
    expect(e.data.map((d) => d.embedding)).toEqual([[2, 1, 0], [4, 1, 0]]);
    expect(server.requests[0].body.encoding_format).toBe('base64'); // the client's default; the helper answered in kind
    const plain = embeddingsResponse([[0.5, -1]]) as any;
    expect(plain.data[0].embedding).toEqual([0.5, -1]);
    const c = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(c.choices[0].message.content).toBe('echo: hi');
    const models = await client.models.list();
    expect(models.data[0].id).toBe('mock-model');
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/embeddings', 'POST /v1/chat/completions', 'GET /v1/models']);
    expect(server.requests[0].headers.authorization).toBe('Bearer test-key');
  });

  it('sends statuses, raw bodies and delays; unknown paths are 404', async () => {
    const server = await servers.start({
      chat: () => ({ status: 429, headers: { 'retry-after': '1' }, json: { error: { message: 'slow down' } } }),
      other: (_b, req) => (req.path === '/raw' ? { body: 'not json {', delayMs: 30 } : { status: 404, json: { error: 'nope' } }),
    });
    const r = await fetch(`${server.url}/chat/completions`, { method: 'POST', body: '{}' });
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('1');
    const t0 = Date.now();
    const raw = await fetch(`${server.origin}/raw`);
    expect(await raw.text()).toBe('not json {');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(25);
    expect((await fetch(`${server.origin}/elsewhere`)).status).toBe(404);
  });
});

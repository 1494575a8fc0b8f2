import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOpenAIEmbedder } from './openai.js';
import { EmbedderError, MemValidationError, DimensionMismatchError } from '../errors.js';
import { expectMemError } from '@mem/test-utils';

/** A loopback server speaking the OpenAI /v1/embeddings protocol (deterministic vectors per text). */
interface Behaviour { status?: number; dim?: number; nan?: boolean; drop?: boolean; shuffle?: boolean; base64?: boolean }
let behaviour: Behaviour = {};
const requests: { auth?: string; body: any }[] = [];
const vecFor = (text: string, dim: number) =>
  Array.from({ length: dim }, (_, i) => Math.sin((i + 1) * (text.length + 1)) + (text.charCodeAt(i % text.length) % 7));

let server: http.Server;
let baseURL = '';
beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const body = JSON.parse(raw || '{}');
      requests.push({ auth: req.headers.authorization, body });
      if (req.url !== '/v1/embeddings' || req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      if (behaviour.status) {
        res.writeHead(behaviour.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'boom', type: 'server_error' } }));
        return;
      }
      const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input];
      const dim = behaviour.dim ?? body.dimensions ?? 8;
      let data = inputs.map((t, index) => ({
        object: 'embedding',
        index,
        embedding: behaviour.nan && index === 0 ? [NaN, ...vecFor(t, dim - 1)].map((x) => (Number.isNaN(x) ? 'NaN' : x)) : vecFor(t, dim),
      }));
      if (behaviour.base64) {
        data = data.map((d) => ({ ...d, embedding: Buffer.from(new Float32Array(d.embedding as number[]).buffer).toString('base64') as any }));
      }
      if (behaviour.drop) data = data.slice(1);
      if (behaviour.shuffle) data = data.reverse();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('createOpenAIEmbedder (loopback /v1/embeddings)', () => {
  it('embeds in batches, keeps input order, returns unit vectors of the declared dimension', async () => {
    behaviour = { shuffle: true };
    requests.length = 0;
    const e = createOpenAIEmbedder({ baseURL, apiKey: 'sk-test', model: 'test-embed', dimension: 8, batchSize: 2 });
    const texts = ['alpha', 'beta gamma', 'delta', 'epsilon zeta eta'];
    const out = await e.embed(texts);
    expect(requests).toHaveLength(2);
    expect(requests[0].auth).toBe('Bearer sk-test');
    expect(requests[0].body).toMatchObject({ model: 'test-embed', input: ['alpha', 'beta gamma'], encoding_format: 'float' });
    expect(requests[0].body.dimensions).toBeUndefined();
    expect(out).toHaveLength(4);
    texts.forEach((t, i) => {
      const raw = vecFor(t, 8);
      const n = Math.sqrt(raw.reduce((s, x) => s + x * x, 0));
      expect(out[i][0]).toBeCloseTo(raw[0] / n, 5);
      expect(norm(out[i])).toBeCloseTo(1, 5);
    });
    expect(e.model).toBe('test-embed');
    expect(e.dimension).toBe(8);
    expect(await e.embed([])).toEqual([]);
  });

  it('decodes base64 float32 replies from servers that ignore encoding_format', async () => {
    behaviour = { base64: true };
    const [v] = await createOpenAIEmbedder({ baseURL, model: 'm', dimension: 8 }).embed(['alpha']);
    const raw = vecFor('alpha', 8);
    const n = Math.sqrt(raw.reduce((s, x) => s + x * x, 0));
    for (let d = 0; d < 8; d++) expect(v[d]).toBeCloseTo(raw[d] / n, 5);
    behaviour = {};
  });

  it('sends `dimensions` only when asked', async () => {
    behaviour = {};
    requests.length = 0;
    await createOpenAIEmbedder({ baseURL, model: 'm', dimension: 4, requestDimensions: true }).embed(['x']);
    expect(requests[0].body.dimensions).toBe(4);
    expect(requests[0].auth).toBe('Bearer unused');
  });

  it('typed errors: wrong dimension, non-finite values, missing items, HTTP failure, bad input', async () => {
    const e = createOpenAIEmbedder({ baseURL, apiKey: 'k', model: 'm', dimension: 8, maxRetries: 0 });
    behaviour = { dim: 5 };
    await expectMemError(e.embed(['a']), DimensionMismatchError, 'DIMENSION_MISMATCH');
    behaviour = { nan: true };
    await expectMemError(e.embed(['a']), EmbedderError, 'EMBEDDER_ERROR');
    behaviour = { drop: true };
    await expectMemError(e.embed(['a', 'b']), EmbedderError, 'EMBEDDER_ERROR');
    behaviour = { status: 500 };
    await expectMemError(e.embed(['a']), EmbedderError, 'EMBEDDER_ERROR', { status: 500 });
    behaviour = {};
    await expectMemError(e.embed([' ']), MemValidationError, 'TEXT_EMPTY');
    await expectMemError(e.embed('a' as unknown as string[]), MemValidationError, 'INVALID_INPUT');
    await expectMemError(() => createOpenAIEmbedder({ baseURL, model: '', dimension: 8 }), MemValidationError, 'INVALID_INPUT');
    await expectMemError(() => createOpenAIEmbedder({ baseURL, model: 'm', dimension: 0 }), MemValidationError, 'INVALID_INPUT');
  });

  it('connection refused -> EMBEDDER_ERROR', async () => {
    const e = createOpenAIEmbedder({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'k', model: 'm', dimension: 8, maxRetries: 0, timeoutMs: 2000 });
    await expectMemError(e.embed(['a']), EmbedderError, 'EMBEDDER_ERROR');
  });
});

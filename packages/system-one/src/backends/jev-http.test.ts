import { describe, expect, it } from 'vitest';
import { batches, catalogue } from '../catalogue.js';
import { createSystemOne } from '../controller.js';
import { createJevHttpBackend } from './jev-http.js';
import { mockServerPerTest } from '../../test/mock-server.js';

const servers = mockServerPerTest();

describe('createJevHttpBackend (Jev wire format) against a loopback server', () => {
  it('POSTs {model, state, questions} to /v1/systemone and reads typed answers', async () => {
    const server = await servers.start({
      other: (body) => ({
        json: {
          answers: Object.fromEntries(
            Object.entries(body.questions as Record<string, any>).map(([id, q]) =>
              q.type === 'noul' ? [id, 0.7] : [id, { choice: 'after', probabilities: { before: 0.1, after: 0.8, unknown: 0.1 } }],
            ),
          ),
        },
      }),
    });
    const s1 = createSystemOne({ backend: createJevHttpBackend({ url: server.origin, model: 'jev-small', apiKey: 'secret' }) });
    const state = { new_memory: 'I bought a bike.', candidates: ['My old bike broke.'] };
    const r = await s1.ask(state, batches.relations(1));
    expect(r.answers.pair_0_semantic).toBe(0.7);
    expect(r.answers.pair_0_temporal_order.choice).toBe('after');
    expect(r.answers.pair_0_temporal_order.probabilities.during).toBe(0);
    const req = server.requests[0];
    expect(req).toMatchObject({ method: 'POST', path: '/v1/systemone' });
    expect(req.headers.authorization).toBe('Bearer secret');
    expect(req.body.model).toBe('jev-small');
    expect(req.body.state).toEqual(state);
    expect(req.body.questions.pair_0_semantic).toEqual({ type: 'noul', instructions: catalogue.relation.semantic(0).instructions, criteria: catalogue.relation.semantic(0).criteria });
    expect(r.traces[0].backend).toBe('jev-http:jev-small');
  });

  it('retries a 503 then succeeds; a bad per-question answer falls back alone', async () => {
    let n = 0;
    const server = await servers.start({
      other: () => (++n === 1 ? { status: 503, body: 'busy' } : { body: "{'temporal': 0.9, 'causal': 'very'}" }),
    });
    const s1 = createSystemOne({ backend: createJevHttpBackend({ url: server.origin, model: 'm', backoffMs: 1 }) });
    const r = await s1.ask({ query: 'Why did Ana move?' }, { temporal: catalogue.routing.temporal(), causal: catalogue.routing.causal() });
    expect(n).toBe(2);
    expect(r.answers.temporal).toBe(0.9);
    expect(r.traces[1]).toMatchObject({ fallback: true, error: { code: 'INVALID_ANSWER' } });
  });

  it('a 400 is not retried; the batch falls back to offline', async () => {
    const server = await servers.start({ other: () => ({ status: 400, json: { error: 'bad request' } }) });
    const s1 = createSystemOne({ backend: createJevHttpBackend({ url: `${server.origin}/custom/path`, model: 'm', backoffMs: 1 }), maxRetries: 0 });
    const r = await s1.ask({ query: 'When?' }, { t: catalogue.routing.temporal() });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].path).toBe('/custom/path');
    expect(r.traces[0]).toMatchObject({ fallback: true, error: { code: 'BACKEND_ERROR' } });
  });

  it('times out slow replies', async () => {
    const server = await servers.start({ other: () => ({ delayMs: 2000, json: { answers: { t: 1 } } }) });
    const s1 = createSystemOne({ backend: createJevHttpBackend({ url: server.origin, model: 'm', requestTimeoutMs: 80, maxRetries: 0 }), maxRetries: 0 });
    const r = await s1.ask({ query: 'When?' }, { t: catalogue.routing.temporal() });
    expect(r.traces[0]).toMatchObject({ fallback: true, error: { code: 'BACKEND_TIMEOUT' } });
  });
});

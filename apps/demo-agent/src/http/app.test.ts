import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStack, offlineAnswerEvidence, type Stack } from '../stack.js';
import { createApi } from './app.js';
import { defaultAnswerability } from '@mem/retrieval';

let stack: Stack;
let app: ReturnType<typeof createApi>;

const post = (path: string, body: unknown, init: RequestInit = {}) =>
  app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...(init.headers ?? {}) }, body: typeof body === 'string' ? body : JSON.stringify(body) });

async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  const body = (await res.json()) as any;
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(JSON.stringify(body)).not.toMatch(/\n\s+at |\.ts:\d+/); // no stack traces
  return body;
}

const OBS = [
  { text: 'I adopted a beagle called Biscuit from the city shelter.', speaker: 'Maya', observedAt: '2025-03-07T19:00:00Z', sourceId: 'D1:1' },
  { text: 'I switched from espresso to green tea because of my sleep.', speaker: 'Maya', observedAt: '2025-03-27T19:00:00Z', sourceId: 'D2:1' },
  { text: 'My sister Lena lives in Lisbon.', speaker: 'Maya', observedAt: '2025-03-27T19:01:00Z', sourceId: 'D2:2' },
];

beforeAll(async () => {
  stack = await createStack({ db: ':memory:', scope: { userId: 'maya' }, systemTwo: null });
  app = createApi({ stack, bodyLimit: 20_000, playground: false });
});
afterAll(async () => {
  await stack?.close();
});

describe('POST /v1/observations', () => {
  it('stores observations with their gate decision and no embedding', async () => {
    const res = await post('/v1/observations', { observations: OBS });
    expect(res.status).toBe(200);
    const { added } = (await res.json()) as any;
    expect(added).toHaveLength(3);
    expect(added[0].created).toBe(true);
    expect(added[0].node.text).toBe(OBS[0].text);
    expect(added[0].node.embedding).toBeUndefined();
    expect(added[0].node.provenance.sourceId).toBe('D1:1');
    expect(['add', 'update', 'noop']).toContain(added[2].gate.action);
    expect(added[2].gate.threshold).toBeGreaterThan(0);
  });
  it('rejects bad input with JSON errors and writes nothing', async () => {
    const before = ((await (await app.request('/v1/stats')).json()) as any).nodes;
    await expectError(await post('/v1/observations', {}), 400, 'INVALID_INPUT');
    await expectError(await post('/v1/observations', { observations: [] }), 400, 'INVALID_INPUT');
    // break-it point 1: an empty text is TEXT_EMPTY here as in core, the CLI, MCP and the AI SDK tools (was INVALID_INPUT)
    await expectError(await post('/v1/observations', { observations: [{ text: 'ok' }, { text: '' }] }), 400, 'TEXT_EMPTY');
    await expectError(await post('/v1/observations', { observations: [{ text: ' \u200b ' }] }), 400, 'TEXT_EMPTY');
    await expectError(await post('/v1/observations', { observations: [{ text: 42 }] }), 400, 'INVALID_INPUT');
    await expectError(await post('/v1/observations', '{"observations": [ {"text": '), 400, 'INVALID_JSON');
    // A zone-less time is ambiguous: core rejects it (MemValidationError → 400 with its code).
    await expectError(await post('/v1/observations', { observations: [{ text: 'hello there', observedAt: '2025-03-07 19:00' }] }), 400, 'MISSING_TIMEZONE');
    await expectError(await post('/v1/observations', { observations: [{ text: 'x'.repeat(30_000) }] }), 413, 'PAYLOAD_TOO_LARGE');
    // bytes that are not UTF-8 (a Latin-1 "é") are refused, not stored as U+FFFD
    const latin1 = Buffer.concat([Buffer.from('{"observations":[{"text":"the caf'), Buffer.from([0xe9]), Buffer.from(' on the corner"}]}')]);
    const bad = await expectError(await app.request('/v1/observations', { method: 'POST', headers: { 'content-type': 'application/json' }, body: latin1 }), 400, 'INVALID_INPUT');
    expect(bad.error.message).toMatch(/not UTF-8/);
    // break-it point 2: an observedAt before 1583 (year 0000 and 0001 sentinels) is BAD_DATE; a NUL or another
    // control character but tab / LF / CR in text or speaker is INVALID_INPUT naming it; nothing is written
    for (const observedAt of ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00Z', '1582-12-31T23:59:59Z', -12_219_292_800_001]) {
      const b = await expectError(await post('/v1/observations', { observations: [{ text: 'ok', observedAt: '2025-01-01T00:00:00Z' }, { text: 'Old news.', observedAt }] }), 400, 'BAD_DATE');
      expect(b.error.message).toMatch(/observation 1: .*out of range: it must lie from 1583-01-01T00:00:00\.000Z to 9999-12-30/);
    }
    const nul = await expectError(await post('/v1/observations', { observations: [{ text: 'the code is 12\u000034' }] }), 400, 'INVALID_INPUT');
    expect(nul.error.message).toContain('U+0000');
    await expectError(await post('/v1/observations', { observations: [{ text: 'ok', speaker: 'Ma\u001bya' }] }), 400, 'INVALID_INPUT');
    // the edges of what is allowed (in a scope of its own: the stats of this file's scope stay as they were)
    expect((await post('/v1/observations?userId=range-edge', { observations: [{ text: 'Tabs\tand\r\nline breaks stay.', observedAt: '1583-01-01T00:00:00Z' }] })).status).toBe(200);
    const after = ((await (await app.request('/v1/stats')).json()) as any).nodes;
    expect(after).toBe(before);
  });
  it('adversarial: a long batch with one bad observation past the first slice writes nothing and names its index in the whole list', async () => {
    const before = ((await (await app.request('/v1/stats')).json()) as any).nodes;
    const observations = Array.from({ length: 20 }, (_, i) => ({ text: `Batch fact number ${i} about the garden shed.`, observedAt: '2024-05-14T10:00:00Z' }));
    observations[17] = { ...observations[17]!, observedAt: '2024-05-14T10:00:00' };
    const body = await expectError(await post('/v1/observations', { observations }), 400, 'MISSING_TIMEZONE');
    expect(body.error.message).toContain('observation 17');
    const after = ((await (await app.request('/v1/stats')).json()) as any).nodes;
    expect(after).toBe(before);
  });
  it('adversarial: unknown fields are rejected (a typo such as observed_at would silently lose the time), wrong content type is typed', async () => {
    const before = ((await (await app.request('/v1/stats')).json()) as any).nodes;
    const typo = await expectError(
      await post('/v1/observations', { observations: [{ text: 'I moved to Porto.', observed_at: '2020-01-01T00:00:00Z' }] }),
      400,
      'INVALID_INPUT',
    );
    expect(typo.error.message).toMatch(/observed_at/);
    await expectError(await post('/v1/observations', { observations: [{ text: 'I moved to Porto.' }], scope: { userId: 'x' } }), 400, 'INVALID_INPUT');
    await expectError(await post('/v1/search', { query: 'Porto', topK: 3 }), 400, 'INVALID_INPUT');
    await expectError(await post('/v1/ask', { question: 'Porto?', kk: 3 }), 400, 'INVALID_INPUT');
    const plain = await app.request('/v1/observations', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ observations: [{ text: 'I moved to Porto.' }] }) });
    await expectError(plain, 415, 'UNSUPPORTED_MEDIA_TYPE');
    // an observedAt the core cannot represent is a 400 BAD_DATE, not a 500
    await expectError(await post('/v1/observations', { observations: [{ text: 'Far future.', observedAt: '9999-12-31T12:00:00Z' }] }), 400, 'BAD_DATE');
    const after = ((await (await app.request('/v1/stats')).json()) as any).nodes;
    expect(after).toBe(before);
  });
});

describe('POST /v1/search and /v1/ask', () => {
  it('search returns scored evidence and the Jev trace', async () => {
    const res = await post('/v1/search', { query: 'What does Maya drink now?', k: 2 });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.evidence.length).toBeGreaterThan(0);
    expect(body.evidence.length).toBeLessThanOrEqual(2);
    expect(body.evidence[0].embedding).toBeUndefined();
    expect(body.trace.routing.semantic).toBeGreaterThanOrEqual(0);
  });
  it('search and ask return evidence in one shape, in the same order, and the answer line is result #1', async () => {
    const q = 'Where does Lena live?';
    const search = (await (await post('/v1/search', { query: q, k: 3 })).json()) as any;
    const ask = (await (await post('/v1/ask', { question: q, k: 3 })).json()) as any;
    const keys = ['eventTime', 'id', 'observedAt', 'score', 'sourceId', 'speaker', 'status', 'supersededBy', 'text', 'via'];
    for (const e of [...search.evidence, ...ask.evidence]) expect(Object.keys(e).sort()).toEqual(keys);
    expect(search.evidence.map((e: any) => e.id)).toEqual(ask.evidence.map((e: any) => e.id));
    expect(Object.keys(search.trace).sort()).toEqual(Object.keys(ask.trace).sort());
    const top = ask.evidence[0];
    expect(ask.answer).toBe(`${top.speaker ? `${top.speaker}: ` : ''}${top.text}`);
    expect(ask.answerRank).toBe(1);
  });
  it('ask offline returns the top evidence as the answer, labelled mode "evidence"', async () => {
    const res = await post('/v1/ask', { question: 'Where does Lena live?', k: 3 });
    expect(res.status).toBe(200);
    const r = (await res.json()) as any;
    expect(r.mode).toBe('evidence');
    expect(r.model).toBeNull();
    expect(r.answer).toContain(offlineAnswerEvidence(r.evidence as { text: string }[])!.text);
    expect(r.evidence.map((e: any) => e.sourceId)).toContain('D2:2');
    expect(Object.keys(r.trace.routing)).toEqual(expect.arrayContaining(['semantic', 'temporal', 'causal', 'entity']));
    expect(typeof r.trace.stopReason).toBe('string');
    expect(r.context).toContain('Lisbon');
  });
  it('search and ask say when memory holds nothing on the question, with pEvidence (issue 37)', async () => {
    const q = "What is Maya's blood type?";
    const search = (await (await post('/v1/search', { query: q, k: 3 })).json()) as any;
    expect(search.answerable).toBe(false);
    expect(search.pEvidence).toBeGreaterThanOrEqual(0);
    expect(search.pEvidence).toBeLessThan(defaultAnswerability().threshold);
    const ask = (await (await post('/v1/ask', { question: q, k: 3 })).json()) as any;
    expect(ask).toMatchObject({ answerable: false, answerRank: null, answer: `memory holds nothing on this (p(evidence) ${ask.pEvidence.toFixed(2)})` });
    const yes = (await (await post('/v1/search', { query: 'Where does Lena live?', k: 3 })).json()) as any;
    expect(yes.answerable).toBe(true);
    expect(yes.pEvidence).toBeGreaterThanOrEqual(defaultAnswerability().threshold);
  });
  it('rejects bad queries', async () => {
    await expectError(await post('/v1/search', { query: '' }), 400, 'TEXT_EMPTY');
    await expectError(await post('/v1/search', { query: '   ' }), 400, 'TEXT_EMPTY');
    await expectError(await post('/v1/ask', { question: '' }), 400, 'TEXT_EMPTY');
    await expectError(await post('/v1/search', { query: 'x', k: 0 }), 400, 'INVALID_INPUT');
    await expectError(await post('/v1/search', { query: 'x', k: 'ten' }), 400, 'INVALID_INPUT');
    // `now` is strict (issue 17): ISO-8601 with a zone; zone-less only with a configured time zone
    // (this server has none), never read as UTC; not whatever Date.parse takes
    expect((await post('/v1/search', { query: 'Porto', now: '2025-04-12T18:00:00Z' })).status).toBe(200);
    expect((await post('/v1/ask', { question: 'Porto?', now: '2025-04-12T18:00:00-05:00' })).status).toBe(200);
    await expectError(await post('/v1/search', { query: 'Porto', now: '2025-04-12 18:00' }), 400, 'MISSING_TIMEZONE');
    await expectError(await post('/v1/ask', { question: 'Porto?', now: '2025-04-12' }), 400, 'MISSING_TIMEZONE');
    const loose = await expectError(await post('/v1/search', { query: 'Porto', now: 'April 12, 2025' }), 400, 'BAD_DATE');
    expect(loose.error.message).toMatch(/now "April 12, 2025" is not an ISO-8601 timestamp/);
    await expectError(await post('/v1/search', { query: 'Porto', now: '1:56 pm on 8 May, 2023' }), 400, 'BAD_DATE');
    await expectError(await post('/v1/search', { query: 'Porto', now: '2025-02-30T10:00:00Z' }), 400, 'BAD_DATE');
    await expectError(await post('/v1/ask', { question: 'Porto?', now: 'soon' }), 400, 'BAD_DATE');
    await expectError(await post('/v1/ask', { k: 3 }), 400, 'INVALID_INPUT');
    await expectError(await post('/v1/ask', { question: 'x', tokenBudget: 1 }), 400, 'INVALID_INPUT');
    await expectError(await post('/v1/ask', 'not json'), 400, 'INVALID_JSON');
  });
});

describe('nodes, neighbours, forget, history, stats', () => {
  it('gets a node, 404s unknown ids and other scopes', async () => {
    const id = (await stack.list())[0].id;
    const res = await app.request(`/v1/nodes/${id}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).id).toBe(id);
    await expectError(await app.request('/v1/nodes/does-not-exist'), 404, 'NODE_NOT_FOUND');
    await expectError(await app.request(`/v1/nodes/${id}?userId=someone-else`), 404, 'NODE_NOT_FOUND');
    await expectError(await app.request(`/v1/nodes/${id}?userId=a|b`), 400, 'SCOPE_INVALID');
  });
  it('lists neighbours, filtered by view', async () => {
    const id = (await stack.list())[1].id;
    const res = await app.request(`/v1/nodes/${id}/neighbors`);
    expect(res.status).toBe(200);
    const { neighbors } = (await res.json()) as any;
    expect(neighbors.length).toBeGreaterThan(0);
    expect(neighbors[0].node.embedding).toBeUndefined();
    const temporal = (await (await app.request(`/v1/nodes/${id}/neighbors?views=temporal`)).json()) as any;
    expect(temporal.neighbors.every((n: any) => n.relation.view === 'temporal')).toBe(true);
    await expectError(await app.request(`/v1/nodes/${id}/neighbors?views=gossip`), 400, 'INVALID_INPUT');
    await expectError(await app.request(`/v1/nodes/${id}/neighbors?limit=-1`), 400, 'INVALID_INPUT');
    await expectError(await app.request('/v1/nodes/nope/neighbors'), 404, 'NODE_NOT_FOUND');
  });
  it('DELETE /v1/nodes?userId=… forgets every memory of that scope (issue 32); without a scope in the query it refuses', async () => {
    expect((await post('/v1/observations?userId=erase-me', { observations: [{ text: 'Erase-me note one about the harbour.' }, { text: 'Erase-me note two about the violin.' }] })).status).toBe(200);
    const before = (await stack.list()).length;
    await expectError(await app.request('/v1/nodes', { method: 'DELETE' }), 400, 'SCOPE_MISSING');
    await expectError(await app.request('/v1/nodes?namespace=default', { method: 'DELETE' }), 400, 'SCOPE_MISSING');
    const del = await app.request('/v1/nodes?userId=erase-me', { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(((await del.json()) as any).forgotten).toBe(2);
    expect(((await (await app.request('/v1/stats?userId=erase-me')).json()) as any).nodes).toBe(0);
    const h = (await (await app.request('/v1/history?userId=erase-me')).json()) as any;
    expect(h.history.filter((r: any) => r.op === 'FORGET').length).toBe(2);
    expect(JSON.stringify(h)).not.toContain('Erase-me note');
    expect((await stack.list()).length).toBe(before); // the default scope is untouched
  });
  it('forgets a node (then 404), and history keeps a FORGET row', async () => {
    const id = (await stack.list())[0].id;
    const del = await app.request(`/v1/nodes/${id}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect((await del.json()) as any).toEqual({ id, forgotten: true });
    await expectError(await app.request(`/v1/nodes/${id}`), 404, 'NODE_NOT_FOUND');
    const again = await expectError(await app.request(`/v1/nodes/${id}`, { method: 'DELETE' }), 404, 'NODE_NOT_FOUND');
    expect(again.error.message).toMatch(new RegExp(`^Memory ${id} in user "maya" was forgotten at \\d{4}-`)); // not a scope mix-up
    const elsewhere = await expectError(await app.request(`/v1/nodes/${id}?userId=nobody`), 404, 'NODE_NOT_FOUND');
    expect(elsewhere.error.message).toBe(`No memory ${id} in user "nobody"`); // another scope learns nothing about it
    const h = (await (await app.request(`/v1/history?nodeId=${id}`)).json()) as any;
    expect(h.history.map((r: any) => r.op)).toContain('FORGET');
    await expectError(await app.request('/v1/history?limit=0'), 400, 'INVALID_INPUT');
    await expectError(await app.request('/v1/history?limit=abc'), 400, 'INVALID_INPUT');
  });
  it('reports stats and the graph of the scope', async () => {
    const s = (await (await app.request('/v1/stats')).json()) as any;
    expect(s.nodes).toBe(2);
    expect(s.scope.userId).toBe('maya');
    expect(Object.keys(s.relationsByView)).toEqual(['semantic', 'temporal', 'causal', 'entity']);
    const other = (await (await app.request('/v1/stats?userId=nobody')).json()) as any;
    expect(other.nodes).toBe(0);
    expect(other.gate).toEqual({ add: 0, update: 0, noop: 0, none: 0 });
    // no process-wide counters: maya's writes must not show in another scope's stats
    expect(other.session).toBeUndefined();
    expect(other.systemOne).toBeUndefined();
    expect(JSON.stringify(other)).not.toMatch(/"writes"/);
    const g = (await (await app.request('/v1/graph')).json()) as any;
    expect(g.nodes).toHaveLength(2);
    await expectError(await app.request('/v1/graph?limit=99999'), 400, 'INVALID_INPUT');
  });
});

describe('document, auth, unknown routes, internal errors', () => {
  it('serves the OpenAPI document listing every endpoint', async () => {
    const doc = (await (await app.request('/openapi.json')).json()) as any;
    expect(doc.openapi).toMatch(/^3\./);
    for (const p of ['/v1/observations', '/v1/search', '/v1/ask', '/v1/nodes/{id}', '/v1/nodes/{id}/neighbors', '/v1/history', '/v1/stats']) {
      expect(Object.keys(doc.paths)).toContain(p);
    }
    expect(Object.keys(doc.paths['/v1/nodes/{id}'])).toEqual(expect.arrayContaining(['get', 'delete']));
  });
  it('requires the bearer token when one is set', async () => {
    const secured = createApi({ stack, token: 's3cret', playground: false });
    await expectError(await secured.request('/v1/stats'), 401, 'UNAUTHORIZED');
    await expectError(await secured.request('/v1/stats', { headers: { authorization: 'Bearer wrong' } }), 401, 'UNAUTHORIZED');
    expect((await secured.request('/v1/stats', { headers: { authorization: 'Bearer s3cret' } })).status).toBe(200);
    expect((await secured.request('/openapi.json')).status).toBe(200);
  });
  it('answers unknown routes with a JSON 404', async () => {
    await expectError(await app.request('/v1/nope'), 404, 'NOT_FOUND');
  });
  it('hides internal error details from clients', async () => {
    const broken = { ...stack, withScope: () => broken, search: async () => { throw new Error('secret path /etc/shadow exploded'); } } as unknown as Stack;
    const seen: unknown[] = [];
    const api = createApi({ stack: broken, playground: false, onInternalError: (e) => seen.push(e) });
    const res = await api.request('/v1/search', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'x' }) });
    const body = await expectError(res, 500, 'INTERNAL');
    expect(body.error.message).toBe('Internal error');
    expect(seen).toHaveLength(1);
  });
});

describe('adversarial: /v1/last is scoped', () => {
  it("another scope's last write and query never show up", async () => {
    const bob = await post('/v1/observations?userId=bob-last', { observations: [{ text: 'Bob keeps a secret diary about his savings.', observedAt: '2025-04-01T10:00:00Z' }] });
    expect(bob.status).toBe(200);
    expect((await post('/v1/ask?userId=bob-last', { question: 'What does Bob keep secret?' })).status).toBe(200);
    const mine = (await (await app.request('/v1/last')).json()) as any;
    expect(JSON.stringify(mine)).not.toMatch(/secret diary|Bob keeps|What does Bob/);
    const his = (await (await app.request('/v1/last?userId=bob-last')).json()) as any;
    expect(his.write.added[0].text).toBe('Bob keeps a secret diary about his savings.');
    expect(his.query.question).toBe('What does Bob keep secret?');
    await expectError(await app.request('/v1/last?userId=a|b'), 400, 'SCOPE_INVALID');
  });
});

describe('short ids (the CLI prints the last 8 characters)', () => {
  it('GET, neighbors and DELETE /v1/nodes/{id} take a unique end of an id, as mem inspect / forget do', async () => {
    const q = '?userId=short-ids';
    const res = await post(`/v1/observations${q}`, { observations: [{ text: 'Noor keeps bees on the roof of the library.', observedAt: '2025-04-01T10:00:00Z' }] });
    const id: string = ((await res.json()) as any).added[0].node.id;
    const short = id.slice(-8);
    const got = await app.request(`/v1/nodes/${short}${q}`);
    expect(got.status).toBe(200);
    expect(((await got.json()) as any).id).toBe(id);
    expect((await app.request(`/v1/nodes/${short}/neighbors${q}`)).status).toBe(200);
    const del = await app.request(`/v1/nodes/${short}${q}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    expect(await del.json()).toEqual({ id, forgotten: true });
    await expectError(await app.request(`/v1/nodes/${short}${q}`), 404, 'NODE_NOT_FOUND');
  });
});

describe('adversarial: /v1/last keeps no forgotten text', () => {
  it('after DELETE /v1/nodes/{id}, /v1/last no longer shows the text in its write or its question', async () => {
    const q = '?userId=last-forget';
    const res = await post(`/v1/observations${q}`, { observations: [{ text: 'My locker code is Quokkamango 9931.', observedAt: '2025-04-01T10:00:00Z' }] });
    const id = ((await res.json()) as any).added[0].node.id;
    expect((await post(`/v1/ask${q}`, { question: 'What is my locker code?' })).status).toBe(200);
    expect(JSON.stringify(await (await app.request(`/v1/last${q}`)).json())).toMatch(/Quokkamango/);
    expect((await app.request(`/v1/nodes/${id}${q}`, { method: 'DELETE' })).status).toBe(200);
    const last = (await (await app.request(`/v1/last${q}`)).json()) as any;
    expect(JSON.stringify(last)).not.toMatch(/Quokkamango/);
    expect(last).toEqual({ write: null, query: null });
  });
  it('a memory forgotten outside the API (MCP, another process) leaves /v1/last too; the others stay', async () => {
    const q = '?userId=last-forget-2';
    const res = await post(`/v1/observations${q}`, { observations: [
      { text: 'My passport number is Zebrafinch 4420.', observedAt: '2025-04-01T10:00:00Z' },
      { text: 'I water the basil every Sunday.', observedAt: '2025-04-01T10:01:00Z' },
    ] });
    const [secret, kept] = ((await res.json()) as any).added.map((a: any) => a.node.id);
    await stack.withScope({ userId: 'last-forget-2' }).forget(secret);
    const last = (await (await app.request(`/v1/last${q}`)).json()) as any;
    expect(JSON.stringify(last)).not.toMatch(/Zebrafinch/);
    expect(last.write.added.map((a: any) => a.id)).toEqual([kept]);
  });
});

describe('adversarial: concurrent DELETE of one node', () => {
  it('exactly one request forgets it; the others get 404', async () => {
    const res = await post('/v1/observations?userId=del-race', { observations: [{ text: 'A note that two clients delete at once.', observedAt: '2025-04-02T10:00:00Z' }] });
    const id = ((await res.json()) as any).added[0].node.id;
    const statuses = await Promise.all(Array.from({ length: 4 }, () => Promise.resolve(app.request(`/v1/nodes/${id}?userId=del-race`, { method: 'DELETE' })).then((r: Response) => r.status)));
    expect(statuses.filter((s: number) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s: number) => s === 404)).toHaveLength(3);
    const h = ((await (await app.request(`/v1/history?userId=del-race&nodeId=${id}`)).json()) as any).history;
    expect(h.filter((e: any) => e.op === 'FORGET')).toHaveLength(1);
  });
});

/**
 * GET /v1/export and POST /v1/import (issue 32 point 3): a user's memories leave one server as
 * @mem/export JSONL and enter another byte-identically (up to the header's exportedAt and source);
 * a second import, another embedder's file and a truncated file are refused with typed JSON errors
 * (409 STORE_CONFLICT, 409 IMPORT_MISMATCH, 400 INVALID_INPUT) and nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportLines } from '@mem/core';
import { createStack, type Stack } from '../stack.js';
import { createApi } from './app.js';
import { stableExport } from '@mem/core/testing';

let a: Stack;
let b: Stack;
let apiA: ReturnType<typeof createApi>;
let apiB: ReturnType<typeof createApi>;

beforeAll(async () => {
  a = await createStack({ db: ':memory:', scope: { userId: 'maya' }, systemTwo: null });
  b = await createStack({ db: ':memory:', scope: { userId: 'maya' }, systemTwo: null });
  apiA = createApi({ stack: a, playground: false, mcp: false });
  apiB = createApi({ stack: b, playground: false, mcp: false });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
});

const stable = stableExport;

const importInto = (app: ReturnType<typeof createApi>, body: string) => app.request('/v1/import', { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body });

describe('GET /v1/export, POST /v1/import', () => {
  it('moves a user between servers byte-identically; skips a repeated import; refuses a scope with other memories, an unknown user, another embedder and a truncated file', async () => {
    const add = (userId: string, texts: string[]) =>
      apiA.request(`/v1/observations?userId=${userId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ observations: texts.map((text, i) => ({ text, speaker: 'Maya', observedAt: `2025-03-0${i + 1}T19:00:00Z` })) }),
      });
    expect((await add('maya', ['I adopted a beagle called Biscuit.', 'My sister Lena lives in Lisbon.'])).status).toBe(200);
    expect((await add('sam', ['Sam plays chess on Sundays.'])).status).toBe(200);

    const res = await apiA.request('/v1/export?userId=maya');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/x-ndjson/);
    const text = await res.text();
    const kinds = exportLines(text).map((l) => JSON.parse(l).kind);
    expect(kinds.filter((k) => k === 'memory')).toHaveLength(2);
    expect(text).not.toContain('chess');

    const imported = await importInto(apiB, text);
    expect(imported.status).toBe(200);
    expect(((await imported.json()) as any).counts).toMatchObject({ scopes: 1, memories: 2 });
    const back = await (await apiB.request('/v1/export?all=true')).text();
    expect(stable(back)).toBe(stable(text));
    const search = await apiB.request('/v1/search?userId=maya', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'Where does Lena live?', k: 1 }) });
    expect(((await search.json()) as any).evidence[0].text).toContain('Lisbon');

    // the same file again: the scope is imported already (skipped, nothing written twice)
    const again = await importInto(apiB, text);
    expect(again.status).toBe(200);
    expect(((await again.json()) as any).skipped.map((x: { userId: string }) => x.userId)).toEqual(['maya']);
    expect(stable(await (await apiB.request('/v1/export?all=true')).text())).toBe(stable(text));
    // a scope holding other memories: refused
    const more = await apiB.request('/v1/observations?userId=maya', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ observations: [{ text: 'Maya moved to Porto.', observedAt: '2025-06-01T10:00:00Z' }] }) });
    expect(more.status).toBe(200);
    const conflict = await importInto(apiB, text);
    expect(conflict.status).toBe(409);
    expect(((await conflict.json()) as any).error.code).toBe('STORE_CONFLICT');
    // a user the server never saw: 404 SCOPE_NOT_FOUND, a JSON error before any line
    const unknown = await apiA.request('/v1/export?userId=nobody');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.code).toBe('SCOPE_NOT_FOUND');
    const foreign = text.replace(/"model":"[^"]+"/, '"model":"all-MiniLM-L6-v2"');
    const mismatch = await importInto(apiA, foreign);
    expect(mismatch.status).toBe(409);
    expect(((await mismatch.json()) as any).error.code).toBe('IMPORT_MISMATCH');
    const truncated = await importInto(apiA, exportLines(text).slice(0, -1).join('\n'));
    expect(truncated.status).toBe(400);
    expect(((await truncated.json()) as any).error.code).toBe('INVALID_INPUT');
    const bad = await apiA.request('/v1/export?all=true&userId=maya');
    expect(bad.status).toBe(400);
  });
});

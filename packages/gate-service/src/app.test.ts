import { mkdtemp, readFile, rm, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNoveltyGate } from '@mem/gate-vmf';
import type { Embedder } from '@mem/core';
import { createGateApp } from './app.js';
import { readState, writeStateAtomic } from './state.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
async function tempDir() {
  const d = await mkdtemp(join(tmpdir(), 'mem-gate-app-'));
  dirs.push(d);
  return d;
}

/** Unit vector close to axis i (tilt toward axis i+1). */
function axis(d: number, i: number, tilt = 0): number[] {
  const v = new Array(d).fill(0);
  v[i] = 1;
  v[(i + 1) % d] = tilt;
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

/** Unit vector e_0 + eps·e_j. */
function near0(d: number, j: number, eps: number): number[] {
  const v = new Array(d).fill(0);
  v[0] = 1;
  v[j] += eps;
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

const post = (app: ReturnType<typeof createGateApp>, path: string, body: unknown) =>
  app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('gate service (app.request)', () => {
  it('routes an empty scope to add, a repeat to noop, and reports the fixed-τ filter', async () => {
    const app = createGateApp({ gate: createNoveltyGate({ normalize: true }) });
    let r = await post(app, '/v1/gate/route', { scope: 'user:a', vector: axis(16, 0) });
    expect(r.status).toBe(200);
    let body = ((await r.json()) as any);
    expect(body.decision).toMatchObject({ action: 'add', n: 0, nearest: null });
    expect(body.noopFilter).toEqual({ tauNoop: 0.572, noop: false });
    // a tight cluster around axis 0: a near-repeat is redundant
    const cluster = (i: number) => near0(16, i + 1, 0.15);
    for (let i = 0; i < 8; i++) expect((await post(app, '/v1/gate/commit', { scope: 'user:a', id: `m${i}`, vector: cluster(i) })).status).toBe(200);
    r = await post(app, '/v1/gate/route', { scope: 'user:a', vector: cluster(3) });
    body = ((await r.json()) as any);
    expect(body.decision.action).toBe('noop');
    expect(body.decision.nearest).toEqual({ id: 'm3', cosine: expect.closeTo(1, 6) });
    expect(body.noopFilter.noop).toBe(true);
    // a direction no memory points to is novel
    r = await post(app, '/v1/gate/route', { scope: 'user:a', vector: axis(16, 12) });
    expect(((await r.json()) as any).decision.action).toBe('add');
    // scopes do not leak
    r = await post(app, '/v1/gate/route', { scope: 'user:b', vector: axis(16, 3) });
    expect(((await r.json()) as any).decision).toMatchObject({ action: 'add', n: 0 });
    // the service's decision equals the library's
    const lib = createNoveltyGate({ normalize: true });
    for (let i = 0; i < 8; i++) lib.commit('user:a', `m${i}`, cluster(i));
    const want = lib.route('user:a', axis(16, 2, 0.4));
    const got = ((await (await post(app, '/v1/gate/route', { scope: 'user:a', vector: axis(16, 2, 0.4) })).json()) as any).decision;
    expect(got.score).toBe(want.score);
    expect(got.threshold).toBe(want.threshold);
    expect(got.action).toBe(want.action);
  });

  it('validates input with JSON errors and codes', async () => {
    const app = createGateApp({ gate: createNoveltyGate({ normalize: true }) });
    const cases: [unknown, number, string][] = [
      [{ scope: 'x' }, 400, 'INVALID_INPUT'],
      [{ scope: 'x', vector: [1, 0], text: 'both' }, 400, 'INVALID_INPUT'],
      [{ scope: '', vector: [1, 0] }, 400, 'INVALID_INPUT'],
      [{ scope: 'x', vector: ['a'] }, 400, 'INVALID_INPUT'],
      [{ scope: 'x', vector: [0, 0] }, 400, 'ZERO_VECTOR'],
      [{ scope: 'x', text: 'no embedder here' }, 400, 'TEXT_UNSUPPORTED'],
      // a misspelt option is refused, not ignored (break-it: "tau_noop" fell back to the default)
      [{ scope: 'x', vector: [1, 0], tau_noop: 0.99 }, 400, 'INVALID_INPUT'],
    ];
    for (const [body, status, code] of cases) {
      const r = await post(app, '/v1/gate/route', body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(((await r.json()) as any).error.code, JSON.stringify(body)).toBe(code);
    }
    const bad = await app.request('/v1/gate/route', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{nope' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.code).toMatch(/INVALID/);
    await post(app, '/v1/gate/commit', { scope: 'x', id: 'a', vector: [1, 0, 0] });
    let r = await post(app, '/v1/gate/commit', { scope: 'x', id: 'a', vector: [0, 1, 0] });
    expect(r.status).toBe(409);
    expect(((await r.json()) as any).error.code).toBe('DUPLICATE_ID');
    r = await post(app, '/v1/gate/commit', { scope: 'x', id: 'b', vector: [0, 1] });
    expect(r.status).toBe(400);
    expect(((await r.json()) as any).error.code).toBe('DIMENSION_MISMATCH');
    r = await post(app, '/v1/gate/commit', { scope: 'x', id: 'c', vector: [0, 0, 1], replace_existing: true });
    expect(r.status).toBe(400);
    expect(((await r.json()) as any).error.code).toBe('INVALID_INPUT');
    expect(app.gate.has('x', 'c')).toBe(false);
    r = await post(app, '/v1/gate/commit', { scope: 'x', id: 'a', vector: [0, 1, 0], replace: true });
    expect((await r.json()) as any).toMatchObject({ replaced: true, size: 1 });
    r = await app.request('/v1/gate/x/nope', { method: 'DELETE' });
    expect(r.status).toBe(404);
    expect(((await r.json()) as any).error.code).toBe('UNKNOWN_ID');
    r = await app.request('/v1/nothing');
    expect(r.status).toBe(404);
  });

  it('delete and stats, with scopes that need URL encoding', async () => {
    const app = createGateApp({ gate: createNoveltyGate({ normalize: true }) });
    const scope = 'default|alice/ü||run 1';
    for (let i = 0; i < 3; i++) await post(app, '/v1/gate/commit', { scope, id: `id/${i}`, vector: axis(8, i) });
    let r = await app.request(`/v1/gate/${encodeURIComponent(scope)}/stats`);
    let body = ((await r.json()) as any);
    expect(body).toMatchObject({ scope, size: 3, stats: { n: 3, dimension: 8, commits: 3 } });
    r = await app.request(`/v1/gate/${encodeURIComponent(scope)}/${encodeURIComponent('id/1')}`, { method: 'DELETE' });
    expect((await r.json()) as any).toEqual({ scope, id: 'id/1', removed: true, size: 2 });
    r = await app.request(`/v1/gate/${encodeURIComponent('unknown scope')}/stats`);
    body = ((await r.json()) as any);
    expect(body).toEqual({ scope: 'unknown scope', size: 0, stats: null });
  });

  it('embeds text with the configured embedder', async () => {
    const seen: string[] = [];
    const embedder: Embedder = {
      model: 'letters',
      dimension: 26,
      async embed(texts) {
        seen.push(...texts);
        return texts.map((t) => {
          const v = new Float32Array(26);
          for (const ch of t.toLowerCase()) if (ch >= 'a' && ch <= 'z') v[ch.charCodeAt(0) - 97] += 1;
          const n = Math.hypot(...v);
          return v.map((x) => x / n);
        });
      },
    };
    const app = createGateApp({ gate: createNoveltyGate({ normalize: true }), embedder });
    await post(app, '/v1/gate/commit', { scope: 's', id: 'a', text: 'abc abc' });
    const body: any = await (await post(app, '/v1/gate/route', { scope: 's', text: 'cab' })).json();
    expect(body.decision.nearest).toEqual({ id: 'a', cosine: expect.closeTo(1, 6) });
    expect(seen).toEqual(['abc abc', 'cab']);
  });

  it('persists every mutation atomically; a failed write is rolled back with 503', async () => {
    const dir = await tempDir();
    const statePath = join(dir, 'state', 'gate.json');
    const app = createGateApp({ gate: createNoveltyGate({ normalize: true }), statePath });
    await post(app, '/v1/gate/commit', { scope: 's', id: 'a', vector: axis(8, 0) });
    await post(app, '/v1/gate/commit', { scope: 's', id: 'b', vector: axis(8, 1) });
    let snap = await readState(statePath);
    expect(snap!.scopes[0].ids).toEqual(['a', 'b']);
    await app.request('/v1/gate/s/a', { method: 'DELETE' });
    snap = await readState(statePath);
    expect(snap!.scopes[0].ids).toEqual(['b']);
    expect(JSON.parse(await readFile(statePath, 'utf8'))).toEqual(app.gate.serialize());

    // make the target unwritable: a directory where the file should go
    const blocked = join(dir, 'blocked');
    await mkdir(join(blocked, 'gate.json'), { recursive: true });
    const app2 = createGateApp({ gate: createNoveltyGate({ normalize: true }), statePath: join(blocked, 'gate.json') });
    const r = await post(app2, '/v1/gate/commit', { scope: 's', id: 'a', vector: axis(8, 0) });
    expect(r.status).toBe(503);
    expect(((await r.json()) as any).error.code).toBe('STATE_NOT_PERSISTED');
    expect(app2.gate.size('s')).toBe(0); // rolled back
  });

  it('a retried commit (same id, same vector) is 200 unchanged and writes nothing; another vector stays 409 (break-it finding 4)', async () => {
    const dir = await tempDir();
    const statePath = join(dir, 'gate.json');
    let writes = 0;
    const app = createGateApp({
      gate: createNoveltyGate({ normalize: true }),
      statePath,
      writeState: async (path, snapshot) => {
        writes += 1;
        await writeStateAtomic(path, snapshot);
      },
    });
    const v = [0.3, -1.7, 2.2, 1e-3, 0];
    let r = await post(app, '/v1/gate/commit', { scope: 's', id: 'a', vector: v });
    expect((await r.json()) as any).toEqual({ scope: 's', id: 'a', size: 1, replaced: false, unchanged: false });
    await post(app, '/v1/gate/commit', { scope: 's', id: 'b', vector: axis(5, 2) });
    const before = app.gate.serialize();
    expect(writes).toBe(2);
    // the retry (also with replace: true, also concurrent ones) changes nothing: no τ EMA step, no write
    const retries = await Promise.all([
      post(app, '/v1/gate/commit', { scope: 's', id: 'a', vector: v }),
      post(app, '/v1/gate/commit', { scope: 's', id: 'a', vector: v, replace: true }),
    ]);
    for (const x of retries) {
      expect(x.status).toBe(200);
      expect((await x.json()) as any).toEqual({ scope: 's', id: 'a', size: 2, replaced: false, unchanged: true });
    }
    expect(writes).toBe(2);
    expect(app.gate.serialize()).toEqual(before);
    expect(app.gate.stats('s')!.commits).toBe(2);
    // the same direction at another length is the same stored unit vector: also unchanged
    r = await post(app, '/v1/gate/commit', { scope: 's', id: 'a', vector: v.map((x) => x * 4) });
    expect(((await r.json()) as any).unchanged).toBe(true);
    // another vector under the same id is still a conflict (naming the way out), and changes nothing
    r = await post(app, '/v1/gate/commit', { scope: 's', id: 'a', vector: axis(5, 1) });
    expect(r.status).toBe(409);
    const err = ((await r.json()) as any).error;
    expect(err.code).toBe('DUPLICATE_ID');
    expect(err.message).toMatch(/replace/);
    expect(app.gate.serialize()).toEqual(before);
    // a vector of another dimension under that id keeps its own error
    r = await post(app, '/v1/gate/commit', { scope: 's', id: 'a', vector: [1, 0] });
    expect(((await r.json()) as any).error.code).toBe('DIMENSION_MISMATCH');
    // replace with a new vector still replaces (and is written)
    r = await post(app, '/v1/gate/commit', { scope: 's', id: 'a', vector: axis(5, 1), replace: true });
    expect((await r.json()) as any).toMatchObject({ replaced: true, unchanged: false });
    expect(writes).toBe(3);
    expect(JSON.parse(await readFile(statePath, 'utf8'))).toEqual(app.gate.serialize());
    // in memory only (no state file) the same holds
    const mem = createGateApp({ gate: createNoveltyGate({ normalize: true }) });
    await post(mem, '/v1/gate/commit', { scope: 's', id: 'a', vector: v });
    r = await post(mem, '/v1/gate/commit', { scope: 's', id: 'a', vector: v });
    expect((await r.json()) as any).toMatchObject({ size: 1, unchanged: true });
    expect(mem.gate.stats('s')!.commits).toBe(1);
  });

  it('scopes and ids follow core\'s scope rules, NFC, and are never "." or ".." (break-it findings 6 and 7)', async () => {
    const app = createGateApp({ gate: createNoveltyGate({ normalize: true }) });
    const nfd = 'Zoe\u0301'; // "Zoé" decomposed
    const bad = [' ', '\t\n', '\u200b', '\u200b\u200d', '\ufeff', '\u3164', 'a\u0000b', 'user:\u0007bell', 'x\u007f', nfd, '\ud800x', '.', '..'];
    for (const v of bad) {
      for (const [path, body, field] of [
        ['/v1/gate/route', { scope: v, vector: [1, 0] }, 'scope'],
        ['/v1/gate/commit', { scope: v, id: 'a', vector: [1, 0] }, 'scope'],
        ['/v1/gate/commit', { scope: 's', id: v, vector: [1, 0] }, 'id'],
      ] as const) {
        const r = await post(app, path, body);
        expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(400);
        const err = ((await r.json()) as any).error;
        expect(err.code).toBe('INVALID_INPUT');
        expect(err.message.startsWith(`${field}: `), err.message).toBe(true);
      }
      // the path parameters obey the same rules ("." and ".." cannot even be sent as a segment)
      if (v !== '.' && v !== '..' && v !== '\ud800x') {
        const st = await app.request(`/v1/gate/${encodeURIComponent(v)}/stats`);
        expect(st.status, JSON.stringify(v)).toBe(400);
        expect(((await st.json()) as any).error.message).toMatch(/^scope: /);
        const del = await app.request(`/v1/gate/s/${encodeURIComponent(v)}`, { method: 'DELETE' });
        expect(del.status, JSON.stringify(v)).toBe(400);
        expect(((await del.json()) as any).error.message).toMatch(/^id: /);
      }
    }
    expect(app.gate.scopes()).toEqual([]);
    // visible text with invisible characters inside, NFC accents, "|", "/", dots inside: accepted as given
    for (const v of ['ma\u200bya', 'Zo\u00e9', '👩\u200d💻', 'default|alice||run 1', 'a/b', '...', '.hidden', 'v1.2']) {
      const r = await post(app, '/v1/gate/commit', { scope: v, id: v, vector: [1, 0] });
      expect(r.status, JSON.stringify(v)).toBe(200);
      const del = await app.request(`/v1/gate/${encodeURIComponent(v)}/${encodeURIComponent(v)}`, { method: 'DELETE' });
      expect(del.status, JSON.stringify(v)).toBe(200);
    }
  });

  it('vectors with very large or very small finite components are normalised, not ZERO_VECTOR (break-it finding 10)', async () => {
    const app = createGateApp({ gate: createNoveltyGate({ normalize: true }) });
    for (let i = 0; i < 4; i++) await post(app, '/v1/gate/commit', { scope: 's', id: `m${i}`, vector: axis(4, i, 0.3) });
    const want = ((await (await post(app, '/v1/gate/route', { scope: 's', vector: [1, 1, 0, 0] })).json()) as any).decision;
    for (const scale of [1e200, 1.7e308, 1e-160, 1e-200, 5e-324]) {
      const r = await post(app, '/v1/gate/route', { scope: 's', vector: [scale, scale, 0, 0] });
      expect(r.status, String(scale)).toBe(200);
      const got = ((await r.json()) as any).decision;
      expect(got.action).toBe(want.action);
      expect(got.score).toBeCloseTo(want.score, 12);
    }
    let r = await post(app, '/v1/gate/commit', { scope: 's', id: 'big', vector: [1e200, -3e199, 0, 2e200] });
    expect(r.status).toBe(200);
    // and a retry of it is the same stored vector
    r = await post(app, '/v1/gate/commit', { scope: 's', id: 'big', vector: [1e200, -3e199, 0, 2e200] });
    expect(((await r.json()) as any).unchanged).toBe(true);
    // zero stays ZERO_VECTOR; a gate that expects unit vectors is not given a rescaled one
    r = await post(app, '/v1/gate/route', { scope: 's', vector: [0, 0, 0, 0] });
    expect(((await r.json()) as any).error.code).toBe('ZERO_VECTOR');
    const unitOnly = createGateApp({ gate: createNoveltyGate({ normalize: false }) });
    r = await post(unitOnly, '/v1/gate/commit', { scope: 's', id: 'a', vector: [1e200, 0] });
    expect(r.status).toBe(400);
    expect(unitOnly.gate.has('s', 'a')).toBe(false);
  });

  it('serves an OpenAPI 3.1 document with the four gate routes', async () => {
    const app = createGateApp({ gate: createNoveltyGate() });
    const doc: any = await (await app.request('/openapi.json')).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual(['/v1/gate/commit', '/v1/gate/route', '/v1/gate/{scope}/stats', '/v1/gate/{scope}/{id}']);
    expect(doc.components.schemas.RouteRequest.properties).toHaveProperty('vector');
  });
});

/**
 * Persisted HNSW graphs (ours; `AnnOptions.persist`): a file store saves each scope's finished graph
 * on close and adopts it on the next open after checking it against the stored vectors, so a
 * restart does not rebuild the graph; a stale, foreign or damaged file never changes a result.
 */
import { copyFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeNode, testMeta, testScope, unitVector } from '../testing/index.js';
import type { MemoryNode, ResolvedScope } from '../types.js';
import { createSqliteStore, type SqliteStoreOptions } from './sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'mem-ann-persist-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const dim = 8;
const meta = testMeta(dim);
const A = testScope('ann-a');
const ann = { threshold: 100, efSearch: 400 };
let fileNo = 0;

async function open(path: string, options: Partial<SqliteStoreOptions> = {}) {
  const store = createSqliteStore({ path, ann, ...options });
  await store.open(meta);
  return store;
}

/** Exact top-k ids by cosine over `nodes` (the reference every search must match). */
function exactTop(nodes: Map<string, MemoryNode>, q: Float32Array, k: number): string[] {
  const dot = (v: Float32Array) => v.reduce((s, x, j) => s + x * q[j]!, 0);
  return [...nodes.values()]
    .map((n) => ({ id: n.id, s: dot(n.embedding) }))
    .sort((a, b) => b.s - a.s || (a.id < b.id ? -1 : 1))
    .slice(0, k)
    .map((x) => x.id);
}

/** The file reopened: searches like the exact scan over `nodes`, and its saved graph was loaded as `loaded` says; closed again. */
async function expectAdopted(path: string, nodes: Map<string, MemoryNode>, loaded: { loaded: boolean; removed: number; updated: number; tail: number }): Promise<void> {
  const store = await open(path);
  await expectExact(store, A, nodes);
  expect(store.annStatus(A).loaded).toEqual(loaded);
  await store.close();
}

async function expectExact(store: Awaited<ReturnType<typeof open>>, scope: ResolvedScope, nodes: Map<string, MemoryNode>) {
  for (let i = 0; i < 25; i++) {
    const q = unitVector(dim, 50_000 + i);
    const hits = await store.vectorSearch(scope, q, 10);
    expect(hits.map((h) => h.node.id)).toEqual(exactTop(nodes, q, 10));
  }
}

async function seeded(n: number) {
  const path = join(dir, `a${++fileNo}.db`);
  const store = await open(path);
  const nodes = new Map<string, MemoryNode>();
  const batch = Array.from({ length: n }, (_, i) => makeNode(A, `memory number ${i}`, unitVector(dim, i + 1)));
  for (const x of batch) nodes.set(x.id, x);
  await store.write({ scope: A, nodes: batch });
  await store.buildAnnIndex(A);
  expect(store.annStatus(A).state).toBe('ready');
  await store.close();
  return { path, nodes };
}

describe('persisted HNSW graph (ann.persist)', () => {
  it('close saves the graph; the next open adopts it (no rebuild) and searches like the exact scan', async () => {
    const { path, nodes } = await seeded(600);
    const files = readdirSync(`${path}.ann`);
    expect(files.sort()).toEqual(['1.hnsw', '1.hnsw.json']);
    const store = await open(path);
    await store.vectorSearch(A, unitVector(dim, 7), 3);
    const st = store.annStatus(A);
    expect(st).toMatchObject({ state: 'ready', pending: 0, loaded: { loaded: true, removed: 0, updated: 0, tail: 0 } });
    await expectExact(store, A, nodes);
    // leftovers of a save killed midway are cleaned up by the next save
    writeFileSync(`${path}.ann/1.hnsw.4242.1.tmp`, 'partial');
    writeFileSync(`${path}.ann/1.hnsw.4242.1.tmp.json`, '{');
    const late = makeNode(A, 'one more memory', unitVector(dim, 4242));
    await store.write({ scope: A, nodes: [late] });
    nodes.set(late.id, late);
    await expectExact(store, A, nodes);
    await store.close();
    expect(readdirSync(`${path}.ann`).sort()).toEqual(['1.hnsw', '1.hnsw.json']);
    await expectAdopted(path, nodes, { loaded: true, removed: 0, updated: 0, tail: 0 });
  });

  it('rows only added since the save: the graph is adopted as saved and the new rows are the tail', async () => {
    const { path, nodes } = await seeded(400);
    const other = await open(path, { ann: false });
    const added = Array.from({ length: 30 }, (_, i) => makeNode(A, `added later ${i}`, unitVector(dim, 60_000 + i)));
    await other.write({ scope: A, nodes: added });
    for (const x of added) nodes.set(x.id, x);
    await other.close();
    await expectAdopted(path, nodes, { loaded: true, removed: 0, updated: 0, tail: 30 });
  });

  it('a stale graph is corrected on load: forgotten rows deleted, changed vectors updated, new rows in the tail', async () => {
    const { path, nodes } = await seeded(600);
    // another writer without ANN (it saves nothing) changes the scope after the save
    const other = await open(path, { ann: false });
    const ids = [...nodes.keys()];
    for (const id of ids.slice(0, 20)) {
      expect(await other.forget(A, id)).toBe(true);
      nodes.delete(id);
    }
    const changed = ids.slice(100, 105).map((id, i) => ({ ...nodes.get(id)!, embedding: unitVector(dim, 90_000 + i) }));
    const added = Array.from({ length: 50 }, (_, i) => makeNode(A, `later memory ${i}`, unitVector(dim, 70_000 + i)));
    await other.write({ scope: A, nodes: [...changed, ...added] });
    for (const x of [...changed, ...added]) nodes.set(x.id, x);
    await other.close();
    await expectAdopted(path, nodes, { loaded: true, removed: 20, updated: 5, tail: 50 });
    // the corrected graph was saved again: the next open needs no correction
    await expectAdopted(path, nodes, { loaded: true, removed: 0, updated: 0, tail: 0 });
  });

  it('a damaged, torn or foreign file is ignored (rebuilt), never trusted', async () => {
    const { path, nodes } = await seeded(300);
    const file = `${path}.ann/1.hnsw`;
    const good = readFileSync(file);
    const cases: [string, () => void][] = [
      ['hash mismatch', () => writeFileSync(file, Buffer.concat([good.subarray(0, 100), Buffer.from([good[100]! ^ 0xff]), good.subarray(101)]))],
      ['hash mismatch', () => writeFileSync(file, good.subarray(0, good.length >> 1))],
      ['header does not match the options', () => writeFileSync(`${file}.json`, JSON.stringify({ ...JSON.parse(readFileSync(`${file}.json`, 'utf8')), m: 32 }))],
      ['unreadable', () => writeFileSync(`${file}.json`, '{not json')],
      ['no saved graph', () => rmSync(file)],
    ];
    const header = readFileSync(`${file}.json`);
    for (const [reason, damage] of cases) {
      writeFileSync(file, good);
      writeFileSync(`${file}.json`, header);
      damage();
      const store = await open(path, { ann: { ...ann, build: 'blocking' } });
      await expectExact(store, A, nodes);
      expect(store.annStatus(A).loaded).toMatchObject({ loaded: false, reason });
      expect(store.annStatus(A).state).toBe('ready'); // rebuilt
      await store.close();
    }
    // the graph of another store file (same scope row id) is refused by its identity
    const twin = (await seeded(300)).path;
    rmSync(`${twin}.ann`, { recursive: true });
    cpSync(`${path}.ann`, `${twin}.ann`, { recursive: true });
    const store = await open(twin);
    await store.vectorSearch(A, unitVector(dim, 3), 3);
    expect(store.annStatus(A).loaded).toMatchObject({ loaded: false, reason: 'header does not match the options' });
    await store.close();
  });

  it('nothing is written for :memory:, with persist: false, or for a scope without a finished graph', async () => {
    const mem = createSqliteStore({ path: ':memory:', ann });
    await mem.open(meta);
    await mem.write({ scope: A, nodes: Array.from({ length: 200 }, (_, i) => makeNode(A, `m ${i}`, unitVector(dim, i + 1))) });
    await mem.buildAnnIndex(A);
    await mem.close();
    expect(existsSync(':memory:.ann')).toBe(false);
    const path = join(dir, `off${++fileNo}.db`);
    const off = await open(path, { ann: { ...ann, persist: false } });
    await off.write({ scope: A, nodes: Array.from({ length: 200 }, (_, i) => makeNode(A, `m ${i}`, unitVector(dim, i + 1))) });
    await off.buildAnnIndex(A);
    await off.close();
    expect(existsSync(`${path}.ann`)).toBe(false);
    const small = join(dir, `small${++fileNo}.db`);
    const s = await open(small);
    await s.write({ scope: A, nodes: [makeNode(A, 'one', unitVector(dim, 1))] });
    await s.vectorSearch(A, unitVector(dim, 1), 1);
    await s.close();
    expect(existsSync(`${small}.ann`)).toBe(false);
    copyFileSync(small, `${small}.copy`); // (the file itself is untouched by the ANN cache)
  });
});

/**
 * Break-it tests of persisted HNSW graphs (`AnnOptions.persist`, ours). The invariant: no search
 * result ever differs from what a store without the saved file returns (checked against a handle
 * opened with `ann: false` on the same file: same ids, same scores), and a bad, stale, foreign or
 * half-written file never crashes the process nor throws from a read.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeNode, seededRandom, testMeta, testScope, unitVector } from '../testing/fixtures.js';
import type { MemoryNode, ResolvedScope } from '../types.js';
import { createSqliteStore, type SqliteStoreOptions } from './sqlite.js';
import { prepareChild, type CrashChild } from '../testdata/crash-harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'mem-ann-breakit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const dim = 8;
const meta = testMeta(dim);
const A = testScope('ann-break-a');
const B = testScope('ann-break-b');
const C = testScope('ann-break-c');
const ann = { threshold: 100, efSearch: 400, build: 'blocking' as const };
let fileNo = 0;
const fresh = (name = 'db') => join(dir, `${name}${++fileNo}.db`);
type Store = Awaited<ReturnType<typeof open>>;

async function open(path: string, options: Partial<SqliteStoreOptions> = {}) {
  const store = createSqliteStore({ path, ann, ...options });
  await store.open(meta);
  return store;
}

const nodesOf = (scope: ResolvedScope, n: number, seed: number, label = 'm') =>
  Array.from({ length: n }, (_, i) => makeNode(scope, `${label} memory ${seed + i}`, unitVector(dim, seed + i)));

/**
 * Every query answers exactly like a handle without any ANN (same file, `ann: false`): same ids in
 * the same order and the same scores. Returns the number of queries checked.
 */
async function expectLikeExact(store: Store, path: string, scopes: ResolvedScope[], queries = 20, k = 10): Promise<number> {
  const ref = await open(path, { ann: false });
  let checked = 0;
  try {
    for (const scope of scopes) {
      for (let i = 0; i < queries; i++) {
        const q = unitVector(dim, 900_000 + i * 7 + checked);
        const want = await ref.vectorSearch(scope, q, k);
        const got = await store.vectorSearch(scope, q, k);
        expect(got.map((h) => [h.node.id, h.score])).toEqual(want.map((h) => [h.node.id, h.score]));
        checked++;
      }
    }
  } finally {
    await ref.close();
  }
  return checked;
}

interface GraphView {
  getIdsList(): number[];
  getPoint(label: number): number[];
  getCurrentCount(): number;
}
interface VectorsView {
  ann: GraphView | null;
  annState: string;
  annAdded: number;
  annCount: number;
  annDeleted: number;
  n: number;
  rids: number[];
  alive: Uint8Array;
  vecs: Float32Array;
  dim: number;
}

/**
 * White-box: the scope's graph holds exactly its live rows of the graph prefix, each with its
 * current vector, every other label deleted, and the counters the search relies on are right.
 * (With a large efSearch a stale vector in the graph would not change a result, so this is checked
 * directly.)
 */
function expectGraphInStep(store: Store, scope: ResolvedScope): boolean {
  const internals = store as unknown as { sidOf(s: ResolvedScope): number | undefined; vectors: Map<number, VectorsView> };
  const sid = internals.sidOf(scope);
  const sv = sid === undefined ? undefined : internals.vectors.get(sid);
  if (!sv?.ann || sv.annState !== 'ready') return false;
  const inPrefix = new Set<number>();
  for (let slot = 0; slot < sv.annAdded; slot++) {
    if (!sv.alive[slot]) continue;
    const rid = sv.rids[slot]!;
    inPrefix.add(rid);
    const point = sv.ann.getPoint(rid);
    expect(Float32Array.from(point), `rid ${rid}`).toEqual(sv.vecs.slice(slot * sv.dim, (slot + 1) * sv.dim));
  }
  let deleted = 0;
  for (const label of sv.ann.getIdsList()) {
    if (inPrefix.has(label)) continue;
    expect(() => sv.ann!.getPoint(label), `label ${label} should be deleted`).toThrow();
    deleted++;
  }
  expect(sv.ann.getCurrentCount()).toBe(sv.annCount);
  expect(deleted).toBe(sv.annDeleted);
  return true;
}

const annFiles = (path: string) => (existsSync(`${path}.ann`) ? readdirSync(`${path}.ann`).sort() : []);

describe('persisted HNSW graphs: break-it', () => {
  it('a scope that grew past the threshold during the session (first read while small) is saved on close', async () => {
    const path = fresh();
    const store = await open(path);
    await store.write({ scope: A, nodes: nodesOf(A, 40, 1) });
    await store.vectorSearch(A, unitVector(dim, 1), 3); // loaded while below the threshold: no saved graph looked up
    await store.write({ scope: A, nodes: nodesOf(A, 400, 100) });
    await store.vectorSearch(A, unitVector(dim, 2), 3); // past the threshold now: built (blocking)
    expect(store.annStatus(A).state).toBe('ready');
    await store.close();
    expect(annFiles(path)).toEqual(['1.hnsw', '1.hnsw.json']);
    const again = await open(path);
    await expectLikeExact(again, path, [A]);
    expect(again.annStatus(A).loaded).toEqual({ loaded: true, removed: 0, updated: 0, tail: 0 });
    await again.close();
  });

  it('leftovers of a killed save are removed by the next close even when the graph is unchanged (not re-saved)', async () => {
    const path = fresh();
    const store = await open(path);
    await store.write({ scope: A, nodes: nodesOf(A, 300, 1) });
    await store.buildAnnIndex(A);
    await store.close();
    const leftovers = ['1.hnsw.999999.1.tmp', '1.hnsw.999999.1.tmp.json', '1.hnsw.4242.77.tmp'];
    for (const f of leftovers) writeFileSync(join(`${path}.ann`, f), 'x'.repeat(1000));
    const again = await open(path);
    await again.vectorSearch(A, unitVector(dim, 5), 3);
    expect(again.annStatus(A).loaded).toEqual({ loaded: true, removed: 0, updated: 0, tail: 0 });
    await again.close();
    expect(annFiles(path)).toEqual(['1.hnsw', '1.hnsw.json']);
  });

  it('a relative path stays bound to the folder it was opened in, even after process.chdir', async () => {
    const home = process.cwd();
    const sub = join(dir, `cwd${++fileNo}`);
    const elsewhere = join(dir, `elsewhere${fileNo}`);
    mkdirSync(sub);
    mkdirSync(elsewhere);
    process.chdir(sub);
    try {
      const store = await open('rel.db');
      await store.write({ scope: A, nodes: nodesOf(A, 300, 1) });
      await store.buildAnnIndex(A);
      process.chdir(elsewhere);
      await store.close();
      expect(existsSync(join(elsewhere, 'rel.db.ann'))).toBe(false);
      expect(annFiles(join(sub, 'rel.db'))).toEqual(['1.hnsw', '1.hnsw.json']);
    } finally {
      process.chdir(home);
    }
  });

  it('12 sessions of random forgets (up to most of a scope), bulk writes and vector-changing upserts, by ANN and non-ANN writers: every search exact', async () => {
    const path = fresh();
    const rnd = seededRandom(20261130);
    const scopes = [A, B];
    const byScope = new Map<ResolvedScope, Map<string, MemoryNode>>(scopes.map((s) => [s, new Map()]));
    let seed = 1;
    let loadedWithChanges = 0;
    let graphsChecked = 0;
    for (let session = 0; session < 12; session++) {
      // odd sessions: a writer without ANN first changes the scopes behind the saved graphs' back
      if (session % 3 === 2) {
        const other = await open(path, { ann: false });
        for (const s of scopes) {
          const mine = byScope.get(s)!;
          for (const id of [...mine.keys()].filter(() => rnd() < 0.3)) {
            expect(await other.forget(s, id)).toBe(true);
            mine.delete(id);
          }
          const changed = [...mine.values()].filter(() => rnd() < 0.2).map((n) => ({ ...n, embedding: unitVector(dim, 500_000 + seed++) }));
          const added = nodesOf(s, Math.floor(rnd() * 150), (seed += 1000), 'other');
          await other.write({ scope: s, nodes: [...changed, ...added] });
          for (const n of [...changed, ...added]) mine.set(n.id, n);
        }
        await other.close();
      }
      const store = await open(path, { ann: { ...ann, build: session % 2 ? 'background' : 'blocking', maxTail: 64 } });
      for (const s of scopes) {
        const mine = byScope.get(s)!;
        await store.vectorSearch(s, unitVector(dim, seed), 5);
        const report = store.annStatus(s).loaded;
        if (report?.loaded && (report.removed || report.updated || report.tail)) loadedWithChanges++;
        const op = rnd();
        if (op < 0.35) {
          // forget many (sometimes nearly all), then write many
          const share = rnd() < 0.3 ? 0.9 : 0.4;
          for (const id of [...mine.keys()].filter(() => rnd() < share)) {
            expect(await store.forget(s, id)).toBe(true);
            mine.delete(id);
          }
          await expectLikeExact(store, path, [s], 5);
        }
        if (op < 0.7) {
          const added = nodesOf(s, 50 + Math.floor(rnd() * 250), (seed += 1000));
          await store.write({ scope: s, nodes: added });
          for (const n of added) mine.set(n.id, n);
        }
        if (op > 0.5) {
          const changed = [...mine.values()].filter(() => rnd() < 0.3).map((n) => ({ ...n, embedding: unitVector(dim, 600_000 + seed++) }));
          await store.write({ scope: s, nodes: changed });
          for (const n of changed) mine.set(n.id, n);
        }
        await expectLikeExact(store, path, [s], 8);
        if (expectGraphInStep(store, s)) graphsChecked++;
      }
      await store.close();
      expect(annFiles(path).filter((f) => f.endsWith('.tmp') || f.endsWith('.tmp.json'))).toEqual([]);
    }
    expect(loadedWithChanges).toBeGreaterThan(3); // the correction path did run
    expect(graphsChecked).toBeGreaterThan(12);
  }, 20_000);

  it('two handles on one file: the other handle\'s commits drop the cache (syncCaches) and the reloaded graph is corrected; racing closes leave a usable pair', async () => {
    const path = fresh();
    const h1 = await open(path);
    const h2 = await open(path);
    await h1.write({ scope: A, nodes: nodesOf(A, 400, 1) });
    await h1.buildAnnIndex(A);
    await h2.buildAnnIndex(A);
    await expectLikeExact(h1, path, [A], 5);
    await h1.close(); // saves its graph
    const h3 = await open(path);
    await h3.vectorSearch(A, unitVector(dim, 3), 3); // adopts h1's graph
    expect(h3.annStatus(A).loaded?.loaded).toBe(true);
    // h2 changes the scope; h3's cache is stale and must be dropped on its next read
    const ids = (await h2.list(A)).map((n) => n.id);
    for (const id of ids.slice(0, 150)) await h2.forget(A, id);
    const moved = (await h2.list(A)).slice(0, 40).map((n) => ({ ...n, embedding: unitVector(dim, 77_000 + n.text.length) }));
    await h2.write({ scope: A, nodes: [...moved, ...nodesOf(A, 120, 5000)] });
    await expectLikeExact(h3, path, [A], 10);
    expect(expectGraphInStep(h3, A)).toBe(true);
    await expectLikeExact(h2, path, [A], 5);
    // both close: h2 (its own writes, in step) and h3 (reloaded after h2's writes, in step) both save
    await h2.close();
    await h3.close();
    expect(annFiles(path)).toEqual(['1.hnsw', '1.hnsw.json']);
    const h4 = await open(path);
    await expectLikeExact(h4, path, [A], 10);
    expect(h4.annStatus(A).loaded).toMatchObject({ loaded: true });
    expect(expectGraphInStep(h4, A)).toBe(true);
    await h4.close();
  });

  it('another scope\'s pair of files copied under this scope\'s name is refused by its identity; a forged header is checked row by row', async () => {
    const path = fresh();
    const store = await open(path);
    await store.write({ scope: A, nodes: nodesOf(A, 300, 1) });
    await store.write({ scope: B, nodes: nodesOf(B, 300, 10_000) });
    await store.buildAnnIndex(A);
    await store.buildAnnIndex(B);
    await store.close();
    expect(annFiles(path)).toEqual(['1.hnsw', '1.hnsw.json', '2.hnsw', '2.hnsw.json']);
    copyFileSync(`${path}.ann/2.hnsw`, `${path}.ann/1.hnsw`);
    copyFileSync(`${path}.ann/2.hnsw.json`, `${path}.ann/1.hnsw.json`);
    const again = await open(path);
    await expectLikeExact(again, path, [A, B], 10);
    expect(again.annStatus(A).loaded).toMatchObject({ loaded: false, reason: 'header does not match the options' });
    expect(again.annStatus(B).loaded).toMatchObject({ loaded: true });
    // a header forged to this scope's identity (same hash, B's graph): the graph is checked row by row
    const header = JSON.parse(readFileSync(`${path}.ann/1.hnsw.json`, 'utf8')) as { identity: string };
    await again.close(); // re-saved A's rebuilt graph
    const forged = { ...JSON.parse(readFileSync(`${path}.ann/2.hnsw.json`, 'utf8')), identity: header.identity.replace(/#2$/, '#1') };
    copyFileSync(`${path}.ann/2.hnsw`, `${path}.ann/1.hnsw`);
    writeFileSync(`${path}.ann/1.hnsw.json`, JSON.stringify(forged));
    const third = await open(path);
    await expectLikeExact(third, path, [A, B], 10);
    // B's rows share no row with A: adopted as an empty prefix (every row deleted, A all tail), never trusted
    expect(third.annStatus(A).loaded).toEqual({ loaded: true, removed: 300, updated: 0, tail: 300 });
    expectGraphInStep(third, A);
    await third.close();
  });

  it('the .ann path is a file, a graph file is a folder, the header is a folder: searches exact, no throw', async () => {
    const path = fresh();
    const store = await open(path);
    await store.write({ scope: A, nodes: nodesOf(A, 300, 1) });
    await store.buildAnnIndex(A);
    await store.close();
    rmSync(`${path}.ann`, { recursive: true });
    writeFileSync(`${path}.ann`, 'not a folder');
    const s1 = await open(path);
    await expectLikeExact(s1, path, [A], 5);
    await s1.close(); // cannot save: no throw
    expect(readFileSync(`${path}.ann`, 'utf8')).toBe('not a folder');
    rmSync(`${path}.ann`);
    mkdirSync(`${path}.ann/1.hnsw`, { recursive: true });
    mkdirSync(`${path}.ann/1.hnsw.json`, { recursive: true });
    const s2 = await open(path);
    await expectLikeExact(s2, path, [A], 5);
    expect(s2.annStatus(A).loaded).toMatchObject({ loaded: false });
    await s2.close();
    const s3 = await open(path);
    await expectLikeExact(s3, path, [A], 5);
    await s3.close();
  });

  it('an unwritable .ann folder: close saves nothing and does not throw (skipped as root: root writes anyway)', async (ctx) => {
    if (process.getuid?.() === 0) {
      console.log('skipped: running as root, chmod 555 does not stop root from writing');
      ctx.skip();
    }
    const path = fresh();
    mkdirSync(`${path}.ann`);
    chmodSync(`${path}.ann`, 0o555);
    try {
      const store = await open(path);
      await store.write({ scope: A, nodes: nodesOf(A, 300, 1) });
      await store.buildAnnIndex(A);
      await store.close();
      expect(annFiles(path)).toEqual([]);
      const again = await open(path);
      await expectLikeExact(again, path, [A], 5);
      await again.close();
    } finally {
      chmodSync(`${path}.ann`, 0o755);
    }
  });
});

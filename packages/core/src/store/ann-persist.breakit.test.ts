/**
 * Break-it tests of persisted HNSW graphs (`AnnOptions.persist`, ours). The invariant: no search
 * result ever differs from what a store without the saved file returns (checked against a handle
 * opened with `ann: false` on the same file: same ids, same scores), and a bad, stale, foreign or
 * half-written file never crashes the process nor throws from a read.
 */
import { spawn, spawnSync, type SpawnOptions } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareChild, type CrashChild } from '../testdata/crash-harness.js';
import { makeNode, seededRandom, testMeta, testScope, unitVector } from '../testing/index.js';
import type { MemoryNode, ResolvedScope } from '../types.js';
import { createSqliteStore, type SqliteStoreOptions } from './sqlite.js';

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

/** A fresh file whose scope A holds 300 nodes with their graph built and saved (by the close). */
async function savedGraphFile(): Promise<string> {
  const path = fresh();
  const store = await open(path);
  await store.write({ scope: A, nodes: nodesOf(A, 300, 1) });
  await store.buildAnnIndex(A);
  await store.close();
  return path;
}

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
  const wrong: string[] = [];
  for (let slot = 0; slot < sv.annAdded; slot++) {
    if (!sv.alive[slot]) continue;
    const rid = sv.rids[slot]!;
    inPrefix.add(rid);
    let point: number[] = [];
    try {
      point = sv.ann.getPoint(rid);
    } catch {
      wrong.push(`rid ${rid} missing or deleted`);
      continue;
    }
    for (let j = 0; j < sv.dim; j++) if (Math.fround(point[j]!) !== sv.vecs[slot * sv.dim + j]) wrong.push(`rid ${rid} has a stale vector`);
  }
  let deleted = 0;
  for (const label of sv.ann.getIdsList()) {
    if (inPrefix.has(label)) continue;
    let alive = true;
    try {
      sv.ann.getPoint(label);
    } catch {
      alive = false;
    }
    if (alive) wrong.push(`label ${label} not deleted`);
    deleted++;
  }
  expect(wrong.slice(0, 5)).toEqual([]);
  expect(sv.ann.getCurrentCount()).toBe(sv.annCount);
  expect(deleted).toBe(sv.annDeleted);
  return true;
}

let child: CrashChild;
const pkgDir = join(here, '..', '..');
beforeAll(async () => {
  child = await prepareChild(join(here, 'testdata', 'ann-persist-child.ts'), pkgDir, 'mem-ann-persist-test', ['better-sqlite3', 'hnswlib-node']);
}, 60_000);
afterAll(() => child?.dispose());

interface Running {
  ready: Promise<void>;
  close(): void;
  kill(): void;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; stdout: string }>;
}

/** Start the child (see testdata/ann-persist-child.ts) on `path`, optionally through `sh -c` with a prefix (e.g. `ulimit -f`). */
function run(path: string, total: number, seed: number, writes: number, opts: { shellPrefix?: string; spawn?: SpawnOptions } = {}): Running {
  const argv = [process.execPath, ...child.command, path, String(total), String(seed), String(writes)];
  const p = opts.shellPrefix
    ? spawn('sh', ['-c', `${opts.shellPrefix}; exec "$@"`, 'sh', ...argv], { cwd: pkgDir, stdio: ['pipe', 'pipe', 'pipe'], ...opts.spawn })
    : spawn(argv[0]!, argv.slice(1), { cwd: pkgDir, stdio: ['pipe', 'pipe', 'pipe'], ...opts.spawn });
  let stdout = '';
  let stderr = '';
  let onReady!: () => void;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  p.stdout!.on('data', (d: Buffer) => {
    stdout += d.toString();
    if (stdout.includes('ready\n')) onReady();
  });
  p.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; stdout: string }>((resolve) =>
    p.on('exit', (code, signal) => {
      onReady();
      resolve({ code, signal, stderr, stdout });
    }),
  );
  return { ready, close: () => p.stdin!.write('close\n'), kill: () => p.kill('SIGKILL'), exit };
}

const CHILD = testScope('ann-child');

let base: string | undefined;
/** A closed store file with CHILD at 3000 rows (built by a child once), copied to a fresh path without its .ann folder. */
async function childBase(): Promise<string> {
  if (!base) {
    base = fresh('base');
    const c = run(base, 3000, 1, 0);
    await c.ready;
    c.close();
    const done = await c.exit;
    expect(done.code, done.stderr).toBe(0);
  }
  const path = fresh('copy');
  copyFileSync(base, path);
  return path;
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
    const path = await savedGraphFile();
    // pids above any pid_max (4194304): their writers are surely gone; process.ppid is alive (its save may be running)
    const leftovers = ['1.hnsw.99999999.1.tmp', '1.hnsw.99999999.1.tmp.json', '1.hnsw.88888888.77.tmp', `1.hnsw.${process.pid}.5.tmp`];
    const running = `1.hnsw.${process.ppid}.9.tmp`;
    writeFileSync(join(`${path}.ann`, running), 'in flight');
    for (const f of leftovers) writeFileSync(join(`${path}.ann`, f), 'x'.repeat(1000));
    const again = await open(path);
    await again.vectorSearch(A, unitVector(dim, 5), 3);
    expect(again.annStatus(A).loaded).toEqual({ loaded: true, removed: 0, updated: 0, tail: 0 });
    await again.close();
    expect(annFiles(path)).toEqual(['1.hnsw', '1.hnsw.json', running].sort());
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

  it('8 sessions of random forgets (up to most of a scope), bulk writes and vector-changing upserts, by ANN and non-ANN writers: every search exact', async () => {
    const path = fresh();
    const rnd = seededRandom(20261130);
    const scopes = [A, B];
    const byScope = new Map<ResolvedScope, Map<string, MemoryNode>>(scopes.map((s) => [s, new Map()]));
    let seed = 1;
    let loadedWithChanges = 0;
    let loadedAsSaved = 0; // (the rowsDigest fast path: nothing checked row by row)
    let graphsChecked = 0;
    for (let session = 0; session < 8; session++) {
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
        if (report?.loaded && !report.removed && !report.updated) loadedAsSaved++;
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
    expect(loadedWithChanges).toBeGreaterThan(2); // the correction path did run
    expect(graphsChecked).toBeGreaterThan(8);
    expect(loadedAsSaved).toBeGreaterThan(2);
  }, 120_000);

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
    const path = await savedGraphFile();
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

  it('a tiny vectorCacheMB evicts (and saves) graphs mid-run; scopes reloaded from their saved graphs while others write: every search exact', async () => {
    const path = fresh();
    const store = await open(path, { vectorCacheMB: 0.00001 }); // ~10 bytes: only the scope being read stays cached
    const scopes = [A, B, C];
    for (const [i, s] of scopes.entries()) await store.write({ scope: s, nodes: nodesOf(s, 250 + 50 * i, 1 + 10_000 * i) });
    const rnd = seededRandom(7);
    let seed = 100_000;
    for (let round = 0; round < 15; round++) {
      const s = scopes[round % 3]!;
      await store.vectorSearch(s, unitVector(dim, round), 3); // loads s (from its saved graph after the first round), evicts the others
      if (round >= 3) expect(store.annStatus(s).loaded?.loaded, `round ${round}`).toBe(true);
      expect(expectGraphInStep(store, s)).toBe(true);
      // writes to an evicted scope (not cached: nothing but the rows changes)
      const other = scopes[(round + 1) % 3]!;
      const list = await store.list(other);
      // (no forget here: a forget deletes the scope's saved graph, which holds the forgotten vector; issue 32, forget-scrub.test.ts)
      const moved = list.filter(() => rnd() < 0.1).map((n) => ({ ...n, embedding: unitVector(dim, seed++) }));
      await store.write({ scope: other, nodes: [...moved, ...nodesOf(other, 30, (seed += 100))] });
      // the cached scope changes too (its graph is dirty when it is evicted next)
      await store.write({ scope: s, nodes: nodesOf(s, 20, (seed += 100)) });
      expect(annFiles(path).filter((f) => f.endsWith('.hnsw')).length).toBe(Math.min(3, round)); // saved when evicted
    }
    await expectLikeExact(store, path, scopes, 8);
    await store.close();
    const again = await open(path);
    await expectLikeExact(again, path, scopes, 8);
    for (const s of scopes) expect(expectGraphInStep(again, s)).toBe(true);
    await again.close();
  });

  it('m or efConstruction changed between runs: the file is refused, the graph rebuilt with the new options and saved again', async () => {
    const path = await savedGraphFile();
    for (const [opts, reason] of [
      [{ m: 8 }, 'header does not match the options'],
      [{ m: 8 }, undefined],
      [{ m: 8, efConstruction: 100 }, 'header does not match the options'],
      [{ m: 8, efConstruction: 100 }, undefined],
    ] as const) {
      const st = await open(path, { ann: { ...ann, ...opts } });
      await expectLikeExact(st, path, [A], 5);
      expect(st.annStatus(A).loaded).toEqual(reason ? { loaded: false, reason } : { loaded: true, removed: 0, updated: 0, tail: 0 });
      expect(st.annStatus(A).state).toBe('ready');
      await st.close();
      const header = JSON.parse(readFileSync(`${path}.ann/1.hnsw.json`, 'utf8')) as { m: number; efConstruction: number };
      expect([header.m, header.efConstruction]).toEqual([opts.m, 'efConstruction' in opts ? opts.efConstruction : 64]);
    }
  });

  it('the database file replaced by another store (new createdAt) while the .ann folder stays: refused; same createdAt but another dimension: refused by the header', async () => {
    const path = await savedGraphFile();
    const createdAt = (await (async () => {
      const db = new Database(path, { readonly: true });
      try {
        return (db.prepare("SELECT value FROM meta WHERE key = 'createdAt'").get() as { value: string }).value;
      } finally {
        db.close();
      }
    })());
    // another store, same scope row id, different nodes
    const other = fresh('other');
    const o = await open(other);
    await o.write({ scope: A, nodes: nodesOf(A, 300, 50_000) });
    await o.close();
    for (const f of ['', '-wal', '-shm']) rmSync(`${path}${f}`, { force: true });
    copyFileSync(other, path);
    const s1 = await open(path);
    await expectLikeExact(s1, path, [A], 10);
    expect(s1.annStatus(A).loaded).toMatchObject({ loaded: false, reason: 'header does not match the options' });
    await s1.close(); // saves its own graph under its own identity
    const s2 = await open(path);
    await s2.vectorSearch(A, unitVector(dim, 1), 1);
    expect(s2.annStatus(A).loaded).toMatchObject({ loaded: true });
    await s2.close();
    // a 16-d store forged to carry the old createdAt, given the old 8-d graph
    const wide = fresh('wide');
    const w = createSqliteStore({ path: wide, ann });
    await w.open(testMeta(16));
    await w.write({ scope: A, nodes: Array.from({ length: 300 }, (_, i) => makeNode(A, `wide ${i}`, unitVector(16, i + 1))) });
    await w.close();
    const db = new Database(wide);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'createdAt'").run(createdAt);
    db.close();
    mkdirSync(`${wide}.ann`);
    copyFileSync(`${path}.ann/1.hnsw`, `${wide}.ann/1.hnsw`);
    copyFileSync(`${path}.ann/1.hnsw.json`, `${wide}.ann/1.hnsw.json`);
    const header = JSON.parse(readFileSync(`${path}.ann/1.hnsw.json`, 'utf8')) as Record<string, unknown>;
    writeFileSync(`${wide}.ann/1.hnsw.json`, JSON.stringify({ ...header, identity: `${createdAt}#1` }));
    const w2 = createSqliteStore({ path: wide, ann });
    await w2.open(testMeta(16));
    const q = unitVector(16, 4);
    const hits = await w2.vectorSearch(A, q, 5);
    expect(hits).toHaveLength(5);
    expect(w2.annStatus(A).loaded).toMatchObject({ loaded: false, reason: 'header does not match the options' });
    await w2.close();
    // the header forged to say 16-d (hash of the 8-d graph kept): hnswlib would read 16 floats per row
    // from 8-float rows; the graph's own layout is checked first
    rmSync(`${wide}.ann`, { recursive: true });
    mkdirSync(`${wide}.ann`);
    copyFileSync(`${path}.ann/1.hnsw`, `${wide}.ann/1.hnsw`);
    writeFileSync(`${wide}.ann/1.hnsw.json`, JSON.stringify({ ...header, identity: `${createdAt}#1`, dim: 16 }));
    const w3 = createSqliteStore({ path: wide, ann });
    await w3.open(testMeta(16));
    expect(await w3.vectorSearch(A, q, 5)).toHaveLength(5);
    expect(w3.annStatus(A).loaded).toMatchObject({ loaded: false, reason: 'not a whole graph of this dimension' });
    await w3.close();
  });

  it(':memory: stores never touch the disk; scopes below the threshold never load or save a graph', async () => {
    const home = process.cwd();
    const empty = join(dir, `empty${++fileNo}`);
    mkdirSync(empty);
    process.chdir(empty); // anything written relative to the working folder would show up here
    try {
      const st = await open(':memory:', { vectorCacheMB: 0.00001 });
      await st.write({ scope: A, nodes: nodesOf(A, 300, 1) });
      await st.write({ scope: B, nodes: nodesOf(B, 300, 1000) });
      await st.buildAnnIndex(A);
      await st.buildAnnIndex(B); // evicts A's graph
      await st.vectorSearch(A, unitVector(dim, 1), 3);
      await st.close();
    } finally {
      process.chdir(home);
    }
    expect(readdirSync(empty)).toEqual([]);
    // a saved graph of a scope that later shrank below the threshold: exact scan, no load; grown back: corrected
    const path = await savedGraphFile();
    const s1 = await open(path);
    for (const n of (await s1.list(A)).slice(0, 250)) await s1.forget(A, n.id);
    await s1.close();
    const s2 = await open(path);
    await expectLikeExact(s2, path, [A], 5);
    expect(s2.annStatus(A)).toMatchObject({ state: 'none' });
    expect(s2.annStatus(A).loaded).toBeUndefined();
    await s2.write({ scope: A, nodes: nodesOf(A, 200, 70_000) });
    await s2.close();
    const s3 = await open(path);
    await expectLikeExact(s3, path, [A], 10);
    expect(expectGraphInStep(s3, A)).toBe(true);
    await s3.close();
  });

  it('SIGKILL at random moments of close() while a child saves its graph (3k rows): the next open never crashes, searches exact, leftovers cleaned', async () => {
    const path = await childBase();
    const rnd = seededRandom(Date.now() >>> 0);
    // first run: the graph saved in full (and the time a close takes measured)
    const first = run(path, 3000, 1, 0);
    await first.ready;
    const t0 = performance.now();
    first.close();
    const done = await first.exit;
    expect(done.code, done.stderr).toBe(0);
    const closeMs = performance.now() - t0;
    expect(annFiles(path)).toEqual(['1.hnsw', '1.hnsw.json']);
    const states = new Set<string>();
    for (let k = 0; k < 4; k++) {
      const c = run(path, 3000, 2 + k, 200);
      await c.ready;
      c.close();
      await new Promise((r) => setTimeout(r, rnd() * closeMs * 1.2));
      c.kill();
      const { signal, code, stderr } = await c.exit;
      expect(signal === 'SIGKILL' || code === 0, stderr).toBe(true);
      const files = annFiles(path);
      states.add(files.map((f) => f.replace(/\.\d+\.\d+\.tmp/, '.TMP')).join(','));
      const store = await open(path);
      await expectLikeExact(store, path, [CHILD], 6);
      expect(expectGraphInStep(store, CHILD)).toBe(true);
      await store.close();
      expect(annFiles(path)).toEqual(['1.hnsw', '1.hnsw.json']); // the parent's close saved (graph changed) and cleaned
    }
    console.log(`close of a 3k-row graph: ${closeMs.toFixed(0)} ms; .ann states seen after the kills: ${[...states].join(' | ')}`);
  }, 120_000);

  it('two processes close at the same moment, both saving the same scope\'s graph (racing renames and leftover cleanups): never a crash, never a wrong result', async () => {
    const path = await childBase();
    const outcomes: string[] = [];
    for (let round = 0; round < 2; round++) {
      rmSync(`${path}.ann`, { recursive: true, force: true }); // both children build (their graphs are new, so both save)
      const [a, b] = [run(path, 3000, 10 + round, 0), run(path, 3000, 20 + round, 0)];
      await Promise.all([a.ready, b.ready]);
      a.close();
      b.close();
      for (const c of [a, b]) {
        const done = await c.exit;
        expect(done.code, done.stderr).toBe(0);
      }
      const store = await open(path);
      await expectLikeExact(store, path, [CHILD], 5);
      outcomes.push(store.annStatus(CHILD).loaded?.reason ?? 'loaded');
      expect(expectGraphInStep(store, CHILD)).toBe(true);
      await store.close();
      expect(annFiles(path)).toEqual(['1.hnsw', '1.hnsw.json']);
    }
    console.log(`racing saves, what the next open found: ${outcomes.join(', ')}`);
  }, 120_000);

  it('a save cut short on disk (file size limit: hnswlib writes fewer bytes without an error) never replaces the good saved pair, never crashes', async () => {
    const path = await childBase();
    const good = run(path, 3000, 30, 0); // a whole graph saved first
    await good.ready;
    good.close();
    expect((await good.exit).code).toBe(0);
    const saved = readFileSync(`${path}.ann/1.hnsw`);
    const savedHeader = readFileSync(`${path}.ann/1.hnsw.json`);
    // a child with another m (so it refuses the saved graph and builds its own, without writing to
    // SQLite) under a 200-block file size limit (100 KiB in sh's 512 B blocks, 200 KiB in bash's): its ~0.35 MB graph is cut short
    const c = run(path, 3000, 31, 0, { shellPrefix: 'ulimit -f 200', spawn: { env: { ...process.env, ANN_CHILD_M: '8' } } });
    await c.ready;
    c.close();
    const done = await c.exit;
    expect(done.code, done.stderr).toBe(0);
    expect(readFileSync(`${path}.ann/1.hnsw`).equals(saved)).toBe(true);
    expect(readFileSync(`${path}.ann/1.hnsw.json`).equals(savedHeader)).toBe(true);
    expect(annFiles(path)).toEqual(['1.hnsw', '1.hnsw.json']); // its temporary file removed
    const store = await open(path);
    await expectLikeExact(store, path, [CHILD], 5);
    expect(store.annStatus(CHILD).loaded).toEqual({ loaded: true, removed: 0, updated: 0, tail: 0 }); // the good graph
    expect(expectGraphInStep(store, CHILD)).toBe(true);
    await store.close();
    // a cut-short file that did get there (an older build wrote it) is refused by hnswlib's own size check
    const cut = saved.subarray(0, 150 * 1024);
    writeFileSync(`${path}.ann/1.hnsw`, cut);
    const header = JSON.parse(readFileSync(`${path}.ann/1.hnsw.json`, 'utf8')) as Record<string, unknown>;
    writeFileSync(`${path}.ann/1.hnsw.json`, JSON.stringify({ ...header, bytes: cut.length, sha256: createHash('sha256').update(cut).digest('hex') }));
    const again = await open(path);
    await expectLikeExact(again, path, [CHILD], 5);
    expect(again.annStatus(CHILD).loaded).toMatchObject({ loaded: false });
    await again.close();
    // control: the same child without the limit does replace the pair (so the limited one did try)
    const free = run(path, 3000, 32, 0, { spawn: { env: { ...process.env, ANN_CHILD_M: '8' } } });
    await free.ready;
    free.close();
    expect((await free.exit).code).toBe(0);
    expect((JSON.parse(readFileSync(`${path}.ann/1.hnsw.json`, 'utf8')) as { m: number }).m).toBe(8);
  }, 120_000);

  it('an unwritable .ann folder (mode 555; as root the child runs as user nobody, root writes anyway): close saves nothing, does not throw', async (ctx) => {
    const asRoot = process.getuid?.() === 0;
    if (asRoot) {
      // the child must be able to read its bundle and native modules as nobody (not so in a clone under /root)
      const bundle = child.command[child.command.length - 1]!;
      const probe = spawnSync(
        process.execPath,
        ['-e', "const r = require('node:module').createRequire(process.argv[1]); r('better-sqlite3'); r('hnswlib-node'); require('node:fs').accessSync(process.argv[1])", bundle],
        { uid: 65534, gid: 65534, cwd: pkgDir, encoding: 'utf8' },
      );
      if (probe.status !== 0) {
        console.log(`skipped: user nobody cannot run the child here (${probe.error?.message ?? /\w*Error[^\n]*/.exec(probe.stderr)?.[0] ?? probe.status})`);
        ctx.skip();
      }
    }
    const path = await childBase();
    const folder = dirname(path);
    chmodSync(folder, 0o777);
    chmodSync(path, 0o666);
    mkdirSync(`${path}.ann`);
    chmodSync(`${path}.ann`, 0o555);
    try {
      const c = run(path, 3000, 40, 50, asRoot ? { spawn: { uid: 65534, gid: 65534 } } : {});
      await c.ready;
      c.close();
      const done = await c.exit;
      expect(done.code, done.stderr).toBe(0);
      expect(done.stdout).toContain('closed');
      expect(annFiles(path)).toEqual([]);
      const store = await open(path, { ann: { ...ann, persist: false } });
      await expectLikeExact(store, path, [CHILD], 5);
      await store.close();
    } finally {
      chmodSync(`${path}.ann`, 0o755);
      chmodSync(folder, 0o700);
    }
  }, 120_000);

  it('every state a killed save can leave (new graph + old header, old graph + new header, lone files, leftovers): exact results, then one clean pair', async () => {
    const path = await savedGraphFile();
    const g0 = readFileSync(`${path}.ann/1.hnsw`);
    const h0 = readFileSync(`${path}.ann/1.hnsw.json`);
    const s1 = await open(path);
    for (const n of (await s1.list(A)).slice(0, 30)) await s1.forget(A, n.id);
    await s1.write({ scope: A, nodes: nodesOf(A, 60, 40_000) });
    await s1.buildAnnIndex(A);
    await s1.close();
    const g1 = readFileSync(`${path}.ann/1.hnsw`);
    const h1 = readFileSync(`${path}.ann/1.hnsw.json`);
    expect(g1.equals(g0)).toBe(false);
    const f = `${path}.ann/1.hnsw`;
    const states: Record<string, [Buffer | null, Buffer | null, string[]]> = {
      'new graph, old header': [g1, h0, ['1.hnsw.99999999.2.tmp.json']],
      'old graph, new header': [g0, h1, []],
      'old pair, new graph in tmp': [g0, h0, ['1.hnsw.99999999.2.tmp']],
      'graph only': [g1, null, []],
      'header only': [null, h1, ['1.hnsw.99999999.2.tmp']],
      'old pair, empty tmp pair': [g0, h0, ['1.hnsw.99999999.4.tmp', '1.hnsw.99999999.4.tmp.json']],
    };
    for (const [name, [g, h, extra]] of Object.entries(states)) {
      rmSync(`${path}.ann`, { recursive: true, force: true });
      mkdirSync(`${path}.ann`);
      if (g) writeFileSync(f, g);
      if (h) writeFileSync(`${f}.json`, h);
      for (const x of extra) writeFileSync(join(`${path}.ann`, x), x.endsWith('.json') ? h1 : g1.subarray(0, 1000));
      const st = await open(path);
      await expectLikeExact(st, path, [A], 5);
      expect(expectGraphInStep(st, A), name).toBe(true);
      await st.close();
      expect(annFiles(path), name).toEqual(['1.hnsw', '1.hnsw.json']);
    }
  });

  it('a row id reused after the saved graph (sqlite_sequence rewound, as a restored or hand-edited file can do): the label is updated to the new row', async () => {
    const path = await savedGraphFile();
    const db = new Database(path);
    const top = db.prepare('SELECT rid, id FROM nodes ORDER BY rid DESC LIMIT 3').all() as { rid: number; id: string }[];
    db.close();
    const s1 = await open(path, { ann: false });
    for (const r of top) await s1.forget(A, r.id);
    await s1.close();
    const raw = new Database(path);
    raw.prepare("UPDATE sqlite_sequence SET seq = seq - 3 WHERE name = 'nodes'").run();
    raw.close();
    const s2 = await open(path, { ann: false });
    // far from the old vectors of those rows: a graph keeping the old position would miss them
    const reused = Array.from({ length: 5 }, (_, i) => makeNode(A, `reused ${i}`, unitVector(dim, 123_456 + i)));
    await s2.write({ scope: A, nodes: reused });
    await s2.close();
    const check = new Database(path, { readonly: true });
    const rids = (check.prepare('SELECT rid FROM nodes WHERE id IN (SELECT value FROM json_each(?)) ORDER BY rid').all(JSON.stringify(reused.map((n) => n.id))) as { rid: number }[]).map((r) => r.rid);
    check.close();
    expect(rids.slice(0, 3)).toEqual(top.map((r) => r.rid).reverse()); // the same row ids as the forgotten rows
    const s3 = await open(path);
    for (const n of reused) {
      const hits = await s3.vectorSearch(A, n.embedding, 1);
      expect(hits[0]?.node.id).toBe(n.id);
    }
    expect(s3.annStatus(A).loaded).toEqual({ loaded: true, removed: 0, updated: 3, tail: 2 });
    await expectLikeExact(s3, path, [A], 10);
    expect(expectGraphInStep(s3, A)).toBe(true);
    await s3.close();
  });

  it('annStatus().loaded describes the last read of the scope: a reload that did not look for a saved graph (now below the threshold) reports none', async () => {
    const path = await savedGraphFile();
    const store = await open(path);
    await store.vectorSearch(A, unitVector(dim, 1), 1);
    expect(store.annStatus(A).loaded).toEqual({ loaded: true, removed: 0, updated: 0, tail: 0 });
    const other = await open(path, { ann: false });
    for (const n of (await other.list(A)).slice(0, 250)) await other.forget(A, n.id);
    await other.close();
    await expectLikeExact(store, path, [A], 3); // reloaded (another connection committed): 50 rows, exact scan
    expect(store.annStatus(A)).toMatchObject({ size: 50, state: 'none' });
    expect(store.annStatus(A).loaded).toBeUndefined();
    await store.close();
  });

  it('a path with spaces, #, % and non-ASCII letters: the graph is saved and adopted (hnswlib opens it by its UTF-8 bytes)', async () => {
    const folder = join(dir, `dir with space #${++fileNo} %20 ünï`);
    const path = join(folder, 'mémoire 記憶.db');
    const s0 = await open(path);
    await s0.write({ scope: A, nodes: nodesOf(A, 300, 1) });
    await s0.buildAnnIndex(A);
    await s0.close();
    expect(annFiles(path)).toEqual(['1.hnsw', '1.hnsw.json']);
    const s1 = await open(path);
    await expectLikeExact(s1, path, [A], 5);
    expect(s1.annStatus(A).loaded).toEqual({ loaded: true, removed: 0, updated: 0, tail: 0 });
    await s1.close();
  });

  it('another process commits and saves while this one holds the scope: the next read drops the cache, adopts the other process\'s graph, exact', async () => {
    const path = await childBase();
    const first = run(path, 3000, 50, 0);
    await first.ready;
    first.close();
    expect((await first.exit).code).toBe(0);
    const store = await open(path);
    await expectLikeExact(store, path, [CHILD], 3);
    expect(store.annStatus(CHILD).loaded).toMatchObject({ loaded: true });
    const c = run(path, 3000, 51, 300); // forgets 60 rows, writes 300, saves its graph on close
    await c.ready;
    c.close();
    const done = await c.exit;
    expect(done.code, done.stderr).toBe(0);
    await expectLikeExact(store, path, [CHILD], 8);
    expect(store.annStatus(CHILD).loaded).toEqual({ loaded: true, removed: 0, updated: 0, tail: 0 }); // the child's saved graph, already in step
    expect(store.annStatus(CHILD).size).toBe(3000 - 60 + 300);
    expect(expectGraphInStep(store, CHILD)).toBe(true);
    await store.close();
  }, 120_000);

  it('one long session of interleaved writes, upserts, forgets, searches and idle turns (background build, small maxTail, compactions): the graph stays in step, so the fast-path load after it is sound', async () => {
    const path = fresh();
    const store = await open(path, { ann: { ...ann, build: 'background', maxTail: 16 } });
    const rnd = seededRandom(99);
    let seed = 1;
    let checked = 0;
    const seen = new Set<string>();
    let last = 'none';
    const live: MemoryNode[] = [];
    for (let step = 0; step < 160; step++) {
      const r = rnd();
      if (r < 0.35 || live.length < 150) {
        const added = nodesOf(A, 1 + Math.floor(rnd() * 40), (seed += 100));
        await store.write({ scope: A, nodes: added });
        live.push(...added);
      } else if (r < 0.55) {
        const moved = live.filter(() => rnd() < 0.05).map((n) => ({ ...n, embedding: unitVector(dim, 3_000_000 + seed++) }));
        if (moved.length) await store.write({ scope: A, nodes: moved });
        for (const m of moved) live[live.findIndex((n) => n.id === m.id)] = m;
      } else if (r < 0.75) {
        const share = rnd() < 0.1 ? 0.5 : 0.05; // now and then enough to trigger a compaction or a rebuild
        for (const n of live.filter(() => rnd() < share)) {
          await store.forget(A, n.id);
          live.splice(live.indexOf(n), 1);
        }
      } else if (r < 0.9) {
        await store.vectorSearch(A, unitVector(dim, 4_000_000 + step), 5);
      } else {
        await new Promise((res) => setTimeout(res, 5)); // idle: the background build and tail drain advance
      }
      if (expectGraphInStep(store, A)) checked++;
      const st = store.annStatus(A);
      if (st.state === 'ready' && st.pending > 0) seen.add('tail');
      if (last === 'ready' && st.state === 'none') seen.add('rebuilt after tombstones');
      last = st.state;
    }
    await expectLikeExact(store, path, [A], 10);
    await store.close();
    expect(checked).toBeGreaterThan(40);
    expect([...seen].sort()).toEqual(['rebuilt after tombstones', 'tail']);
    const again = await open(path);
    await expectLikeExact(again, path, [A], 10);
    expect(again.annStatus(A).loaded).toMatchObject({ loaded: true, removed: 0, updated: 0, tail: 0 });
    expect(expectGraphInStep(again, A)).toBe(true);
    await again.close();
  });
});

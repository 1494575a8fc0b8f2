/**
 * Break-it tests of the SQLite store's batch write path (multi-row INSERTs in chunks, summed df
 * upserts, JSON serialised once by the batch check, one IMMEDIATE wrapper per connection), its
 * vector search options and two connections on one file. Each test states the behaviour it holds.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MemError, MemNotFoundError, MemValidationError, StoreError } from '../errors.js';
import { makeHistory, makeNode, makeRelation, seededRandom, testScope, unitVector } from '../testing/index.js';
import { RELATION_SUBTYPES, type MemoryNode, type Relation } from '../types.js';
import { createSqliteStore, type SqliteStore } from './sqlite.js';
import { docTokens, searchText, searchTextSlow } from './text.js';
import { expectMemError } from '@mem/test-utils';
import { tempDbFolder } from '../testdata/temp-files.js';

const { file } = tempDbFolder('mem-breakit-store-', 'b');
const DIM = 8;
const META = { schemaVersion: 1, embeddingModel: 'breakit', dimension: DIM };
const A = testScope('break-a');
const B = testScope('break-b');

async function openStore(path = ':memory:', extra: Record<string, unknown> = {}): Promise<SqliteStore> {
  const s = createSqliteStore({ path, ...extra });
  await s.open(META);
  return s;
}

const WORDS = ['river', 'stone', 'apple', 'cloud', 'piano', 'tiger', 'lemon', 'quiet', 'storm', 'maple', 'ocean', 'amber'];
function text(rnd: () => number, i: number): string {
  const n = 2 + Math.floor(rnd() * 5);
  const ws: string[] = [];
  for (let j = 0; j < n; j++) ws.push(WORDS[Math.floor(rnd() * WORDS.length)]!);
  return `${ws.join(' ')} item${i}`;
}

/** `store`'s integrity check is clean; close `all` (default: the store) in order, then the file's stats are exact (checkStats). */
async function closeChecked(store: SqliteStore, path: string, all: SqliteStore[] = [store]): Promise<void> {
  expect(store.checkIntegrity()).toEqual([]);
  for (const s of all) await s.close();
  checkStats(path);
}

/**
 * The BM25 statistics recomputed from the node rows (what scope_terms, scopes.token_count and
 * nodes.doc_len must equal), compared with the stored ones through a read-only connection.
 */
function checkStats(path: string): void {
  const db = new Database(path, { readonly: true });
  try {
    const nodes = db.prepare('SELECT rid, sid, text, doc_len FROM nodes').all() as { rid: number; sid: number; text: string; doc_len: number }[];
    const df = new Map<string, number>();
    const tokens = new Map<number, number>();
    for (const n of nodes) {
      const t = docTokens(n.text);
      expect(n.doc_len, `doc_len of rid ${n.rid}`).toBe(t.length);
      tokens.set(n.sid, (tokens.get(n.sid) ?? 0) + t.length);
      for (const w of new Set(t)) df.set(`${n.sid}\u0001${w}`, (df.get(`${n.sid}\u0001${w}`) ?? 0) + 1);
    }
    const stored = new Map(
      (db.prepare('SELECT sid, term, df FROM scope_terms').all() as { sid: number; term: string; df: number }[]).map((r) => [`${r.sid}\u0001${r.term}`, r.df]),
    );
    expect(Object.fromEntries([...stored].sort())).toEqual(Object.fromEntries([...df].sort()));
    for (const s of db.prepare('SELECT sid, token_count, node_count FROM scopes').all() as { sid: number; token_count: number; node_count: number }[]) {
      expect(s.token_count, `token_count of sid ${s.sid}`).toBe(tokens.get(s.sid) ?? 0);
    }
  } finally {
    db.close();
  }
}

describe('batch writes at the multi-row chunk boundaries (32 rows per INSERT)', () => {
  it('N = 1, 31, 32, 33, 64, 65, 97 nodes / relations / history rows: all rows, in order, stats exact', async () => {
    const path = file();
    const store = await openStore(path);
    const rnd = seededRandom(7);
    let seed = 1;
    for (const n of [1, 31, 32, 33, 64, 65, 97]) {
      const scope = testScope(`chunk-${n}`);
      const nodes = Array.from({ length: n }, (_, i) => makeNode(scope, text(rnd, i), unitVector(DIM, seed++)));
      // n relations: a chain plus a back edge (n = 1: none possible, a self loop is refused)
      const rels: Relation[] = [];
      for (let i = 0; i + 1 < n; i++) rels.push(makeRelation(nodes[i]!.id, nodes[i + 1]!.id, 'PRECEDES', { id: `r-${n}-${String(i).padStart(4, '0')}` }));
      if (n > 1) rels.push(makeRelation(nodes[n - 1]!.id, nodes[0]!.id, 'RELATED_TO', { id: `r-${n}-back` }));
      const hist = nodes.map((x) => makeHistory(scope, 'ADD', x.id, { i: x.id }));
      await store.write({ scope, nodes, relations: rels, history: hist });
      expect(await store.count(scope)).toBe(n);
      expect((await store.list(scope, { orderBy: 'createdAt' })).map((x) => x.id)).toEqual(nodes.map((x) => x.id));
      expect((await store.relations(scope)).map((r) => r.id)).toEqual(rels.map((r) => r.id));
      expect(await store.relations(scope)).toEqual(rels);
      expect((await store.history(scope)).map((h) => [h.nodeId, h.data.i])).toEqual(hist.map((h) => [h.nodeId, h.nodeId]));
      // every node findable by its unique word, and by vector
      for (const i of [0, n - 1, Math.min(n - 1, 31), Math.min(n - 1, 32)]) {
        expect((await store.lexicalSearch(scope, `item${i}`, 1))[0]?.node.id).toBe(nodes[i]!.id);
        expect((await store.vectorSearch(scope, nodes[i]!.embedding, 1))[0]?.node.id).toBe(nodes[i]!.id);
      }
    }
    await closeChecked(store, path);
  });

  it('a batch mixing updates of stored nodes and new nodes across chunk edges keeps df / doc_len / token_count exact and the FTS index in step', async () => {
    const path = file();
    const store = await openStore(path);
    const rnd = seededRandom(11);
    const first = Array.from({ length: 70 }, (_, i) => makeNode(A, `${text(rnd, i)} oldword${i}`, unitVector(DIM, 100 + i)));
    await store.write({ scope: A, nodes: first });
    // every third stored node rewritten (new text), interleaved with 40 new nodes: rows 0..109
    const mixed: MemoryNode[] = [];
    let k = 0;
    for (let i = 0; i < 70; i++) {
      if (i % 3 === 0) mixed.push({ ...first[i]!, text: `${text(rnd, i)} newword${i}`, embedding: unitVector(DIM, 500 + i) });
      if (i % 2 === 0 && k < 40) mixed.push(makeNode(A, `${text(rnd, 1000 + k)} fresh${k++}`, unitVector(DIM, 900 + k)));
    }
    await store.write({ scope: A, nodes: mixed, history: mixed.map((n) => makeHistory(A, 'UPDATE', n.id)) });
    expect(await store.count(A)).toBe(70 + k);
    for (let i = 0; i < 70; i += 3) {
      expect(await store.lexicalSearch(A, `oldword${i}`, 5)).toEqual([]);
      expect((await store.lexicalSearch(A, `newword${i}`, 5)).map((h) => h.node.id)).toEqual([first[i]!.id]);
      expect((await store.vectorSearch(A, unitVector(DIM, 500 + i), 1))[0]!.node.id).toBe(first[i]!.id);
    }
    expect((await store.lexicalSearch(A, 'oldword1', 5)).map((h) => h.node.id)).toEqual([first[1]!.id]);
    await closeChecked(store, path);
  });

  it('a node rewritten with the same text, and a term whose df drops to 0 in one batch and comes back in the next, leave exact stats', async () => {
    const path = file();
    const store = await openStore(path);
    const a = makeNode(A, 'unique zebra words', unitVector(DIM, 1));
    const b = makeNode(A, 'plain other words', unitVector(DIM, 2));
    await store.write({ scope: A, nodes: [a, b] });
    await store.write({ scope: A, nodes: [{ ...a }, { ...b, text: 'plain other text' }] });
    await store.write({ scope: A, nodes: [{ ...a, text: 'no stripes now' }] }); // zebra: df 1 -> 0 (row dropped)
    await store.write({ scope: A, nodes: [{ ...b, text: 'zebra is back' }] }); // zebra: 0 -> 1
    expect((await store.lexicalSearch(A, 'zebra', 5)).map((h) => h.node.id)).toEqual([b.id]);
    await store.forget(A, b.id);
    expect(await store.lexicalSearch(A, 'zebra', 5)).toEqual([]);
    await store.close();
    checkStats(path);
  });
});

describe('huge batches (SQLite bound-parameter limit, long multi-row chains)', () => {
  it('one write of 3 000 nodes, 30 000 relations and 3 000 history rows lands whole, in order', async () => {
    const path = file();
    const store = await openStore(path);
    const N = 3000;
    const nodes = Array.from({ length: N }, (_, i) => makeNode(A, `huge node ${i} ${WORDS[i % WORDS.length]}`, unitVector(DIM, 10_000 + i)));
    const rels: Relation[] = [];
    for (let i = 0; i < N; i++) for (let j = 1; j <= 10; j++) rels.push(makeRelation(nodes[i]!.id, nodes[(i + j * 7) % N]!.id, 'RELATED_TO', { id: `h-${rels.length}`, probability: 0.5 }));
    const t0 = performance.now();
    await store.write({ scope: A, nodes, relations: rels, history: nodes.map((n) => makeHistory(A, 'ADD', n.id)) });
    const ms = performance.now() - t0;
    expect(await store.count(A)).toBe(N);
    const got = await store.relations(A);
    expect(got.length).toBe(rels.length);
    expect(got.map((r) => r.id)).toEqual(rels.map((r) => r.id));
    expect(got[29_999]).toEqual(rels[29_999]);
    expect((await store.history(A)).length).toBe(N);
    expect((await store.neighbors(A, [nodes[0]!.id], { direction: 'out' })).map((x) => x.relation.id)).toEqual(rels.slice(0, 10).map((r) => r.id));
    expect(store.checkIntegrity()).toEqual([]);
    expect(ms).toBeLessThan(15_000);
    await store.close();
    checkStats(path);
  }, 120_000);

  it('a huge batch whose LAST relation names a missing node writes nothing at all', async () => {
    const store = await openStore();
    const nodes = Array.from({ length: 500 }, (_, i) => makeNode(A, `n ${i}`, unitVector(DIM, 20_000 + i)));
    const rels = nodes.slice(1).map((n, i) => makeRelation(nodes[i]!.id, n.id, 'PRECEDES', { id: `c-${i}` }));
    rels.push(makeRelation(nodes[0]!.id, 'missing-node', 'RELATED_TO', { id: 'c-bad' }));
    await expectMemError(store.write({ scope: A, nodes, relations: rels, history: nodes.map((n) => makeHistory(A, 'ADD', n.id)) }), MemNotFoundError, 'NODE_NOT_FOUND');
    expect(await store.count(A)).toBe(0);
    expect(await store.relations(A)).toEqual([]);
    expect(await store.history(A)).toEqual([]);
    expect(await store.scopes()).toEqual([]);
    // and the connection is usable afterwards (the cached IMMEDIATE wrapper rolled back cleanly)
    await store.write({ scope: A, nodes: nodes.slice(0, 40), relations: rels.slice(0, 39) });
    expect((await store.relations(A)).length).toBe(39);
    expect(store.checkIntegrity()).toEqual([]);
    await store.close();
  });

  it('a batch whose history row #40 (second chunk) is not serialisable writes nothing', async () => {
    const store = await openStore();
    const nodes = Array.from({ length: 50 }, (_, i) => makeNode(A, `h ${i}`, unitVector(DIM, 30_000 + i)));
    const hist = nodes.map((n) => makeHistory(A, 'ADD', n.id));
    hist[40]!.data = { big: 10n } as never;
    await expectMemError(store.write({ scope: A, nodes, history: hist }), MemValidationError, 'INVALID_INPUT');
    expect(await store.count(A)).toBe(0);
    await store.close();
  });
});

describe('hostile JSON in node / history fields (serialised once by the batch check)', () => {
  it('a getter that changes between reads cannot make stored JSON differ from what the check saw', async () => {
    const store = await openStore();
    let reads = 0;
    const metadata = {
      get secret() {
        reads++;
        return reads === 1 ? 'first' : { huge: 'x'.repeat(10) };
      },
    };
    const n = makeNode(A, 'getter node', unitVector(DIM, 1), { provenance: { sourceId: null, contentHash: 'h', metadata } });
    await store.write({ scope: A, nodes: [n] });
    expect(reads).toBe(1);
    expect((await store.get(A, n.id))!.provenance.metadata).toEqual({ secret: 'first' });
    await store.close();
  });

  // metadata whose toJSON returns undefined: JSON.stringify gives undefined; the batch check
  // refuses it (INVALID_INPUT) instead of the NOT NULL column failing inside the transaction.
  it('metadata with toJSON() => undefined is a validation error (INVALID_INPUT), not a driver StoreError', async () => {
    const store = await openStore();
    const n = makeNode(A, 'tojson node', unitVector(DIM, 1), { provenance: { sourceId: null, contentHash: 'h', metadata: { toJSON: () => undefined } as never } });
    const err = await store.write({ scope: A, nodes: [n] }).then(
      () => null,
      (e: unknown) => e as MemError,
    );
    await store.close();
    expect(err?.code).toBe('INVALID_INPUT');
  });

  // history data {toJSON: () => null} is a non-null object that serialises to JSON `null`; the batch
  // check refuses it rather than store something read back as `data: null`.
  it('history data whose toJSON returns null / a string is refused, or read back as an object', async () => {
    const store = await openStore();
    const n = makeNode(A, 'hist node', unitVector(DIM, 1));
    let err: unknown = null;
    try {
      await store.write({ scope: A, nodes: [n], history: [makeHistory(A, 'ADD', n.id, { toJSON: () => null } as never), makeHistory(A, 'ADD', n.id, { toJSON: () => 'str' } as never)] });
    } catch (e) {
      err = e;
    }
    const rows = err ? [] : await store.history(A);
    await store.close();
    if (err) expect((err as MemError).code).toBe('INVALID_INPUT');
    else for (const h of rows) expect(typeof h.data === 'object' && h.data !== null).toBe(true);
  });

  it('NaN / Infinity / -0 inside metadata round-trip as JSON does (null / null / 0), never as a driver error', async () => {
    const store = await openStore();
    const n = makeNode(A, 'nan meta', unitVector(DIM, 1), { provenance: { sourceId: null, contentHash: 'h', metadata: { a: NaN, b: Infinity, c: -0, d: [undefined] } } });
    await store.write({ scope: A, nodes: [n] });
    expect((await store.get(A, n.id))!.provenance.metadata).toEqual({ a: null, b: null, c: 0, d: [null] });
    await store.close();
  });
});

describe('text edge cases on the ASCII fast paths', () => {
  it('searchText / docTokens fast paths equal the slow path on random ASCII (control characters included) and on ASCII + one non-ASCII char at the end', () => {
    const rnd = seededRandom(99);
    const TOKEN = /[\p{L}\p{N}]+/gu;
    const tails = ['', 'é', 'ß', 'İ', '\u0301', '😀', 'ﬁ', '１', '\u00a0', '\u200d', 'Σ', 'ǅ', '\u2160', '²'];
    for (let k = 0; k < 1200; k++) {
      let s = '';
      const len = Math.floor(rnd() * 40);
      for (let i = 0; i < len; i++) s += String.fromCharCode(rnd() < 0.8 ? 32 + Math.floor(rnd() * 95) : Math.floor(rnd() * 128));
      for (const tail of tails) {
        const t = s + tail;
        expect(searchText(t)).toBe(searchTextSlow(t));
        expect(docTokens(t)).toEqual(searchTextSlow(t).match(TOKEN) ?? []);
      }
    }
  });

  it('a text that is ASCII up to a final "ß" / "İ" / combining accent is found by the query of its normalised word', async () => {
    const store = await openStore();
    const texts = ['I walked along the Strasse', 'I walked along the Straße', 'Visit ISTANBUL', 'Visit İSTANBUL', 'the cafe', 'the cafe\u0301'];
    const nodes = texts.map((t, i) => makeNode(A, t, unitVector(DIM, 40 + i)));
    await store.write({ scope: A, nodes });
    expect((await store.lexicalSearch(A, 'strasse', 5)).map((h) => h.node.id).sort()).toEqual([nodes[0]!.id, nodes[1]!.id].sort());
    expect((await store.lexicalSearch(A, 'cafe', 5)).map((h) => h.node.id).sort()).toEqual([nodes[4]!.id, nodes[5]!.id].sort());
    expect((await store.lexicalSearch(A, 'Straße', 5)).length).toBe(2);
    await store.close();
  });

  it('a NUL character inside a text round-trips, and the words after it are still searchable', async () => {
    const store = await openStore();
    const n = makeNode(A, 'before\u0000afterword tail', unitVector(DIM, 3));
    await store.write({ scope: A, nodes: [n] });
    expect((await store.get(A, n.id))!.text).toBe('before\u0000afterword tail');
    expect((await store.lexicalSearch(A, 'afterword', 5)).map((h) => h.node.id)).toEqual([n.id]);
    expect((await store.lexicalSearch(A, 'tail', 5)).map((h) => h.node.id)).toEqual([n.id]);
    await store.close();
  });
});

describe('vector search options and hostile query vectors', () => {
  async function annStore(n: number) {
    const store = await openStore(':memory:', { ann: { threshold: 20, build: 'blocking', maxTail: 4 } });
    const nodes = Array.from({ length: n }, (_, i) => makeNode(A, `v ${i}`, unitVector(DIM, 50_000 + i)));
    await store.write({ scope: A, nodes });
    await store.buildAnnIndex(A);
    return { store, nodes };
  }

  it('efSearch 0 / 1 / huge integers: valid, results equal the exact scan (HNSW re-scored; graph of 200 small vectors)', async () => {
    const { store, nodes } = await annStore(200);
    const exact = await openStore();
    await exact.write({ scope: A, nodes });
    expect(store.annStatus(A).state).toBe('ready');
    const q = unitVector(DIM, 77);
    const want = (await exact.vectorSearchIds(A, q, 10)).map((h) => h.id);
    for (const ef of [0, 1, 10, 200, 10_000, 2 ** 31 - 1]) {
      const got = await store.vectorSearchIds(A, q, 10, { efSearch: ef });
      expect(got.length, `efSearch ${ef}`).toBe(10);
      if (ef >= 200) expect(got.map((h) => h.id), `efSearch ${ef}`).toEqual(want);
    }
    await store.close();
    await exact.close();
  });

  it('efSearch beyond 32 bits (2^32, 1e12, MAX_SAFE_INTEGER) is refused as INVALID_INPUT or searched; never an untyped / driver error', async () => {
    const { store } = await annStore(60);
    const q = unitVector(DIM, 78);
    for (const ef of [2 ** 32, 2 ** 32 + 5, 1e12, Number.MAX_SAFE_INTEGER]) {
      const r = await store.vectorSearchIds(A, q, 5, { efSearch: ef }).then(
        (x) => ({ ok: x.length }),
        (e: MemError) => ({ code: e.code }),
      );
      expect([{ ok: 5 }, { code: 'INVALID_INPUT' }], `efSearch ${ef}: ${JSON.stringify(r)}`).toContainEqual(r);
    }
    await store.close();
  });

  it('efSearch non-integer / negative / NaN / Infinity / string → INVALID_INPUT, also on the exact path', async () => {
    const store = await openStore();
    await store.write({ scope: A, nodes: [makeNode(A, 'x', unitVector(DIM, 1))] });
    for (const ef of [1.5, -1, NaN, Infinity, '10', null]) {
      await expectMemError(store.vectorSearchIds(A, unitVector(DIM, 2), 1, { efSearch: ef as never }), MemValidationError, 'INVALID_INPUT');
    }
    await store.close();
  });

  it('NaN / ±Infinity / float32-overflowing / all-zero / subnormal query vectors', async () => {
    const store = await openStore();
    await store.write({ scope: A, nodes: [makeNode(A, 'x', unitVector(DIM, 1)), makeNode(A, 'y', unitVector(DIM, 2))] });
    const bad = (v: number[]) => store.vectorSearchIds(A, Float32Array.from(v), 1);
    await expectMemError(bad([NaN, 1, 0, 0, 0, 0, 0, 0]), MemValidationError, 'NON_FINITE_VECTOR');
    await expectMemError(bad([Infinity, 1, 0, 0, 0, 0, 0, 0]), MemValidationError, 'NON_FINITE_VECTOR');
    await expectMemError(store.vectorSearchIds(A, [1e39, 0, 0, 0, 0, 0, 0, 0] as never, 1), MemValidationError, 'NON_FINITE_VECTOR');
    await expectMemError(bad([0, 0, 0, 0, 0, 0, 0, 0]), MemValidationError, 'ZERO_VECTOR');
    await expectMemError(bad([-0, 0, 0, 0, 0, 0, 0, 0]), MemValidationError, 'ZERO_VECTOR');
    // a subnormal (non-zero) query is a direction like any other: same hit as its scaled copy
    const dir = unitVector(DIM, 1);
    const tiny = Float32Array.from(dir, (x) => x * 1e-44);
    expect(tiny.some((x) => x !== 0)).toBe(true);
    const hits = await store.vectorSearchIds(A, tiny, 2);
    for (const h of hits) expect(Number.isFinite(h.score)).toBe(true);
    await store.close();
  });
});

describe('two connections on one file', () => {
  it('writes, forgets and re-adds through one connection are seen by the other connection’s cached vectors, counts and lexical index', async () => {
    const path = file();
    const s1 = await openStore(path);
    const s2 = await openStore(path);
    const a = makeNode(A, 'shared alpha', unitVector(DIM, 1));
    await s1.write({ scope: A, nodes: [a] });
    expect((await s2.vectorSearchIds(A, a.embedding, 5)).map((h) => h.id)).toEqual([a.id]); // s2 caches A's vectors
    const b = makeNode(A, 'shared beta', unitVector(DIM, 2));
    await s1.write({ scope: A, nodes: [b], relations: [makeRelation(a.id, b.id)] });
    expect((await s2.vectorSearchIds(A, b.embedding, 1)).map((h) => h.id)).toEqual([b.id]);
    expect(await s1.forget(A, a.id)).toBe(true);
    expect((await s2.vectorSearchIds(A, a.embedding, 5)).map((h) => h.id)).toEqual([b.id]);
    // re-add the same id from the other connection: new row id, vectors and relations follow
    await s2.write({ scope: A, nodes: [{ ...a, embedding: unitVector(DIM, 9) }], relations: [makeRelation(b.id, a.id, 'RELATED_TO', { id: 'again' })] });
    expect((await s1.vectorSearchIds(A, unitVector(DIM, 9), 1)).map((h) => h.id)).toEqual([a.id]);
    expect((await s1.vectorSearchIds(A, unitVector(DIM, 9), 5)).length).toBe(2);
    expect((await s1.relations(A)).map((r) => r.id)).toEqual(['again']);
    expect(await s1.count(A)).toBe(2);
    await closeChecked(s1, path, [s1, s2]);
  });

  it('interleaved writes of two connections to the same and to different scopes, first write of a scope included: nothing lost', async () => {
    const path = file();
    const s1 = await openStore(path);
    const s2 = await openStore(path);
    const all: string[] = [];
    for (let i = 0; i < 40; i++) {
      const s = i % 2 ? s1 : s2;
      const scope = i % 3 ? A : testScope(`late-${i % 5}`);
      const n = makeNode(scope, `inter ${i}`, unitVector(DIM, 60_000 + i));
      all.push(n.id);
      await Promise.all([s.write({ scope, nodes: [n] }), (i % 2 ? s2 : s1).vectorSearchIds(scope, n.embedding, 3)]);
    }
    const seen = new Set<string>();
    for (const scope of [A, ...[0, 1, 2, 3, 4].map((k) => testScope(`late-${k}`))]) for (const n of await s1.list(scope)) seen.add(n.id);
    expect([...seen].sort()).toEqual(all.sort());
    await closeChecked(s2, path, [s1, s2]);
  });

  it('a write blocked by another connection’s write lock fails typed (StoreUnavailableError) with nothing written, and the next write of that new scope succeeds', async () => {
    const path = file();
    const store = await openStore(path, { busyTimeoutMs: 50 });
    const raw = new Database(path);
    raw.exec('BEGIN IMMEDIATE');
    const n = makeNode(B, 'blocked', unitVector(DIM, 1));
    const err = await store.write({ scope: B, nodes: [n] }).catch((e: MemError) => e);
    expect(MemError.isInstance(err)).toBe(true);
    expect((err as MemError).name).toBe('StoreUnavailableError');
    raw.exec('ROLLBACK');
    raw.close();
    expect(await store.count(B)).toBe(0);
    await store.write({ scope: B, nodes: [n] });
    expect(await store.count(B)).toBe(1);
    expect(await store.scopes()).toEqual([B]);
    await store.close();
  });
});

describe('odd ids and a random operation model', () => {
  it('ids with NUL, quotes, JSON-looking text and trailing spaces stay distinct through json_each lookups (write, getMany, neighbors, relations)', async () => {
    const store = await openStore();
    const ids = ['x', 'x\u0000y', 'x\u0000', '\u0000', 'X', 'x ', '"x"', "x'", 'x\\', '[1]', '1', 'null'];
    const nodes = ids.map((id, i) => makeNode(A, `odd ${i}`, unitVector(DIM, 70_000 + i), { id }));
    await store.write({
      scope: A,
      nodes,
      relations: [makeRelation('x\u0000y', 'x', 'RELATED_TO', { id: 'r1' }), makeRelation('1', 'null', 'RELATED_TO', { id: 'r\u0000' }), makeRelation('1', '[1]', 'RELATED_TO', { id: 'r' })],
    });
    expect((await store.getMany(A, ids)).map((n) => n.id)).toEqual(ids);
    expect((await store.neighbors(A, ['x\u0000y'])).map((n) => [n.relation.id, n.node.id])).toEqual([['r1', 'x']]);
    expect((await store.neighbors(A, ['1'])).map((n) => [n.relation.id, n.node.id])).toEqual([
      ['r\u0000', 'null'],
      ['r', '[1]'],
    ]);
    await store.write({ scope: A, nodes: [{ ...nodes[1]!, text: 'changed' }], relations: [makeRelation('x\u0000y', '\u0000', 'RELATED_TO', { id: 'r2' })] });
    expect((await store.relations(A)).map((r) => [r.id, r.from, r.to])).toEqual([
      ['r1', 'x\u0000y', 'x'],
      ['r\u0000', '1', 'null'],
      ['r', '1', '[1]'],
      ['r2', 'x\u0000y', '\u0000'],
    ]);
    expect(await store.forget(A, 'x\u0000')).toBe(true);
    expect((await store.get(A, 'x\u0000y'))!.text).toBe('changed');
    expect(store.checkIntegrity()).toEqual([]);
    await store.close();
  });

  it('200 random batches and forgets (new nodes, rewrites, relation upserts with moved endpoints, obsolete marks) match a plain model; stats exact', async () => {
    const path = file();
    const store = await openStore(path);
    const rnd = seededRandom(2024);
    const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
    const model = { nodes: new Map<string, string>(), rels: [] as { id: string; from: string; to: string }[] };
    let next = 0;
    for (let step = 0; step < 200; step++) {
      const ids = [...model.nodes.keys()];
      if (rnd() < 0.15 && ids.length > 2) {
        const victim = pick(ids);
        expect(await store.forget(A, victim)).toBe(true);
        model.nodes.delete(victim);
        model.rels = model.rels.filter((r) => r.from !== victim && r.to !== victim);
        continue;
      }
      const batchNodes: MemoryNode[] = [];
      const inBatch = new Set<string>();
      const count = Math.floor(rnd() * 40);
      for (let i = 0; i < count; i++) {
        const rewrite = ids.length > 0 && rnd() < 0.3;
        const id = rewrite ? pick(ids) : `m${next++}`;
        if (inBatch.has(id)) continue;
        inBatch.add(id);
        const t = `${text(rnd, next)} step${step}`;
        batchNodes.push(makeNode(A, t, unitVector(DIM, 80_000 + next + step), { id }));
      }
      const endpoints = [...new Set([...ids, ...inBatch])];
      const batchRels: Relation[] = [];
      const relIds = new Set<string>();
      const nRels = endpoints.length > 1 ? Math.floor(rnd() * 50) : 0;
      for (let i = 0; i < nRels; i++) {
        const from = pick(endpoints);
        let to = pick(endpoints);
        if (to === from) to = endpoints[(endpoints.indexOf(from) + 1) % endpoints.length]!;
        // a third of the relations re-upsert an existing relation id with new endpoints
        const id = model.rels.length && rnd() < 0.33 ? pick(model.rels).id : `e${next++}`;
        if (relIds.has(id)) continue;
        relIds.add(id);
        batchRels.push(makeRelation(from, to, 'RELATED_TO', { id }));
      }
      const updates = ids.length > 1 && rnd() < 0.2 ? [{ id: pick(ids), obsoleteBy: pick(ids) }] : [];
      await store.write({ scope: A, nodes: batchNodes, relations: batchRels, nodeUpdates: updates });
      for (const n of batchNodes) model.nodes.set(n.id, n.text);
      for (const r of batchRels) {
        const at = model.rels.findIndex((x) => x.id === r.id);
        if (at >= 0) model.rels[at] = { id: r.id, from: r.from, to: r.to };
        else model.rels.push({ id: r.id, from: r.from, to: r.to });
      }
      if (step % 25 === 0) {
        expect((await store.relations(A)).map((r) => `${r.id}:${r.from}>${r.to}`)).toEqual(model.rels.map((r) => `${r.id}:${r.from}>${r.to}`));
        expect(await store.count(A)).toBe(model.nodes.size);
      }
    }
    expect((await store.relations(A)).map((r) => `${r.id}:${r.from}>${r.to}`)).toEqual(model.rels.map((r) => `${r.id}:${r.from}>${r.to}`));
    const listed = await store.list(A);
    expect(new Map(listed.map((n) => [n.id, n.text]))).toEqual(model.nodes);
    await closeChecked(store, path);
  });
});

describe('user getters that run inside the write transaction', () => {
  // Fixed: the batch check reads every field once (provenance included) before the transaction,
  // so a getter can no longer run inside it; and a write started while another one of the same
  // store is running (re-entrant call) is refused with nothing written, instead of becoming a
  // SAVEPOINT of the outer write (acknowledged, then rolled back with it).
  it('a provenance getter runs once, before the transaction; the outer write stores what was checked', async () => {
    const store = await openStore();
    const inner = makeNode(A, 'inner write', unitVector(DIM, 3));
    let innerDone: Promise<void> | null = null;
    let rs = 0;
    let rh = 0;
    const provenance = {
      metadata: {},
      get sourceId() {
        if (++rs === 2) innerDone = store.write({ scope: A, nodes: [inner] });
        return null;
      },
      get contentHash() {
        return ++rh === 1 ? 'h' : null;
      },
    };
    const outer = makeNode(A, 'outer', unitVector(DIM, 4), { provenance: provenance as never });
    await store.write({ scope: A, nodes: [outer] });
    expect([rs, rh]).toEqual([1, 1]);
    expect(innerDone).toBeNull();
    expect((await store.get(A, outer.id))!.provenance.contentHash).toBe('h');
    const later = makeNode(A, 'later', unitVector(DIM, 5));
    await store.write({ scope: A, nodes: [later] });
    expect(await store.count(A)).toBe(2);
    await store.close();
  });

  it('a write started from inside a running write (an embedding getter) is refused; the outer write is stored, the store stays usable', async () => {
    const store = await openStore();
    const inner = makeNode(A, 'inner write', unitVector(DIM, 3));
    let innerDone: Promise<void> | null = null;
    // the embedding is a Float32Array subclass whose byteOffset getter runs while the node row is
    // built, inside the transaction (the check keeps the caller's Float32Array as it is)
    const outer = makeNode(A, 'outer', unitVector(DIM, 4));
    outer.embedding = new (sneakyVector(() => (innerDone ??= store.write({ scope: A, nodes: [inner] }))))(unitVector(DIM, 4));
    await store.write({ scope: A, nodes: [outer] });
    expect(innerDone).not.toBeNull();
    await expectMemError(innerDone!, StoreError, 'STORE_ERROR');
    expect(await store.get(A, inner.id)).toBeNull();
    expect(await store.get(A, outer.id)).not.toBeNull();
    await store.write({ scope: A, nodes: [inner] });
    expect(await store.count(A)).toBe(2);
    expect(store.checkIntegrity()).toEqual([]);
    await store.close();
  });
});

/** A Float32Array subclass that calls `hook` whenever its byteOffset is read. */
function sneakyVector(hook: () => unknown) {
  return class Sneaky extends Float32Array {
    override get byteOffset(): number {
      hook();
      return super.byteOffset;
    }
  };
}

describe('the per-connection known-node-rid cache', () => {
  it('another connection forgets and re-adds a node this connection knows: a relation to it lands on the new row, no orphan', async () => {
    const path = file();
    const s1 = await openStore(path);
    const s2 = await openStore(path);
    const [x, y] = [makeNode(A, 'known x', unitVector(DIM, 1)), makeNode(A, 'known y', unitVector(DIM, 2))];
    await s1.write({ scope: A, nodes: [x, y], relations: [makeRelation(x.id, y.id, 'RELATED_TO', { id: 'k1' })] });
    expect(await s2.forget(A, x.id)).toBe(true);
    await s2.write({ scope: A, nodes: [{ ...x, text: 'x again' }] });
    await s1.write({ scope: A, relations: [makeRelation(y.id, x.id, 'RELATED_TO', { id: 'k2' })] });
    expect((await s1.relations(A)).map((r) => [r.id, r.from, r.to])).toEqual([['k2', y.id, x.id]]);
    expect(s1.checkIntegrity()).toEqual([]);
    // and forgotten through another connection without a re-add: the relation is refused
    expect(await s2.forget(A, y.id)).toBe(true);
    await expectMemError(s1.write({ scope: A, relations: [makeRelation(x.id, y.id, 'RELATED_TO', { id: 'k3' })] }), MemNotFoundError, 'NODE_NOT_FOUND');
    expect(s1.checkIntegrity()).toEqual([]);
    await s1.close();
    await s2.close();
  });

  /** Make every later insert of a NOOP history row in the file fail (a late failure inside a write batch). */
  function failNoopHistoryInserts(path: string): void {
    const raw = new Database(path);
    raw.exec("CREATE TRIGGER late BEFORE INSERT ON history WHEN NEW.op = 'NOOP' BEGIN SELECT RAISE(ABORT, 'late failure'); END");
    raw.close();
  }

  /** A fresh file holding one node `y` ('anchor'), whose later NOOP history inserts fail (failNoopHistoryInserts). */
  async function anchoredWithLateFailure() {
    const path = file();
    const store = await openStore(path);
    const y = makeNode(A, 'anchor', unitVector(DIM, 2));
    await store.write({ scope: A, nodes: [y] });
    failNoopHistoryInserts(path);
    return { store, y };
  }

  it('a failed write (late failure, after its node rows were inserted) leaves no known rid behind', async () => {
    const { store, y } = await anchoredWithLateFailure();
    const ghost = makeNode(A, 'ghost', unitVector(DIM, 3));
    const err = await store
      .write({ scope: A, nodes: [ghost], relations: [makeRelation(y.id, ghost.id, 'RELATED_TO', { id: 'late' })], history: [makeHistory(A, 'NOOP', ghost.id)] })
      .catch((e: MemError) => e);
    expect(err).toBeInstanceOf(Error);
    expect(await store.get(A, ghost.id)).toBeNull();
    await expectMemError(store.write({ scope: A, relations: [makeRelation(y.id, ghost.id, 'RELATED_TO', { id: 'after' })] }), MemNotFoundError, 'NODE_NOT_FOUND');
    expect(store.checkIntegrity()).toEqual([]);
    await store.close();
  });

  // Was a bug: a re-entrant write's node rids were learned after its nested (SAVEPOINT) "commit"
  // and outlived the outer rollback. Fixed: getters run once in the check, re-entrant writes are refused.
  it('after a failed write with a re-entrancy attempt, a relation to the would-be node is refused (no stale row id)', async () => {
    const { store, y } = await anchoredWithLateFailure();
    const inner = makeNode(A, 'inner write', unitVector(DIM, 3));
    let innerDone: Promise<void> | null = null;
    const outer = makeNode(A, 'outer', unitVector(DIM, 4));
    outer.embedding = new (sneakyVector(() => (innerDone ??= store.write({ scope: A, nodes: [inner] }))))(unitVector(DIM, 4));
    await expect(store.write({ scope: A, nodes: [outer], history: [makeHistory(A, 'NOOP', outer.id)] })).rejects.toBeDefined();
    expect(innerDone).not.toBeNull();
    await expectMemError(innerDone!, StoreError, 'STORE_ERROR');
    expect(await store.get(A, inner.id)).toBeNull();
    const relErr = await store.write({ scope: A, relations: [makeRelation(y.id, inner.id, 'RELATED_TO', { id: 'stale' })] }).then(
      () => null,
      (e: MemError) => e.code,
    );
    const z = makeNode(A, 'unrelated newcomer', unitVector(DIM, 5));
    await store.write({ scope: A, nodes: [z] });
    const rels = await store.relations(A);
    expect(store.checkIntegrity()).toEqual([]);
    await store.close();
    expect(rels.map((r) => [r.id, r.to])).not.toContainEqual(['stale', z.id]);
    expect(relErr).toBe('NODE_NOT_FOUND');
  });
});

describe('relations are validated but not snapshotted', () => {
  // Was a bug: write() read the relation's fields again after the check, so a getter could pass the
  // check and store probability 7 / a subtype of another view / a forged origin. Fixed: the check
  // copies each relation (every field read once) and the store writes the copy.
  it('the stored relation equals the validated one (probability in [0, 1], subtype of its view)', async () => {
    const store = await openStore();
    const [x, y] = [makeNode(A, 'rel x', unitVector(DIM, 1)), makeNode(A, 'rel y', unitVector(DIM, 2))];
    const rel = makeRelation(x.id, y.id, 'RELATED_TO', { id: 'toctou' });
    const reads: Record<string, number> = {};
    // valid for as many reads as the check makes, invalid afterwards (when the rows are built)
    const flip = (k: string, checkReads: number, first: unknown, later: unknown) =>
      Object.defineProperty(rel, k, { get: () => ((reads[k] = (reads[k] ?? 0) + 1) <= checkReads ? first : later), enumerable: true });
    flip('probability', 3, 0.5, 7);
    flip('subtype', 2, 'RELATED_TO', 'CAUSES');
    flip('origin', 1, 'rule', 'forged');
    const err = await store.write({ scope: A, nodes: [x, y], relations: [rel] }).then(
      () => null,
      (e: MemError) => e,
    );
    const got = err ? [] : await store.relations(A);
    await store.close();
    for (const r of got) {
      expect(r.probability).toBeLessThanOrEqual(1);
      expect(['rule', 'controller']).toContain(r.origin);
      expect(RELATION_SUBTYPES[r.subtype]).toBe(r.view);
    }
  });
});

describe('tokenizer agreement between docTokens (BM25 statistics) and FTS5 unicode61 (candidates)', () => {
  // Was a bug: FTS5's unicode61 treats private-use characters (category Co, e.g. U+F8FF, the Apple
  // logo many keyboards type) as token characters, while docTokens splits on them, so "\uF8FFWatch"
  // was one FTS token but the word "watch" for BM25. Fixed: searchText turns Co into spaces
  // (schema v5 re-indexes such nodes of older files).
  it('a word glued to a private-use character (U+F8FF) is found by lexical search', async () => {
    const store = await openStore();
    const n = makeNode(A, 'I love my \uF8FFWatch today', unitVector(DIM, 1));
    await store.write({ scope: A, nodes: [n] });
    const hits = await store.lexicalSearch(A, 'watch', 5);
    await store.close();
    expect(hits.map((h) => h.node.id)).toEqual([n.id]);
  });
});

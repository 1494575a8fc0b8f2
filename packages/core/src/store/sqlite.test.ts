/** SQLite-specific behaviour beyond the shared conformance suite. */
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeHistory, makeNode, makeRelation, testScope, unitVector, cosine } from '../testing/index.js';
import { bm25Term, createSqliteStore } from './sqlite.js';
import { MIGRATIONS, SQLITE_SCHEMA_VERSION } from './schema.js';
import { docTokens, ftsMatchQuery, searchText, searchTextSlow } from './text.js';
import { MemValidationError, StoreError, StoreMetaMismatchError } from '../errors.js';
import { expectMemError } from '@mem/test-utils';
import { tempDbFolder } from '../testdata/temp-files.js';

const { file } = tempDbFolder('mem-sqlite-', 't');
const META = { schemaVersion: 1, embeddingModel: 'test', dimension: 16 };
const A = testScope('alice');

async function open(path = ':memory:', ann?: Parameters<typeof createSqliteStore>[0]['ann']) {
  const s = createSqliteStore({ path, ann });
  await s.open(META);
  return s;
}

describe('query escaping (text.ts)', () => {
  it('quotes every word and ORs them; operators become words', () => {
    expect(ftsMatchQuery('NEAR( a "b" -c* AND')).toBe('"near" OR "a" OR "b" OR "c" OR "and"');
    expect(ftsMatchQuery('?!* "" ()')).toBeNull();
    expect(ftsMatchQuery('咖啡')).toBe('"咖" OR "啡" OR "咖啡"');
  });
  it('docTokens and searchText: the ASCII fast paths equal the general path', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii', maxLength: 80 }), (t) => {
        expect(searchText(t)).toBe(searchTextSlow(t));
        expect(docTokens(t)).toEqual(searchTextSlow(t).match(/[\p{L}\p{N}]+/gu) ?? []);
      }),
      { numRuns: 300 },
    );
  });

  it('normalises diacritics, width, case and emoji the same way for text and query', () => {
    expect(searchText('Café ＡＢＣ')).toBe('cafe abc');
    expect(searchText('🎉')).toContain('emj1f389');
    expect(searchText('كَتَبَ')).toBe('كتب');
  });
});

describe('sqlite lexical search extras', () => {
  it('folds diacritics (Latin, Arabic, Hebrew), finds emoji, single CJK characters and Thai words', async () => {
    const store = await open();
    const texts = ['Café Müller', 'كَتَبَ الوَلَدُ الدَّرْسَ', 'שָׁלוֹם עולם', 'great party 🎉 tonight', '我喜欢吃苹果', 'ฉันชอบกินข้าวผัดมาก'];
    const ns = texts.map((t, i) => makeNode(A, t, unitVector(16, i + 1)));
    await store.write({ scope: A, nodes: ns });
    const first = async (q: string) => (await store.lexicalSearch(A, q, 3))[0]?.node.text;
    expect(await first('cafe muller')).toBe(texts[0]);
    expect(await first('كتب')).toBe(texts[1]);
    expect(await first('שלום')).toBe(texts[2]);
    expect(await first('🎉')).toBe(texts[3]);
    expect(await first('苹果')).toBe(texts[4]);
    expect(await first('果')).toBe(texts[4]);
    expect(await first('ข้าวผัด')).toBe(texts[5]);
    expect(await store.lexicalSearch(A, '梨子', 3)).toEqual([]);
    await store.close();
  });
});

describe('sqlite BM25 uses per-scope statistics', () => {
  it('scores in one scope do not change when another scope grows', async () => {
    const texts = ['the garden has tomatoes and basil', 'tomatoes need sun', 'basil basil pesto', 'a quiet evening at home'];
    const alone = await open();
    const shared = await open();
    const B = testScope('bob');
    for (const st of [alone, shared]) await st.write({ scope: A, nodes: texts.map((t, i) => makeNode(A, t, unitVector(16, i + 1), { id: `n${i}` })) });
    // Bob's scope makes "tomatoes" very common and "pesto" rare file-wide.
    await shared.write({ scope: B, nodes: Array.from({ length: 50 }, (_, i) => makeNode(B, `tomatoes tomatoes number ${i}`, unitVector(16, 100 + i))) });
    for (const q of ['tomatoes', 'basil pesto', 'tomatoes basil sun', 'home']) {
      const a = (await alone.lexicalSearch(A, q, 10)).map((h) => [h.node.id, h.score]);
      const b = (await shared.lexicalSearch(A, q, 10)).map((h) => [h.node.id, h.score]);
      expect(b, q).toEqual(a);
      expect(a.length).toBeGreaterThan(0);
      for (const [, score] of a) expect(score).toBeGreaterThan(0);
    }
    // The documented formula: one document, one matching term.
    const [hit] = await alone.lexicalSearch(A, 'pesto', 1);
    expect(hit.node.id).toBe('n2');
    expect(hit.score).toBeCloseTo(bm25Term(1, 1, 3, (6 + 3 + 3 + 5) / 4, 4), 10);
    await alone.close();
    await shared.close();
  });
});

describe('sqlite HNSW index', () => {
  it('builds in the background, stays in step with writes, updates and forgets, and agrees with exact search', async () => {
    const dim = 16;
    const ann = await createSqliteStore({ path: ':memory:', ann: { threshold: 200 } });
    await ann.open(META);
    const exact = await createSqliteStore({ path: ':memory:', ann: false });
    await exact.open(META);
    const ns = Array.from({ length: 600 }, (_, i) => makeNode(A, `item ${i}`, unitVector(dim, i + 1)));
    for (let i = 0; i < ns.length; i += 150) {
      await ann.write({ scope: A, nodes: ns.slice(i, i + 150) });
      await exact.write({ scope: A, nodes: ns.slice(i, i + 150) });
    }
    const q0 = unitVector(dim, 9999);
    const first = await ann.vectorSearch(A, q0, 5); // exact while the index builds
    expect(first.map((h) => h.node.id)).toEqual((await exact.vectorSearch(A, q0, 5)).map((h) => h.node.id));
    expect(ann.annStatus(A).state).not.toBe('none');
    await ann.buildAnnIndex(A);
    expect(ann.annStatus(A)).toEqual({ size: 600, state: 'ready', pending: 0 });
    let agree = 0;
    for (let qi = 0; qi < 30; qi++) {
      const q = unitVector(dim, 20_000 + qi);
      const a = await ann.vectorSearch(A, q, 10);
      const e = await exact.vectorSearch(A, q, 10);
      for (const h of a) expect(h.score).toBeCloseTo(cosine(h.node.embedding, q), 5);
      agree += a.filter((h) => e.some((x) => x.node.id === h.node.id)).length;
    }
    expect(agree / 300).toBeGreaterThan(0.95); // recall@10 of the HNSW path vs exact

    // In step with writes: a new node equal to the query is found first at once.
    const q = unitVector(dim, 31_337);
    const added = makeNode(A, 'new exact match', q);
    await ann.write({ scope: A, nodes: [added] });
    expect((await ann.vectorSearch(A, q, 1))[0].node.id).toBe(added.id);
    // Upsert moves it; forget removes it.
    const other = unitVector(dim, 4242);
    await ann.write({ scope: A, nodes: [{ ...added, embedding: other }] });
    expect((await ann.vectorSearch(A, other, 1))[0].node.id).toBe(added.id);
    expect((await ann.vectorSearch(A, q, 3)).map((h) => h.node.id)).not.toContain(added.id);
    expect(await ann.forget(A, added.id)).toBe(true);
    expect((await ann.vectorSearch(A, other, 10)).map((h) => h.node.id)).not.toContain(added.id);
    // Forgetting most of the scope triggers a rebuild; results stay correct.
    for (const n of ns.slice(0, 450)) await ann.forget(A, n.id);
    const rest = await ann.vectorSearch(A, q0, 200);
    expect(rest.length).toBe(150);
    expect(rest.map((h) => h.node.id).sort()).toEqual(ns.slice(450).map((n) => n.id).sort());
    await ann.close();
    await exact.close();
  });
});

describe('sqlite vector cache', () => {
  it('drops least recently searched scopes over vectorCacheMB and reloads them correctly', async () => {
    const store = createSqliteStore({ path: ':memory:', vectorCacheMB: 0.001 }); // ~1 KiB: one scope at a time
    await store.open(META);
    const B = testScope('bob');
    const na = Array.from({ length: 30 }, (_, i) => makeNode(A, `a${i}`, unitVector(16, i + 1)));
    const nb = Array.from({ length: 30 }, (_, i) => makeNode(B, `b${i}`, unitVector(16, i + 100)));
    await store.write({ scope: A, nodes: na });
    await store.write({ scope: B, nodes: nb });
    const q = unitVector(16, 5);
    const best = (ns: typeof na) => ns.map((n) => ({ id: n.id, s: cosine(n.embedding, q) })).sort((x, y) => y.s - x.s)[0].id;
    expect((await store.vectorSearch(A, q, 1))[0].node.id).toBe(best(na));
    expect(store.annStatus(A).size).toBe(30);
    expect((await store.vectorSearch(B, q, 1))[0].node.id).toBe(best(nb));
    expect(store.annStatus(A).size).toBe(0); // evicted
    await store.forget(A, best(na));
    expect((await store.vectorSearch(A, q, 1))[0].node.id).toBe(best(na.filter((n) => n.id !== best(na))));
    await store.close();
  });

  it('inserts pending vectors into the HNSW graph when idle', async () => {
    const store = createSqliteStore({ path: ':memory:', ann: { threshold: 10 } });
    await store.open(META);
    await store.write({ scope: A, nodes: Array.from({ length: 50 }, (_, i) => makeNode(A, `x${i}`, unitVector(16, i + 1))) });
    await store.buildAnnIndex(A);
    const extra = Array.from({ length: 40 }, (_, i) => makeNode(A, `y${i}`, unitVector(16, i + 500)));
    await store.write({ scope: A, nodes: extra });
    expect(store.annStatus(A).pending).toBe(40);
    // Found at once through the exact tail scan …
    expect((await store.vectorSearch(A, extra[7].embedding, 1))[0].node.id).toBe(extra[7].id);
    // … and after an idle turn or two through the graph.
    for (let i = 0; i < 300 && store.annStatus(A).pending > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(store.annStatus(A)).toEqual({ size: 90, state: 'ready', pending: 0 });
    expect((await store.vectorSearch(A, extra[9].embedding, 1))[0].node.id).toBe(extra[9].id);
    await store.close();
  });
});

describe('sqlite files', () => {
  it('opening a store another process is writing takes no write lock (migrations and meta only read): it never waits for that writer', async () => {
    const path = file();
    const first = await open(path);
    await first.write({ scope: A, nodes: [makeNode(A, 'one', unitVector(16, 1))] });
    // another process holds the write lock (a long add of `mem serve`, say)
    const writer = new Database(path);
    writer.exec('BEGIN IMMEDIATE');
    try {
      const second = createSqliteStore({ path, busyTimeoutMs: 0 });
      await second.open(META); // before: migrations and open each took the lock (SQLITE_BUSY at once here)
      expect(await second.count(A)).toBe(1);
      await expectMemError(createSqliteStore({ path, busyTimeoutMs: 0 }).open({ ...META, dimension: 8 }), StoreMetaMismatchError, 'STORE_META_MISMATCH');
      await second.close();
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
      await first.close();
    }
  });

  it('keeps another handle\'s vector cache in step (data_version)', async () => {
    const path = file();
    const h1 = await open(path);
    const h2 = await open(path);
    const base = Array.from({ length: 20 }, (_, i) => makeNode(A, `base ${i}`, unitVector(16, i + 1)));
    await h1.write({ scope: A, nodes: base });
    const q = unitVector(16, 777);
    expect((await h1.vectorSearch(A, q, 1))[0].node.id).not.toBe('late');
    await h2.write({ scope: A, nodes: [makeNode(A, 'late', q, { id: 'late' })] });
    expect((await h1.vectorSearch(A, q, 1))[0].node.id).toBe('late');
    await h2.forget(A, 'late');
    expect((await h1.vectorSearch(A, q, 5)).map((h) => h.node.id)).not.toContain('late');
    await h1.close();
    await h2.close();
  });

  it('migrates a version-1 file: rebuilds the FTS index with its scope column, keeps everything', async () => {
    const path = file();
    const raw = new Database(path);
    raw.exec('CREATE TABLE migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT');
    raw.exec(MIGRATIONS[0].sql!);
    raw.prepare("INSERT INTO migrations VALUES (1, 'initial', 'x')").run();
    for (const [k, v] of Object.entries({ schemaVersion: '1', embeddingModel: 'test', dimension: '16' })) raw.prepare('INSERT INTO meta VALUES (?, ?)').run(k, v);
    raw.prepare("INSERT INTO scopes (namespace, user_id, agent_id, run_id, node_count) VALUES ('test', 'alice', '', '', 1)").run();
    const n = makeNode(A, 'Grüße aus Köln und 東京', unitVector(16, 3), { id: 'old-node' });
    raw
      .prepare(
        `INSERT INTO nodes (sid, id, text, speaker, observed_at, event_time, entities, keywords, types, embedding, gate, source_id, content_hash, metadata, obsolete_by, created_at, observed_ms, created_ms)
         VALUES (1, ?, ?, NULL, ?, NULL, '[]', '[]', ?, ?, NULL, NULL, 'h', '{}', NULL, ?, ?, ?)`,
      )
      .run(n.id, n.text, n.observedAt, JSON.stringify(n.types), Buffer.from(n.embedding.buffer), n.createdAt, Date.parse(n.observedAt), Date.parse(n.createdAt));
    raw.prepare('INSERT INTO nodes_fts (rowid, body) VALUES (1, ?)').run(searchText(n.text));
    raw.close();
    const store = await open(path);
    expect((await store.lexicalSearch(A, 'koln', 5)).map((h) => h.node.id)).toEqual(['old-node']);
    expect((await store.lexicalSearch(A, 'GRÜSSE', 5)).map((h) => h.node.id)).toEqual(['old-node']);
    expect((await store.lexicalSearch(A, '東京', 5)).map((h) => h.node.id)).toEqual(['old-node']);
    expect((await store.get(A, 'old-node'))!.text).toBe(n.text);
    expect(store.checkIntegrity()).toEqual([]);
    await store.close();
    const check = new Database(path);
    expect((check.prepare('SELECT MAX(version) AS v FROM migrations').get() as { v: number }).v).toBe(SQLITE_SCHEMA_VERSION);
    check.close();
  });

  it('refuses a file written by a newer schema version, naming both versions', async () => {
    const path = file();
    (await open(path)).close();
    const raw = new Database(path);
    raw.prepare("INSERT INTO migrations (version, name, applied_at) VALUES (99, 'future', 'x')").run();
    raw.close();
    const e = await expectMemError(createSqliteStore({ path }).open(META), StoreMetaMismatchError, 'STORE_META_MISMATCH');
    expect(e.message).toContain('99');
    expect(e.message).toContain(String(SQLITE_SCHEMA_VERSION));
  });

  it('history is append-only even for raw SQL', async () => {
    const path = file();
    const store = await open(path);
    const n = makeNode(A, 'x', unitVector(16, 1));
    await store.write({ scope: A, nodes: [n], history: [makeHistory(A, 'ADD', n.id)] });
    const raw = new Database(path);
    expect(() => raw.prepare("UPDATE history SET op = 'NOOP'").run()).toThrow(/append-only/);
    expect(() => raw.prepare('DELETE FROM history').run()).toThrow(/append-only/);
    raw.close();
    await store.close();
  });

  it('a failure in the middle of a write (injected) leaves nothing partial', async () => {
    const path = file();
    const store = await open(path);
    const keep = makeNode(A, 'kept node', unitVector(16, 1));
    await store.write({ scope: A, nodes: [keep] });
    const raw = new Database(path);
    // Fails on the last statement of the batch (history is written after nodes, FTS rows and relations).
    raw.exec("CREATE TRIGGER inject BEFORE INSERT ON history WHEN NEW.op = 'NOOP' BEGIN SELECT RAISE(ABORT, 'injected failure'); END");
    raw.close();
    const x = makeNode(A, 'doomed node alpha', unitVector(16, 2));
    const y = makeNode(A, 'doomed node beta', unitVector(16, 3));
    await expectMemError(
      store.write({
        scope: A,
        nodes: [x, y],
        relations: [makeRelation(x.id, y.id), makeRelation(keep.id, x.id)],
        nodeUpdates: [{ id: keep.id, obsoleteBy: x.id }],
        history: [makeHistory(A, 'ADD', x.id), makeHistory(A, 'NOOP', y.id)],
      }),
      StoreError,
      'STORE_ERROR',
    );
    expect((await store.list(A)).map((n) => n.id)).toEqual([keep.id]);
    expect((await store.get(A, keep.id))!.obsoleteBy).toBeNull();
    expect(await store.relations(A)).toEqual([]);
    expect(await store.history(A)).toEqual([]);
    expect(await store.lexicalSearch(A, 'doomed', 5)).toEqual([]);
    expect((await store.vectorSearch(A, unitVector(16, 2), 5)).map((h) => h.node.id)).toEqual([keep.id]);
    expect(store.checkIntegrity()).toEqual([]);
    await store.close();
  });

  it('needs open() first; refuses use after close; validates k', async () => {
    const store = createSqliteStore({ path: ':memory:' });
    await expectMemError(store.write({ scope: A, nodes: [makeNode(A, 'x', unitVector(16, 1))] }), StoreError, 'STORE_ERROR');
    await store.open(META);
    await expectMemError(store.vectorSearch(A, unitVector(16, 1), -1), MemValidationError, 'INVALID_INPUT');
    await expectMemError(store.lexicalSearch(A, 'x', 1.5), MemValidationError, 'INVALID_INPUT');
    await expectMemError(store.list(A, { limit: -2 }), MemValidationError, 'INVALID_INPUT');
    await expectMemError(store.write({ scope: A, nodes: [makeNode(A, 'x', unitVector(16, 1), { provenance: { sourceId: null, contentHash: 'h', metadata: { big: 1n } as any } })] }), MemValidationError, 'INVALID_INPUT');
    await store.close();
    await store.close();
    await expectMemError(store.count(A), StoreError, 'STORE_ERROR');
  });
});

describe('adversarial write batches', () => {
  it('rejects strings SQLite would silently alter (lone UTF-16 surrogates become U+FFFD) and non-ISO dates; writes nothing', async () => {
    const store = await open();
    const v = unitVector(16, 1);
    // a lone surrogate in an id / text / speaker / entity / keyword / relation endpoint
    await expectMemError(store.write({ scope: A, nodes: [makeNode(A, 'ok text', v, { id: 'bad\uD800id' })] }), MemValidationError, 'INVALID_INPUT');
    await expectMemError(store.write({ scope: A, nodes: [makeNode(A, 'bad \uDC00 text', v)] }), MemValidationError, 'INVALID_INPUT');
    await expectMemError(store.write({ scope: A, nodes: [makeNode(A, 'ok text', v, { speaker: 'Mi\uD800' })] }), MemValidationError, 'INVALID_INPUT');
    await expectMemError(store.write({ scope: A, nodes: [makeNode(A, 'ok text', v, { entities: ['\uD83D'] })] }), MemValidationError, 'INVALID_INPUT');
    await expectMemError(store.write({ scope: A, nodes: [makeNode(A, 'ok text', v, { keywords: ['x\uDFFF'] })] }), MemValidationError, 'INVALID_INPUT');
    const n1 = makeNode(A, 'first', v);
    await expectMemError(store.write({ scope: A, nodes: [n1], relations: [makeRelation(n1.id, '\uD800')] }), MemValidationError, 'INVALID_INPUT');
    // Date.parse accepts '5', 'March 7 2024' and zone-less local times: not ISO-8601 UTC
    for (const observedAt of ['5', 'March 7 2024', '2024/01/01', '2024-01-01T10:00:00']) {
      await expectMemError(store.write({ scope: A, nodes: [makeNode(A, 'ok text', v, { observedAt })] }), MemValidationError, 'BAD_DATE');
    }
    await expectMemError(store.write({ scope: A, nodes: [n1], relations: [makeRelation(n1.id, n1.id + 'x', 'RELATED_TO', { createdAt: 'yesterday' })] }), MemValidationError, 'BAD_DATE');
    expect(await store.count(A)).toBe(0);
    // well-formed astral characters and ISO forms (date-only, offset, 6-digit year) stay accepted
    const ok = [
      makeNode(A, 'emoji 🎉 ok', v, { speaker: '🦊', entities: ['🎉'] }),
      makeNode(A, 'date only', v, { observedAt: '2024-01-01' }),
      makeNode(A, 'offset', v, { observedAt: '2024-01-01T10:00:00+02:00' }),
    ];
    await store.write({ scope: A, nodes: ok });
    expect((await store.list(A)).map((n) => n.text).sort()).toEqual(['date only', 'emoji 🎉 ok', 'offset']);
    await store.close();
  });
});

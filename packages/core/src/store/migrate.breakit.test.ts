/**
 * Break-it tests of the v3 → v4 migration (relations by node rid) and of big multi-row writes under
 * SIGKILL: a v3 file upgraded while another connection holds it open (reading, holding the write
 * lock, or an old-build writer that keeps writing), a process killed in the middle of the migration
 * and in the middle of 1 000-row batches (the child script is written to a temp file and bundled by
 * the shared crash harness).
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemError } from '../errors.js';
import { prepareChild, runAndKill, timeToAck, type CrashChild } from '../testdata/crash-harness.js';
import { seededRandom, testScope } from '../testing/index.js';
import { MIGRATIONS, SQLITE_SCHEMA_VERSION } from './schema.js';
import { createSqliteStore } from './sqlite.js';
import { docTokens, searchText } from './text.js';
import { tempDbFolder } from '../testdata/temp-files.js';

const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = join(here, '..', '..');
const { dir, file } = tempDbFolder('mem-breakit-migrate-', 'm');
const DIM = 16;
const META = { schemaVersion: 1, embeddingModel: 'crash', dimension: DIM };
const S = [testScope('crash-a'), testScope('crash-b')];

/**
 * A schema-version-3 file (as migrate.test.ts builds one: the v1..v3 migrations, then raw rows):
 * `nodes` nodes per scope, and per scope `rels` relations between random nodes of that scope, ids
 * `v3-<scope>-<k>` in insertion order. Returns the relation ids per scope, in order.
 */
function writeV3File(path: string, nodes: number, rels: number): string[][] {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  const ids: string[][] = [];
  db.transaction(() => {
    db.exec('CREATE TABLE migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT');
    for (const m of MIGRATIONS.filter((x) => x.version <= 3)) {
      if (m.sql) db.exec(m.sql);
      m.up?.(db);
      db.prepare('INSERT INTO migrations VALUES (?, ?, ?)').run(m.version, m.name, 'x');
    }
    for (const [k, v] of Object.entries({ schemaVersion: '1', embeddingModel: 'crash', dimension: String(DIM) })) db.prepare('INSERT INTO meta VALUES (?, ?)').run(k, v);
    const df = db.prepare('INSERT INTO scope_terms (sid, term, df) VALUES (?, ?, 1) ON CONFLICT (sid, term) DO UPDATE SET df = df + 1');
    const node = db.prepare(
      `INSERT INTO nodes (sid, id, text, speaker, observed_at, event_time, entities, keywords, types, embedding, gate, source_id, content_hash, metadata, obsolete_by, created_at, observed_ms, created_ms, doc_len)
       VALUES (?, ?, ?, NULL, ?, NULL, '[]', '[]', '{}', ?, NULL, NULL, ?, '{}', NULL, ?, ?, ?, ?)`,
    );
    const fts = db.prepare('INSERT INTO nodes_fts (rowid, scope, body) VALUES (?, ?, ?)');
    const hist = db.prepare('INSERT INTO history (sid, op, node_id, at, data) VALUES (?, ?, ?, ?, ?)');
    const rel = db.prepare('INSERT INTO relations (sid, id, from_id, to_id, view, subtype, probability, origin, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const rnd = seededRandom(5);
    S.forEach((scope, si) => {
      const sid = Number(db.prepare('INSERT INTO scopes (namespace, user_id, agent_id, run_id) VALUES (?, ?, ?, ?)').run(scope.namespace, scope.userId, scope.agentId, scope.runId).lastInsertRowid);
      let total = 0;
      for (let i = 0; i < nodes; i++) {
        const text = `old node ${si} ${i} ${i % 7 ? 'river' : 'stone'}`;
        const tokens = docTokens(text);
        total += tokens.length;
        for (const t of new Set(tokens)) df.run(sid, t);
        const v = new Float32Array(DIM).map(() => rnd() * 2 - 1);
        const at = new Date(Date.UTC(2023, 0, 1) + i * 1000).toISOString();
        const rid = node.run(sid, `v3-${si}-n${i}`, text, at, Buffer.from(v.buffer), `h${si}-${i}`, at, Date.parse(at), Date.parse(at), tokens.length).lastInsertRowid;
        fts.run(rid, `s${sid}`, searchText(text));
        hist.run(sid, 'ADD', `v3-${si}-n${i}`, at, '{}');
      }
      db.prepare('UPDATE scopes SET node_count = ?, token_count = ? WHERE sid = ?').run(nodes, total, sid);
      const list: string[] = [];
      for (let k = 0; k < rels; k++) {
        const a = Math.floor(rnd() * nodes);
        const b = (a + 1 + Math.floor(rnd() * (nodes - 1))) % nodes;
        const id = `v3-${si}-r${k}`;
        rel.run(sid, id, `v3-${si}-n${a}`, `v3-${si}-n${b}`, 'semantic', 'RELATED_TO', 0.5, 'rule', '2023-01-01T00:00:00.000Z');
        list.push(id);
      }
      ids.push(list);
    });
  })();
  db.close();
  return ids;
}

const schemaVersionOf = (path: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare('SELECT MAX(version) AS v FROM migrations').get() as { v: number }).v;
  } finally {
    db.close();
  }
};

describe('v3 file upgraded while another connection holds it open', () => {
  it('a reader with an open read transaction keeps its v3 snapshot; the upgrade lands; the reader then sees v4', async () => {
    const path = file();
    const ids = writeV3File(path, 50, 200);
    const reader = new Database(path);
    reader.exec('BEGIN');
    expect((reader.prepare('SELECT COUNT(*) AS c FROM relations').get() as { c: number }).c).toBe(400);
    const store = createSqliteStore({ path, busyTimeoutMs: 200 });
    await store.open(META);
    expect((await store.relations(S[0]!)).map((r) => r.id)).toEqual(ids[0]);
    // the reader's snapshot is still the v3 table
    expect((reader.prepare('SELECT COUNT(*) AS c FROM relations WHERE from_id IS NOT NULL').get() as { c: number }).c).toBe(400);
    reader.exec('COMMIT');
    const cols = (reader.prepare('PRAGMA table_info(relations)').all() as { name: string }[]).map((c) => c.name);
    expect(cols).toContain('src');
    reader.close();
    expect(store.checkIntegrity()).toEqual([]);
    await store.close();
  });

  it('another connection holding the write lock: open fails typed (StoreUnavailableError), the file stays v3 and intact, a later open upgrades it', async () => {
    const path = file();
    const ids = writeV3File(path, 30, 100);
    const locker = new Database(path);
    locker.exec('BEGIN IMMEDIATE');
    const store = createSqliteStore({ path, busyTimeoutMs: 50 });
    const err = await store.open(META).catch((e: unknown) => e);
    expect(MemError.isInstance(err), String(err)).toBe(true);
    expect((err as MemError).name).toBe('StoreUnavailableError');
    locker.exec('ROLLBACK');
    locker.close();
    expect(schemaVersionOf(path)).toBe(3);
    // the same store object retries (its connection was closed on the failure)
    await store.open(META);
    expect(schemaVersionOf(path)).toBe(SQLITE_SCHEMA_VERSION);
    expect((await store.relations(S[1]!)).map((r) => r.id)).toEqual(ids[1]);
    expect(store.checkIntegrity()).toEqual([]);
    await store.close();
  });

  it('an old-build (v3) writer still connected after the upgrade gets an error for its relation insert; the file is not damaged', async () => {
    const path = file();
    writeV3File(path, 20, 40);
    const old = new Database(path);
    const oldInsert = old.prepare('INSERT INTO relations (sid, id, from_id, to_id, view, subtype, probability, origin, created_at) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)');
    const store = createSqliteStore({ path });
    await store.open(META);
    expect(() => oldInsert.run('late', 'v3-0-n1', 'v3-0-n2', 'semantic', 'RELATED_TO', 0.5, 'rule', '2023-01-01T00:00:00.000Z')).toThrow();
    old.close();
    expect((await store.relations(S[0]!)).length).toBe(40);
    expect(store.checkIntegrity()).toEqual([]);
    await store.close();
  });

  it('two stores opening the same v3 file one after the other (second finds it migrated) and writing at once', async () => {
    const path = file();
    const ids = writeV3File(path, 20, 30);
    const a = createSqliteStore({ path });
    const b = createSqliteStore({ path });
    await Promise.all([a.open(META), b.open(META)]);
    expect((await b.relations(S[0]!)).map((r) => r.id)).toEqual(ids[0]);
    const mk = (s: typeof a, tag: string) => s.write({ scope: S[0]!, relations: [{ id: tag, from: 'v3-0-n1', to: 'v3-0-n3', view: 'semantic', subtype: 'RELATED_TO', probability: 1, origin: 'rule', createdAt: '2024-01-01T00:00:00.000Z' }] });
    await Promise.all([mk(a, 'from-a'), mk(b, 'from-b')]);
    expect((await a.relations(S[0]!)).map((r) => r.id)).toEqual([...ids[0]!, 'from-a', 'from-b']);
    await a.close();
    await b.close();
  });
});

/** Child script: open (migrating a v3 file), ack, then write 1 000-node / 3 000-relation batches forever, acking each. */
const CHILD = (root: string) => `
import { makeHistory, makeNode, makeRelation, testScope, unitVector } from ${JSON.stringify(join(root, '../store-spec/src/testing/fixtures.ts'))};
import { createSqliteStore } from ${JSON.stringify(join(root, 'src/store/sqlite.ts'))};
const [path, run] = [process.argv[2], process.argv[3]];
const scopes = [testScope('crash-a'), testScope('crash-b')];
const store = createSqliteStore({ path, ann: false });
process.stdout.write('ready\\n');
await store.open({ schemaVersion: 1, embeddingModel: 'crash', dimension: 16 });
process.stdout.write('ack migrated-' + run + '\\n');
for (let b = 0; ; b++) {
  const scope = scopes[b % 2];
  const batchId = 'r' + run + '-b' + b;
  const nodes = Array.from({ length: 1000 }, (_, i) => makeNode(scope, 'big ' + batchId + ' node ' + i, unitVector(16, b * 1000 + i + 1), { id: batchId + '-n' + i }));
  const relations = [];
  for (let i = 0; i < 1000; i++) for (let j = 1; j <= 3; j++) relations.push(makeRelation(nodes[i].id, nodes[(i + j) % 1000].id, 'RELATED_TO', { id: batchId + '-r' + relations.length }));
  const history = nodes.map((n) => makeHistory(scope, 'ADD', n.id, { batchId }));
  await store.write({ scope, nodes, relations, history });
  process.stdout.write('ack ' + batchId + '\\n');
}
`;

describe('SIGKILL during the v3 → v4 migration and during 1 000-row batches', () => {
  let child: CrashChild;
  beforeAll(async () => {
    const entry = join(dir, 'child.ts');
    writeFileSync(entry, CHILD(pkgDir));
    child = await prepareChild(entry, pkgDir, 'mem-breakit-migrate', ['better-sqlite3', 'hnswlib-node']);
  }, 60_000);
  afterAll(() => child?.dispose());

  /** Reopen: integrity, v3 relations all there in order, every batch whole (1000 / 3000 / 1000), every acked batch present. */
  async function verify(path: string, v3: string[][], acked: Set<string>) {
    const store = createSqliteStore({ path, ann: false });
    await store.open(META);
    try {
      expect(store.checkIntegrity()).toEqual([]);
      const batches = new Map<string, number[]>();
      const entry = (id: string) => {
        const k = id.replace(/-[nr]\d+$/, '');
        if (!batches.has(k)) batches.set(k, [0, 0, 0]);
        return batches.get(k)!;
      };
      for (const [si, scope] of S.entries()) {
        const rels = await store.relations(scope);
        expect(rels.filter((r) => r.id.startsWith('v3-')).map((r) => r.id)).toEqual(v3[si]);
        for (const r of rels) if (!r.id.startsWith('v3-')) entry(r.id)[1]!++;
        for (const n of await store.list(scope)) if (!n.id.startsWith('v3-')) entry(n.id)[0]!++;
        for (const h of await store.history(scope)) if (h.nodeId && !h.nodeId.startsWith('v3-')) entry(h.nodeId)[2]!++;
      }
      for (const [k, c] of batches) expect(c, `batch ${k}`).toEqual([1000, 3000, 1000]);
      for (const id of acked) if (!id.startsWith('migrated-')) expect(batches.has(id), `acked batch ${id}`).toBe(true);
      return batches.size;
    } finally {
      await store.close();
    }
  }

  it('kills inside the migration (4 runs on a v3 file of 4 000 nodes / 20 000 relations): v3 or v4, never half; v3 data intact', async () => {
    const rnd = seededRandom(Date.now() >>> 0);
    // how long this machine takes from `ready` to the migrated ack (a few ms when quiet, far more when
    // loaded); the kills below land at fractions of it, so some of them land inside the migration
    const calib = file();
    writeV3File(calib, 2000, 10_000);
    const migrationMs = await timeToAck(child, [calib, 'calib'], pkgDir, 'migrated-calib');
    const fractions = [0.05, 0.3, 0.6, 0.95];
    const outcome: string[] = [];
    for (let run = 0; run < fractions.length; run++) {
      const path = file();
      const v3 = writeV3File(path, 2000, 10_000);
      const delay = Math.floor(migrationMs * fractions[run]! * (0.8 + 0.4 * rnd()));
      const acked = new Set(await runAndKill(child, [path, String(run)], pkgDir, delay));
      const version = schemaVersionOf(path);
      outcome.push(`${version}${acked.has(`migrated-${run}`) ? '+' : ''}@${delay}ms`);
      // each migration is its own transaction: a kill leaves the file at a version between them
      // (any of v3 … the current one: a kill between the v4 → v5 and v5 → v6 steps leaves v5, seen on a quiet machine)
      if (!acked.has(`migrated-${run}`)) expect(Array.from({ length: SQLITE_SCHEMA_VERSION - 2 }, (_, i) => i + 3)).toContain(version);
      else expect(version).toBe(SQLITE_SCHEMA_VERSION);
      await verify(path, v3, acked);
    }
    // at least one kill landed before the upgrade was acknowledged (else this test proved nothing)
    expect(outcome.some((o) => !o.includes('+')), `migration ${migrationMs.toFixed(1)} ms; ${outcome.join(' ')}`).toBe(true);
  }, 60_000);

  it('kills inside 1 000-node / 3 000-relation batches (5 runs on one file): every batch whole or absent, every acked batch present', async () => {
    const rnd = seededRandom((Date.now() >>> 0) ^ 0x5bd1e995);
    const path = file();
    const v3 = writeV3File(path, 10, 5);
    const acked = new Set<string>();
    let batches = 0;
    // On a loaded machine a kill 150–500 ms after `ready` can land before any batch commits; later runs
    // then wait longer (doubling, bounded) until at least one batch is in, or the test proved nothing.
    for (let run = 0, scale = 1; run < 5 || (batches === 0 && run < 10); run++) {
      if (run >= 5) scale *= 2;
      for (const id of await runAndKill(child, [path, String(run)], pkgDir, scale * (150 + Math.floor(rnd() * 350)))) acked.add(id);
      batches = await verify(path, v3, acked);
    }
    expect(batches).toBeGreaterThan(0);
  }, 180_000);

  it('two processes upgrading the same v3 file and then writing 1 000-row batches at once, both killed: one upgrade, nothing partial, all acked batches present', async () => {
    const path = file();
    const v3 = writeV3File(path, 500, 2000);
    // killed 1.5 s after `ready`, but not before each has migrated (or seen the other's upgrade) and acked a
    // batch: on a loaded machine two bundled children can take longer than 1.5 s to get there
    const until = (run: string) => (acked: readonly string[]) => acked.includes(`migrated-${run}`) && acked.length >= 2;
    const [a, b] = await Promise.all([
      runAndKill(child, [path, 'p1'], pkgDir, 1500, { until: until('p1'), maxMs: 50_000 }),
      runAndKill(child, [path, 'p2'], pkgDir, 1500, { until: until('p2'), maxMs: 50_000 }),
    ]);
    expect(a).toContain('migrated-p1');
    expect(b).toContain('migrated-p2');
    const batches = await verify(path, v3, new Set([...a, ...b]));
    expect(a.length + b.length).toBeGreaterThan(2); // both opened, and between them wrote batches
    expect(batches).toBeGreaterThanOrEqual(a.length + b.length - 2);
    const db = new Database(path, { readonly: true });
    expect((db.prepare('SELECT COUNT(*) AS c FROM migrations WHERE version = 4').get() as { c: number }).c).toBe(1);
    db.close();
  }, 120_000);
});

/** Upgrading a file written by an older build in place (schema.ts migrations). */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { makeHistory, makeNode, makeRelation, testScope, unitVector } from '../testing/index.js';
import type { MemoryNode, Relation } from '../types.js';
import { MIGRATIONS, SQLITE_SCHEMA_VERSION } from './schema.js';
import { createSqliteStore } from './sqlite.js';
import { docTokens, searchText } from './text.js';
import { tempDbFolder } from '../testdata/temp-files.js';

const { file } = tempDbFolder('mem-migrate-', 'm');
const META = { schemaVersion: 1, embeddingModel: 'test', dimension: 16 };
const A = testScope('alice');
const B = testScope('bob');

/**
 * A schema-version-3 file written the way the version-3 store wrote it (relations by endpoint id,
 * AUTOINCREMENT row ids), through raw SQL on the version-1..3 migrations.
 */
function writeV3File(path: string, scopes: { scope: typeof A; nodes: MemoryNode[]; relations: Relation[] }[], orphan?: Relation) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT');
  for (const m of MIGRATIONS.filter((x) => x.version <= 3)) {
    if (m.sql) db.exec(m.sql);
    m.up?.(db);
    db.prepare('INSERT INTO migrations VALUES (?, ?, ?)').run(m.version, m.name, 'x');
  }
  for (const [k, v] of Object.entries({ schemaVersion: '1', embeddingModel: 'test', dimension: '16' })) db.prepare('INSERT INTO meta VALUES (?, ?)').run(k, v);
  const df = db.prepare('INSERT INTO scope_terms (sid, term, df) VALUES (?, ?, 1) ON CONFLICT (sid, term) DO UPDATE SET df = df + 1');
  for (const { scope, nodes, relations } of scopes) {
    const sid = Number(
      db.prepare('INSERT INTO scopes (namespace, user_id, agent_id, run_id) VALUES (?, ?, ?, ?)').run(scope.namespace, scope.userId, scope.agentId, scope.runId)
        .lastInsertRowid,
    );
    let tokensTotal = 0;
    for (const n of nodes) {
      const tokens = docTokens(n.text);
      tokensTotal += tokens.length;
      for (const t of new Set(tokens)) df.run(sid, t);
      const rid = db
        .prepare(
          `INSERT INTO nodes (sid, id, text, speaker, observed_at, event_time, entities, keywords, types, embedding, gate, source_id, content_hash, metadata, obsolete_by, created_at, observed_ms, created_ms, doc_len)
           VALUES (?, ?, ?, NULL, ?, NULL, '[]', '[]', ?, ?, NULL, NULL, ?, '{}', NULL, ?, ?, ?, ?)`,
        )
        .run(sid, n.id, n.text, n.observedAt, JSON.stringify(n.types), Buffer.from(n.embedding.buffer), n.provenance.contentHash, n.createdAt, Date.parse(n.observedAt), Date.parse(n.createdAt), tokens.length).lastInsertRowid;
      db.prepare('INSERT INTO nodes_fts (rowid, scope, body) VALUES (?, ?, ?)').run(rid, `s${sid}`, searchText(n.text));
      db.prepare('INSERT INTO history (sid, op, node_id, at, data) VALUES (?, ?, ?, ?, ?)').run(sid, 'ADD', n.id, n.createdAt, '{}');
    }
    db.prepare('UPDATE scopes SET node_count = ?, token_count = ? WHERE sid = ?').run(nodes.length, tokensTotal, sid);
    const rel = db.prepare('INSERT INTO relations (sid, id, from_id, to_id, view, subtype, probability, origin, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    for (const r of [...relations, ...(orphan && scope === A ? [orphan] : [])]) rel.run(sid, r.id, r.from, r.to, r.view, r.subtype, r.probability, r.origin, r.createdAt);
  }
  db.close();
}

describe('migration to schema version 5 (private-use characters separate words)', () => {
  it('re-indexes the FTS rows of nodes with a private-use character, so the glued word is found', async () => {
    const path = file();
    const n = makeNode(A, 'I love my \uF8FFWatch today', unitVector(16, 1));
    const other = makeNode(A, 'a plain watch note', unitVector(16, 2));
    writeV3File(path, [{ scope: A, nodes: [n, other], relations: [] }]);
    // the version-3 build indexed the private-use character as part of the word
    const raw = new Database(path);
    raw.prepare('DELETE FROM nodes_fts WHERE rowid = 1').run();
    raw.prepare('INSERT INTO nodes_fts (rowid, scope, body) VALUES (1, ?, ?)').run('s1', n.text.toLowerCase());
    raw.close();
    const store = createSqliteStore({ path });
    await store.open(META);
    expect((await store.lexicalSearch(A, 'watch', 5)).map((h) => h.node.id).sort()).toEqual([n.id, other.id].sort());
    expect(store.checkIntegrity()).toEqual([]);
    await store.close();
  });
});

describe('migration to schema version 4 (relations by node row id)', () => {
  it('upgrades a version-3 file in place: every node, relation (same order), neighbour, history row and lexical hit is still there', async () => {
    const path = file();
    const [a, b, c, d] = ['alpha river walk', 'beta mountain trail', 'gamma river boat', 'delta city tour'].map((t, i) => makeNode(A, t, unitVector(16, i + 1)));
    const bNode = makeNode(B, 'bob river note', unitVector(16, 9));
    const bOther = makeNode(B, 'bob second note', unitVector(16, 10));
    // equal probabilities: the order among them is the insertion (row id) order, not the id order
    const rels = [
      makeRelation(a.id, b.id, 'RELATED_TO', { id: 'r-z', probability: 0.5 }),
      makeRelation(a.id, c.id, 'RELATED_TO', { id: 'r-a', probability: 0.5 }),
      makeRelation(d.id, a.id, 'LEADS_TO', { id: 'r-m', probability: 0.5 }),
      makeRelation(b.id, c.id, 'PRECEDES', { id: 'r-b', probability: 0.9 }),
    ];
    const bRels = [makeRelation(bNode.id, bOther.id, 'RELATED_TO', { id: 'r-bob' })];
    const orphan = makeRelation(a.id, 'gone', 'RELATED_TO', { id: 'r-orphan' });
    writeV3File(
      path,
      [
        { scope: A, nodes: [a, b, c, d], relations: rels },
        { scope: B, nodes: [bNode, bOther], relations: bRels },
      ],
      orphan,
    );

    const store = createSqliteStore({ path });
    await store.open(META);
    // the relation to a node that does not exist (impossible through the store) is not carried over
    expect((await store.relations(A)).map((r) => r.id)).toEqual(['r-z', 'r-a', 'r-m', 'r-b']);
    expect(await store.relations(A)).toEqual(rels);
    expect(await store.relations(B)).toEqual(bRels);
    expect((await store.relations(A, { nodeId: a.id })).map((r) => r.id)).toEqual(['r-z', 'r-a', 'r-m']);
    const nb = await store.neighbors(A, [a.id]);
    expect(nb.map((n) => [n.relation.id, n.node.id, n.fromId])).toEqual([
      ['r-z', b.id, a.id],
      ['r-a', c.id, a.id],
      ['r-m', d.id, a.id],
    ]);
    expect(nb[0]!.relation).toEqual(rels[0]);
    expect((await store.neighbors(A, [a.id], { direction: 'in' })).map((n) => n.node.id)).toEqual([d.id]);
    expect((await store.neighbors(A, [c.id], { views: ['temporal'] })).map((n) => n.node.id)).toEqual([b.id]);
    expect((await store.neighbors(B, [bNode.id])).map((n) => n.node.id)).toEqual([bOther.id]);
    expect((await store.history(A)).map((h) => h.nodeId)).toEqual([a.id, b.id, c.id, d.id]);
    expect((await store.lexicalSearch(A, 'river', 5)).map((h) => h.node.id).sort()).toEqual([a.id, c.id].sort());
    expect((await store.get(A, c.id))!.text).toBe(c.text);
    expect(store.checkIntegrity()).toEqual([]);

    // writes after the upgrade: new relations come after the old ones; forget removes a node's edges
    const e = makeNode(A, 'epsilon river bank', unitVector(16, 5));
    const late = makeRelation(a.id, e.id, 'RELATED_TO', { id: 'r-0', probability: 0.5 });
    await store.write({ scope: A, nodes: [e], relations: [late], history: [makeHistory(A, 'ADD', e.id)] });
    expect((await store.neighbors(A, [a.id])).map((n) => n.relation.id)).toEqual(['r-z', 'r-a', 'r-m', 'r-0']);
    expect(await store.forget(A, a.id)).toBe(true);
    expect((await store.relations(A)).map((r) => r.id)).toEqual(['r-b']);
    expect((await store.history(A)).map((h) => h.op)).toEqual(['ADD', 'ADD', 'ADD', 'ADD', 'ADD', 'FORGET']);
    expect((await store.history(A)).at(-1)!.data).toEqual({ relationsRemoved: 4 });
    expect(store.checkIntegrity()).toEqual([]);
    await store.close();

    const raw = new Database(path);
    expect((raw.prepare('SELECT MAX(version) AS v FROM migrations').get() as { v: number }).v).toBe(SQLITE_SCHEMA_VERSION);
    expect(raw.prepare("SELECT name FROM sqlite_sequence WHERE name LIKE 'relations%'").all()).toEqual([]);
    const cols = (raw.prepare('PRAGMA table_info(relations)').all() as { name: string }[]).map((x) => x.name);
    expect(cols).toContain('src');
    expect(cols).not.toContain('from_id');
    raw.close();
    // a second open finds nothing to migrate and the same data
    const again = createSqliteStore({ path });
    await again.open(META);
    expect((await again.relations(A)).map((r) => r.id)).toEqual(['r-b']);
    await again.close();
  });
});

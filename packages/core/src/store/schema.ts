/**
 * SQLite schema and migrations of the default store (ours). `migrations` records every applied
 * version; a file written by a newer build (a version this build does not know) is refused.
 */
import type Database from 'better-sqlite3';
import { docTokens, PRIVATE_USE, searchText } from './text.js';

export interface Migration {
  version: number;
  name: string;
  sql?: string;
  /** Data steps that need JS (run after `sql`, in the same transaction). */
  up?: (db: Database.Database) => void;
}

/** The FTS token that restricts a lexical query to one scope (column `scope`, weight 0 in BM25). */
export function scopeToken(sid: number): string {
  return `s${sid}`;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial',
    sql: `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE scopes (
  sid INTEGER PRIMARY KEY,
  namespace TEXT NOT NULL, user_id TEXT NOT NULL, agent_id TEXT NOT NULL, run_id TEXT NOT NULL,
  node_count INTEGER NOT NULL DEFAULT 0,
  UNIQUE (namespace, user_id, agent_id, run_id)
) STRICT;
CREATE TABLE nodes (
  rid INTEGER PRIMARY KEY AUTOINCREMENT,
  sid INTEGER NOT NULL REFERENCES scopes(sid),
  id TEXT NOT NULL,
  text TEXT NOT NULL,
  speaker TEXT,
  observed_at TEXT NOT NULL,
  event_time TEXT,
  entities TEXT NOT NULL,
  keywords TEXT NOT NULL,
  types TEXT NOT NULL,
  embedding BLOB NOT NULL,
  gate TEXT,
  source_id TEXT,
  content_hash TEXT NOT NULL,
  metadata TEXT NOT NULL,
  obsolete_by TEXT,
  created_at TEXT NOT NULL,
  observed_ms INTEGER NOT NULL,
  created_ms INTEGER NOT NULL,
  UNIQUE (sid, id)
) STRICT;
CREATE INDEX nodes_hash ON nodes (sid, content_hash);
CREATE INDEX nodes_observed ON nodes (sid, observed_ms, rid);
CREATE INDEX nodes_created ON nodes (sid, created_ms, rid);
CREATE TABLE relations (
  rid INTEGER PRIMARY KEY AUTOINCREMENT,
  sid INTEGER NOT NULL REFERENCES scopes(sid),
  id TEXT NOT NULL,
  from_id TEXT NOT NULL,
  to_id TEXT NOT NULL,
  view TEXT NOT NULL,
  subtype TEXT NOT NULL,
  probability REAL NOT NULL,
  origin TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (sid, id)
) STRICT;
CREATE INDEX relations_from ON relations (sid, from_id);
CREATE INDEX relations_to ON relations (sid, to_id);
CREATE TABLE history (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  sid INTEGER NOT NULL REFERENCES scopes(sid),
  op TEXT NOT NULL,
  node_id TEXT,
  at TEXT NOT NULL,
  data TEXT NOT NULL
) STRICT;
CREATE INDEX history_scope ON history (sid, seq);
CREATE INDEX history_node ON history (sid, node_id, seq);
CREATE TRIGGER history_no_update BEFORE UPDATE ON history BEGIN SELECT RAISE(ABORT, 'history is append-only'); END;
CREATE TRIGGER history_no_delete BEFORE DELETE ON history BEGIN SELECT RAISE(ABORT, 'history is append-only'); END;
CREATE VIRTUAL TABLE nodes_fts USING fts5(body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');
`,
  },
  {
    // The FTS index gets a `scope` column so a lexical query only walks its own scope's postings
    // (a small scope in a large file stays fast). The index is rebuilt from the nodes.
    version: 2,
    name: 'fts-scope-column',
    sql: `
DROP TABLE nodes_fts;
CREATE VIRTUAL TABLE nodes_fts USING fts5(scope, body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');
`,
    up: (db) => {
      const page = db.prepare('SELECT rid, sid, text FROM nodes WHERE rid > ? ORDER BY rid LIMIT 1000');
      const insert = db.prepare('INSERT INTO nodes_fts (rowid, scope, body) VALUES (?, ?, ?)');
      let last = 0;
      for (;;) {
        const rows = page.all(last) as { rid: number; sid: number; text: string }[];
        if (rows.length === 0) break;
        for (const r of rows) insert.run(r.rid, scopeToken(r.sid), searchText(r.text));
        last = rows[rows.length - 1].rid;
      }
    },
  },
  {
    // Per-scope BM25 statistics: document length per node, token total per scope, document
    // frequency per (scope, term). Lexical scores then depend on the scope's own documents only.
    version: 3,
    name: 'scope-bm25-stats',
    sql: `
ALTER TABLE nodes ADD COLUMN doc_len INTEGER NOT NULL DEFAULT 0;
ALTER TABLE scopes ADD COLUMN token_count INTEGER NOT NULL DEFAULT 0;
CREATE TABLE scope_terms (sid INTEGER NOT NULL, term TEXT NOT NULL, df INTEGER NOT NULL, PRIMARY KEY (sid, term)) STRICT, WITHOUT ROWID;
`,
    up: (db) => {
      const page = db.prepare('SELECT rid, sid, text FROM nodes WHERE rid > ? ORDER BY rid LIMIT 1000');
      const setLen = db.prepare('UPDATE nodes SET doc_len = ? WHERE rid = ?');
      const addTokens = db.prepare('UPDATE scopes SET token_count = token_count + ? WHERE sid = ?');
      const addDf = db.prepare('INSERT INTO scope_terms (sid, term, df) VALUES (?, ?, 1) ON CONFLICT (sid, term) DO UPDATE SET df = df + 1');
      let last = 0;
      for (;;) {
        const rows = page.all(last) as { rid: number; sid: number; text: string }[];
        if (rows.length === 0) break;
        for (const r of rows) {
          const tokens = docTokens(r.text);
          setLen.run(tokens.length, r.rid);
          addTokens.run(tokens.length, r.sid);
          for (const t of new Set(tokens)) addDf.run(r.sid, t);
        }
        last = rows[rows.length - 1].rid;
      }
    },
  },
  {
    // Relations point at their endpoint nodes by row id (`src`, `dst` = nodes.rid) instead of by id
    // string, and lose AUTOINCREMENT: integer index keys are a third of the size and cheaper to
    // insert, and no sqlite_sequence row is written per insert. Order is unchanged: a new rid is
    // still larger than every rid in the table (a node's rid never changes: nodes keep
    // AUTOINCREMENT, an upsert keeps the row, forget removes the node's relations first).
    // Every read is still indexed: by scope and endpoint (neighbours in and out, forget, a
    // node's relations), by scope in rid order (a scope's relations), by (scope, id) (upsert).
    // A relation whose endpoint no longer exists (impossible through the store; reported by
    // checkIntegrity) cannot be expressed and is not copied.
    version: 4,
    name: 'relations-by-node-rid',
    sql: `
CREATE TABLE relations_v4 (
  rid INTEGER PRIMARY KEY,
  sid INTEGER NOT NULL REFERENCES scopes(sid),
  id TEXT NOT NULL,
  src INTEGER NOT NULL,
  dst INTEGER NOT NULL,
  view TEXT NOT NULL,
  subtype TEXT NOT NULL,
  probability REAL NOT NULL,
  origin TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (sid, id)
) STRICT;
INSERT INTO relations_v4 (rid, sid, id, src, dst, view, subtype, probability, origin, created_at)
  SELECT r.rid, r.sid, r.id, a.rid, b.rid, r.view, r.subtype, r.probability, r.origin, r.created_at
  FROM relations r JOIN nodes a ON a.sid = r.sid AND a.id = r.from_id JOIN nodes b ON b.sid = r.sid AND b.id = r.to_id
  ORDER BY r.rid;
DROP TABLE relations;
ALTER TABLE relations_v4 RENAME TO relations;
DELETE FROM sqlite_sequence WHERE name IN ('relations', 'relations_v4');
CREATE INDEX relations_src ON relations (sid, src);
CREATE INDEX relations_dst ON relations (sid, dst);
`,
  },
  {
    // searchText now turns private-use characters (category Co) into spaces, as docTokens always
    // did: re-index the FTS rows of the nodes whose text has one (FTS5 had indexed e.g. "\uF8FFwatch"
    // as one word, so "watch" did not find it although BM25 counted it).
    version: 5,
    name: 'fts-private-use',
    up: (db) => {
      const page = db.prepare('SELECT rid, sid, text FROM nodes WHERE rid > ? ORDER BY rid LIMIT 1000');
      const del = db.prepare('DELETE FROM nodes_fts WHERE rowid = ?');
      const insert = db.prepare('INSERT INTO nodes_fts (rowid, scope, body) VALUES (?, ?, ?)');
      const privateUse = new RegExp(PRIVATE_USE.source, 'u');
      let last = 0;
      for (;;) {
        const rows = page.all(last) as { rid: number; sid: number; text: string }[];
        if (rows.length === 0) break;
        for (const r of rows) {
          if (!privateUse.test(r.text)) continue;
          del.run(r.rid);
          insert.run(r.rid, scopeToken(r.sid), searchText(r.text));
        }
        last = rows[rows.length - 1].rid;
      }
    },
  },
  {
    // derived per-scope state the write path can always rebuild (the SAGE gate's snapshot), so a
    // restart skips replaying every commit; dropped with any forget in the scope (MemoryStore.saveState)
    version: 6,
    name: 'scope-state',
    sql: `
CREATE TABLE scope_state (sid INTEGER NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (sid, name)) STRICT;
`,
  },
];

/** Highest schema version this build knows. */
export const SQLITE_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

/** Current schema version of an open database (0 = empty file). */
export function currentSchemaVersion(db: Database.Database): number {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'").get();
  if (!has) return 0;
  const row = db.prepare('SELECT MAX(version) AS v FROM migrations').get() as { v: number | null };
  return row.v ?? 0;
}

/**
 * Apply pending migrations, each in its own transaction. Returns the version reached. A file already
 * at the latest version is only read (no write lock taken): opening a store that another process
 * writes continuously does not wait for that writer's lock (SQLite's busy handler sleeps
 * synchronously, so each wait would block the opening process's event loop).
 */
export function migrate(db: Database.Database): number {
  const now = currentSchemaVersion(db);
  if (now >= SQLITE_SCHEMA_VERSION) return now;
  db.exec('CREATE TABLE IF NOT EXISTS migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT');
  for (const m of MIGRATIONS) {
    // Re-check inside an IMMEDIATE transaction: another process may have migrated meanwhile.
    db.transaction(() => {
      if (currentSchemaVersion(db) >= m.version) return;
      if (m.sql) db.exec(m.sql);
      m.up?.(db);
      db.prepare('INSERT INTO migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, new Date().toISOString());
    }).immediate();
  }
  return currentSchemaVersion(db);
}

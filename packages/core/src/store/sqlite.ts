/**
 * The default embedded store: one SQLite file via better-sqlite3 (ours, following the MemoryStore
 * contract of Jev-Mem seed 000 §3). WAL journal; one transaction per write batch; lexical search
 * is Okapi BM25 with per-scope statistics over an in-process per-scope inverted index (FTS5 finds
 * candidates for scopes too large for it); vectors as Float32 BLOBs with an
 * in-process per-scope vector cache (exact scan) and an HNSW index (hnswlib-node) for scopes above
 * `ann.threshold` nodes. A write batch is a handful of multi-row INSERTs (nodes, FTS rows,
 * relations, history, the batch's summed document-frequency changes); relations reference their
 * endpoint nodes by row id (schema v4). See packages/core/README.md "Stores".
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, resolve as resolvePath } from 'node:path';
import Database from 'better-sqlite3';
import { MemValidationError, MemNotFoundError, StoreConflictError, StoreError, StoreMetaMismatchError, StoreUnavailableError } from '../errors.js';
import { resolveScope, scopeKey } from '../scope.js';
import type {
  HistoryEntry,
  HistoryOptions,
  ListOptions,
  MemoryNode,
  MemoryStore,
  Neighbor,
  NeighborQuery,
  Relation,
  ResolvedScope,
  ScoredId,
  VectorSearchOptions,
  ScoredNode,
  StoreMeta,
  WriteBatch,
  StoreCapability,
  GateAction,
  NodeDigest,
  ScanOptions,
} from '../types.js';
import { migrate, scopeToken, SQLITE_SCHEMA_VERSION } from './schema.js';
import { docTokens, ftsMatchQuery, searchText, searchTokens } from './text.js';
import { checkCount, checkMeta, checkNeighborQuery, checkStateName, checkStateValue, checkVector, checkWriteBatch, type CheckedBatch } from './validate.js';
import { bm25Term } from './bm25.js';
import { processAlive, sweepAnnFolder } from './ann-files.js';
import { checkOutputFile, placeFile, sweepPartialFiles } from './files.js';
import { LockQueue } from './lock-queue.js';
import { NODE_COLUMNS, ROW_INSERTS, ROWS_PER_INSERT, fromBlob, rowToNode, rowToRelation, toBlob, type NodeRow, type RelationRow } from './sqlite-rows.js';
import { wrap } from './sqlite-errors.js';
import { ScopeTerms } from './lexical-index.js';
import { beginStaging, discardStaging, pendingNodes, processStart, releaseStaging, stageVectors, switchSpace, type Regate, type ReembedTarget } from './sqlite-reembed.js';
import { ANN_DEFAULTS, ScopeVectors, normalizeInto, type AnnLoadReport, type AnnOptions, type ResolvedAnnOptions } from './vectors.js';

export { bm25Term } from './bm25.js';

export interface SqliteStoreOptions {
  /** File path, or `':memory:'` (tests; gone on close). Parent folders are created. */
  path: string;
  /** HNSW index for large scopes; `false` = always exact scan. Defaults: see {@link AnnOptions}. */
  ann?: AnnOptions | false;
  /**
   * SQLite `synchronous` pragma. Default `'NORMAL'`: with WAL, a killed process never loses an
   * acknowledged write and the file is never corrupt; a power cut may roll back the last few
   * commits. `'FULL'` also survives power loss, at one fsync per write batch.
   */
  synchronous?: 'NORMAL' | 'FULL';
  /** How long to wait for another process's write lock before StoreUnavailableError. Default 5000 ms. */
  busyTimeoutMs?: number;
  /**
   * How long `exclusive` (each add of a `createMemory` on this file) waits for other processes'
   * writes before StoreUnavailableError (nothing written). Default 60 000 ms: several processes adding
   * to one file take turns, and each waits for the others' adds in flight.
   */
  lockTimeoutMs?: number;
  /** Upper bound of the in-process vector cache, in MiB (least recently searched scopes are dropped first). Default 1024. */
  vectorCacheMB?: number;
  /**
   * Upper bound of the in-process lexical (BM25) indexes, in MiB (least recently searched scopes are
   * dropped first). A scope whose index alone would not fit is searched through FTS5 candidates
   * instead (slower; see `lexicalSearch`). Default 512.
   */
  lexicalCacheMB?: number;
}

/** Entries of the known-node-rid cache of a connection (about 100 bytes each). */
const KNOWN_RIDS_MAX = 1 << 18;

/** Candidates re-scored per lexical query (at least; 20·k when larger). */
const LEXICAL_POOL = 200;

export interface AnnStatus {
  /** Nodes in the scope's vector cache (0 when not loaded). */
  size: number;
  /** 'none' = exact scan, 'building' = HNSW under construction (exact scan meanwhile), 'ready'. */
  state: 'none' | 'building' | 'ready';
  /** Vectors not yet in the HNSW graph (searched by exact scan meanwhile). */
  pending: number;
  /** What loading the graph saved by an earlier `close()` did, when the scope's vectors were last read (`ann.persist`). */
  loaded?: AnnLoadReport;
}

/**
 * Drops the least recently used entries of a per-scope cache (never `keep`) until their `bytes` sum
 * to at most `limit` (bytes); `onEvict` runs on each entry before it is removed. Returns the bytes
 * left in the cache (over `limit` only when `keep` alone exceeds it).
 */
function evictLeastRecent<T extends { bytes: number; lastUsed: number }>(cache: Map<number, T>, keep: number, limit: number, onEvict?: (sid: number, entry: T) => void): number {
  let total = 0;
  for (const entry of cache.values()) total += entry.bytes;
  if (total <= limit) return total;
  const order = [...cache.entries()].filter(([sid]) => sid !== keep).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
  for (const [sid, entry] of order) {
    if (total <= limit) break;
    total -= entry.bytes;
    onEvict?.(sid, entry);
    cache.delete(sid);
  }
  return total;
}

/** The SQLite store; a MemoryStore plus a few maintenance methods. */
export class SqliteStore implements MemoryStore {
  readonly kind = 'sqlite';
  readonly capabilities: readonly StoreCapability[] = ['exclusive', 'lockScopes', 'vectorSearchIds', 'lexicalSearchIds', 'forgetScope', 'state', 'scanNodes'];
  readonly path: string;
  /**
   * True for a file (other processes may open it and write): `createMemory` then defaults to
   * `writers: 'shared'` and runs each write in {@link SqliteStore.exclusive}. False for `:memory:`.
   */
  readonly concurrentWriters: boolean;
  private db: Database.Database | null = null;
  private closed = false;
  private recorded: StoreMeta | null = null;
  private readonly annOptions: ResolvedAnnOptions | null;
  private readonly annLoads = new Map<number, AnnLoadReport>();
  /** Absolute path of the file (resolved when it was opened), the stem of its `.ann` folder; null for `:memory:`. */
  private annBase: string | null = null;
  private readonly sids = new Map<string, number>();
  private readonly vectors = new Map<number, ScopeVectors>();
  /** Per-scope inverted indexes of the lexical search (built on first use; see lexical-index.ts). */
  private readonly lexical = new Map<number, ScopeTerms>();
  /** Scopes whose lexical index did not fit `lexicalCacheMB` (searched through FTS5 candidates). */
  private readonly lexicalTooLarge = new Set<number>();
  private dataVersion = -1;
  private useClock = 0;
  private stmts: Record<string, Database.Statement> = {};
  /**
   * Row ids of nodes known to exist, per scope: the nodes this connection wrote or found. Valid
   * while no other connection commits (checked through `PRAGMA data_version` inside each write
   * transaction); forget removes its node. Lets a write skip looking up the stored nodes its
   * relations point at.
   */
  private readonly knownRids = new Map<number, Map<string, number>>();
  private knownSize = 0;
  /** `fn` in one IMMEDIATE transaction (one wrapper per connection: better-sqlite3 builds four per `transaction()` call). */
  private runImmediate: (<T>(fn: () => T) => T) | null = null;
  private writing = false;
  /** The `exclusive` section holding the file's write lock (null = none); its async context is `section`'s store. */
  private held: object | null = null;
  private readonly section = new AsyncLocalStorage<object>();
  /** Process-local turn-taking between `exclusive` sections and the writes started outside them. */
  private turnTaken = false;
  private readonly turnWaiters: (() => void)[] = [];
  /** This connection's place among the processes waiting for the file's write lock (created on first wait). */
  private lockQueue: LockQueue | null = null;
  /** The token of the re-embedding this handle runs (`reembedBegin`), null when none. */
  private reembedToken: string | null = null;
  /** A forget committed but its WAL checkpoint has not completed yet (see `scrub`). */
  private scrubPending = false;

  constructor(private readonly options: SqliteStoreOptions) {
    if (!options || typeof options.path !== 'string' || !options.path) {
      throw new MemValidationError('INVALID_INPUT', 'createSqliteStore needs { path } (a file path or ":memory:")');
    }
    this.path = options.path;
    this.concurrentWriters = options.path !== ':memory:';
    this.annOptions = options.ann === false ? null : { ...ANN_DEFAULTS, ...(options.ann ?? {}) };
  }

  // ---------------------------------------------------------------- connection

  private conn(): Database.Database {
    if (this.closed) throw new StoreError('The store is closed');
    if (this.db) return this.db;
    let db: Database.Database;
    try {
      if (this.path !== ':memory:') mkdirSync(dirname(resolvePath(this.path)), { recursive: true });
      db = new Database(this.path);
    } catch (e) {
      throw new StoreUnavailableError(`Cannot open SQLite file ${this.path}: ${(e as Error).message}`, { cause: e });
    }
    try {
      db.pragma(`busy_timeout = ${Math.max(0, Math.floor(this.options.busyTimeoutMs ?? 5000))}`);
      if (this.path !== ':memory:') db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${this.options.synchronous === 'FULL' ? 'FULL' : 'NORMAL'}`);
      db.pragma('foreign_keys = ON');
      // forgotten text is overwritten with zeros, not left in free space (issue 32)
      db.pragma('secure_delete = ON');
      const found = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'").get()
        ? (db.prepare('SELECT MAX(version) AS v FROM migrations').get() as { v: number | null }).v ?? 0
        : 0;
      if (found > SQLITE_SCHEMA_VERSION) {
        throw new StoreMetaMismatchError(
          `SQLite schema version mismatch: the file ${this.path} has schema version ${found}, this build of @mem/core supports up to ${SQLITE_SCHEMA_VERSION}`,
          { details: { field: 'sqliteSchemaVersion', stored: found, expected: SQLITE_SCHEMA_VERSION } },
        );
      }
      migrate(db);
    } catch (e) {
      db.close();
      throw wrap(e, 'Cannot prepare the SQLite schema');
    }
    this.db = db;
    this.dataVersion = db.pragma('data_version', { simple: true }) as number;
    // the folder the file was opened in, not the one a later process.chdir() moves to
    if (this.path !== ':memory:' && this.path !== '') this.annBase = resolvePath(this.path);
    return db;
  }

  private immediate<T>(fn: () => T): T {
    // A write started from inside another (user code run during the transaction) would become a
    // SAVEPOINT of it: acknowledged, then rolled back with the outer write. Refused instead.
    if (this.writing) throw new StoreError('A write or forget was started while another one of this store was running (re-entrant call); nothing was written');
    if (!this.runImmediate) {
      const tx = this.conn().transaction((f: () => unknown) => f());
      this.runImmediate = tx.immediate as <U>(f: () => U) => U;
    }
    this.writing = true;
    try {
      return this.runImmediate(fn);
    } finally {
      this.writing = false;
    }
  }

  /** True when the caller runs inside the `exclusive` section that holds the write lock. */
  private insideSection(): boolean {
    return this.held !== null && this.section.getStore() === this.held;
  }

  private takeTurn(): Promise<void> | undefined {
    if (!this.turnTaken) {
      this.turnTaken = true;
      return undefined;
    }
    return new Promise<void>((resolve) => this.turnWaiters.push(resolve));
  }

  private giveTurn(): void {
    const next = this.turnWaiters.shift();
    if (next) next();
    else this.turnTaken = false;
  }

  /**
   * Run a synchronous write of this store: inside the `exclusive` section it joins the held
   * transaction (as a SAVEPOINT); outside, it waits until no section of this store is running, so it
   * never becomes part of (and rolled back with) another caller's section.
   */
  private async serial<T>(fn: () => T): Promise<T> {
    if (this.insideSection() || (!this.turnTaken && this.held === null)) return fn();
    await this.takeTurn();
    try {
      return fn();
    } finally {
      this.giveTurn();
    }
  }

  /** Forget what this connection cached about the file (after a rolled-back section). */
  private dropCaches(): void {
    for (const sv of this.vectors.values()) sv.dispose();
    this.vectors.clear();
    this.knownRids.clear();
    this.knownSize = 0;
    this.sids.clear();
    this.lexical.clear();
    this.lexicalTooLarge.clear();
  }

  /**
   * `BEGIN IMMEDIATE` without blocking the event loop: tried with no busy wait, retried after a short
   * randomized sleep (≤ 12 ms) while another connection (another process) holds the write lock, in
   * the order the waiting processes arrived (`LockQueue`), until `lockTimeoutMs`. @throws StoreUnavailableError when the lock stays taken
   */
  private async beginImmediate(): Promise<void> {
    const db = this.conn();
    const busy = Math.max(0, Math.floor(this.options.busyTimeoutMs ?? 5000));
    const timeout = Math.max(0, Math.floor(this.options.lockTimeoutMs ?? 60_000));
    const deadline = Date.now() + timeout;
    const queue = (this.lockQueue ??= new LockQueue(this.annBase ?? resolvePath(this.path)));
    for (let attempt = 0; ; attempt++) {
      // first come, first served among the processes waiting (see lock-queue.ts)
      if (queue.mayTry(timeout)) {
        db.pragma('busy_timeout = 0');
        try {
          db.exec('BEGIN IMMEDIATE');
          queue.leave();
          return;
        } catch (e) {
          const code = (e as { code?: string }).code ?? '';
          if (code !== 'SQLITE_BUSY' && code !== 'SQLITE_LOCKED') {
            queue.leave();
            throw wrap(e, `Could not take the write lock of ${this.path}`);
          }
        } finally {
          db.pragma(`busy_timeout = ${busy}`);
        }
      }
      queue.enqueue();
      if (Date.now() >= deadline) {
        queue.leave();
        throw new StoreUnavailableError(`Could not take the write lock of ${this.path} within ${timeout} ms (other processes kept writing)`);
      }
      const wait = Math.min(8, 1 + attempt / 2) * (0.5 + Math.random());
      await new Promise((r) => setTimeout(r, wait));
    }
  }


  /**
   * See MemoryStore.lockScopes: the SQLite file has one write lock, so this is `exclusive(fn)` (all of
   * the file, and fn's writes commit together), after checking the scopes.
   * @throws MemValidationError SCOPE_MISSING / SCOPE_INVALID for a bad scope; see `exclusive`
   */
  async lockScopes<T>(scopes: readonly ResolvedScope[], fn: () => Promise<T>): Promise<T> {
    for (const s of scopes) resolveScope(s);
    return this.exclusive(fn);
  }

  /**
   * Run `fn` holding the file's write lock (ours, issue 32): one `BEGIN IMMEDIATE` transaction that
   * every write of this store made inside `fn` (in its async context) joins; it commits when `fn`
   * resolves and rolls back when it throws. Another process's writes wait for it (its sections up to
   * `lockTimeoutMs`, polled without blocking the event loop; its single writes up to `busyTimeoutMs`); writes of this store started outside
   * `fn` wait until it ends. Reads inside `fn` see the latest committed state of the file, and no
   * other process can change it before `fn`'s writes commit: a read-decide-write sequence (the
   * write path's dedup and gate routing) is serialized across processes. Nested calls join the
   * outer section. Keep `fn` short: other writers wait.
   * @throws StoreUnavailableError (lock not obtained in time), StoreError (commit failed; nothing of `fn`'s writes is kept), whatever `fn` throws (after the rollback)
   */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    this.requireMeta();
    if (this.insideSection()) return fn();
    await this.takeTurn();
    try {
      // `:memory:`: one connection and no other process, so no lock queue; the transaction still
      // makes fn's writes all-or-nothing
      if (this.path === ':memory:') this.conn().exec('BEGIN IMMEDIATE');
      else await this.beginImmediate();
      const token = {};
      this.held = token;
      let result: T;
      try {
        result = await this.section.run(token, fn);
      } catch (e) {
        this.held = null;
        try {
          if (this.db?.inTransaction) this.db.exec('ROLLBACK');
        } finally {
          this.dropCaches();
        }
        throw e;
      }
      this.held = null;
      try {
        this.conn().exec('COMMIT');
      } catch (e) {
        try {
          if (this.db?.inTransaction) this.db.exec('ROLLBACK');
        } catch {
          // the connection rolled back by itself
        }
        this.dropCaches();
        throw wrap(e, 'commit failed (nothing was written)');
      }
      if (this.scrubPending) this.scrub();
      return result;
    } finally {
      this.held = null;
      this.giveTurn();
    }
  }

  private stmt(sql: string): Database.Statement {
    let s = this.stmts[sql];
    if (!s) {
      s = this.conn().prepare(sql);
      this.stmts[sql] = s;
    }
    return s;
  }

  private readMeta(): StoreMeta | null {
    const rows = this.stmt('SELECT key, value FROM meta').all() as { key: string; value: string }[];
    const m = new Map(rows.map((r) => [r.key, r.value]));
    if (!m.has('dimension')) return null;
    return {
      schemaVersion: Number(m.get('schemaVersion')),
      embeddingModel: m.get('embeddingModel') ?? '',
      dimension: Number(m.get('dimension')),
    };
  }

  private requireMeta(): StoreMeta {
    if (this.closed) throw new StoreError('The store is closed');
    if (!this.recorded) throw new StoreError('Call store.open(meta) before using the store');
    return this.recorded;
  }

  /** Drop cached vectors and known node rids when another connection (another process) committed since we last looked. */
  private syncCaches(): void {
    // a cached prepared statement: `db.pragma()` would prepare one on every call
    const v = (this.stmt('PRAGMA data_version').get() as { data_version: number }).data_version;
    if (v !== this.dataVersion) {
      // another process re-embedded the store (`reembedStore`): this connection's vectors and
      // embedder belong to the old space; refused until reopened with the new embedder
      const now = this.recorded ? this.readMeta() : null;
      if (now && this.recorded && (now.embeddingModel !== this.recorded.embeddingModel || now.dimension !== this.recorded.dimension)) {
        throw new StoreMetaMismatchError(
          `The store ${this.path} was re-embedded with ${now.embeddingModel} (${now.dimension}-d) by another process; this handle was opened with ${this.recorded.embeddingModel} (${this.recorded.dimension}-d): reopen it with the new embedder`,
          { details: { field: 'embeddingModel', fields: ['embeddingModel'], stored: now.embeddingModel, requested: this.recorded.embeddingModel } },
        );
      }
      for (const sv of this.vectors.values()) sv.dispose();
      this.vectors.clear();
      this.lexical.clear();
      this.lexicalTooLarge.clear();
      this.knownRids.clear();
      this.knownSize = 0;
      this.dataVersion = v;
    }
  }

  private sidOf(scope: ResolvedScope): number | undefined {
    const key = scopeKey(scope);
    const hit = this.sids.get(key);
    if (hit !== undefined) return hit;
    const row = this.stmt('SELECT sid FROM scopes WHERE namespace = ? AND user_id = ? AND agent_id = ? AND run_id = ?').get(
      scope.namespace,
      scope.userId,
      scope.agentId,
      scope.runId,
    ) as { sid: number } | undefined;
    if (row) this.sids.set(key, row.sid);
    return row?.sid;
  }

  private ensureSid(scope: ResolvedScope): number {
    const sid = this.sidOf(scope);
    if (sid !== undefined) return sid;
    const info = this.stmt('INSERT INTO scopes (namespace, user_id, agent_id, run_id) VALUES (?, ?, ?, ?)').run(
      scope.namespace,
      scope.userId,
      scope.agentId,
      scope.runId,
    );
    // Not cached until the transaction commits (see write()).
    return Number(info.lastInsertRowid);
  }

  // ---------------------------------------------------------------- lifecycle

  async open(meta: StoreMeta): Promise<void> {
    const wanted = checkMeta(meta);
    try {
      const db = this.conn();
      // a store that records its meta is only read: no write lock (see `migrate`); a new one is
      // initialised in one IMMEDIATE transaction that checks again (another process may be first)
      const recorded = this.readMeta();
      if (recorded) {
        this.checkMetaAgainst(recorded, wanted);
        this.recorded = recorded;
        return;
      }
      db.transaction(() => {
        const have = this.readMeta();
        if (!have) {
          const put = this.stmt('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
          put.run('schemaVersion', String(wanted.schemaVersion));
          put.run('embeddingModel', wanted.embeddingModel);
          put.run('dimension', String(wanted.dimension));
          put.run('createdAt', new Date().toISOString());
          return;
        }
        this.checkMetaAgainst(have, wanted);
      }).immediate();
      this.recorded = this.readMeta();
    } catch (e) {
      throw wrap(e, 'open failed');
    }
  }

  /** Every differing field is named (a model change usually changes the dimension too). @throws StoreMetaMismatchError */
  private checkMetaAgainst(have: StoreMeta, wanted: StoreMeta): void {
    const fields = (['schemaVersion', 'embeddingModel', 'dimension'] as const).filter((f) => have[f] !== wanted[f]);
    if (fields.length) {
      const what = fields.map((f) => `${f} (the store records ${JSON.stringify(have[f])}, open() asked for ${JSON.stringify(wanted[f])})`).join('; ');
      throw new StoreMetaMismatchError(`Store meta mismatch on ${what}: store ${this.path}`, {
        details: { field: fields[0], fields, stored: have[fields[0]!], requested: wanted[fields[0]!], ...Object.fromEntries(fields.map((f) => [f, { stored: have[f], requested: wanted[f] }])) },
      });
    }
  }

  async meta(): Promise<StoreMeta | null> {
    try {
      return this.readMeta();
    } catch (e) {
      throw wrap(e, 'meta failed');
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.db) {
      // only graphs still in step with the file (another process's commits since we looked drop them);
      // before `closed` is set: saving may prepare statements (synchronous, so nothing runs in between)
      try {
        const v = (this.stmt('PRAGMA data_version').get() as { data_version: number }).data_version;
        if (v === this.dataVersion) for (const [sid, sv] of this.vectors) this.persistAnn(sid, sv);
      } catch {
        // closing anyway
      }
      this.sweepAnnLeftovers();
      if (this.scrubPending) this.scrub();
    }
    this.closed = true;
    for (const sv of this.vectors.values()) sv.dispose();
    this.vectors.clear();
    this.lexical.clear();
    this.stmts = {};
    this.runImmediate = null;
    this.knownRids.clear();
    this.db?.close();
    this.db = null;
  }

  // ---------------------------------------------------------------- write

  /**
   * One IMMEDIATE transaction: all of the batch or nothing (see `checkWriteBatch` for the checks).
   * @throws MemValidationError (shape), MemNotFoundError NODE_NOT_FOUND (endpoint / updated node not
   *   in the batch or the scope), StoreUnavailableError (lock timeout), StoreError (driver failure)
   */
  async write(batch: WriteBatch): Promise<void> {
    const meta = this.requireMeta();
    const b = checkWriteBatch(batch, meta.dimension);
    if (b.nodes.length + b.relations.length + b.history.length + b.nodeUpdates.length === 0) return;
    const key = scopeKey(b.scope);
    const vectorOps: { rid: number; v: Float32Array }[] = [];
    /** The batch's nodes for the lexical index (applied after the commit): new tokens, and the replaced text's. */
    const termOps: { id: string; tokens: string[]; old: string[] | null; rid?: number }[] = [];
    let sid = -1;
    let learned: Map<string, number>[] = [];
    try {
      await this.serial(() => this.immediate(() => {
        sid = this.ensureSid(b.scope);
        const stored = this.storedRids(sid, b);
        checkBatchEndpoints(b, stored, key);
        this.checkContentHashes(sid, b, stored, key);
        const rids = this.writeNodeRows(sid, b, stored, termOps, vectorOps);
        learned = [stored, rids];
        // endpoints by node row id (the batch's nodes were just written)
        const ridOf = (id: string) => rids.get(id) ?? stored.get(id)!;
        this.insertRows(
          'relations',
          b.relations.map((r) => [sid, r.id, ridOf(r.from), ridOf(r.to), r.view, r.subtype, r.probability, r.origin, r.createdAt]),
        );
        const update = this.stmt('UPDATE nodes SET obsolete_by = ? WHERE sid = ? AND id = ?');
        for (const u of b.nodeUpdates) if (u.obsoleteBy !== undefined) update.run(u.obsoleteBy, sid, u.id);
        this.insertRows(
          'history',
          b.history.map((h, i) => [sid, h.op, h.nodeId, h.at, b.historyJson[i]]),
        );
      }));
    } catch (e) {
      throw wrap(e, 'write failed (nothing was written)');
    }
    this.sids.set(key, sid);
    this.learnNodes(sid, learned);
    const sv = this.vectors.get(sid);
    if (sv) for (const op of vectorOps) sv.upsert(op.rid, op.v);
    const lx = this.lexical.get(sid);
    if (lx) {
      for (const op of termOps) {
        if (op.old) lx.remove(op.rid!, op.old);
        lx.add(op.rid!, op.tokens);
      }
      if (termOps.length) this.evictLexical(sid);
    }
  }

  /**
   * Stored nodes among the ids a batch names (its own nodes and every other endpoint or updated id):
   * id -> rid, from the scope's known-node cache and one query for the rest.
   */
  private storedRids(sid: number, b: CheckedBatch): Map<string, number> {
    // Stored nodes among the ids the batch names (its own nodes and every other endpoint or
    // updated id): one query. `stored` maps id -> rid.
    const names = new Set<string>(b.nodes.map((n) => n.id));
    for (const r of b.relations) {
      names.add(r.from);
      names.add(r.to);
    }
    for (const u of b.nodeUpdates) {
      names.add(u.id);
      if (u.obsoleteBy) names.add(u.obsoleteBy);
    }
    const stored = new Map<string, number>();
    const known = this.knownNodes(sid);
    const missing: string[] = [];
    for (const id of names) {
      const rid = known?.get(id);
      if (rid === undefined) missing.push(id);
      else stored.set(id, rid);
    }
    if (missing.length === 1) {
      const r = this.stmt('SELECT rid FROM nodes WHERE sid = ? AND id = ?').get(sid, missing[0]) as { rid: number } | undefined;
      if (r) stored.set(missing[0], r.rid);
    } else if (missing.length > 1) {
      for (const r of this.stmt('SELECT n.id, n.rid FROM json_each(?) AS j CROSS JOIN nodes n ON n.sid = ? AND n.id = j.value').all(
        JSON.stringify(missing),
        sid,
      ) as { id: string; rid: number }[]) {
        stored.set(r.id, r.rid);
      }
    }
    return stored;
  }

  /**
   * One node per observation (content hash) and scope, as Neo4j's content-key constraint: a new node
   * whose hash another node of the scope (or of the batch) has is refused (StoreConflictError), inside
   * the IMMEDIATE transaction, so two processes cannot both store the same observation.
   */
  private checkContentHashes(sid: number, b: CheckedBatch, stored: Map<string, number>, key: string): void {
    const newHashes = new Map<string, string>();
    for (const n of b.nodes) {
      if (stored.has(n.id)) continue;
      const h = n.provenance.contentHash;
      const other = newHashes.get(h);
      if (other !== undefined && other !== n.id) {
        throw new StoreConflictError(`Nodes ${other} and ${n.id} of one batch have the same content hash in scope ${key}`, { details: { contentHash: h, nodeId: n.id, existingId: other } });
      }
      newHashes.set(h, n.id);
    }
    if (newHashes.size) {
      const taken = this.stmt('SELECT id, content_hash AS h FROM nodes WHERE sid = ? AND content_hash IN (SELECT value FROM json_each(?))').all(
        sid,
        JSON.stringify([...newHashes.keys()]),
      ) as { id: string; h: string }[];
      const clash = taken.find((r) => newHashes.get(r.h) !== r.id);
      if (clash) {
        throw new StoreConflictError(`Node ${newHashes.get(clash.h)}: the same observation is already stored as ${clash.id} in scope ${key} (another writer stored it first)`, {
          details: { contentHash: clash.h, nodeId: newHashes.get(clash.h), existingId: clash.id, constraint: true },
        });
      }
    }
  }

  /**
   * The batch's nodes: per-scope BM25 statistics (document frequencies summed over the batch, one
   * upsert statement), node rows (multi-row upsert), FTS rows, the scope's counts; the lexical and vector
   * index operations go to `termOps` and `vectorOps` (applied after the commit). Returns id -> rid of the written rows.
   */
  private writeNodeRows(sid: number, b: CheckedBatch, stored: Map<string, number>, termOps: { id: string; tokens: string[]; old: string[] | null; rid?: number }[], vectorOps: { rid: number; v: Float32Array }[]): Map<string, number> {
    const df = new Map<string, number>();
    const count = (tokens: string[], delta: 1 | -1) => {
      for (const t of new Set(tokens)) df.set(t, (df.get(t) ?? 0) + delta);
    };
    let added = 0;
    let tokenDelta = 0;
    const nodeRows: unknown[][] = [];
    const bodies: string[] = [];
    for (let i = 0; i < b.nodes.length; i++) {
      const n = b.nodes[i];
      const j = b.nodeJson[i];
      const tokens = docTokens(n.text);
      if (stored.has(n.id)) {
        const old = this.stmt('SELECT text, doc_len FROM nodes WHERE rid = ?').get(stored.get(n.id)) as { text: string; doc_len: number };
        const oldTokens = docTokens(old.text);
        count(oldTokens, -1);
        tokenDelta -= old.doc_len;
        termOps.push({ id: n.id, tokens, old: oldTokens });
      } else {
        termOps.push({ id: n.id, tokens, old: null });
        added++;
      }
      count(tokens, 1);
      tokenDelta += tokens.length;
      // prettier-ignore
      nodeRows.push([sid, n.id, n.text, n.speaker ?? null, n.observedAt, j.eventTime, j.entities, j.keywords, j.types, toBlob(n.embedding), j.gate,
        n.provenance.sourceId ?? null, n.provenance.contentHash, j.metadata, n.obsoleteBy ?? null, n.createdAt, Date.parse(n.observedAt), Date.parse(n.createdAt), tokens.length]);
      bodies.push(searchText(n.text));
    }
    const rids = new Map<string, number>();
    this.insertRows('nodes', nodeRows, (rows) => {
      for (const r of rows as { id: string; rid: number }[]) rids.set(r.id, r.rid);
    });
    const ftsRows: unknown[][] = [];
    const token = scopeToken(sid);
    for (let i = 0; i < b.nodes.length; i++) {
      const n = b.nodes[i];
      const rid = rids.get(n.id)!;
      if (stored.has(n.id)) this.stmt('DELETE FROM nodes_fts WHERE rowid = ?').run(rid);
      ftsRows.push([rid, token, bodies[i]]);
      vectorOps.push({ rid, v: n.embedding });
      termOps[i].rid = rid;
    }
    this.insertRows('fts', ftsRows);
    this.applyTermCounts(sid, df);
    if (b.nodes.length > 0) {
      this.stmt('UPDATE scopes SET node_count = node_count + ?, token_count = token_count + ? WHERE sid = ?').run(added, tokenDelta, sid);
    }
    return rids;
  }

  /** The scope's known node rids (see `knownRids`), dropped when another connection committed; call inside a transaction. */
  private knownNodes(sid: number): Map<string, number> | undefined {
    this.syncCaches();
    return this.knownRids.get(sid);
  }

  /** Remember node rids a committed write stored or found (bounded: past KNOWN_RIDS_MAX entries the cache starts over). */
  private learnNodes(sid: number, maps: Map<string, number>[]): void {
    let known = this.knownRids.get(sid);
    for (const m of maps) {
      if (this.knownSize + m.size > KNOWN_RIDS_MAX) {
        this.knownRids.clear();
        this.knownSize = 0;
        known = undefined;
      }
      if (!known) {
        known = new Map();
        this.knownRids.set(sid, known);
      }
      for (const [id, rid] of m) {
        if (!known.has(id)) this.knownSize++;
        known.set(id, rid);
      }
    }
  }

  /**
   * Per-scope document frequencies (inside the caller's transaction): add each term's summed
   * delta (one multi-row upsert per chunk), then drop the terms no document of the scope has.
   */
  private applyTermCounts(sid: number, df: Map<string, number>): void {
    const rows: unknown[][] = [];
    const dropped: string[] = [];
    for (const [term, delta] of df) {
      if (delta === 0) continue;
      rows.push([sid, term, delta]);
      if (delta < 0) dropped.push(term);
    }
    this.insertRows('scope_terms', rows);
    if (dropped.length) {
      this.stmt('DELETE FROM scope_terms WHERE sid = ? AND term IN (SELECT value FROM json_each(?)) AND df <= 0').run(sid, JSON.stringify(dropped));
    }
  }

  /**
   * Insert `rows` into one of the {@link ROW_INSERTS} targets with multi-row INSERT statements
   * (at most ROWS_PER_INSERT rows each; one cached statement per row count), rows in order, so
   * row ids are assigned as by one INSERT per row. `returned` receives the RETURNING rows.
   */
  private insertRows(target: keyof typeof ROW_INSERTS, rows: unknown[][], returned?: (rows: unknown[]) => void): void {
    const spec = ROW_INSERTS[target];
    for (let at = 0; at < rows.length; at += ROWS_PER_INSERT) {
      const n = Math.min(ROWS_PER_INSERT, rows.length - at);
      const name = `${target}*${n}`;
      let stmt = this.stmts[name];
      if (!stmt) {
        stmt = this.conn().prepare(`${spec.head} VALUES ${new Array(n).fill(spec.tuple).join(', ')} ${spec.tail}`);
        this.stmts[name] = stmt;
      }
      const args: unknown[] = [];
      for (let i = at; i < at + n; i++) for (const v of rows[i]) args.push(v);
      if (spec.returning) {
        const out = stmt.all(args);
        returned?.(out);
      } else {
        stmt.run(args);
      }
    }
  }

  /**
   * Remove a node, its relations, its FTS entries and BM25 counts, and the scope's derived state; a
   * FORGET history row (id and relation count, never the text) records it. Then the text is erased
   * from every file of the store (see {@link SqliteStore.scrub}). Returns false when absent.
   * @throws StoreUnavailableError (lock timeout), StoreError (driver failure; nothing was removed)
   */
  async forget(scope: ResolvedScope, id: string): Promise<boolean> {
    this.requireMeta();
    const s = resolveScope(scope);
    if (typeof id !== 'string' || !id) return false;
    const sid = this.sidOf(s);
    if (sid === undefined) return false;
    let removed: { rid: number; tokens: string[] }[] = [];
    try {
      await this.serial(() =>
        this.immediate(() => {
          const row = this.stmt('SELECT rid FROM nodes WHERE sid = ? AND id = ?').get(sid, id) as { rid: number } | undefined;
          if (!row) return;
          removed = this.removeNodes(sid, [{ rid: row.rid, id }], {});
        }),
      );
    } catch (e) {
      throw wrap(e, 'forget failed (nothing was removed)');
    }
    if (!removed.length) return false;
    this.afterForget(sid, removed);
    return true;
  }

  /**
   * Forget every memory of a scope at once (ours, issue 32): as {@link SqliteStore.forget} for each
   * node, in one transaction, with one FORGET history row per node (`data.scope: true`), then one
   * scrub. The scope's history stays. Returns how many memories were removed.
   * @throws as `forget`
   */
  async forgetScope(scope: ResolvedScope): Promise<number> {
    this.requireMeta();
    const s = resolveScope(scope);
    const sid = this.sidOf(s);
    if (sid === undefined) return 0;
    let removed: { rid: number; tokens: string[] }[] = [];
    try {
      await this.serial(() =>
        this.immediate(() => {
          const rows = this.stmt('SELECT rid, id FROM nodes WHERE sid = ? ORDER BY rid').all(sid) as { rid: number; id: string }[];
          if (rows.length) removed = this.removeNodes(sid, rows, { scope: true });
        }),
      );
    } catch (e) {
      throw wrap(e, 'forgetScope failed (nothing was removed)');
    }
    if (!removed.length) return 0;
    this.afterForget(sid, removed);
    return removed.length;
  }

  /**
   * Inside a write transaction: delete `rows` of scope `sid` (their relations, FTS entries, BM25
   * counts, the nodes), drop the scope's derived state, append one FORGET row per node, and rebuild
   * the FTS index so no segment keeps the forgotten tokens. Returns each removed node's rid and tokens.
   */
  private removeNodes(sid: number, rows: { rid: number; id: string }[], extra: Record<string, unknown>): { rid: number; tokens: string[] }[] {
    const df = new Map<string, number>();
    let tokenTotal = 0;
    const at = new Date().toISOString();
    const history = this.stmt('INSERT INTO history (sid, op, node_id, at, data) VALUES (?, ?, ?, ?, ?)');
    const out: { rid: number; tokens: string[] }[] = [];
    for (const r of rows) {
      const node = this.stmt('SELECT text, doc_len FROM nodes WHERE rid = ?').get(r.rid) as { text: string; doc_len: number };
      const tokens = docTokens(node.text);
      out.push({ rid: r.rid, tokens });
      for (const t of new Set(tokens)) df.set(t, (df.get(t) ?? 0) - 1);
      tokenTotal += node.doc_len;
      // two index lookups (an OR of the two columns would scan the scope's relations)
      const rels =
        this.stmt('DELETE FROM relations WHERE sid = ? AND src = ?').run(sid, r.rid).changes +
        this.stmt('DELETE FROM relations WHERE sid = ? AND dst = ?').run(sid, r.rid).changes;
      this.stmt('DELETE FROM nodes_fts WHERE rowid = ?').run(r.rid);
      this.stmt('DELETE FROM nodes WHERE sid = ? AND rid = ?').run(sid, r.rid);
      history.run(sid, 'FORGET', r.id, at, JSON.stringify({ relationsRemoved: rels, ...extra }));
    }
    this.applyTermCounts(sid, df);
    // derived state may hold aggregates of the forgotten nodes (MemoryStore.loadState)
    this.stmt('DELETE FROM scope_state WHERE sid = ?').run(sid);
    this.stmt('UPDATE scopes SET node_count = node_count - ?, token_count = token_count - ? WHERE sid = ?').run(rows.length, tokenTotal, sid);
    // A contentless FTS5 delete only adds a tombstone: the tokens stay in the old segments until they
    // are merged. 'optimize' rewrites the index into one segment without them (cost: the whole index).
    this.stmt("INSERT INTO nodes_fts (nodes_fts) VALUES ('optimize')").run();
    return out;
  }

  /** After a committed forget of scope `sid`: caches (the lexical index loses the removed rows), the scope's ANN graph (memory and files), then the scrub. */
  private afterForget(sid: number, removed: { rid: number; tokens: string[] }[]): void {
    const lx = this.lexical.get(sid);
    if (lx) for (const r of removed) lx.remove(r.rid, r.tokens);
    const sv = this.vectors.get(sid);
    // an HNSW graph keeps a deleted row's vector (markDelete): drop it, rebuilt from the rows on next use
    if (sv) {
      sv.dispose();
      this.vectors.delete(sid);
    }
    this.knownRids.delete(sid);
    this.annLoads.delete(sid);
    const file = this.annFile(sid);
    if (file) {
      rmSync(file, { force: true });
      rmSync(`${file}.json`, { force: true });
    }
    this.scrubPending = true;
    this.scrub();
  }

  /**
   * Erase what forgotten rows left in the store's files (ours, issue 32): the connection runs with
   * `secure_delete` (deleted cells and freed pages are overwritten with zeros), `forget` rewrote the
   * FTS index; this copies the WAL into the main file and truncates it (`wal_checkpoint(TRUNCATE)`),
   * and removes killed ANN saves. Run by every forget; when another connection's open read
   * transaction blocks the checkpoint, it is retried by the next forget and by `close()`.
   * Returns whether the WAL is now empty (always true for `:memory:`).
   */
  scrub(): { checkpointed: boolean } {
    if (this.path === ':memory:') {
      this.scrubPending = false;
      return { checkpointed: true };
    }
    const db = this.conn();
    if (this.held !== null || db.inTransaction) return { checkpointed: false }; // inside a transaction: after it
    this.sweepAnnLeftovers();
    try {
      const [r] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number; checkpointed: number }[];
      const done = r !== undefined && r.busy === 0;
      if (done) this.scrubPending = false;
      return { checkpointed: done };
    } catch {
      return { checkpointed: false };
    }
  }

  // ---------------------------------------------------------------- reads

  private scoped(scope: ResolvedScope): { s: ResolvedScope; sid: number | undefined } {
    this.requireMeta();
    const s = resolveScope(scope);
    return { s, sid: this.sidOf(s) };
  }

  private nodesByRid(sid: number, s: ResolvedScope, rids: number[]): Map<number, MemoryNode> {
    // CROSS JOIN: look rows up by rowid (a plain `rid IN (...)` lets the planner scan the scope).
    const rows = this.stmt(`SELECT ${NODE_COLUMNS} FROM json_each(?) AS j CROSS JOIN nodes n ON n.rid = j.value WHERE n.sid = ?`).all(
      JSON.stringify(rids),
      sid,
    ) as NodeRow[];
    return new Map(rows.map((r) => [r.rid, rowToNode(r, s)]));
  }

  async get(scope: ResolvedScope, id: string): Promise<MemoryNode | null> {
    const { s, sid } = this.scoped(scope);
    if (sid === undefined || typeof id !== 'string') return null;
    try {
      const row = this.stmt(`SELECT ${NODE_COLUMNS} FROM nodes n WHERE n.sid = ? AND n.id = ?`).get(sid, id) as NodeRow | undefined;
      return row ? rowToNode(row, s) : null;
    } catch (e) {
      throw wrap(e, 'get failed');
    }
  }

  async getMany(scope: ResolvedScope, ids: string[]): Promise<MemoryNode[]> {
    const { s, sid } = this.scoped(scope);
    if (!Array.isArray(ids)) throw new MemValidationError('INVALID_INPUT', 'ids must be an array of strings');
    if (sid === undefined || ids.length === 0) return [];
    try {
      const rows = this.stmt(`SELECT ${NODE_COLUMNS} FROM nodes n WHERE n.sid = ? AND n.id IN (SELECT value FROM json_each(?))`).all(
        sid,
        JSON.stringify(ids.filter((x) => typeof x === 'string')),
      ) as NodeRow[];
      const byId = new Map(rows.map((r) => [r.id, r]));
      const out: MemoryNode[] = [];
      const seen = new Set<string>();
      for (const id of ids) {
        const r = byId.get(id);
        if (r && !seen.has(id)) {
          seen.add(id);
          out.push(rowToNode(r, s));
        }
      }
      return out;
    } catch (e) {
      throw wrap(e, 'getMany failed');
    }
  }

  async list(scope: ResolvedScope, options: ListOptions = {}): Promise<MemoryNode[]> {
    const { s, sid } = this.scoped(scope);
    const limit = checkCount(options.limit, 'limit');
    const offset = checkCount(options.offset, 'offset') ?? 0;
    const orderBy = options.orderBy ?? 'observedAt';
    const order = options.order ?? 'asc';
    if (orderBy !== 'observedAt' && orderBy !== 'createdAt') throw new MemValidationError('INVALID_INPUT', "orderBy must be 'observedAt' or 'createdAt'");
    if (order !== 'asc' && order !== 'desc') throw new MemValidationError('INVALID_INPUT', "order must be 'asc' or 'desc'");
    if (sid === undefined) return [];
    const col = orderBy === 'observedAt' ? 'observed_ms' : 'created_ms';
    const dir = order === 'asc' ? 'ASC' : 'DESC';
    try {
      const rows = this.stmt(`SELECT ${NODE_COLUMNS} FROM nodes n WHERE n.sid = ? ORDER BY n.${col} ${dir}, n.rid ${dir} LIMIT ? OFFSET ?`).all(
        sid,
        limit ?? -1,
        offset,
      ) as NodeRow[];
      return rows.map((r) => rowToNode(r, s));
    } catch (e) {
      throw wrap(e, 'list failed');
    }
  }

  /**
   * See MemoryStore.scanNodes: one keyset page over the `(sid, id)` index (SQLite compares ids by
   * their UTF-8 bytes, i.e. code point order), no text, types or event time read; the gate record's
   * action only (`json_extract`).
   * @throws MemValidationError INVALID_INPUT (limit, afterId)
   */
  async scanNodes(scope: ResolvedScope, options: ScanOptions = {}): Promise<NodeDigest[]> {
    const limit = checkCount(options.limit, 'limit') ?? 1000;
    if (limit < 1) throw new MemValidationError('INVALID_INPUT', 'limit must be a positive integer', { details: { value: limit } });
    const after = options.afterId;
    if (after !== undefined && typeof after !== 'string') throw new MemValidationError('INVALID_INPUT', 'afterId must be a string');
    const { sid } = this.scoped(scope);
    if (sid === undefined) return [];
    try {
      const rows = this.stmt(
        "SELECT n.id, n.observed_at, n.entities, n.keywords, n.embedding, json_extract(n.gate, '$.action') AS action, n.gate IS NULL AS no_gate, n.source_id, n.metadata FROM nodes n WHERE n.sid = ? AND n.id > ? ORDER BY n.id LIMIT ?",
      ).all(sid, after ?? '', limit) as { id: string; observed_at: string; entities: string; keywords: string; embedding: Buffer; action: GateAction | null; no_gate: number; source_id: string | null; metadata: string }[];
      return rows.map((r) => ({
        id: r.id,
        observedAt: r.observed_at,
        entities: JSON.parse(r.entities),
        keywords: JSON.parse(r.keywords),
        // a view, not a copy, when the row's own buffer allows it (the rebuild reads every vector once)
        embedding: r.embedding.byteOffset % 4 === 0 ? new Float32Array(r.embedding.buffer, r.embedding.byteOffset, r.embedding.byteLength / 4) : fromBlob(r.embedding),
        gate: r.no_gate ? null : ({ action: r.action } as { action: GateAction }),
        provenance: { sourceId: r.source_id, metadata: r.metadata === '{}' ? {} : JSON.parse(r.metadata) },
      }));
    } catch (e) {
      throw wrap(e, 'scanNodes failed');
    }
  }

  async count(scope: ResolvedScope): Promise<number> {
    const { sid } = this.scoped(scope);
    if (sid === undefined) return 0;
    return (this.stmt('SELECT node_count AS c FROM scopes WHERE sid = ?').get(sid) as { c: number }).c;
  }

  async findByContentHash(scope: ResolvedScope, contentHash: string): Promise<MemoryNode | null> {
    const { s, sid } = this.scoped(scope);
    if (sid === undefined || typeof contentHash !== 'string') return null;
    const row = this.stmt(`SELECT ${NODE_COLUMNS} FROM nodes n WHERE n.sid = ? AND n.content_hash = ? ORDER BY n.rid LIMIT 1`).get(sid, contentHash) as
      | NodeRow
      | undefined;
    return row ? rowToNode(row, s) : null;
  }

  private scopeVectors(sid: number): ScopeVectors {
    this.syncCaches();
    let sv = this.vectors.get(sid);
    if (!sv) {
      const meta = this.requireMeta();
      const total = (this.stmt('SELECT node_count AS c FROM scopes WHERE sid = ?').get(sid) as { c: number }).c;
      sv = new ScopeVectors(meta.dimension, this.annOptions, Math.max(64, total));
      for (const r of this.stmt('SELECT rid, embedding FROM nodes WHERE sid = ? ORDER BY rid').iterate(sid) as Iterable<{ rid: number; embedding: Buffer }>) {
        sv.upsert(r.rid, fromBlob(r.embedding));
      }
      const file = this.annFile(sid);
      if (file && sv.wantsAnn()) this.annLoads.set(sid, sv.loadAnn(file, this.annIdentity(sid)));
      else this.annLoads.delete(sid); // (a report of an earlier read would describe other vectors)
      this.vectors.set(sid, sv);
      this.evictVectors(sid);
    }
    sv.lastUsed = ++this.useClock;
    return sv;
  }

  /** Where the scope's HNSW graph is persisted (`ann.persist`, file stores only), or null. */
  private annFile(sid: number): string | null {
    if (!this.annOptions?.persist || this.annBase === null) return null;
    return `${this.annBase}.ann/${sid}.hnsw`;
  }

  /**
   * The store's creation stamp and the scope row id, recorded in a saved graph's header: a graph of
   * another store or scope is not adopted (a copied file shares the stamp; the row-by-row check on
   * load then keeps results exact anyway).
   */
  private annIdentity(sid: number): string {
    const created = (this.stmt("SELECT value FROM meta WHERE key = 'createdAt'").get() as { value: string } | undefined)?.value ?? '';
    // a graph saved before a re-embedding indexes the old space: never adopted after it
    const space = (this.stmt("SELECT value FROM meta WHERE key = 'reembeddedAt'").get() as { value: string } | undefined)?.value;
    return space ? `${created}#${sid}#${space}` : `${created}#${sid}`;
  }

  /**
   * Remove what killed graph saves left in the `.ann` folder (`<sid>.hnsw.<pid>.<ms>.tmp[.json]`),
   * once per close and for every scope, also those whose graph needs no new save; the files of a
   * save still running in another live process are kept. Never throws.
   */
  private sweepAnnLeftovers(): void {
    if (!this.annOptions?.persist || this.annBase === null) return;
    sweepAnnFolder(`${this.annBase}.ann`);
  }

  /** Save a scope's finished HNSW graph (before its cache is dropped); never throws. */
  private persistAnn(sid: number, sv: ScopeVectors): void {
    const file = this.annFile(sid);
    if (!file || sv.annStatus !== 'ready') return;
    try {
      mkdirSync(dirname(file), { recursive: true });
      sv.saveAnn(file, this.annIdentity(sid));
    } catch {
      // a cache: the next open rebuilds it
    }
  }

  private evictVectors(keep: number): void {
    evictLeastRecent(this.vectors, keep, (this.options.vectorCacheMB ?? 1024) * 1024 * 1024, (sid, sv) => {
      this.persistAnn(sid, sv);
      sv.dispose();
    });
  }

  /**
   * k nearest nodes of the scope by cosine similarity (score = cosine in [-1, 1], highest first);
   * the query need not be unit-norm. Exact scan, or HNSW candidates re-scored exactly.
   * @throws MemValidationError DIMENSION_MISMATCH, NON_FINITE_VECTOR, ZERO_VECTOR, INVALID_INPUT (k)
   */
  async vectorSearch(scope: ResolvedScope, vector: Float32Array, k: number): Promise<ScoredNode[]> {
    return this.knn(scope, vector, k, 'vectorSearch', (sid, s, rids) => this.nodesByRid(sid, s, rids), (node, score) => ({ node, score }));
  }

  /**
   * `vectorSearch` without reading node rows: the same hits in the same order, as ids and cosines.
   * @throws as `vectorSearch`
   */
  async vectorSearchIds(scope: ResolvedScope, vector: Float32Array, k: number, options?: VectorSearchOptions): Promise<ScoredId[]> {
    const idsByRid = (sid: number, _s: ResolvedScope, rids: number[]) => {
      const sql = 'SELECT n.rid, n.id FROM json_each(?) AS j CROSS JOIN nodes n ON n.rid = j.value WHERE n.sid = ?';
      const rows = this.stmt(sql).all(JSON.stringify(rids), sid) as { rid: number; id: string }[];
      return new Map(rows.map((r) => [r.rid, r.id]));
    };
    return this.knn(scope, vector, k, 'vectorSearchIds', idsByRid, (id, score) => ({ id, score }), options?.efSearch);
  }

  /** Shared body of the two k-NN reads: checks, search, row lookup by rid, cosine clamped to [-1, 1]. */
  private async knn<T, R>(
    scope: ResolvedScope,
    vector: Float32Array,
    k: number,
    op: string,
    load: (sid: number, s: ResolvedScope, rids: number[]) => Map<number, T>,
    make: (item: T, score: number) => R,
    efSearch?: number,
  ): Promise<R[]> {
    const { s, sid } = this.scoped(scope);
    const meta = this.requireMeta();
    const q = checkVector(vector, meta.dimension, 'query vector');
    checkCount(k, 'k', false);
    if (efSearch !== undefined) checkCount(efSearch, 'efSearch', true);
    if (sid === undefined || k === 0) return [];
    try {
      const hits = await this.searchRids(sid, q, k, efSearch);
      if (!hits.length) return [];
      const items = load(sid, s, hits.map((h) => h.rid));
      const out: R[] = [];
      for (const h of hits) {
        const item = items.get(h.rid);
        if (item !== undefined) out.push(make(item, Math.max(-1, Math.min(1, h.score))));
      }
      return out;
    } catch (e) {
      throw wrap(e, `${op} failed`);
    }
  }

  /** The scope's k-NN by row id (exact scan, or the ANN index once the scope is large); q need not be unit. */
  private async searchRids(sid: number, q: Float32Array, k: number, efSearch?: number): Promise<{ rid: number; score: number }[]> {
    const sv = this.scopeVectors(sid);
    if (sv.annStatus === 'none' && sv.wantsAnn()) {
      if (this.annOptions?.build === 'blocking') await sv.buildAnn(0);
      else void sv.buildAnn();
    }
    const unit = new Float32Array(q.length);
    normalizeInto(q, unit);
    return sv.search(unit, k, efSearch);
  }

  /**
   * Okapi BM25 over the scope's nodes with the scope's own statistics (score > 0, higher is better):
   * every node of the scope holding a query word is scored, from the scope's in-process inverted index
   * (lexical-index.ts; no text is read per query). A scope whose index does not fit `lexicalCacheMB`
   * scores the best max(200, 20·k) FTS5 candidates (by FTS5's file-wide BM25) instead. The query is
   * plain text: its words are extracted, never parsed as FTS5 syntax.
   * @throws MemValidationError INVALID_INPUT (non-string query, k not a non-negative integer)
   */
  async lexicalSearch(scope: ResolvedScope, query: string, k: number): Promise<ScoredNode[]> {
    const { s, sid } = this.scoped(scope);
    const top = this.lexicalTop(sid, query, k);
    if (!top.length) return [];
    try {
      const nodes = this.nodesByRid(sid!, s, top.map((x) => x.rid));
      return top.filter((x) => nodes.has(x.rid)).map((x) => ({ node: nodes.get(x.rid)!, score: x.score }));
    } catch (e) {
      throw wrap(e, 'lexicalSearch failed');
    }
  }

  /**
   * `lexicalSearch` without reading node rows: the same hits in the same order, as ids and BM25 scores.
   * @throws as `lexicalSearch`
   */
  async lexicalSearchIds(scope: ResolvedScope, query: string, k: number): Promise<ScoredId[]> {
    const { sid } = this.scoped(scope);
    const top = this.lexicalTop(sid, query, k);
    if (!top.length) return [];
    try {
      const sql = 'SELECT n.rid, n.id FROM json_each(?) AS j CROSS JOIN nodes n ON n.rid = j.value WHERE n.sid = ?';
      const rows = this.stmt(sql).all(JSON.stringify(top.map((x) => x.rid)), sid) as { rid: number; id: string }[];
      const ids = new Map(rows.map((r) => [r.rid, r.id]));
      return top.filter((x) => ids.has(x.rid)).map((x) => ({ id: ids.get(x.rid)!, score: x.score }));
    } catch (e) {
      throw wrap(e, 'lexicalSearchIds failed');
    }
  }

  /**
   * Shared body of the two BM25 reads: checks, the scope's top `k` row ids by BM25, best first (ties:
   * lower rid). From the scope's lexical index, else (a scope too large for `lexicalCacheMB`) by
   * re-scoring FTS5's candidates.
   */
  private lexicalTop(sid: number | undefined, query: string, k: number): { rid: number; score: number }[] {
    if (typeof query !== 'string') throw new MemValidationError('INVALID_INPUT', 'query must be a string');
    checkCount(k, 'k', false);
    if (sid === undefined || k === 0) return [];
    const match = ftsMatchQuery(query);
    if (!match) return [];
    const terms = searchTokens(query);
    try {
      const index = this.scopeTerms(sid);
      if (index) return index.search(terms, k);
      // 1. Candidates: FTS5 finds the scope's documents containing any query word (the scope
      //    column restricts the walk; the join on nodes.sid filters again). At most `pool` of them,
      //    preselected by FTS5's own (file-wide) BM25.
      const pool = Math.max(LEXICAL_POOL, 20 * k);
      const rows = this.stmt(
        `SELECT n.rid, n.text, n.doc_len FROM nodes_fts JOIN nodes n ON n.rid = nodes_fts.rowid
         WHERE nodes_fts MATCH ? AND n.sid = ? ORDER BY bm25(nodes_fts, 0.0, 1.0), n.rid LIMIT ?`,
      ).all(this.ftsExpression(sid, match), sid, pool) as { rid: number; text: string; doc_len: number }[];
      if (rows.length === 0) return [];
      // 2. Okapi BM25 with the scope's own statistics, so no other scope influences a score.
      const stats = this.stmt('SELECT node_count, token_count FROM scopes WHERE sid = ?').get(sid) as { node_count: number; token_count: number };
      const dfRows = this.stmt('SELECT term, df FROM scope_terms WHERE sid = ? AND term IN (SELECT value FROM json_each(?))').all(
        sid,
        JSON.stringify(terms),
      ) as { term: string; df: number }[];
      const df = new Map(dfRows.map((r) => [r.term, r.df]));
      const termSet = new Set(terms);
      const avgdl = stats.node_count > 0 ? stats.token_count / stats.node_count : 1;
      const scored = rows.map((r) => {
        const tf = new Map<string, number>();
        for (const t of docTokens(r.text)) if (termSet.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1);
        let score = 0;
        for (const [t, f] of tf) score += bm25Term(f, df.get(t) ?? 1, r.doc_len, avgdl, stats.node_count);
        return { rid: r.rid, score };
      });
      scored.sort((a, b) => b.score - a.score || a.rid - b.rid);
      return scored.slice(0, k);
    } catch (e) {
      throw wrap(e, 'lexicalSearch failed');
    }
  }

  /**
   * The scope's lexical index (see lexical-index.ts): built from its texts on first use, null when it
   * does not fit `lexicalCacheMB` (the caller then scores FTS5 candidates).
   */
  private scopeTerms(sid: number): ScopeTerms | null {
    this.syncCaches();
    let index = this.lexical.get(sid);
    if (!index) {
      if (this.lexicalTooLarge.has(sid)) return null;
      index = new ScopeTerms();
      const limit = this.lexicalLimit();
      let n = 0;
      for (const r of this.stmt('SELECT rid, text FROM nodes WHERE sid = ? ORDER BY rid').iterate(sid) as Iterable<{ rid: number; text: string }>) {
        index.add(r.rid, docTokens(r.text));
        if (++n % 4096 === 0 && index.bytes > limit) break;
      }
      if (index.bytes > limit) {
        this.lexicalTooLarge.add(sid);
        return null;
      }
      this.lexical.set(sid, index);
      this.evictLexical(sid);
    }
    index.lastUsed = ++this.useClock;
    return index;
  }

  private lexicalLimit(): number {
    return (this.options.lexicalCacheMB ?? 512) * 1024 * 1024;
  }

  /** Drop the least recently searched lexical indexes (never `keep`) until they fit `lexicalCacheMB`. */
  private evictLexical(keep: number): void {
    const limit = this.lexicalLimit();
    const total = evictLeastRecent(this.lexical, keep, limit);
    // grown past the bound by writes: searched through FTS5 candidates from now on
    if (total > limit && this.lexical.has(keep)) {
      this.lexical.delete(keep);
      this.lexicalTooLarge.add(keep);
    }
  }

  /**
   * The FTS5 MATCH expression of a lexical query. When the scope is a minority of the file, the
   * scope token restricts the FTS walk to the scope's postings; when it is most of the file,
   * intersecting with its (long) token list costs more than it saves, and the join on
   * `nodes.sid` alone filters. Results are identical either way.
   */
  private ftsExpression(sid: number, match: string): string {
    const row = this.stmt('SELECT (SELECT node_count FROM scopes WHERE sid = ?) AS own, (SELECT COALESCE(SUM(node_count), 0) FROM scopes) AS total').get(sid) as {
      own: number;
      total: number;
    };
    return row.own * 2 < row.total ? `scope : "${scopeToken(sid)}" AND body : (${match})` : `body : (${match})`;
  }

  async neighbors(scope: ResolvedScope, ids: string[], query: NeighborQuery = {}): Promise<Neighbor[]> {
    const { s, sid } = this.scoped(scope);
    if (!Array.isArray(ids)) throw new MemValidationError('INVALID_INPUT', 'ids must be an array of strings');
    checkNeighborQuery(query);
    const direction = query.direction ?? 'both';
    const limit = checkCount(query.limit, 'limit');
    if (sid === undefined || ids.length === 0 || limit === 0) return [];
    if ((query.views && query.views.length === 0) || (query.subtypes && query.subtypes.length === 0)) return [];
    const filters: string[] = [];
    const filterArgs: string[] = [];
    if (query.views) {
      filters.push('AND r.view IN (SELECT value FROM json_each(?))');
      filterArgs.push(JSON.stringify(query.views));
    }
    if (query.subtypes) {
      filters.push('AND r.subtype IN (SELECT value FROM json_each(?))');
      filterArgs.push(JSON.stringify(query.subtypes));
    }
    // m = the given node (the near end), r = its relations in one direction, n = the far end.
    const part = (near: 'src' | 'dst', far: 'src' | 'dst') =>
      `SELECT r.rid AS r_rid, r.id AS r_id, ${near === 'src' ? 'm.id AS r_from, n.id AS r_to' : 'n.id AS r_from, m.id AS r_to'}, r.view AS r_view,
              r.subtype AS r_subtype, r.probability AS r_probability, r.origin AS r_origin, r.created_at AS r_created_at, m.id AS via, ${NODE_COLUMNS}
       FROM json_each(?) AS j
       CROSS JOIN nodes m ON m.sid = ? AND m.id = j.value
       CROSS JOIN relations r ON r.sid = m.sid AND r.${near} = m.rid
       CROSS JOIN nodes n ON n.rid = r.${far}
       WHERE true ${filters.join(' ')}`;
    const parts: string[] = [];
    const args: unknown[] = [];
    const idsJson = JSON.stringify([...new Set(ids.filter((x) => typeof x === 'string'))]);
    if (direction !== 'in') {
      parts.push(part('src', 'dst'));
      args.push(idsJson, sid, ...filterArgs);
    }
    if (direction !== 'out') {
      parts.push(part('dst', 'src'));
      args.push(idsJson, sid, ...filterArgs);
    }
    try {
      const rows = this.stmt(`SELECT * FROM (${parts.join(' UNION ALL ')}) ORDER BY r_probability DESC, r_rid ASC, via ASC LIMIT ?`).all(
        ...args,
        limit ?? -1,
      ) as (NodeRow & Record<string, any>)[];
      return rows.map((r) => ({
        relation: rowToRelation({
          rid: r.r_rid,
          id: r.r_id,
          from_id: r.r_from,
          to_id: r.r_to,
          view: r.r_view,
          subtype: r.r_subtype,
          probability: r.r_probability,
          origin: r.r_origin,
          created_at: r.r_created_at,
        }),
        node: rowToNode(r, s),
        fromId: r.via,
      }));
    } catch (e) {
      throw wrap(e, 'neighbors failed');
    }
  }

  async relations(scope: ResolvedScope, options: { nodeId?: string; limit?: number } = {}): Promise<Relation[]> {
    const { sid } = this.scoped(scope);
    const limit = checkCount(options.limit, 'limit');
    if (sid === undefined) return [];
    try {
      const columns = `SELECT r.rid, r.id, a.id AS from_id, b.id AS to_id, r.view, r.subtype, r.probability, r.origin, r.created_at
        FROM relations r JOIN nodes a ON a.rid = r.src JOIN nodes b ON b.rid = r.dst`;
      let rows: RelationRow[];
      if (options.nodeId !== undefined) {
        const node = this.stmt('SELECT rid FROM nodes WHERE sid = ? AND id = ?').get(sid, options.nodeId) as { rid: number } | undefined;
        if (!node) return [];
        rows = this.stmt(
          `${columns} WHERE r.rid IN (SELECT rid FROM relations WHERE sid = ? AND src = ? UNION ALL SELECT rid FROM relations WHERE sid = ? AND dst = ?) ORDER BY r.rid LIMIT ?`,
        ).all(sid, node.rid, sid, node.rid, limit ?? -1) as RelationRow[];
      } else {
        rows = this.stmt(`${columns} WHERE r.sid = ? ORDER BY r.rid LIMIT ?`).all(sid, limit ?? -1) as RelationRow[];
      }
      return rows.map(rowToRelation);
    } catch (e) {
      throw wrap(e, 'relations failed');
    }
  }

  async history(scope: ResolvedScope, options: HistoryOptions = {}): Promise<HistoryEntry[]> {
    const { s, sid } = this.scoped(scope);
    const limit = checkCount(options.limit, 'limit');
    const after = checkCount(options.afterSeq, 'afterSeq') ?? 0;
    if (sid === undefined) return [];
    try {
      // seq is INTEGER PRIMARY KEY AUTOINCREMENT (never reused, assigned in commit order: one writer at a time)
      const rows = (
        options.nodeId !== undefined
          ? this.stmt('SELECT * FROM (SELECT * FROM history WHERE sid = ? AND node_id = ? AND seq > ? ORDER BY seq DESC LIMIT ?) ORDER BY seq ASC').all(sid, options.nodeId, after, limit ?? -1)
          : this.stmt('SELECT * FROM (SELECT * FROM history WHERE sid = ? AND seq > ? ORDER BY seq DESC LIMIT ?) ORDER BY seq ASC').all(sid, after, limit ?? -1)
      ) as { seq: number; op: string; node_id: string | null; at: string; data: string }[];
      return rows.map((r) => ({ seq: r.seq, scope: { ...s }, op: r.op as HistoryEntry['op'], nodeId: r.node_id, at: r.at, data: JSON.parse(r.data) }));
    } catch (e) {
      throw wrap(e, 'history failed');
    }
  }

  // ---------------------------------------------------------------- derived state

  /** See MemoryStore.loadState. */
  async loadState(scope: ResolvedScope, name: string): Promise<string | null> {
    checkStateName(name);
    const { sid } = this.scoped(scope);
    if (sid === undefined) return null;
    try {
      const row = this.stmt('SELECT value FROM scope_state WHERE sid = ? AND name = ?').get(sid, name) as { value: string } | undefined;
      return row ? row.value : null;
    } catch (e) {
      throw wrap(e, 'loadState failed');
    }
  }

  /** See MemoryStore.saveState. */
  async saveState(scope: ResolvedScope, name: string, value: string | null): Promise<void> {
    this.requireMeta();
    const s = resolveScope(scope);
    checkStateName(name);
    checkStateValue(value);
    let sid = -1;
    try {
      await this.serial(() => this.immediate(() => {
        if (value === null) {
          const known = this.sidOf(s);
          if (known !== undefined) this.stmt('DELETE FROM scope_state WHERE sid = ? AND name = ?').run(known, name);
          return;
        }
        sid = this.ensureSid(s);
        this.stmt('INSERT OR REPLACE INTO scope_state (sid, name, value, updated_at) VALUES (?, ?, ?, ?)').run(sid, name, value, new Date().toISOString());
      }));
    } catch (e) {
      throw wrap(e, 'saveState failed (nothing was saved)');
    }
    if (sid >= 0) this.sids.set(scopeKey(s), sid);
  }

  async scopes(): Promise<ResolvedScope[]> {
    this.requireMeta();
    const rows = this.stmt(
      'SELECT namespace, user_id, agent_id, run_id FROM scopes WHERE node_count > 0 ORDER BY sid',
    ).all() as { namespace: string; user_id: string; agent_id: string; run_id: string }[];
    return rows.map((r) => ({ namespace: r.namespace, userId: r.user_id, agentId: r.agent_id, runId: r.run_id }));
  }

  // ---------------------------------------------------------------- maintenance (SQLite only)

  /** Build (or finish building) the HNSW index of a scope now, synchronously, regardless of the threshold. */
  async buildAnnIndex(scope: ResolvedScope): Promise<void> {
    const { sid } = this.scoped(scope);
    if (sid === undefined || !this.annOptions) return;
    await this.scopeVectors(sid).buildAnn(0);
  }

  /** State of a scope's in-process vector index. */
  annStatus(scope: ResolvedScope): AnnStatus {
    const { sid } = this.scoped(scope);
    const sv = sid === undefined ? undefined : this.vectors.get(sid);
    const loaded = sid === undefined ? undefined : this.annLoads.get(sid);
    return { size: sv?.size ?? 0, state: sv?.annStatus ?? 'none', pending: sv?.pending ?? 0, ...(loaded ? { loaded } : {}) };
  }

  /**
   * Copy the whole database to `file` with SQLite's online backup API (better-sqlite3's
   * `db.backup`, ours for the policy): other processes keep writing meanwhile (WAL: the copy reads
   * one consistent snapshot and never blocks a writer). The pages are copied in one step after the
   * first, so a busy writer cannot restart the copy for ever; the copy is written to
   * `<file>.<pid>.tmp` and renamed into place, so `file` is either absent or a complete database
   * (an interrupted backup leaves no half file under its name). The copy is a store of its own
   * (the `.ann` graphs are caches, rebuilt on first use).
   * @param file destination path (its folder must exist); an existing file is refused unless `overwrite`
   * @returns the number of pages copied and the absolute destination
   * @throws MemValidationError INVALID_INPUT (`:memory:` store; the destination exists, is a folder, sits in a missing folder, or is a file of this store or another store's -wal / -shm: `details.path`, `details.reason`, see src/store/files.ts), StoreError (SQLite failure; nothing left under `file`)
   */
  async backup(file: string, options: { overwrite?: boolean; onProgress?: (copied: number, total: number) => void } = {}): Promise<{ file: string; pages: number }> {
    this.requireMeta();
    if (typeof file !== 'string' || !file.trim()) throw new MemValidationError('INVALID_INPUT', 'backup needs a destination file path');
    if (this.path === ':memory:' || this.path === '') throw new MemValidationError('INVALID_INPUT', 'An in-memory store has no file to back up');
    this.conn();
    // never one of this store's files (the database, -wal, -shm, .ann/…) nor another store's -wal / -shm:
    // even with overwrite, the rename would replace a live file under SQLite's feet
    const dest = checkOutputFile(file, { what: 'backup destination', overwrite: options.overwrite, forceHint: 'overwrite: true; mem backup --force', protect: this.annBase ?? resolvePath(this.path) });
    const tmp = `${dest}.${process.pid}.tmp`;
    rmSync(tmp, { force: true });
    sweepPartialFiles(dest, 'tmp'); // what a killed backup to this destination left
    // never inside an open `exclusive` section of this connection (it would copy uncommitted pages):
    // wait for this store's turn, as a write started outside a section does
    const ownTurn = !this.insideSection();
    if (ownTurn) await this.takeTurn();
    try {
      const result = await this.conn().backup(tmp, {
        progress: ({ totalPages, remainingPages }) => {
          options.onProgress?.(totalPages - remainingPages, totalPages);
          return 0x7fffffff; // the rest in one step (a restart by a concurrent writer copies it all again, once)
        },
      });
      options.onProgress?.(result.totalPages, result.totalPages);
      for (const suffix of ['-wal', '-shm']) rmSync(`${tmp}${suffix}`, { force: true });
      placeFile(tmp, dest, { overwrite: options.overwrite, what: 'backup destination', forceHint: 'overwrite: true; mem backup --force' });
      return { file: dest, pages: result.totalPages };
    } catch (e) {
      for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${tmp}${suffix}`, { force: true });
      throw wrap(e, 'backup failed (no file was written)');
    } finally {
      if (ownTurn) this.giveTurn();
    }
  }

  // ---------------------------------------------------------------- re-embedding (see reembedStore)

  /**
   * Start or resume staging a re-embedding into `target` (ours; `reembedStore` drives these four
   * steps, see src/store/sqlite-reembed.ts for the crash-safety argument). One transaction.
   * @throws MemValidationError INVALID_INPUT when the store already uses `target`
   */
  async reembedBegin(target: ReembedTarget): Promise<{ staged: number; total: number; resumed: boolean }> {
    const meta = this.requireMeta();
    const token = (this.reembedToken = randomUUID());
    const pidStart = processStart(process.pid);
    const owner = { pid: process.pid, ...(pidStart !== undefined ? { pidStart } : {}), token, startedAt: new Date().toISOString(), model: target.model };
    // a second run in this same process is refused too (its pid is alive, its token differs)
    try {
      return await this.serial(() => this.immediate(() => beginStaging(this.conn(), meta, target, owner, processAlive)));
    } catch (e) {
      throw wrap(e, 'reembed failed to start (nothing changed)');
    }
  }

  /** Nodes after `afterRid` still needing a vector of their current text (see `pendingNodes`). */
  reembedPending(afterRid: number, limit: number): { rows: { rid: number; text: string }[]; lastRid: number | null } {
    this.requireMeta();
    return pendingNodes(this.conn(), afterRid, limit);
  }

  /** Stage new vectors, one transaction; returns how many were staged (forgotten nodes are skipped). */
  async reembedStage(rows: { rid: number; text: string; embedding: Float32Array }[]): Promise<number> {
    this.requireMeta();
    try {
      return await this.serial(() => this.immediate(() => stageVectors(this.conn(), rows, this.reembedOwnerToken())));
    } catch (e) {
      throw wrap(e, 'reembed staging failed (the batch was not staged)');
    }
  }

  /**
   * Switch the store to the staged space in one transaction (see `switchSpace`); `{ missing: n }`
   * (nothing changed) when n nodes still need a vector. On success this handle uses the new meta and
   * drops its vector caches and saved ANN graphs.
   */
  async reembedSwitch(target: ReembedTarget, regate: Regate, onScope?: (done: number, total: number) => void): Promise<{ missing: number }> {
    const meta = this.requireMeta();
    let r: { missing: number };
    try {
      r = await this.serial(() => this.immediate(() => switchSpace(this.conn(), meta, target, regate, new Date().toISOString(), onScope, this.reembedOwnerToken())));
    } catch (e) {
      throw wrap(e, 'reembed switch failed (the store stays in its old space)');
    }
    if (r.missing === 0) {
      this.reembedToken = null;
      this.recorded = this.readMeta();
      for (const sv of this.vectors.values()) sv.dispose();
      this.vectors.clear();
      this.annLoads.clear();
      if (this.annBase !== null) rmSync(`${this.annBase}.ann`, { recursive: true, force: true });
    }
    return r;
  }

  /** The token of this handle's running re-embedding (`reembedBegin` first). */
  private reembedOwnerToken(): string {
    if (!this.reembedToken) throw new StoreError('reembedBegin was not called on this store handle');
    return this.reembedToken;
  }

  /** End this handle's re-embedding run without switching (it failed): another run may start; the staged vectors stay for a resume. Never throws. */
  async reembedRelease(): Promise<void> {
    const token = this.reembedToken;
    this.reembedToken = null;
    if (!token || this.closed) return;
    try {
      await this.serial(() => this.immediate(() => releaseStaging(this.conn(), token)));
    } catch {
      // a dead owner's pid is taken over anyway
    }
  }

  /** Drop an unfinished re-embedding's staging area; the store stays in its space. */
  async reembedDiscard(): Promise<void> {
    this.requireMeta();
    await this.serial(() => this.immediate(() => discardStaging(this.conn())));
  }

  /** `PRAGMA integrity_check` plus the FTS5 index check; returns the problems found (empty = ok). */
  checkIntegrity(): string[] {
    const db = this.conn();
    const problems: string[] = [];
    // FTS5's check inside PRAGMA integrity_check reads the index structure this connection cached at
    // its previous check, even when another connection rewrote the index since ('optimize' by a
    // forget) and reports "corruption" that a fresh connection does not see (SQLite 3.53); any
    // FTS5 query reloads the structure first. A MATCH on a scope token no scope has reads nothing.
    db.prepare(`SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH 'scope : "${scopeToken(0)}"' LIMIT 1`).all();
    const rows = db.pragma('integrity_check') as { integrity_check: string }[];
    for (const r of rows) if (r.integrity_check !== 'ok') problems.push(r.integrity_check);
    try {
      db.prepare("INSERT INTO nodes_fts (nodes_fts) VALUES ('integrity-check')").run();
    } catch (e) {
      problems.push(`fts: ${(e as Error).message}`);
    }
    const orphans = db
      .prepare('SELECT COUNT(*) AS c FROM relations r WHERE NOT EXISTS (SELECT 1 FROM nodes n WHERE n.rid = r.src AND n.sid = r.sid) OR NOT EXISTS (SELECT 1 FROM nodes n WHERE n.rid = r.dst AND n.sid = r.sid)')
      .get() as { c: number };
    if (orphans.c > 0) problems.push(`${orphans.c} relations with a missing endpoint`);
    const counts = db.prepare('SELECT COUNT(*) AS c FROM scopes s WHERE node_count != (SELECT COUNT(*) FROM nodes n WHERE n.sid = s.sid)').get() as { c: number };
    if (counts.c > 0) problems.push(`${counts.c} scopes with a wrong node_count`);
    const tokens = db.prepare('SELECT COUNT(*) AS c FROM scopes s WHERE token_count != (SELECT COALESCE(SUM(doc_len), 0) FROM nodes n WHERE n.sid = s.sid)').get() as { c: number };
    if (tokens.c > 0) problems.push(`${tokens.c} scopes with a wrong token_count`);
    return problems;
  }
}

/**
 * Create the default SQLite store (ours). Call `await store.open({ schemaVersion, embeddingModel,
 * dimension })` before use; a file created with another model or dimension throws
 * StoreMetaMismatchError naming both values.
 *
 * @example
 * const store = createSqliteStore({ path: './memory.db' });
 * await store.open({ schemaVersion: 1, embeddingModel: 'wink-sg-100d', dimension: 100 });
 */
export function createSqliteStore(options: SqliteStoreOptions): SqliteStore {
  return new SqliteStore(options);
}

/** Relation endpoints and updated nodes must exist in the batch's scope (MemNotFoundError; checked before anything is written). */
function checkBatchEndpoints(b: CheckedBatch, stored: Map<string, number>, key: string): void {
  const inBatch = new Set(b.nodes.map((n) => n.id));
  const present = (id: string) => inBatch.has(id) || stored.has(id);
  // Existence checks first (same scope only), so nothing is written when one fails.
  for (const r of b.relations) {
    for (const end of [r.from, r.to]) {
      if (!present(end)) {
        throw new MemNotFoundError(`Relation ${r.id}: node ${end} does not exist in scope ${key}`, {
          details: { relationId: r.id, nodeId: end },
        });
      }
    }
  }
  for (const u of b.nodeUpdates) {
    if (!present(u.id)) throw new MemNotFoundError(`nodeUpdates: node ${u.id} does not exist in scope ${key}`, { details: { nodeId: u.id } });
    if (u.obsoleteBy && !present(u.obsoleteBy)) {
      throw new MemNotFoundError(`nodeUpdates: obsoleteBy node ${u.obsoleteBy} does not exist in scope ${key}`, { details: { nodeId: u.obsoleteBy } });
    }
  }
}

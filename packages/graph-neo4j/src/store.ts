/**
 * `createNeo4jStore`: `@mem/core`'s `MemoryStore` on Neo4j 5 (ours; graph layout after Jev-Mem,
 * seed 000 §3: canonical observation nodes, one relationship type per relation view).
 */
import {
  MemNotFoundError,
  MemValidationError,
  StoreError,
  checkNeighborQuery,
  checkVector,
  checkStateName,
  checkStateValue,
  checkWriteBatch,
  StoreMetaMismatchError,
  resolveScope,
  scopeKey,
  type HistoryEntry,
  type ListOptions,
  type MemoryNode,
  type MemoryStore,
  type Neighbor,
  type NeighborQuery,
  type Relation,
  type ResolvedScope,
  type ScanOptions,
  type ScoredId,
  type ScoredNode,
  type StoreMeta,
} from '@mem/store-spec';
import { propsToDigest, propsToHistory, propsToNode, propsToRelation, propsToScope, toNum, type Props } from './codec.js';
import { mapNeo4jError, withTimeout } from './errors.js';
import {
  buildAppendHistoryQuery,
  buildAwaitIndexesQuery,
  buildCountQuery,
  buildClearRelationsQueries,
  buildReserveSeqQuery,
  buildUpsertNodesQuery,
  buildCreateRelationsQueries,
  buildFindByContentHashQuery,
  buildDeleteStateQuery,
  buildDropScopeStateQuery,
  buildForgetQuery,
  buildForgetScopeQuery,
  buildCountScopeForForgetQuery,
  buildLoadStateQuery,
  buildSaveStateQuery,
  buildGetManyQuery,
  buildGetQuery,
  buildHistoryQuery,
  buildInitMetaQuery,
  buildLexicalSearchQuery,
  buildListQuery,
  buildNeighborsQuery,
  buildNodeUpdatesQuery,
  buildReadMetaQuery,
  buildRelationsQuery,
  buildSchemaQueries,
  buildScopesQuery,
  buildVectorSearchExactQuery,
  buildVectorSearchIndexQuery,
  toLuceneQuery,
  buildScopeLockQuery,
  buildScanNodesQuery,
  type CypherQuery,
  type HitProjection,
} from './queries.js';
import { createDriverRunner, type QueryRunner, type Row } from './runner.js';

export interface Neo4jStoreOptions {
  /** Bolt or neo4j URI, e.g. `neo4j://localhost:7687`. */
  uri: string;
  /** Default `neo4j`. */
  user?: string;
  password: string;
  /** Database name (Neo4j Enterprise / Aura); default: the server's default database. */
  database?: string;
  /**
   * Milliseconds within which an unreachable server yields `StoreUnavailableError`: bounds the
   * connect, the pool acquisition and the driver's transaction retries. Default 5000.
   */
  connectionTimeoutMs?: number;
  /**
   * `auto` (default; issue 33): `index` for a scope holding at least `vectorIndexMinScope` memories,
   * else `exact` (the SQLite store's choice: exact scans of small scopes, an ANN index above 5,000).
   * `exact`: k-NN by `vector.similarity.cosine` over the scope's nodes — exact, cost linear in the
   * scope's size (13 s per query at 100k memories on a loaded 2-core machine, docs/benchmarks.md).
   * `index`: the HNSW vector index, asked for `max(k, vectorCandidates)` neighbours across all
   * scopes and filtered to the scope; falls back to exact when fewer than k survive the filter.
   */
  vectorSearch?: 'auto' | 'exact' | 'index';
  /** `auto` mode: the scope size (memories) from which the vector index is used. Default 5000. */
  vectorIndexMinScope?: number;
  /** Candidates requested from the vector index in `index` mode. Default 200. */
  vectorCandidates?: number;
  /** Seconds `open()` waits for the indexes to come online. Default 60. */
  indexWaitSeconds?: number;
  /**
   * Milliseconds a `lockScopes` call may hold (and wait for) its scopes' write lock: the server ends
   * the lock transaction after it (waiting too long fails with `StoreUnavailableError`). Default
   * 120 000. A holder running longer than this loses the lock while it still runs.
   */
  lockTimeoutMs?: number;
  /** Extra `neo4j-driver` configuration. */
  driverConfig?: Record<string, unknown>;
  /** Advanced / tests: run queries through this runner instead of a driver built from uri/user/password. */
  runner?: QueryRunner;
}

function checkScope(scope: ResolvedScope): ResolvedScope {
  return resolveScope(scope);
}

function checkK(k: number, what: string): number {
  if (typeof k !== 'number' || !Number.isFinite(k) || k < 0 || !Number.isInteger(k)) {
    throw new MemValidationError('INVALID_INPUT', `${what} must be a non-negative integer`);
  }
  return k;
}

function countOf(rows: Row[], column: string): number {
  return rows.length ? toNum(rows[0][column]) : 0;
}

function metaOf(p: Props): StoreMeta {
  return { schemaVersion: toNum(p.schemaVersion), embeddingModel: String(p.embeddingModel), dimension: toNum(p.dimension) };
}

/**
 * Create a Neo4j-backed `MemoryStore`. Nothing connects until `open(meta)`, which verifies
 * connectivity within `connectionTimeoutMs` (else `StoreUnavailableError`), creates the
 * constraints and indexes idempotently, and records or checks the store metadata
 * (`StoreMetaMismatchError` naming both values on mismatch).
 *
 * Errors: `MemValidationError` for bad input (nothing sent), `MemNotFoundError` when a relation
 * endpoint or an updated node is missing in the scope (the transaction is rolled back),
 * `StoreUnavailableError` / `StoreError` mapped from the driver (see `mapNeo4jError`).
 */
export function createNeo4jStore(options: Neo4jStoreOptions): MemoryStore & { readonly uri: string } {
  const timeoutMs = options.connectionTimeoutMs ?? 5000;
  const uri = options.uri;
  const c: Neo4jContext = {
    options,
    timeoutMs,
    uri,
    runner: options.runner ?? null,
    opened: null,
    closed: false,
    scopeSizes: new Map(),
    getRunner(): QueryRunner {
      if (c.closed) throw new StoreError('The Neo4j store is closed', { details: { uri } });
      if (!c.runner) {
        if (!options.uri) throw new MemValidationError('INVALID_INPUT', 'createNeo4jStore needs a uri');
        c.runner = createDriverRunner({
          uri: options.uri,
          user: options.user ?? 'neo4j',
          password: options.password,
          database: options.database,
          connectionTimeoutMs: timeoutMs,
          driverConfig: options.driverConfig,
        });
      }
      return c.runner;
    },
    requireOpen(): StoreMeta {
      if (!c.opened) throw new StoreError('Call open(meta) before using the Neo4j store', { details: { uri } });
      return c.opened;
    },
    async guarded<T>(operation: string, fn: (r: QueryRunner) => Promise<T>): Promise<T> {
      try {
        return await fn(c.getRunner());
      } catch (e) {
        throw mapNeo4jError(e, { operation, uri });
      }
    },
  };
  const store: MemoryStore & { readonly uri: string } = {
    kind: 'neo4j',
    // several app instances may write one Neo4j database: createMemory re-checks each scope before a write
    concurrentWriters: true,
    capabilities: ['lockScopes', 'forgetScope', 'state', 'vectorSearchIds', 'lexicalSearchIds', 'scanNodes'],
    uri,
    open: (meta) => openStore(c, meta),
    async meta() {
      return c.guarded('meta', async (r) => {
        const rows = await r.read(buildReadMetaQuery());
        return rows.length ? metaOf(rows[0].meta as Props) : null;
      });
    },
    write: (batch) => writeBatch(c, batch),
    async lockScopes(scopes, fn) {
      c.requireOpen();
      const keys = [...new Set(scopes.map((x) => scopeKey(checkScope(x))))].sort();
      if (!keys.length) return fn();
      const held = await c.guarded('lockScopes', (r) => r.hold(buildScopeLockQuery(keys), options.lockTimeoutMs ?? 120_000));
      try {
        return await fn();
      } finally {
        // a failed rollback (server gone) frees the locks with the connection: nothing to report
        await held.release().catch(() => undefined);
      }
    },
    ...readMethods(c),
    forget: (scope, id) => forgetNode(c, scope, id),
    forgetScope: (scope) => forgetWholeScope(c, scope),
    async saveState(scope, name, value) {
      c.requireOpen();
      const s = checkScope(scope);
      checkStateName(name);
      checkStateValue(value);
      await c.guarded('saveState', (r) =>
        r.write(async (tx) => {
          await tx.run(value === null ? buildDeleteStateQuery(s, name) : buildSaveStateQuery(s, name, value));
        }),
      );
    },
    async close() {
      if (c.closed) return;
      c.closed = true;
      c.opened = null;
      const r = c.runner;
      c.runner = null;
      if (r) {
        try {
          await r.close();
        } catch (e) {
          throw mapNeo4jError(e, { operation: 'close', uri });
        }
      }
    },
  };
  return store;
}

/** One Neo4j store's connection state (ours): the runner (created on first use), the meta once opened, closed. */
interface Neo4jContext {
  options: Neo4jStoreOptions;
  timeoutMs: number;
  uri: string;
  runner: QueryRunner | null;
  opened: StoreMeta | null;
  closed: boolean;
  /** Scope sizes `auto` vector search read (scope key → memories, when read); see `vectorHits`. */
  scopeSizes: Map<string, { n: number; at: number }>;
  /** The runner; StoreError once closed, MemValidationError without a uri. */
  getRunner(): QueryRunner;
  /** The meta given to open(); StoreError before open(). */
  requireOpen(): StoreMeta;
  /** Run `fn` with errors mapped by mapNeo4jError. */
  guarded<T>(operation: string, fn: (r: QueryRunner) => Promise<T>): Promise<T>;
}

const nodesOf = (rows: Row[], column = 'node'): MemoryNode[] => rows.map((r) => propsToNode(r[column] as Props));
const scoredOf = (rows: Row[]): ScoredNode[] => rows.filter((r) => r.node != null).map((r) => ({ node: propsToNode(r.node as Props), score: toNum(r.score) }));
const scoredIdsOf = (rows: Row[]): ScoredId[] => rows.filter((r) => r.id != null).map((r) => ({ id: String(r.id), score: toNum(r.score) }));

/** First number of hits asked of the full-text index per search: max(this, 4k) (see `lexicalHits`). */
const LEXICAL_FETCH_MIN = 64;
/** How many scope sizes `auto` vector search remembers, and for how long (ms): a size only picks exact or index. */
const SCOPE_SIZE_TTL_MS = 10_000;

/**
 * `open(meta)`: verify connectivity within the timeout, compare with recorded meta before touching
 * the schema (a mismatched store is left as it was), create constraints and indexes, record the meta.
 */
async function openStore(c: Neo4jContext, meta: StoreMeta): Promise<void> {
  if (!meta || !Number.isInteger(meta.dimension) || meta.dimension <= 0 || meta.dimension > 4096) {
    throw new MemValidationError('INVALID_INPUT', 'StoreMeta.dimension must be an integer in 1..4096 (Neo4j vector index limit)');
  }
  if (!Number.isInteger(meta.schemaVersion) || typeof meta.embeddingModel !== 'string' || !meta.embeddingModel) {
    throw new MemValidationError('INVALID_INPUT', 'StoreMeta needs an integer schemaVersion and an embeddingModel');
  }
  await c.guarded('open', async (r) => {
    await withTimeout(r.verify(), c.timeoutMs, { operation: 'open', uri: c.uri });
    const existing = await r.read(buildReadMetaQuery());
    if (existing.length) {
      // Compare before touching the schema, so a mismatched store is left as it was.
      const recorded = metaOf(existing[0].meta as Props);
      assertSameMeta(recorded, meta);
    }
    for (const q of buildSchemaQueries(meta.dimension)) await runSchemaStatement(r, q);
    await r.schema(buildAwaitIndexesQuery(c.options.indexWaitSeconds ?? 60));
    const rows = await r.write((tx) => tx.run(buildInitMetaQuery(meta)));
    assertSameMeta(metaOf(rows[0].meta as Props), meta);
  });
  c.opened = { ...meta };
}

/** `write(batch)`: one transaction; sequence numbers reserved first; counts checked (MemNotFoundError / StoreError roll back). */
async function writeBatch(c: Neo4jContext, batch: Parameters<MemoryStore['write']>[0]): Promise<void> {
  const meta = c.requireOpen();
  const b = checkWriteBatch(batch, meta.dimension);
  const { scope, nodes: nodeList, relations, history, nodeUpdates: updates } = b;
  if (!nodeList.length && !updates.length && !relations.length && !history.length) return;
  await c.guarded('write', (r) =>
    r.write(async (tx) => {
      const need = nodeList.length + relations.length + history.length;
      let next = 0;
      if (need > 0) {
        const rows = await tx.run(buildReserveSeqQuery(need));
        if (!rows.length) throw new StoreError('The store metadata node is missing (was open() run on this database?); nothing was written');
        next = toNum(rows[0].base) + 1;
      }
      const take = (n: number) => Array.from({ length: n }, () => next++);
      const nodeRids = take(nodeList.length);
      const relRids = new Map(relations.map((rel, i) => [rel.id, take(1)[0] ?? i]));
      const seqs = take(history.length);
      if (nodeList.length) {
        const written = countOf(await tx.run(buildUpsertNodesQuery(scope, nodeList, nodeRids)), 'written');
        if (written !== nodeList.length) throw new StoreError(`wrote ${written} of ${nodeList.length} nodes; rolled back`);
      }
      if (updates.length) {
        const updated = countOf(await tx.run(buildNodeUpdatesQuery(scope, updates)), 'updated');
        if (updated !== updates.length) {
          throw new MemNotFoundError('A node to update (or its obsoleteBy target) does not exist in this scope; nothing was written');
        }
      }
      if (relations.length) {
        for (const q of buildClearRelationsQueries(scope, relations)) {
          for (const row of await tx.run(q)) if (row.rid != null) relRids.set(String(row.id), toNum(row.rid)); // a rewritten relation keeps its place
        }
        for (const q of buildCreateRelationsQueries(scope, relations, relRids)) {
          const want = (q.params.relations as unknown[]).length;
          const written = countOf(await tx.run(q), 'written');
          if (written !== want) throw new MemNotFoundError('A relation endpoint does not exist in this scope; nothing was written');
        }
      }
      if (history.length) {
        const written = countOf(await tx.run(buildAppendHistoryQuery(scope, history, seqs)), 'written');
        if (written !== history.length) throw new StoreError('history rows were not appended; rolled back');
      }
    }),
  );
}

/**
 * The k nearest of a scope (issue 33): through the vector index when `vectorSearch` is `index`, or
 * `auto` and the scope holds at least `vectorIndexMinScope` memories (its size remembered for
 * {@link SCOPE_SIZE_TTL_MS}); exact when fewer than k of the index's candidates are in the scope.
 */
async function vectorHits(c: Neo4jContext, r: QueryRunner, s: ResolvedScope, v: Float32Array, k: number, projection: HitProjection): Promise<Row[]> {
  const mode = c.options.vectorSearch ?? 'auto';
  let useIndex = mode === 'index';
  if (mode === 'auto') {
    const key = scopeKey(s);
    let known = c.scopeSizes.get(key);
    if (!known || Date.now() - known.at > SCOPE_SIZE_TTL_MS) {
      known = { n: countOf(await r.read(buildCountQuery(s)), 'count'), at: Date.now() };
      if (c.scopeSizes.size >= 10_000) c.scopeSizes.clear();
      c.scopeSizes.set(key, known);
    }
    useIndex = known.n >= (c.options.vectorIndexMinScope ?? 5000);
  }
  if (useIndex) {
    const rows = await r.read(buildVectorSearchIndexQuery(s, v, k, c.options.vectorCandidates ?? 200, projection));
    if (rows.length >= k) return rows;
  }
  return r.read(buildVectorSearchExactQuery(s, v, k, projection));
}

/**
 * BM25 hits of a scope from the full-text index, bounded (issue 33): asks the index for its best
 * `fetch` = max(64, 4k) hits, then 8× more until the answer cannot change — the index ran out
 * (`fetched < fetch`), or the scope's k-th hit scores above the lowest hit fetched (every hit not
 * fetched scores at most that, so ties with the k-th, ordered by insertion number, are all in).
 * The answer is the one an unbounded search gives; a scope holding few of a query word's hits
 * costs more rounds.
 */
async function lexicalHits(r: QueryRunner, s: ResolvedScope, lucene: string, k: number, projection: HitProjection): Promise<Row[]> {
  for (let fetch = Math.max(LEXICAL_FETCH_MIN, 4 * k); ; fetch *= 8) {
    const rows = await r.read(buildLexicalSearchQuery(s, lucene, k, fetch, projection));
    const fetched = rows.length ? toNum(rows[0].fetched) : 0;
    if (!(fetched >= fetch)) return rows; // the index ran out (or a server / runner that did not say: taken as is)
    const hits = rows.filter((row) => row[projection] != null);
    if (hits.length >= k && toNum(hits[k - 1]!.score) > toNum(rows[0].lastScore)) return rows;
  }
}

/** The store's reads (each checks open, scope and arguments before sending anything). */
function readMethods(
  c: Neo4jContext,
): Pick<MemoryStore, 'get' | 'getMany' | 'list' | 'scanNodes' | 'count' | 'findByContentHash' | 'vectorSearch' | 'vectorSearchIds' | 'lexicalSearch' | 'lexicalSearchIds' | 'neighbors' | 'relations' | 'history' | 'loadState' | 'scopes'> {
  return {
    async get(scope, id) {
      c.requireOpen();
      const s = checkScope(scope);
      if (typeof id !== 'string') throw new MemValidationError('INVALID_INPUT', 'id must be a string');
      return c.guarded('get', async (r) => nodesOf(await r.read(buildGetQuery(s, id)))[0] ?? null);
    },

    async getMany(scope, ids) {
      c.requireOpen();
      const s = checkScope(scope);
      if (!Array.isArray(ids) || ids.some((i) => typeof i !== 'string')) throw new MemValidationError('INVALID_INPUT', 'ids must be strings');
      if (!ids.length) return [];
      return c.guarded('getMany', async (r) => nodesOf(await r.read(buildGetManyQuery(s, ids))));
    },

    async list(scope, opts?: ListOptions) {
      c.requireOpen();
      const s = checkScope(scope);
      if (opts?.orderBy && opts.orderBy !== 'observedAt' && opts.orderBy !== 'createdAt') throw new MemValidationError('INVALID_INPUT', 'orderBy must be observedAt or createdAt');
      if (opts?.order && opts.order !== 'asc' && opts.order !== 'desc') throw new MemValidationError('INVALID_INPUT', 'order must be asc or desc');
      if (opts?.limit !== undefined) checkK(opts.limit, 'limit');
      if (opts?.offset !== undefined) checkK(opts.offset, 'offset');
      return c.guarded('list', async (r) => nodesOf(await r.read(buildListQuery(s, opts))));
    },

    async scanNodes(scope, opts?: ScanOptions) {
      c.requireOpen();
      const s = checkScope(scope);
      const limit = opts?.limit ?? 1000;
      if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) throw new MemValidationError('INVALID_INPUT', 'limit must be a positive integer');
      if (opts?.afterId !== undefined && typeof opts.afterId !== 'string') throw new MemValidationError('INVALID_INPUT', 'afterId must be a string');
      return c.guarded('scanNodes', async (r) => (await r.read(buildScanNodesQuery(s, opts?.afterId ?? '', limit))).map((row) => propsToDigest(row.node as Props)));
    },

    async count(scope) {
      c.requireOpen();
      const s = checkScope(scope);
      return c.guarded('count', async (r) => countOf(await r.read(buildCountQuery(s)), 'count'));
    },

    async findByContentHash(scope, contentHash) {
      c.requireOpen();
      const s = checkScope(scope);
      return c.guarded('findByContentHash', async (r) => nodesOf(await r.read(buildFindByContentHashQuery(s, String(contentHash))))[0] ?? null);
    },

    async vectorSearch(scope, vector, k) {
      const meta = c.requireOpen();
      const s = checkScope(scope);
      const v = checkVector(vector, meta.dimension, 'query vector');
      const kk = checkK(k, 'k');
      if (kk === 0) return [];
      return c.guarded('vectorSearch', async (r) => scoredOf(await vectorHits(c, r, s, v, kk, 'node')));
    },

    async vectorSearchIds(scope, vector, k) {
      const meta = c.requireOpen();
      const s = checkScope(scope);
      const v = checkVector(vector, meta.dimension, 'query vector');
      const kk = checkK(k, 'k');
      if (kk === 0) return [];
      return c.guarded('vectorSearchIds', async (r) => scoredIdsOf(await vectorHits(c, r, s, v, kk, 'id')));
    },

    async lexicalSearch(scope, query, k) {
      c.requireOpen();
      const s = checkScope(scope);
      if (typeof query !== 'string') throw new MemValidationError('INVALID_INPUT', 'query must be a string');
      const kk = checkK(k, 'k');
      const lucene = toLuceneQuery(query);
      if (kk === 0 || lucene === null) return [];
      return c.guarded('lexicalSearch', async (r) => scoredOf(await lexicalHits(r, s, lucene, kk, 'node')));
    },

    async lexicalSearchIds(scope, query, k) {
      c.requireOpen();
      const s = checkScope(scope);
      if (typeof query !== 'string') throw new MemValidationError('INVALID_INPUT', 'query must be a string');
      const kk = checkK(k, 'k');
      const lucene = toLuceneQuery(query);
      if (kk === 0 || lucene === null) return [];
      return c.guarded('lexicalSearchIds', async (r) => scoredIdsOf(await lexicalHits(r, s, lucene, kk, 'id')));
    },

    async neighbors(scope, ids, query?: NeighborQuery): Promise<Neighbor[]> {
      c.requireOpen();
      const s = checkScope(scope);
      if (!Array.isArray(ids) || ids.some((i) => typeof i !== 'string')) throw new MemValidationError('INVALID_INPUT', 'ids must be strings');
      checkNeighborQuery(query); // closed enums by Set membership: 'constructor' / '__proto__' never reach the Cypher text
      if (query?.limit !== undefined) checkK(query.limit, 'limit');
      if (!ids.length || (query?.views && query.views.length === 0) || (query?.subtypes && query.subtypes.length === 0)) return [];
      return c.guarded('neighbors', async (r) =>
        (await r.read(buildNeighborsQuery(s, ids, query))).map((row) => ({
          relation: propsToRelation(row.relation as Props),
          node: propsToNode(row.node as Props),
          fromId: String(row.fromId),
        })),
      );
    },

    async relations(scope, opts): Promise<Relation[]> {
      c.requireOpen();
      const s = checkScope(scope);
      if (opts?.limit !== undefined) checkK(opts.limit, 'limit');
      return c.guarded('relations', async (r) => (await r.read(buildRelationsQuery(s, opts))).map((row) => propsToRelation(row.relation as Props)));
    },

    async history(scope, opts) {
      c.requireOpen();
      const s = checkScope(scope);
      if (opts?.limit !== undefined) checkK(opts.limit, 'limit');
      if (opts?.afterSeq !== undefined) checkK(opts.afterSeq, 'afterSeq');
      return c.guarded('history', async (r) => (await r.read(buildHistoryQuery(s, opts))).map((row) => propsToHistory(row.entry as Props)));
    },

    async loadState(scope, name) {
      c.requireOpen();
      const s = checkScope(scope);
      checkStateName(name);
      return c.guarded('loadState', async (r) => {
        const rows = await r.read(buildLoadStateQuery(s, name));
        return rows.length ? String(rows[0].value) : null;
      });
    },

    async scopes() {
      c.requireOpen();
      return c.guarded('scopes', async (r) => (await r.read(buildScopesQuery())).map((row) => propsToScope(row)));
    },
  };
}

/** `forget(scope, id)`: the node, its relations and the scope's derived state, with a FORGET history row (one transaction). */
async function forgetNode(c: Neo4jContext, scope: ResolvedScope, id: string): Promise<boolean> {
  c.requireOpen();
  const s = checkScope(scope);
  if (typeof id !== 'string' || !id) return false;
  return c.guarded('forget', (r) =>
    r.write(async (tx) => {
      // Reserve first: every write transaction locks the meta counter before any node, so
      // concurrent writes and forgets cannot deadlock (an unused number is a harmless gap).
      const reserved = await tx.run(buildReserveSeqQuery(1));
      if (!reserved.length) throw new StoreError('The store metadata node is missing (was open() run on this database?)');
      const seq = toNum(reserved[0].base) + 1;
      const rows = await tx.run(buildForgetQuery(s, id));
      if (rows.length === 0) return false;
      // derived state may hold aggregates of the forgotten node (MemoryStore.loadState)
      await tx.run(buildDropScopeStateQuery(s));
      const row: HistoryEntry = { scope: s, op: 'FORGET', nodeId: id, at: new Date().toISOString(), data: { relationsRemoved: toNum(rows[0].rels) } };
      await tx.run(buildAppendHistoryQuery(s, [row], [seq]));
      return true;
    }),
  );
}

/** `forgetScope(scope)`: every node of the scope in rounds, with FORGET history rows, and the scope's derived state (one transaction). */
async function forgetWholeScope(c: Neo4jContext, scope: ResolvedScope): Promise<number> {
  c.requireOpen();
  const s = checkScope(scope);
  return c.guarded('forgetScope', (r) =>
    r.write(async (tx) => {
      let removed = 0;
      // rounds: a node another writer adds meanwhile is taken by the next round (or waits on our locks)
      for (;;) {
        const n = toNum((await tx.run(buildCountScopeForForgetQuery(s)))[0]?.n ?? 0);
        if (n === 0) break;
        // reserve first, as forget: every write transaction locks the meta counter before any node
        const reserved = await tx.run(buildReserveSeqQuery(n));
        if (!reserved.length) throw new StoreError('The store metadata node is missing (was open() run on this database?)');
        const base = toNum(reserved[0].base);
        const rows = await tx.run(buildForgetScopeQuery(s, n));
        if (!rows.length) break;
        const at = new Date().toISOString();
        const history: HistoryEntry[] = rows.map((row) => ({ scope: s, op: 'FORGET', nodeId: String(row.id), at, data: { relationsRemoved: toNum(row.rels), scope: true } }));
        await tx.run(buildAppendHistoryQuery(s, history, history.map((_, i) => base + 1 + i)));
        removed += rows.length;
      }
      // derived state may hold aggregates of the forgotten nodes (MemoryStore.loadState)
      if (removed) await tx.run(buildDropScopeStateQuery(s));
      return removed;
    }),
  );
}

/** Schema errors that mean another process created the same index or constraint at the same moment. */
const ALREADY_EXISTS = /^Neo\.ClientError\.Schema\.(EquivalentSchemaRuleAlreadyExists|IndexAlreadyExists|ConstraintAlreadyExists)$/;

/**
 * Run one idempotent schema statement (`… IF NOT EXISTS`) so that several processes opening the
 * store at once all succeed (ours; seen on a real 5.26 server with 3 writers): a race lost to an
 * equivalent index created concurrently counts as done, and a transient failure (schema lock
 * deadlock) is retried up to 6 times with a growing pause (0.1, 0.2, … 3.2 s).
 */
async function runSchemaStatement(r: QueryRunner, q: CypherQuery): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await r.schema(q);
      return;
    } catch (e) {
      const code = String((e as { code?: unknown })?.code ?? '');
      if (ALREADY_EXISTS.test(code)) return;
      if (code.startsWith('Neo.TransientError.') && attempt < 6) {
        await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
        continue;
      }
      throw e;
    }
  }
}

function assertSameMeta(recorded: StoreMeta, wanted: StoreMeta): void {
  const diffs: string[] = [];
  if (recorded.schemaVersion !== wanted.schemaVersion) diffs.push(`schemaVersion ${recorded.schemaVersion} vs ${wanted.schemaVersion}`);
  if (recorded.embeddingModel !== wanted.embeddingModel) diffs.push(`embeddingModel ${recorded.embeddingModel} vs ${wanted.embeddingModel}`);
  if (recorded.dimension !== wanted.dimension) diffs.push(`dimension ${recorded.dimension} vs ${wanted.dimension}`);
  if (diffs.length) {
    throw new StoreMetaMismatchError(`The Neo4j store was created with other settings (recorded vs requested): ${diffs.join('; ')}`, {
      details: { recorded, requested: wanted },
    });
  }
}

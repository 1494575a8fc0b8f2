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
  type HistoryEntry,
  type ListOptions,
  type MemoryNode,
  type MemoryStore,
  type Neighbor,
  type NeighborQuery,
  type Relation,
  type ResolvedScope,
  type ScoredNode,
  type StoreMeta,
} from '@mem/core';
import { propsToHistory, propsToNode, propsToRelation, propsToScope, toNum, type Props } from './codec.js';
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
  type CypherQuery,
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
   * `exact` (default): k-NN by `vector.similarity.cosine` over the scope's nodes — exact, cost linear
   * in the scope's size. `index`: the HNSW vector index, asked for `max(k, vectorCandidates)`
   * neighbours across all scopes and filtered to the scope; falls back to exact when fewer than k
   * survive the filter.
   */
  vectorSearch?: 'exact' | 'index';
  /** Candidates requested from the vector index in `index` mode. Default 200. */
  vectorCandidates?: number;
  /** Seconds `open()` waits for the indexes to come online. Default 60. */
  indexWaitSeconds?: number;
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
  let runner: QueryRunner | null = options.runner ?? null;
  let opened: StoreMeta | null = null;
  let closed = false;

  const getRunner = (): QueryRunner => {
    if (closed) throw new StoreError('The Neo4j store is closed', { details: { uri } });
    if (!runner) {
      if (!options.uri) throw new MemValidationError('INVALID_INPUT', 'createNeo4jStore needs a uri');
      runner = createDriverRunner({
        uri: options.uri,
        user: options.user ?? 'neo4j',
        password: options.password,
        database: options.database,
        connectionTimeoutMs: timeoutMs,
        driverConfig: options.driverConfig,
      });
    }
    return runner;
  };

  const requireOpen = (): StoreMeta => {
    if (!opened) throw new StoreError('Call open(meta) before using the Neo4j store', { details: { uri } });
    return opened;
  };

  async function guarded<T>(operation: string, fn: (r: QueryRunner) => Promise<T>): Promise<T> {
    try {
      return await fn(getRunner());
    } catch (e) {
      throw mapNeo4jError(e, { operation, uri });
    }
  }

  const nodes = (rows: Row[], column = 'node'): MemoryNode[] => rows.map((r) => propsToNode(r[column] as Props));
  const scored = (rows: Row[]): ScoredNode[] => rows.map((r) => ({ node: propsToNode(r.node as Props), score: toNum(r.score) }));

  const store: MemoryStore & { readonly uri: string } = {
    kind: 'neo4j',
    // several app instances may write one Neo4j database: createMemory re-checks each scope before a write
    concurrentWriters: true,
    uri,

    async open(meta) {
      if (!meta || !Number.isInteger(meta.dimension) || meta.dimension <= 0 || meta.dimension > 4096) {
        throw new MemValidationError('INVALID_INPUT', 'StoreMeta.dimension must be an integer in 1..4096 (Neo4j vector index limit)');
      }
      if (!Number.isInteger(meta.schemaVersion) || typeof meta.embeddingModel !== 'string' || !meta.embeddingModel) {
        throw new MemValidationError('INVALID_INPUT', 'StoreMeta needs an integer schemaVersion and an embeddingModel');
      }
      await guarded('open', async (r) => {
        await withTimeout(r.verify(), timeoutMs, { operation: 'open', uri });
        const existing = await r.read(buildReadMetaQuery());
        if (existing.length) {
          // Compare before touching the schema, so a mismatched store is left as it was.
          const recorded = metaOf(existing[0].meta as Props);
          assertSameMeta(recorded, meta);
        }
        for (const q of buildSchemaQueries(meta.dimension)) await runSchemaStatement(r, q);
        await r.schema(buildAwaitIndexesQuery(options.indexWaitSeconds ?? 60));
        const rows = await r.write((tx) => tx.run(buildInitMetaQuery(meta)));
        assertSameMeta(metaOf(rows[0].meta as Props), meta);
      });
      opened = { ...meta };
    },

    async meta() {
      return guarded('meta', async (r) => {
        const rows = await r.read(buildReadMetaQuery());
        return rows.length ? metaOf(rows[0].meta as Props) : null;
      });
    },

    async write(batch) {
      const meta = requireOpen();
      const b = checkWriteBatch(batch, meta.dimension);
      const { scope, nodes: nodeList, relations, history, nodeUpdates: updates } = b;
      if (!nodeList.length && !updates.length && !relations.length && !history.length) return;
      await guarded('write', (r) =>
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
    },

    async get(scope, id) {
      requireOpen();
      const s = checkScope(scope);
      if (typeof id !== 'string') throw new MemValidationError('INVALID_INPUT', 'id must be a string');
      return guarded('get', async (r) => nodes(await r.read(buildGetQuery(s, id)))[0] ?? null);
    },

    async getMany(scope, ids) {
      requireOpen();
      const s = checkScope(scope);
      if (!Array.isArray(ids) || ids.some((i) => typeof i !== 'string')) throw new MemValidationError('INVALID_INPUT', 'ids must be strings');
      if (!ids.length) return [];
      return guarded('getMany', async (r) => nodes(await r.read(buildGetManyQuery(s, ids))));
    },

    async list(scope, opts?: ListOptions) {
      requireOpen();
      const s = checkScope(scope);
      if (opts?.orderBy && opts.orderBy !== 'observedAt' && opts.orderBy !== 'createdAt') throw new MemValidationError('INVALID_INPUT', 'orderBy must be observedAt or createdAt');
      if (opts?.order && opts.order !== 'asc' && opts.order !== 'desc') throw new MemValidationError('INVALID_INPUT', 'order must be asc or desc');
      if (opts?.limit !== undefined) checkK(opts.limit, 'limit');
      if (opts?.offset !== undefined) checkK(opts.offset, 'offset');
      return guarded('list', async (r) => nodes(await r.read(buildListQuery(s, opts))));
    },

    async count(scope) {
      requireOpen();
      const s = checkScope(scope);
      return guarded('count', async (r) => countOf(await r.read(buildCountQuery(s)), 'count'));
    },

    async findByContentHash(scope, contentHash) {
      requireOpen();
      const s = checkScope(scope);
      return guarded('findByContentHash', async (r) => nodes(await r.read(buildFindByContentHashQuery(s, String(contentHash))))[0] ?? null);
    },

    async vectorSearch(scope, vector, k) {
      const meta = requireOpen();
      const s = checkScope(scope);
      const v = checkVector(vector, meta.dimension, 'query vector');
      const kk = checkK(k, 'k');
      if (kk === 0) return [];
      return guarded('vectorSearch', async (r) => {
        if (options.vectorSearch === 'index') {
          const hits = scored(await r.read(buildVectorSearchIndexQuery(s, v, kk, options.vectorCandidates ?? 200)));
          if (hits.length >= kk) return hits;
        }
        return scored(await r.read(buildVectorSearchExactQuery(s, v, kk)));
      });
    },

    async lexicalSearch(scope, query, k) {
      requireOpen();
      const s = checkScope(scope);
      if (typeof query !== 'string') throw new MemValidationError('INVALID_INPUT', 'query must be a string');
      const kk = checkK(k, 'k');
      const lucene = toLuceneQuery(query);
      if (kk === 0 || lucene === null) return [];
      return guarded('lexicalSearch', async (r) => scored(await r.read(buildLexicalSearchQuery(s, lucene, kk))));
    },

    async neighbors(scope, ids, query?: NeighborQuery): Promise<Neighbor[]> {
      requireOpen();
      const s = checkScope(scope);
      if (!Array.isArray(ids) || ids.some((i) => typeof i !== 'string')) throw new MemValidationError('INVALID_INPUT', 'ids must be strings');
      checkNeighborQuery(query); // closed enums by Set membership: 'constructor' / '__proto__' never reach the Cypher text
      if (query?.limit !== undefined) checkK(query.limit, 'limit');
      if (!ids.length || (query?.views && query.views.length === 0) || (query?.subtypes && query.subtypes.length === 0)) return [];
      return guarded('neighbors', async (r) =>
        (await r.read(buildNeighborsQuery(s, ids, query))).map((row) => ({
          relation: propsToRelation(row.relation as Props),
          node: propsToNode(row.node as Props),
          fromId: String(row.fromId),
        })),
      );
    },

    async relations(scope, opts): Promise<Relation[]> {
      requireOpen();
      const s = checkScope(scope);
      if (opts?.limit !== undefined) checkK(opts.limit, 'limit');
      return guarded('relations', async (r) => (await r.read(buildRelationsQuery(s, opts))).map((row) => propsToRelation(row.relation as Props)));
    },

    async forget(scope, id) {
      requireOpen();
      const s = checkScope(scope);
      if (typeof id !== 'string' || !id) return false;
      return guarded('forget', (r) =>
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
    },

    async forgetScope(scope) {
      requireOpen();
      const s = checkScope(scope);
      return guarded('forgetScope', (r) =>
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
    },

    async history(scope, opts) {
      requireOpen();
      const s = checkScope(scope);
      if (opts?.limit !== undefined) checkK(opts.limit, 'limit');
      return guarded('history', async (r) => (await r.read(buildHistoryQuery(s, opts))).map((row) => propsToHistory(row.entry as Props)));
    },

    async loadState(scope, name) {
      requireOpen();
      const s = checkScope(scope);
      checkStateName(name);
      return guarded('loadState', async (r) => {
        const rows = await r.read(buildLoadStateQuery(s, name));
        return rows.length ? String(rows[0].value) : null;
      });
    },

    async saveState(scope, name, value) {
      requireOpen();
      const s = checkScope(scope);
      checkStateName(name);
      checkStateValue(value);
      await guarded('saveState', (r) =>
        r.write(async (tx) => {
          await tx.run(value === null ? buildDeleteStateQuery(s, name) : buildSaveStateQuery(s, name, value));
        }),
      );
    },

    async scopes() {
      requireOpen();
      return guarded('scopes', async (r) => (await r.read(buildScopesQuery())).map((row) => propsToScope(row)));
    },

    async close() {
      if (closed) return;
      closed = true;
      opened = null;
      const r = runner;
      runner = null;
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

/**
 * Pure Cypher builders (ours): every store method is one or more `{ cypher, params }` pairs built
 * here, so each can be unit-tested without a server. Rules every builder follows:
 * - every value (ids, text, scope fields, vectors, limits) is a query parameter;
 * - labels, relationship types, property keys and index names come only from `schema.ts`
 *   constants and `@mem/core`'s closed enums, never from caller input;
 * - every query on `:Memory` / `:MemoryHistory` filters on `scopeKey = $scopeKey`
 *   (the one exception is `buildScopesQuery`, which lists the scopes themselves).
 */
import neo4j from 'neo4j-driver';
import type { HistoryEntry, HistoryOptions, ListOptions, MemoryNode, NeighborQuery, Relation, RelationSubtype, RelationView, ResolvedScope, StoreMeta, WriteBatch } from '@mem/store-spec';
import { RELATION_VIEWS, scopeKey, searchTokens } from '@mem/store-spec';
import { historyToProps, nodeToProps, relationToProps, uidOf } from './codec.js';
import { HISTORY_LABEL, INDEX_NAMES, MEMORY_LABEL, META_LABEL, STATE_LABEL, VIEW_REL_TYPES } from './schema.js';

export interface CypherQuery {
  /** Stable name of the query (for traces and tests). */
  name: string;
  cypher: string;
  params: Record<string, unknown>;
}

/** Key of the single `:MemoryMeta` node. */
export const META_KEY = 'meta';

/** Neo4j integer parameter (JS numbers are sent as floats, which LIMIT/SKIP reject). */
export function int(n: number): ReturnType<typeof neo4j.int> {
  return neo4j.int(Math.max(0, Math.floor(n)));
}

/** `LIMIT $limit` with `params.limit` set, or `''` (and no parameter) when `limit` is undefined. */
function limitClause(params: Record<string, unknown>, limit: number | undefined): string {
  if (limit === undefined) return '';
  params.limit = int(limit);
  return 'LIMIT $limit';
}

/**
 * Planner hint: look nodes up by the `uid` uniqueness constraint's index. Without it Neo4j may
 * choose the scope index and filter the scope's nodes (seen in PROFILE on a real 5.26 server).
 */
const UID_HINT = (v: string): string => `USING INDEX SEEK ${v}:${MEMORY_LABEL}(uid)`;

const q = (name: string, cypher: string, params: Record<string, unknown>): CypherQuery => ({
  name,
  cypher: cypher.replace(/\s+/g, ' ').trim(),
  params,
});

/** Relationship-type alternation for the given views, e.g. `SEMANTIC|CAUSAL` (closed enum only). */
export function relTypesFor(views?: readonly RelationView[]): string {
  const vs = views ?? RELATION_VIEWS;
  // own-property lookup only: an inherited name ('constructor', 'toString') is not a view
  const types = [...new Set(vs.map((v) => (Object.prototype.hasOwnProperty.call(VIEW_REL_TYPES, v) ? VIEW_REL_TYPES[v] : undefined)))];
  if (types.length === 0 || types.some((t) => typeof t !== 'string')) throw new Error(`unknown relation view in ${JSON.stringify(vs)}`);
  return types.join('|');
}

// ---------------------------------------------------------------------------------------------
// Schema and metadata

/**
 * Idempotent schema statements (each runs in its own auto-commit transaction): uniqueness
 * constraints on `:Memory(uid)` (uid = [scopeKey, id]: ids are unique per scope) and
 * `:MemoryMeta(key)`, range indexes on the scope key, content hash, history order and relationship
 * uids, a cosine vector index on `embedding` with the embedder's dimension, and a full-text index
 * (whitespace analyzer) on `searchText`, core's normalised token string of `text`.
 */
export function buildSchemaQueries(dimension: number): CypherQuery[] {
  return [
    q('constraint.memoryId', `CREATE CONSTRAINT ${INDEX_NAMES.idConstraint} IF NOT EXISTS FOR (m:${MEMORY_LABEL}) REQUIRE m.uid IS UNIQUE`, {}),
    // one node per distinct observation, enforced by the database (several writers): contentKey = [scopeKey, contentHash]
    q('constraint.contentKey', `CREATE CONSTRAINT ${INDEX_NAMES.contentConstraint} IF NOT EXISTS FOR (m:${MEMORY_LABEL}) REQUIRE m.contentKey IS UNIQUE`, {}),
    q('constraint.metaKey', `CREATE CONSTRAINT ${INDEX_NAMES.metaConstraint} IF NOT EXISTS FOR (m:${META_LABEL}) REQUIRE m.key IS UNIQUE`, {}),
    q('constraint.stateKey', `CREATE CONSTRAINT ${INDEX_NAMES.stateConstraint} IF NOT EXISTS FOR (s:${STATE_LABEL}) REQUIRE s.key IS UNIQUE`, {}),
    q('index.scope', `CREATE INDEX ${INDEX_NAMES.scope} IF NOT EXISTS FOR (m:${MEMORY_LABEL}) ON (m.scopeKey)`, {}),
    // keyset pages of a scope in id order (scanNodes: the write path's rebuild after a start)
    q('index.scopeId', `CREATE INDEX ${INDEX_NAMES.scopeId} IF NOT EXISTS FOR (m:${MEMORY_LABEL}) ON (m.scopeKey, m.id)`, {}),
    q('index.stateScope', `CREATE INDEX ${INDEX_NAMES.stateScope} IF NOT EXISTS FOR (s:${STATE_LABEL}) ON (s.scopeKey)`, {}),
    q('index.contentHash', `CREATE INDEX ${INDEX_NAMES.contentHash} IF NOT EXISTS FOR (m:${MEMORY_LABEL}) ON (m.scopeKey, m.contentHash)`, {}),
    q('index.history', `CREATE INDEX ${INDEX_NAMES.historyScope} IF NOT EXISTS FOR (h:${HISTORY_LABEL}) ON (h.scopeKey, h.seq)`, {}),
    q(
      'index.vector',
      `CREATE VECTOR INDEX ${INDEX_NAMES.vector} IF NOT EXISTS FOR (m:${MEMORY_LABEL}) ON (m.embedding)
       OPTIONS { indexConfig: { \`vector.dimensions\`: toInteger($dimension), \`vector.similarity_function\`: 'cosine' } }`,
      { dimension: int(dimension) },
    ),
    q(
      'index.fulltext',
      `CREATE FULLTEXT INDEX ${INDEX_NAMES.fulltext} IF NOT EXISTS FOR (m:${MEMORY_LABEL}) ON EACH [m.searchText]
       OPTIONS { indexConfig: { \`fulltext.analyzer\`: 'whitespace' } }`,
      {},
    ),
    ...RELATION_VIEWS.map((view) =>
      q(
        `index.relation.${view}`,
        `CREATE INDEX ${INDEX_NAMES.relationUid}_${view} IF NOT EXISTS FOR ()-[e:${VIEW_REL_TYPES[view]}]-() ON (e.uid)`,
        {},
      ),
    ),
  ];
}

/** Wait until the store's indexes are online (the vector / full-text indexes populate asynchronously). */
export function buildAwaitIndexesQuery(timeoutSeconds: number): CypherQuery {
  return q('index.await', 'CALL db.awaitIndexes(toInteger($timeoutSeconds))', { timeoutSeconds: int(timeoutSeconds) });
}

export function buildReadMetaQuery(): CypherQuery {
  return q('meta.read', `MATCH (x:${META_LABEL} {key: $key}) RETURN x {.*} AS meta`, { key: META_KEY });
}

/** Create the meta node on first open (MERGE is safe under the key constraint); returns what is recorded. */
export function buildInitMetaQuery(meta: StoreMeta): CypherQuery {
  return q(
    'meta.init',
    `MERGE (x:${META_LABEL} {key: $key})
     ON CREATE SET x.schemaVersion = $schemaVersion, x.embeddingModel = $embeddingModel, x.dimension = $dimension, x.seq = 0
     RETURN x {.*} AS meta`,
    { key: META_KEY, schemaVersion: int(meta.schemaVersion), embeddingModel: meta.embeddingModel, dimension: int(meta.dimension) },
  );
}

/** Prefix of the `:MemoryMeta` keys a scope's write lock takes (`lockScopes`; never committed). */
export const SCOPE_LOCK_PREFIX = 'writeLock:';

/**
 * Take the write lock of each scope key, in the given (sorted) order, so two holders never wait on
 * each other in a cycle: MERGE of a `:MemoryMeta` node keyed `writeLock:<scopeKey>` (the key
 * constraint makes a second MERGE of the same key wait for the first transaction to end) and a
 * property write on it. The store rolls the transaction back to release the locks: nothing is stored.
 */
export function buildScopeLockQuery(keys: readonly string[]): CypherQuery {
  return q(
    'lock.scopes',
    `UNWIND $keys AS k
     MERGE (l:${META_LABEL} {key: $prefix + k})
     SET l._lock = true
     RETURN count(l) AS locked`,
    { keys: [...keys], prefix: SCOPE_LOCK_PREFIX },
  );
}

// ---------------------------------------------------------------------------------------------
// Writes (all run inside one transaction by the store)

/**
 * Reserve `count` sequence numbers (base + 1 … base + count) from the counter on the `:MemoryMeta`
 * node. Setting `_lock` first takes the node's write lock, so concurrent writers serialise and
 * numbers are never handed out twice. Used for node/relation insertion order and history `seq`.
 */
export function buildReserveSeqQuery(count: number): CypherQuery {
  return q(
    'write.reserveSeq',
    `MATCH (x:${META_LABEL} {key: $key})
     SET x._lock = true
     WITH x, coalesce(x.seq, 0) AS base
     SET x.seq = base + $count
     REMOVE x._lock
     RETURN base`,
    { key: META_KEY, count: int(count) },
  );
}

/**
 * Upsert nodes by (scope, id) — the same semantics as the SQLite store: a node written again
 * replaces its properties and keeps its insertion number. `rids[i]` numbers `nodes[i]`.
 */
export function buildUpsertNodesQuery(scope: ResolvedScope, nodes: readonly MemoryNode[], rids: readonly number[] = []): CypherQuery {
  return q(
    'write.nodes',
    `UNWIND $nodes AS n
     WITH n WHERE n.scopeKey = $scopeKey
     MERGE (m:${MEMORY_LABEL} {uid: n.uid})
     WITH m, n, m.rid AS oldRid
     SET m = n
     SET m.rid = coalesce(oldRid, n.rid)
     RETURN count(m) AS written`,
    { scopeKey: scopeKey(scope), nodes: nodes.map((n, i) => nodeToProps(n, rids[i] ?? 0)) },
  );
}

/** Apply `obsoleteBy` updates; counts only rows whose node (and non-null target) exist in the scope. */
export function buildNodeUpdatesQuery(scope: ResolvedScope, updates: NonNullable<WriteBatch['nodeUpdates']>): CypherQuery {
  return q(
    'write.nodeUpdates',
    `UNWIND $updates AS u
     MATCH (m:${MEMORY_LABEL} {uid: u.uid}) ${UID_HINT('m')}
     WHERE m.scopeKey = $scopeKey
     OPTIONAL MATCH (t:${MEMORY_LABEL} {uid: u.targetUid}) ${UID_HINT('t')}
     WHERE t.scopeKey = $scopeKey
     WITH m, u, t WHERE u.targetUid IS NULL OR t IS NOT NULL
     SET m.obsoleteBy = CASE WHEN u.setObsoleteBy THEN u.obsoleteBy ELSE m.obsoleteBy END
     RETURN count(m) AS updated`,
    {
      scopeKey: scopeKey(scope),
      updates: updates.map((u) => ({
        uid: uidOf(scope, u.id),
        setObsoleteBy: u.obsoleteBy !== undefined,
        obsoleteBy: u.obsoleteBy ?? null,
        targetUid: u.obsoleteBy ? uidOf(scope, u.obsoleteBy) : null,
      })),
    },
  );
}

/**
 * Relations are upserted by (scope, id) like the SQLite store: one query per relationship type
 * removes earlier relationships with the batch's relation ids (returning their insertion numbers,
 * which the re-written relation keeps), then {@link buildCreateRelationsQueries} creates them.
 */
export function buildClearRelationsQueries(scope: ResolvedScope, relations: readonly Relation[]): CypherQuery[] {
  const uids = relations.map((r) => uidOf(scope, r.id));
  return RELATION_VIEWS.map((view) =>
    q(
      `write.relations.clear.${view}`,
      `MATCH (a:${MEMORY_LABEL})-[o:${VIEW_REL_TYPES[view]}]->(:${MEMORY_LABEL})
       WHERE o.uid IN $uids AND a.scopeKey = $scopeKey
       WITH o, o.id AS id, o.rid AS rid
       DELETE o
       RETURN id, rid`,
      { scopeKey: scopeKey(scope), uids },
    ),
  );
}

/** One query per relation view present in the batch; the relationship type is the view's enum type. */
export function buildCreateRelationsQueries(scope: ResolvedScope, relations: readonly Relation[], rids: ReadonlyMap<string, number> = new Map()): CypherQuery[] {
  const byView = new Map<RelationView, Relation[]>();
  for (const r of relations) {
    if (!Object.prototype.hasOwnProperty.call(VIEW_REL_TYPES, r.view)) throw new Error(`unknown relation view ${JSON.stringify(r.view)}`);
    const list = byView.get(r.view) ?? [];
    list.push(r);
    byView.set(r.view, list);
  }
  return [...byView.entries()].map(([view, rels]) =>
    q(
      `write.relations.${view}`,
      `UNWIND $relations AS r
       MATCH (a:${MEMORY_LABEL} {uid: r.fromUid}) ${UID_HINT('a')} WHERE a.scopeKey = $scopeKey
       MATCH (b:${MEMORY_LABEL} {uid: r.toUid}) ${UID_HINT('b')} WHERE b.scopeKey = $scopeKey
       CREATE (a)-[e:${VIEW_REL_TYPES[view]}]->(b)
       SET e = r.props
       RETURN count(e) AS written`,
      {
        scopeKey: scopeKey(scope),
        relations: rels.map((r) => ({
          fromUid: uidOf(scope, r.from),
          toUid: uidOf(scope, r.to),
          props: relationToProps(scope, r, rids.get(r.id) ?? 0),
        })),
      },
    ),
  );
}

/** Append history rows; `seqs[i]` is the store-assigned sequence number of `rows[i]`. */
export function buildAppendHistoryQuery(scope: ResolvedScope, rows: readonly HistoryEntry[], seqs: readonly number[] = []): CypherQuery {
  return q(
    'write.history',
    `UNWIND $rows AS h
     WITH h WHERE h.scopeKey = $scopeKey
     CREATE (y:${HISTORY_LABEL})
     SET y = h
     RETURN count(y) AS written`,
    { scopeKey: scopeKey(scope), rows: rows.map((h, i) => historyToProps(h, seqs[i] ?? 0)) },
  );
}

/** Delete a node with its relationships (and so its index entries); returns `rels` = relationships removed, no row when absent. */
export function buildForgetQuery(scope: ResolvedScope, id: string): CypherQuery {
  return q(
    'write.forget',
    `MATCH (m:${MEMORY_LABEL} {uid: $uid}) ${UID_HINT('m')}
     WHERE m.scopeKey = $scopeKey
     WITH m, COUNT { (m)-[:${relTypesFor()}]-() } AS rels
     DETACH DELETE m
     RETURN rels`,
    { scopeKey: scopeKey(scope), uid: uidOf(scope, id) },
  );
}

/** How many memories a scope holds (read inside `forgetScope`'s transaction, to reserve history numbers). */
export function buildCountScopeForForgetQuery(scope: ResolvedScope): CypherQuery {
  return q('write.forgetScope.count', `MATCH (m:${MEMORY_LABEL}) WHERE m.scopeKey = $scopeKey RETURN count(m) AS n`, { scopeKey: scopeKey(scope) });
}

/**
 * Delete up to `limit` memories of a scope with their relationships (and so their index entries);
 * one row per node: `id` and `rels` = its relationships removed (a relationship between two deleted
 * nodes is counted at both ends). Ordered by id, so history rows follow write order.
 */
export function buildForgetScopeQuery(scope: ResolvedScope, limit: number): CypherQuery {
  return q(
    'write.forgetScope',
    `MATCH (m:${MEMORY_LABEL}) WHERE m.scopeKey = $scopeKey
     WITH m ORDER BY m.id LIMIT $limit
     WITH m, m.id AS id, COUNT { (m)-[:${relTypesFor()}]-() } AS rels
     DETACH DELETE m
     RETURN id, rels`,
    { scopeKey: scopeKey(scope), limit: int(limit) },
  );
}

/** Key of a `:MemoryState` node: scope key and name, JSON-encoded (unambiguous for any strings). */
export function stateKeyOf(scope: ResolvedScope, name: string): string {
  return JSON.stringify([scopeKey(scope), name]);
}

/** Save (replace) a scope's named derived state. */
export function buildSaveStateQuery(scope: ResolvedScope, name: string, value: string): CypherQuery {
  return q(
    'write.state.save',
    `MERGE (s:${STATE_LABEL} {key: $key})
     SET s.scopeKey = $scopeKey, s.name = $name, s.value = $value, s.updatedAt = $at`,
    { key: stateKeyOf(scope, name), scopeKey: scopeKey(scope), name, value, at: new Date().toISOString() },
  );
}

/** Delete a scope's named derived state (no-op when absent). */
export function buildDeleteStateQuery(scope: ResolvedScope, name: string): CypherQuery {
  return q('write.state.delete', `MATCH (s:${STATE_LABEL} {key: $key}) DELETE s`, { key: stateKeyOf(scope, name) });
}

/** Drop every derived state of a scope (run by `forget` in its transaction when a node was removed). */
export function buildDropScopeStateQuery(scope: ResolvedScope): CypherQuery {
  return q('write.state.dropScope', `MATCH (s:${STATE_LABEL}) WHERE s.scopeKey = $scopeKey DELETE s`, { scopeKey: scopeKey(scope) });
}

/** A scope's named derived state: one row `{ value }`, none when absent. */
export function buildLoadStateQuery(scope: ResolvedScope, name: string): CypherQuery {
  return q('read.state', `MATCH (s:${STATE_LABEL} {key: $key}) RETURN s.value AS value`, { key: stateKeyOf(scope, name) });
}

// ---------------------------------------------------------------------------------------------
// Reads

export function buildGetQuery(scope: ResolvedScope, id: string): CypherQuery {
  return q('read.get', `MATCH (m:${MEMORY_LABEL} {uid: $uid}) ${UID_HINT('m')} WHERE m.scopeKey = $scopeKey RETURN m {.*} AS node`, {
    scopeKey: scopeKey(scope),
    uid: uidOf(scope, id),
  });
}

/** Nodes in the order of `ids` (duplicates and absent ids dropped). */
export function buildGetManyQuery(scope: ResolvedScope, ids: readonly string[]): CypherQuery {
  return q(
    'read.getMany',
    `UNWIND range(0, size($uids) - 1) AS i
     MATCH (m:${MEMORY_LABEL} {uid: $uids[i]}) ${UID_HINT('m')}
     WHERE m.scopeKey = $scopeKey
     RETURN m {.*} AS node
     ORDER BY i`,
    { scopeKey: scopeKey(scope), uids: [...new Set(ids)].map((id) => uidOf(scope, id)) },
  );
}

const ORDER_KEYS = { observedAt: 'observedMs', createdAt: 'createdMs' } as const;
const DIRECTIONS = { asc: 'ASC', desc: 'DESC' } as const;

export function buildListQuery(scope: ResolvedScope, options: ListOptions = {}): CypherQuery {
  const key = ORDER_KEYS[options.orderBy ?? 'observedAt'];
  const dir = DIRECTIONS[options.order ?? 'asc'];
  if (!key || !dir) throw new Error('invalid list ordering');
  const params: Record<string, unknown> = { scopeKey: scopeKey(scope), offset: int(options.offset ?? 0) };
  const limit = limitClause(params, options.limit);
  return q(
    'read.list',
    `MATCH (m:${MEMORY_LABEL}) WHERE m.scopeKey = $scopeKey
     RETURN m {.*} AS node
     ORDER BY m.${key} ${dir}, m.rid ${dir}
     SKIP $offset ${limit}`,
    params,
  );
}

/**
 * One keyset page of a scope's memories in id order (`MemoryStore.scanNodes`; issue 33): the
 * `(scopeKey, id)` index seeks past `afterId`, and only the fields a write-path rebuild reads are
 * projected (no text, types or event time). Neo4j compares strings by UTF-16 code units, as
 * JavaScript does.
 */
export function buildScanNodesQuery(scope: ResolvedScope, afterId: string, limit: number): CypherQuery {
  return q(
    'read.scan',
    `MATCH (m:${MEMORY_LABEL}) WHERE m.scopeKey = $scopeKey AND m.id > $afterId
     WITH m ORDER BY m.id ASC LIMIT $limit
     RETURN m {.id, .observedAt, .entities, .keywords, .embedding, .gate, .sourceId, .metadata} AS node`,
    { scopeKey: scopeKey(scope), afterId, limit: int(limit) },
  );
}

export function buildCountQuery(scope: ResolvedScope): CypherQuery {
  return q('read.count', `MATCH (m:${MEMORY_LABEL}) WHERE m.scopeKey = $scopeKey RETURN count(m) AS count`, { scopeKey: scopeKey(scope) });
}

export function buildFindByContentHashQuery(scope: ResolvedScope, contentHash: string): CypherQuery {
  return q(
    'read.contentHash',
    `MATCH (m:${MEMORY_LABEL}) WHERE m.scopeKey = $scopeKey AND m.contentHash = $contentHash
     RETURN m {.*} AS node ORDER BY m.rid LIMIT 1`,
    { scopeKey: scopeKey(scope), contentHash },
  );
}

/** What a search query returns per hit: the whole node (`node {.*}`), or only its id (the `…Ids` fast paths). */
export type HitProjection = 'node' | 'id';
const project = (v: string, p: HitProjection) => (p === 'id' ? `${v}.id AS id` : `${v} {.*} AS node`);

/**
 * Exact k-NN inside the scope. `vector.similarity.cosine` returns (1 + cos)/2 in [0, 1]
 * (Neo4j docs); the query maps it back to cosine in [-1, 1]. Ordered and cut to k before the
 * projection, so only the k kept nodes are read out (issue 33).
 */
export function buildVectorSearchExactQuery(scope: ResolvedScope, vector: ArrayLike<number>, k: number, projection: HitProjection = 'node'): CypherQuery {
  return q(
    'read.vector.exact',
    `MATCH (m:${MEMORY_LABEL}) WHERE m.scopeKey = $scopeKey
     WITH m, vector.similarity.cosine(m.embedding, $vector) AS s
     ORDER BY s DESC, m.rid ASC
     LIMIT $k
     RETURN ${project('m', projection)}, 2 * s - 1 AS score`,
    { scopeKey: scopeKey(scope), vector: Array.from(vector), k: int(k) },
  );
}

/**
 * Approximate k-NN through the vector index. The index spans all scopes, so it is asked for
 * `candidates` neighbours and filtered to the scope afterwards; the store falls back to the exact
 * query when fewer than k survive. Ordered and cut to k before the projection.
 */
export function buildVectorSearchIndexQuery(scope: ResolvedScope, vector: ArrayLike<number>, k: number, candidates: number, projection: HitProjection = 'node'): CypherQuery {
  return q(
    'read.vector.index',
    `CALL db.index.vector.queryNodes($indexName, $candidates, $vector) YIELD node, score
     WITH node, score WHERE node.scopeKey = $scopeKey
     WITH node, score ORDER BY score DESC, node.rid ASC LIMIT $k
     RETURN ${project('node', projection)}, 2 * score - 1 AS score`,
    { indexName: INDEX_NAMES.vector, scopeKey: scopeKey(scope), vector: Array.from(vector), k: int(k), candidates: int(Math.max(k, candidates)) },
  );
}

/**
 * Turn free text into a Lucene query that cannot be interpreted as syntax: core's `searchTokens`
 * (the SQLite store's normalisation: lower case, CJK unigrams + bigrams, …) keeps only runs of
 * letters and digits, so no Lucene operator character survives and AND/OR/NOT are lower-cased
 * words; they are OR-ed so BM25 ranks by how many query words a memory contains.
 * Returns null when nothing searchable is left.
 */
export function toLuceneQuery(text: string, maxTokens = 64): string | null {
  const tokens = searchTokens(text, maxTokens);
  if (tokens.length === 0) return null;
  return tokens.join(' OR ');
}

/**
 * Full-text (Lucene BM25) search filtered to the scope (issue 33: bounded). The index is asked for
 * its best `fetch` hits over all scopes (`{limit}`: Lucene ranks them, nothing else is read), the
 * scope's among them are ordered (score, then insertion number) and cut to k before the
 * projection. Each row also carries `fetched` (hits the index returned) and `lastScore` (the
 * lowest of them), so the store can tell whether a larger `fetch` could change the answer (see
 * `lexicalSearch`); a fetch without an in-scope hit returns one row with `node`/`id` null.
 * Caller text goes in only through `toLuceneQuery` as a parameter.
 */
export function buildLexicalSearchQuery(scope: ResolvedScope, luceneQuery: string, k: number, fetch: number = Math.max(k, 1), projection: HitProjection = 'node'): CypherQuery {
  return q(
    'read.lexical',
    `CALL db.index.fulltext.queryNodes($indexName, $query, {limit: $fetch}) YIELD node, score
     WITH collect([node, score]) AS found
     WITH size(found) AS fetched, CASE WHEN size(found) = 0 THEN null ELSE found[size(found) - 1][1] END AS lastScore,
          [x IN found WHERE x[0].scopeKey = $scopeKey] AS mine
     UNWIND CASE WHEN size(mine) = 0 THEN [null] ELSE mine END AS x
     WITH fetched, lastScore, x[0] AS node, x[1] AS score
     ORDER BY score DESC, node.rid ASC LIMIT $k
     RETURN ${projection === 'id' ? 'node.id AS id' : 'CASE WHEN node IS NULL THEN null ELSE node {.*} END AS node'}, score, fetched, lastScore`,
    { indexName: INDEX_NAMES.fulltext, scopeKey: scopeKey(scope), query: luceneQuery, k: int(k), fetch: int(fetch) },
  );
}

const REL_RETURN = `e {.id, .view, .subtype, .probability, .origin, .createdAt, from: startNode(e).id, to: endNode(e).id} AS relation`;

export function buildNeighborsQuery(scope: ResolvedScope, ids: readonly string[], query: NeighborQuery = {}): CypherQuery {
  const types = relTypesFor(query.views);
  const direction = query.direction ?? 'both';
  const pattern =
    direction === 'out'
      ? `(a:${MEMORY_LABEL})-[e:${types}]->(b:${MEMORY_LABEL})`
      : direction === 'in'
        ? `(a:${MEMORY_LABEL})<-[e:${types}]-(b:${MEMORY_LABEL})`
        : direction === 'both'
          ? `(a:${MEMORY_LABEL})-[e:${types}]-(b:${MEMORY_LABEL})`
          : null;
  if (!pattern) throw new Error('invalid neighbour direction');
  const params: Record<string, unknown> = {
    scopeKey: scopeKey(scope),
    ids: [...new Set(ids)],
    subtypes: query.subtypes ? [...query.subtypes] : null,
  };
  const limit = limitClause(params, query.limit);
  return q(
    'read.neighbors',
    `MATCH ${pattern}
     WHERE a.scopeKey = $scopeKey AND b.scopeKey = $scopeKey AND a.id IN $ids
       AND ($subtypes IS NULL OR e.subtype IN $subtypes)
     RETURN ${REL_RETURN}, b {.*} AS node, a.id AS fromId
     ORDER BY e.probability DESC, e.rid ASC, fromId ASC
     ${limit}`,
    params,
  );
}

export function buildRelationsQuery(scope: ResolvedScope, options: { nodeId?: string; limit?: number } = {}): CypherQuery {
  const params: Record<string, unknown> = { scopeKey: scopeKey(scope), nodeId: options.nodeId ?? null };
  const limit = limitClause(params, options.limit);
  return q(
    'read.relations',
    `MATCH (a:${MEMORY_LABEL})-[e:${relTypesFor()}]->(b:${MEMORY_LABEL})
     WHERE a.scopeKey = $scopeKey AND b.scopeKey = $scopeKey
       AND ($nodeId IS NULL OR a.id = $nodeId OR b.id = $nodeId)
     RETURN ${REL_RETURN}
     ORDER BY e.rid ASC
     ${limit}`,
    params,
  );
}

/**
 * History rows of the scope (optionally of one node, optionally only those with `seq > afterSeq`),
 * oldest first; with `limit`, the latest `limit` rows. `seq` comes from the locked meta counter
 * (`buildReserveSeqQuery`), so seq order is commit order and rows after a seen seq are what was added since.
 */
export function buildHistoryQuery(scope: ResolvedScope, options: HistoryOptions = {}): CypherQuery {
  const params: Record<string, unknown> = { scopeKey: scopeKey(scope), nodeId: options.nodeId ?? null, afterSeq: int(options.afterSeq ?? 0) };
  const limit = limitClause(params, options.limit);
  return q(
    'read.history',
    `MATCH (h:${HISTORY_LABEL})
     WHERE h.scopeKey = $scopeKey AND ($nodeId IS NULL OR h.nodeId = $nodeId) AND h.seq > $afterSeq
     WITH h ORDER BY h.seq DESC ${limit}
     RETURN h {.*} AS entry
     ORDER BY entry.seq ASC`,
    params,
  );
}

/** Every scope holding at least one node (the only query without a scope filter: it lists scopes). */
export function buildScopesQuery(): CypherQuery {
  return q(
    'read.scopes',
    `MATCH (m:${MEMORY_LABEL})
     WITH DISTINCT m.scopeKey AS scopeKey, m.namespace AS namespace, m.userId AS userId, m.agentId AS agentId, m.runId AS runId
     RETURN namespace, userId, agentId, runId
     ORDER BY scopeKey`,
    {},
  );
}

/** All subtypes a view may carry (closed enum), for validation. */
export type { RelationSubtype };

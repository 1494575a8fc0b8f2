/**
 * Shape validation of a WriteBatch, shared by store adapters (ours). Checks everything that can be
 * checked without reading the store; adapters then check existence (relation endpoints, node
 * updates) inside their transaction. Throws MemValidationError before anything is written.
 */
import { MemValidationError } from './errors.js';
import { resolveScope, scopeKey } from './scope.js';
import {
  RELATION_SUBTYPES,
  RELATION_VIEWS,
  type HistoryEntry,
  type HistoryOp,
  type MemoryNode,
  type NeighborQuery,
  type Relation,
  type ResolvedScope,
  type StoreMeta,
  type WriteBatch,
} from './types.js';

export const HISTORY_OPS: readonly HistoryOp[] = ['ADD', 'UPDATE', 'NOOP', 'RELATE', 'CONSOLIDATE', 'OBSOLETE', 'FORGET', 'REEMBED'];

function invalid(message: string, details?: Record<string, unknown>): never {
  throw new MemValidationError('INVALID_INPUT', message, details ? { details } : undefined);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** SQLite (UTF-8) reads a lone UTF-16 surrogate back as U+FFFD characters: the string read back would differ. */
function wellFormed(v: string, what: string): string {
  if (LONE_SURROGATE.test(v)) invalid(`${what} contains a lone UTF-16 surrogate`);
  return v;
}

/**
 * Validate a derived-state name (`MemoryStore.loadState` / `saveState`, ours): a string of 1–200
 * characters. For every adapter. @throws MemValidationError INVALID_INPUT
 */
export function checkStateName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || name.length === 0 || name.length > 200) {
    invalid('state name must be a string of 1 to 200 characters', { name: typeof name === 'string' ? name.slice(0, 40) : typeof name });
  }
}

/**
 * Validate a derived-state value (`MemoryStore.saveState`, ours): a string without a lone UTF-16
 * surrogate (UTF-8 storage would read it back as U+FFFD, another value), or null (delete).
 * @throws MemValidationError INVALID_INPUT
 */
export function checkStateValue(value: unknown): asserts value is string | null {
  if (value === null) return;
  if (typeof value !== 'string') invalid('state value must be a string or null');
  wellFormed(value, 'state value');
}

const VIEW_SET: ReadonlySet<string> = new Set(RELATION_VIEWS);
const SUBTYPE_SET: ReadonlySet<string> = new Set(Object.keys(RELATION_SUBTYPES));

/**
 * Validate the filters of `MemoryStore.neighbors` (ours), for every adapter: `views` and `subtypes`
 * must be arrays whose members are in the closed enums `RELATION_VIEWS` / `RELATION_SUBTYPES`,
 * checked against Sets of those names, so inherited property names (`constructor`, `toString`,
 * `__proto__`) are refused before they can reach a query (the Neo4j store puts the view's
 * relationship type into the Cypher text); `direction` must be in, out or both.
 * @throws MemValidationError INVALID_INPUT
 */
export function checkNeighborQuery(query: NeighborQuery | undefined): void {
  if (query === undefined) return;
  if (query === null || typeof query !== 'object') invalid('neighbour query must be an object');
  if (query.views !== undefined) {
    if (!Array.isArray(query.views)) invalid('views must be an array of relation views');
    for (const v of query.views) if (typeof v !== 'string' || !VIEW_SET.has(v)) invalid(`unknown view ${JSON.stringify(v)}`, { allowed: [...VIEW_SET] });
  }
  if (query.subtypes !== undefined) {
    if (!Array.isArray(query.subtypes)) invalid('subtypes must be an array of relation subtypes');
    for (const t of query.subtypes) if (typeof t !== 'string' || !SUBTYPE_SET.has(t)) invalid(`unknown subtype ${JSON.stringify(t)}`);
  }
  if (query.direction !== undefined && query.direction !== 'in' && query.direction !== 'out' && query.direction !== 'both') {
    invalid("direction must be 'in', 'out' or 'both'");
  }
}

function nonEmptyString(v: unknown, what: string): string {
  if (typeof v !== 'string' || v.length === 0) invalid(`${what} must be a non-empty string`);
  return wellFormed(v, what);
}

/** ISO-8601 date, or date-time with a zone (`Z` / `±HH:MM`); a zone-less time would be read in the process's local zone. */
const ISO_8601 = /^(?:\d{4}|[+-]\d{6})-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/;

/** Date strings already accepted in the batch being checked (a batch's relations and history rows share a few timestamps). */
let acceptedDates: Set<string> | null = null;

function isoString(v: unknown, what: string): string {
  if (acceptedDates !== null && acceptedDates.has(v as string)) return v as string;
  if (typeof v !== 'string' || !ISO_8601.test(v) || Number.isNaN(Date.parse(v))) {
    throw new MemValidationError('BAD_DATE', `${what} must be an ISO-8601 date string`, { details: { value: v } });
  }
  acceptedDates?.add(v);
  return v;
}

/**
 * Check a vector: array-like of `dimension` finite numbers, not all zero. Returns it as a
 * Float32Array (a copy when the input was not one). Throws DIMENSION_MISMATCH, NON_FINITE_VECTOR,
 * ZERO_VECTOR.
 */
export function checkVector(v: unknown, dimension: number, what = 'vector'): Float32Array {
  if (v === null || typeof v !== 'object' || typeof (v as ArrayLike<number>).length !== 'number') {
    throw new MemValidationError('INVALID_INPUT', `${what} must be a Float32Array`);
  }
  const arr = v instanceof Float32Array ? v : Float32Array.from(v as ArrayLike<number>);
  if (arr.length !== dimension) {
    throw new MemValidationError('DIMENSION_MISMATCH', `${what} has dimension ${arr.length}, the store records ${dimension}`, {
      details: { expected: dimension, actual: arr.length },
    });
  }
  let sq = 0;
  for (let i = 0; i < arr.length; i++) {
    const x = arr[i];
    if (!Number.isFinite(x)) throw new MemValidationError('NON_FINITE_VECTOR', `${what}[${i}] is not finite`);
    sq += x * x;
  }
  if (sq === 0) throw new MemValidationError('ZERO_VECTOR', `${what} is the zero vector`);
  return arr;
}

function sameScope(a: ResolvedScope, b: ResolvedScope): boolean {
  return scopeKey(a) === scopeKey(b);
}

/**
 * `JSON.stringify(v)`, which must be a JSON object (`{`) or array (`[`) as the field promises: a
 * value that cannot be serialised (cycle, BigInt) or whose `toJSON` turns it into something else
 * (undefined, null, a string) would be stored as something the reader does not expect.
 */
function toJson(v: unknown, kind: '{' | '[', what: string): string {
  let s: string | undefined;
  try {
    s = JSON.stringify(v);
  } catch (cause) {
    throw new MemValidationError('INVALID_INPUT', `${what} is not JSON-serialisable`, { cause });
  }
  if (typeof s !== 'string' || s[0] !== kind) invalid(`${what} must serialise to a JSON ${kind === '{' ? 'object' : 'array'}`);
  return s;
}

/** A node's JSON columns, serialised once by the check (adapters store these strings as they are). */
export interface NodeJson {
  entities: string;
  keywords: string;
  types: string;
  eventTime: string | null;
  gate: string | null;
  metadata: string;
}

function checkNode(input: MemoryNode, scope: ResolvedScope, dimension: number, i: number, json: NodeJson[]): MemoryNode {
  if (!input || typeof input !== 'object') invalid(`nodes[${i}] must be an object`);
  // Every field is read once, here: the check and the adapter's write see the same values (a
  // getter cannot pass the check with one value and store another, or run inside the transaction).
  const node: MemoryNode = { ...input };
  if (node.provenance && typeof node.provenance === 'object') node.provenance = { ...node.provenance };
  const id = nonEmptyString(node.id, `nodes[${i}].id`);
  const nodeScope = resolveScope(node.scope);
  if (!sameScope(nodeScope, scope)) {
    invalid(`nodes[${i}] (${id}) belongs to scope ${scopeKey(nodeScope)}, the batch to ${scopeKey(scope)}`);
  }
  if (typeof node.text !== 'string' || node.text.trim().length === 0) {
    throw new MemValidationError('TEXT_EMPTY', `nodes[${i}].text is empty`);
  }
  wellFormed(node.text, `nodes[${i}].text`);
  if (node.speaker !== null && node.speaker !== undefined && typeof node.speaker !== 'string') {
    invalid(`nodes[${i}].speaker must be a string or null`);
  }
  if (typeof node.speaker === 'string') wellFormed(node.speaker, `nodes[${i}].speaker`);
  isoString(node.observedAt, `nodes[${i}].observedAt`);
  isoString(node.createdAt, `nodes[${i}].createdAt`);
  if (!Array.isArray(node.entities) || !node.entities.every((e) => typeof e === 'string')) invalid(`nodes[${i}].entities must be string[]`);
  if (!Array.isArray(node.keywords) || !node.keywords.every((e) => typeof e === 'string')) invalid(`nodes[${i}].keywords must be string[]`);
  node.entities.forEach((e, j) => wellFormed(e, `nodes[${i}].entities[${j}]`));
  node.keywords.forEach((e, j) => wellFormed(e, `nodes[${i}].keywords[${j}]`));
  if (!node.types || typeof node.types !== 'object') invalid(`nodes[${i}].types must be an object`);
  if (!node.provenance || typeof node.provenance !== 'object' || typeof node.provenance.contentHash !== 'string') {
    invalid(`nodes[${i}].provenance.contentHash must be a string`);
  }
  if (typeof node.provenance.sourceId === 'string') wellFormed(node.provenance.sourceId, `nodes[${i}].provenance.sourceId`);
  json.push({
    entities: toJson(node.entities, '[', `nodes[${i}].entities`),
    keywords: toJson(node.keywords, '[', `nodes[${i}].keywords`),
    types: toJson(node.types, '{', `nodes[${i}].types`),
    eventTime: node.eventTime ? toJson(node.eventTime, '{', `nodes[${i}].eventTime`) : null,
    gate: node.gate ? toJson(node.gate, '{', `nodes[${i}].gate`) : null,
    metadata: toJson(node.provenance.metadata ?? {}, '{', `nodes[${i}].provenance.metadata`),
  });
  const embedding = checkVector(node.embedding, dimension, `nodes[${i}].embedding`);
  node.scope = nodeScope;
  node.embedding = embedding;
  return node;
}

function checkRelation(input: Relation, i: number): Relation {
  if (!input || typeof input !== 'object') invalid(`relations[${i}] must be an object`);
  const rel: Relation = { ...input }; // read once (see checkNode)
  nonEmptyString(rel.id, `relations[${i}].id`);
  nonEmptyString(rel.from, `relations[${i}].from`);
  nonEmptyString(rel.to, `relations[${i}].to`);
  if (rel.from === rel.to) invalid(`relations[${i}] (${rel.id}) links ${rel.from} to itself`);
  if (!Object.prototype.hasOwnProperty.call(RELATION_SUBTYPES, rel.subtype)) {
    invalid(`relations[${i}].subtype ${JSON.stringify(rel.subtype)} is not a RelationSubtype`);
  }
  const view = RELATION_SUBTYPES[rel.subtype];
  if (rel.view !== view) invalid(`relations[${i}]: subtype ${rel.subtype} belongs to view ${view}, not ${JSON.stringify(rel.view)}`);
  if (typeof rel.probability !== 'number' || !(rel.probability >= 0 && rel.probability <= 1)) {
    invalid(`relations[${i}].probability must be a number in [0, 1]`);
  }
  if (rel.origin !== 'rule' && rel.origin !== 'controller') invalid(`relations[${i}].origin must be 'rule' or 'controller'`);
  isoString(rel.createdAt, `relations[${i}].createdAt`);
  return rel;
}

function checkHistory(input: HistoryEntry, scope: ResolvedScope, i: number, json: string[]): HistoryEntry {
  if (!input || typeof input !== 'object') invalid(`history[${i}] must be an object`);
  const h: HistoryEntry = { ...input }; // read once (see checkNode)
  const hs = resolveScope(h.scope);
  if (!sameScope(hs, scope)) invalid(`history[${i}] belongs to scope ${scopeKey(hs)}, the batch to ${scopeKey(scope)}`);
  if (!HISTORY_OPS.includes(h.op)) invalid(`history[${i}].op ${JSON.stringify(h.op)} is not a HistoryOp`);
  if (h.nodeId !== null && h.nodeId !== undefined && typeof h.nodeId !== 'string') invalid(`history[${i}].nodeId must be a string or null`);
  isoString(h.at, `history[${i}].at`);
  if (h.data !== undefined && (h.data === null || typeof h.data !== 'object')) invalid(`history[${i}].data must be an object`);
  json.push(toJson(h.data ?? {}, '{', `history[${i}].data`));
  return { ...h, scope: hs, nodeId: h.nodeId ?? null, data: h.data ?? {} };
}

export interface CheckedBatch {
  scope: ResolvedScope;
  nodes: MemoryNode[];
  relations: Relation[];
  history: HistoryEntry[];
  nodeUpdates: { id: string; obsoleteBy?: string | null }[];
  /** `nodes[i]`'s JSON columns (entities, keywords, types, eventTime, gate, provenance.metadata). */
  nodeJson: NodeJson[];
  /** `history[i].data` as JSON. */
  historyJson: string[];
}

/**
 * Validate a batch's shape (ours): one scope for everything; unique node and relation ids; node
 * fields, finite non-zero vectors of `dimension`; relation subtype belongs to its view
 * (RELATION_SUBTYPES), probability in [0, 1], no self loops; known history ops. Existence of
 * relation endpoints / updated nodes is the adapter's job (in the batch or in the store, same scope).
 * @throws MemValidationError (SCOPE_MISSING, SCOPE_INVALID, INVALID_INPUT, TEXT_EMPTY, BAD_DATE,
 *   DIMENSION_MISMATCH, NON_FINITE_VECTOR, ZERO_VECTOR)
 */
export function checkWriteBatch(batch: WriteBatch, dimension: number): CheckedBatch {
  acceptedDates = new Set();
  try {
    return checkBatch(batch, dimension);
  } finally {
    acceptedDates = null;
  }
}

function checkBatch(batch: WriteBatch, dimension: number): CheckedBatch {
  if (!batch || typeof batch !== 'object') invalid('batch must be an object');
  const scope = resolveScope(batch.scope);
  for (const key of ['nodes', 'relations', 'history', 'nodeUpdates'] as const) {
    if (batch[key] !== undefined && !Array.isArray(batch[key])) invalid(`batch.${key} must be an array`);
  }
  const nodeJson: NodeJson[] = [];
  const nodes = (batch.nodes ?? []).map((n, i) => checkNode(n, scope, dimension, i, nodeJson));
  const ids = new Set<string>();
  for (const n of nodes) {
    if (ids.has(n.id)) invalid(`node id ${n.id} appears twice in the batch`);
    ids.add(n.id);
  }
  const relations = (batch.relations ?? []).map((r, i) => checkRelation(r, i));
  const relIds = new Set<string>();
  for (const r of relations) {
    if (relIds.has(r.id)) invalid(`relation id ${r.id} appears twice in the batch`);
    relIds.add(r.id);
  }
  const nodeUpdates = (batch.nodeUpdates ?? []).map((input, i) => {
    if (!input || typeof input !== 'object') invalid(`nodeUpdates[${i}] must be an object`);
    const u = { ...input }; // read once (see checkNode)
    nonEmptyString(u.id, `nodeUpdates[${i}].id`);
    if (u.obsoleteBy !== undefined && u.obsoleteBy !== null) nonEmptyString(u.obsoleteBy, `nodeUpdates[${i}].obsoleteBy`);
    return u;
  });
  const historyJson: string[] = [];
  const history = (batch.history ?? []).map((h, i) => checkHistory(h, scope, i, historyJson));
  return { scope, nodes, relations, history, nodeUpdates, nodeJson, historyJson };
}

export function checkCount(v: unknown, what: string, allowUndefined = true): number | undefined {
  if (v === undefined && allowUndefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    throw new MemValidationError('INVALID_INPUT', `${what} must be a non-negative integer`, { details: { value: v } });
  }
  return v;
}

export function checkMeta(meta: StoreMeta): StoreMeta {
  if (!meta || typeof meta !== 'object') throw new MemValidationError('INVALID_INPUT', 'open(meta) needs { schemaVersion, embeddingModel, dimension }');
  if (!Number.isInteger(meta.schemaVersion) || meta.schemaVersion < 1) throw new MemValidationError('INVALID_INPUT', 'meta.schemaVersion must be a positive integer');
  if (typeof meta.embeddingModel !== 'string' || !meta.embeddingModel) throw new MemValidationError('INVALID_INPUT', 'meta.embeddingModel must be a non-empty string');
  if (!Number.isInteger(meta.dimension) || meta.dimension < 1) throw new MemValidationError('INVALID_INPUT', 'meta.dimension must be a positive integer');
  return { schemaVersion: meta.schemaVersion, embeddingModel: meta.embeddingModel, dimension: meta.dimension };
}

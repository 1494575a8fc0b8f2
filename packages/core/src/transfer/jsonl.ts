/**
 * Export and import of a store as a versioned JSONL stream (ours, issue 32 point 3): memories (with
 * their embeddings), relations with their p, history, the scopes' saved gate state, and the
 * embedder the vectors come from. Works on any `MemoryStore` (SQLite, Neo4j): an export of one
 * store imports into another.
 *
 * Format `@mem/export` version 1, one JSON object per line, keys sorted (canonical JSON, so two
 * exports of the same content are byte-identical whatever store they were read from):
 *
 *   {"kind":"header","format":"@mem/export","version":1,"schemaVersion":1,"embedder":{"model":…,"dimension":…},"exportedAt":…,"source":"sqlite"}
 *   {"kind":"scope","scope":{namespace,userId,agentId,runId}}          then, for that scope:
 *   {"kind":"memory","node":{id,text,speaker,observedAt,eventTime,entities,keywords,types,embedding,gate,provenance,obsoleteBy,createdAt}}
 *   {"kind":"relation","relation":{id,from,to,view,subtype,probability,origin,createdAt}}
 *   {"kind":"history","entry":{op,nodeId,at,data}}
 *   {"kind":"state","name":"@mem/gate-vmf","value":"…"}
 *   {"kind":"end","counts":{scopes,memories,relations,history,state}}
 *
 * `embedding` is the vector's Float32 little-endian bytes in base64 (exact). Scopes are in scope-key
 * order, memories and relations in id order (UUIDv7: write order), history in the store's order.
 * What differs between two exports of the same memories: the header's `exportedAt` and `source`
 * only. Store-assigned numbers (history `seq`, row ids) are not exported; the target assigns its
 * own. The `end` line makes a truncated file detectable. History of a scope whose memories were
 * all forgotten is not exported (`MemoryStore.scopes()` lists scopes holding a memory). An export
 * of a store other processes write meanwhile is read page by page, not as one snapshot: a memory
 * written during it may be in it or not (its relations only with it); `mem backup` copies a snapshot.
 *
 * Gate state: the scope's saved `@mem/gate-vmf` snapshot when the write path saved one (scopes of
 * ≥ 1000 memories); a smaller scope's gate is rebuilt exactly from its memories' embeddings and
 * gate decisions on first use (`GateRegistry`), so nothing else is needed to restore it.
 */
import { ImportMismatchError, MemValidationError, ScopeNotFoundError, StoreConflictError, StoreMetaMismatchError, MemError } from '../errors.js';
import { resolveScope, scopeKey } from '../scope.js';
import { checkWriteBatch } from '../store/validate.js';
import type { HistoryEntry, MemoryNode, MemoryStore, Relation, ResolvedScope, Scope, StoreMeta } from '../types.js';
import { GATE_STATE_NAME } from '../write/gates.js';

/** The `format` field of an export header. */
export const EXPORT_FORMAT = '@mem/export';
/** The export format version this build writes and reads. */
export const EXPORT_FORMAT_VERSION = 1;
/** Derived-state names an export carries (`MemoryStore.loadState`). */
export const EXPORTED_STATE_NAMES: readonly string[] = [GATE_STATE_NAME];

/** Header fields that differ between two exports of the same memories (the round-trip test ignores only these). */
export const EXPORT_VOLATILE_FIELDS: readonly string[] = ['exportedAt', 'source'];

const PAGE = 2000;

/** Which scopes to export: every scope whose fields equal the given ones (`{}` or undefined: all). */
export type ScopeMatch = Partial<Pick<Scope, 'namespace' | 'userId' | 'agentId' | 'runId'>>;

export interface ExportOptions {
  /** Only scopes matching these fields (e.g. `{ userId: 'x' }`: every scope of user x, whatever its agent and run). Default: all. Unknown keys: INVALID_INPUT. */
  match?: ScopeMatch;
  /** Clock for the header's `exportedAt` (tests). Default `Date.now`. */
  now?: () => number;
}

export interface ExportCounts {
  scopes: number;
  memories: number;
  relations: number;
  history: number;
  state: number;
}

/**
 * JSON with object keys sorted at every level (ours): the canonical form of every export line.
 * Arrays keep their order; `undefined` members of objects are dropped (as JSON.stringify does).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = sortKeys(x);
    }
    return out;
  }
  return v;
}

/** A Float32Array as base64 of its little-endian bytes. */
export function vectorToBase64(v: Float32Array): string {
  const le = new Float32Array(v); // a copy: the platform is little-endian (Node on x64 / arm64)
  return Buffer.from(le.buffer, le.byteOffset, le.byteLength).toString('base64');
}

/** The inverse of {@link vectorToBase64}; null when the text is not base64 of a whole number of Float32s. */
export function vectorFromBase64(text: unknown): Float32Array | null {
  if (typeof text !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length % 4 !== 0 || bytes.length === 0) return null;
  const out = new Float32Array(bytes.length / 4);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

function checkMatch(match: ScopeMatch | undefined): ScopeMatch {
  if (match === undefined) return {};
  if (!match || typeof match !== 'object') throw new MemValidationError('INVALID_INPUT', 'match must be an object of scope fields');
  const allowed = new Set(['namespace', 'userId', 'agentId', 'runId']);
  for (const [k, v] of Object.entries(match)) {
    if (!allowed.has(k)) throw new MemValidationError('SCOPE_INVALID', `Unknown scope key "${k}" in match (namespace, userId, agentId, runId)`, { details: { key: k } });
    if (v !== undefined && typeof v !== 'string') throw new MemValidationError('SCOPE_INVALID', `match.${k} must be a string`);
  }
  return match;
}

function matches(scope: ResolvedScope, match: ScopeMatch): boolean {
  return (Object.entries(match) as [keyof ScopeMatch, string | undefined][]).every(([k, v]) => v === undefined || scope[k] === v);
}

function nodeRecord(n: MemoryNode): Record<string, unknown> {
  return {
    id: n.id,
    text: n.text,
    speaker: n.speaker ?? null,
    observedAt: n.observedAt,
    eventTime: n.eventTime ?? null,
    entities: n.entities,
    keywords: n.keywords,
    types: n.types,
    embedding: vectorToBase64(n.embedding),
    gate: n.gate ?? null,
    provenance: { sourceId: n.provenance.sourceId ?? null, contentHash: n.provenance.contentHash, metadata: n.provenance.metadata ?? {} },
    obsoleteBy: n.obsoleteBy ?? null,
    createdAt: n.createdAt,
  };
}

function relationRecord(r: Relation): Record<string, unknown> {
  return { id: r.id, from: r.from, to: r.to, view: r.view, subtype: r.subtype, probability: r.probability, origin: r.origin, createdAt: r.createdAt };
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

function reembeddedMeanwhile(meta: StoreMeta, after: StoreMeta | null): StoreConflictError {
  return new StoreConflictError(
    `The store was re-embedded while it was exported (from ${meta.embeddingModel}, ${meta.dimension}-d${after ? ` to ${after.embeddingModel}, ${after.dimension}-d` : ''}): the export would mix two embedding spaces and was stopped before its end line (an import refuses it); export again`,
    { details: { exported: meta, now: after } },
  );
}

/** A match in words for messages: its given fields (`userId "x"`), the empty ones (no agent, no run) left out. */
function describeMatch(match: ScopeMatch): string {
  const parts = Object.entries(match).filter(([, v]) => v !== undefined && v !== '');
  return parts.length ? parts.map(([k, v]) => `${k} ${JSON.stringify(v)}`).join(', ') : 'the default scope';
}

/** Whether the scope a match names exactly (when it names one) has history: it existed, its memories were all forgotten. */
async function scopeHasHistory(store: MemoryStore, match: ScopeMatch): Promise<boolean> {
  let scope: ResolvedScope;
  try {
    scope = resolveScope(match as Scope);
  } catch {
    return false;
  }
  return (await store.history(scope, { limit: 1 })).length > 0;
}

/**
 * Export a store's memories as JSONL lines (each ends with `\n`), see the module comment for the
 * format. The store is opened with the meta it records (`store.meta()`), so it may be passed
 * unopened. Reads page by page; memory use is one scope's relations and history plus a page of nodes.
 * A `match` naming no scope of the store is an error (a misspelt user is not an empty export),
 * unless the scope it names exists without memories (all forgotten: it has history); the export
 * then holds no scope. With an empty `match` (every scope), an empty store exports no scope.
 * Errors are thrown before the first line is yielded.
 * @throws MemValidationError INVALID_INPUT for a store that was never opened (no meta), SCOPE_INVALID for a bad `match`;
 *   ScopeNotFoundError SCOPE_NOT_FOUND when `match` names fields and no scope of the store matches them (nor has history);
 *   StoreConflictError STORE_CONFLICT when the store was re-embedded during the export (thrown before the end line); store errors as the store throws them
 */
export async function* exportMemories(store: MemoryStore, options: ExportOptions = {}): AsyncGenerator<string> {
  const match = checkMatch(options.match);
  const meta = await store.meta();
  if (!meta) throw new MemValidationError('INVALID_INPUT', 'The store holds nothing to export (it was never opened with an embedder)');
  await store.open(meta);
  const scopes = (await store.scopes()).filter((s) => matches(s, match)).sort((a, b) => (scopeKey(a) < scopeKey(b) ? -1 : scopeKey(a) > scopeKey(b) ? 1 : 0));
  if (scopes.length === 0 && Object.values(match).some((v) => v !== undefined) && !(await scopeHasHistory(store, match))) {
    const named = describeMatch(match);
    throw new ScopeNotFoundError(`No scope of the store matches ${named}: nothing was ever written there (check the spelling; an export of every scope lists what the store holds)`, { details: { match } });
  }
  const now = options.now ?? Date.now;
  yield `${canonicalJson({
    kind: 'header',
    format: EXPORT_FORMAT,
    version: EXPORT_FORMAT_VERSION,
    schemaVersion: meta.schemaVersion,
    embedder: { model: meta.embeddingModel, dimension: meta.dimension },
    exportedAt: new Date(now()).toISOString(),
    source: store.kind,
  })}\n`;
  const counts: ExportCounts = { scopes: 0, memories: 0, relations: 0, history: 0, state: 0 };
  for (const scope of scopes) {
    counts.scopes++;
    yield `${canonicalJson({ kind: 'scope', scope })}\n`;
    // nodes in id order: list pages by createdAt, then sort the whole id list (ids are small)
    const ids: string[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await store.list(scope, { orderBy: 'createdAt', order: 'asc', limit: PAGE, offset });
      for (const n of page) ids.push(n.id);
      if (page.length < PAGE) break;
    }
    ids.sort();
    const written = new Set<string>();
    for (let at = 0; at < ids.length; at += PAGE) {
      const nodes = (await store.getMany(scope, ids.slice(at, at + PAGE))).sort(byId);
      for (const n of nodes) {
        if (n.embedding.length !== meta.dimension) throw reembeddedMeanwhile(meta, null);
        counts.memories++;
        written.add(n.id);
        yield `${canonicalJson({ kind: 'memory', node: nodeRecord(n) })}\n`;
      }
    }
    // a live store may gain a memory (and its relations) between the reads: only relations between
    // exported memories are exported, so the file always imports
    for (const r of (await store.relations(scope)).sort(byId)) {
      if (!written.has(r.from) || !written.has(r.to)) continue;
      counts.relations++;
      yield `${canonicalJson({ kind: 'relation', relation: relationRecord(r) })}\n`;
    }
    for (const h of await store.history(scope)) {
      counts.history++;
      yield `${canonicalJson({ kind: 'history', entry: { op: h.op, nodeId: h.nodeId ?? null, at: h.at, data: h.data ?? {} } })}\n`;
    }
    if (store.loadState) {
      for (const name of EXPORTED_STATE_NAMES) {
        const value = await store.loadState(scope, name);
        if (value === null) continue;
        counts.state++;
        yield `${canonicalJson({ kind: 'state', name, value })}\n`;
      }
    }
  }
  // the header's embedder must still be the store's: a re-embedding that switched during the export
  // left vectors of two spaces in it (the end line is never written then, so the file is refused)
  const after = await store.meta();
  if (!after || after.embeddingModel !== meta.embeddingModel || after.dimension !== meta.dimension) throw reembeddedMeanwhile(meta, after);
  yield `${canonicalJson({ kind: 'end', counts })}\n`;
}

/** The header of an export file, as read by {@link importMemories}. */
export interface ExportHeader {
  format: string;
  version: number;
  schemaVersion: number;
  embedder: { model: string; dimension: number };
  exportedAt: string;
  source: string;
}

export interface ImportOptions {
  /**
   * The embedder the caller will use the target with (`{ model, dimension }`, e.g. an `Embedder`):
   * a file from another model or dimension is refused with ImportMismatchError. Default: the file's
   * embedder (the target store must then record the same one, or be new).
   */
  embedder?: { model: string; dimension: number };
  /** The memory-model schema version this build writes (default: the file's; `createMemory` writes `MEMORY_SCHEMA_VERSION`). */
  schemaVersion?: number;
  /**
   * Only the file's scopes matching these fields (as `ExportOptions.match`; e.g. `{ userId: 'x' }`).
   * Default: every scope of the file. The whole file is still checked. A match selecting none of the
   * file's scopes is ScopeNotFoundError SCOPE_NOT_FOUND.
   */
  match?: ScopeMatch;
}

export interface ImportReport {
  header: ExportHeader;
  counts: ExportCounts;
  /** The scopes of the file, in file order (written now, or found imported already). */
  scopes: ResolvedScope[];
  /** Scopes the target already held exactly as in the file (an earlier, interrupted or complete import of it): not written again. */
  skipped: ResolvedScope[];
}

interface ScopeGroup {
  scope: ResolvedScope;
  nodes: MemoryNode[];
  relations: Relation[];
  history: HistoryEntry[];
  state: { name: string; value: string }[];
}

function bad(line: number, message: string): never {
  throw new MemValidationError('INVALID_INPUT', `export line ${line}: ${message}`, { details: { line } });
}

function obj(v: unknown, line: number, what: string): Record<string, unknown> {
  if (!v || typeof v !== 'object' || Array.isArray(v)) bad(line, `${what} must be an object`);
  return v as Record<string, unknown>;
}

/** `against`: what the file was compared with, the caller's `options` (the embedder it will use) or the target `store`'s recorded meta. */
function mismatch(fields: { field: string; file: unknown; target: unknown }[], message: string, against: 'options' | 'store' | 'build'): ImportMismatchError {
  const what = fields.map((f) => `${f.field} (file ${JSON.stringify(f.file)}, ${against === 'store' ? 'target store' : against === 'options' ? 'asked for' : 'this build'} ${JSON.stringify(f.target)})`).join('; ');
  return new ImportMismatchError(`${message}: ${what}; nothing was imported`, {
    details: { field: fields[0]!.field, fields: fields.map((f) => f.field), against, ...Object.fromEntries(fields.map((f) => [f.field, { file: f.file, target: f.target }])) },
  });
}

function readHeader(record: Record<string, unknown>, options: ImportOptions): ExportHeader {
  if (record.kind !== 'header') bad(1, 'the first line must be the export header ({"kind":"header",…})');
  if (record.format !== EXPORT_FORMAT) bad(1, `not a ${EXPORT_FORMAT} file (format ${JSON.stringify(record.format)})`);
  if (record.version !== EXPORT_FORMAT_VERSION) {
    throw mismatch([{ field: 'version', file: record.version, target: EXPORT_FORMAT_VERSION }], `This build reads ${EXPORT_FORMAT} version ${EXPORT_FORMAT_VERSION} only`, 'build');
  }
  const embedder = obj(record.embedder, 1, 'header.embedder');
  const header: ExportHeader = {
    format: EXPORT_FORMAT,
    version: EXPORT_FORMAT_VERSION,
    schemaVersion: record.schemaVersion as number,
    embedder: { model: embedder.model as string, dimension: embedder.dimension as number },
    exportedAt: String(record.exportedAt ?? ''),
    source: String(record.source ?? ''),
  };
  if (!Number.isInteger(header.schemaVersion) || header.schemaVersion < 1) bad(1, 'header.schemaVersion must be a positive integer');
  if (typeof header.embedder.model !== 'string' || !header.embedder.model) bad(1, 'header.embedder.model must be a non-empty string');
  if (!Number.isInteger(header.embedder.dimension) || header.embedder.dimension < 1) bad(1, 'header.embedder.dimension must be a positive integer');
  const diffs: { field: string; file: unknown; target: unknown }[] = [];
  if (options.schemaVersion !== undefined && options.schemaVersion !== header.schemaVersion) diffs.push({ field: 'schemaVersion', file: header.schemaVersion, target: options.schemaVersion });
  if (options.embedder && options.embedder.model !== header.embedder.model) diffs.push({ field: 'embeddingModel', file: header.embedder.model, target: options.embedder.model });
  if (options.embedder && options.embedder.dimension !== header.embedder.dimension) diffs.push({ field: 'dimension', file: header.embedder.dimension, target: options.embedder.dimension });
  if (diffs.length) {
    throw mismatch(diffs, `The export was made with ${header.embedder.model} (${header.embedder.dimension}-d)${diffs.some((d) => d.field === 'schemaVersion') ? ` and memory schema ${header.schemaVersion}` : ''}, not the embedder or schema asked for (import it with its own embedder into an empty store, then re-embed there: \`mem reembed\`)`, 'options');
  }
  return header;
}

/** Parse and check every line (nothing is written); returns the header and the scopes' batches. */
async function readExport(lines: AsyncIterable<string> | Iterable<string>, options: ImportOptions): Promise<{ header: ExportHeader; groups: ScopeGroup[]; counts: ExportCounts }> {
  let header: ExportHeader | null = null;
  const groups: ScopeGroup[] = [];
  const seen = new Set<string>();
  let current: ScopeGroup | null = null;
  let ended: ExportCounts | null = null;
  const counts: ExportCounts = { scopes: 0, memories: 0, relations: 0, history: 0, state: 0 };
  let n = 0;
  for await (const raw of lines) {
    n++;
    let text = raw.endsWith('\n') ? raw.slice(0, -1) : raw;
    // a byte-order mark some editors put at the start of a saved file
    if (n === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim() === '') {
      if (header) continue;
      bad(n, 'empty line before the header');
    }
    if (ended) bad(n, 'a record after the end line');
    let record: Record<string, unknown>;
    try {
      record = obj(JSON.parse(text), n, 'a record');
    } catch (e) {
      if (MemError.isInstance(e)) throw e;
      bad(n, `not JSON (${(e as Error).message})`);
    }
    if (!header) {
      header = readHeader(record, options);
      continue;
    }
    switch (record.kind) {
      case 'scope': {
        let scope: ResolvedScope;
        try {
          scope = resolveScope(obj(record.scope, n, 'scope') as Scope);
        } catch (e) {
          bad(n, (e as Error).message);
        }
        const key = scopeKey(scope);
        if (seen.has(key)) bad(n, `scope ${key} appears twice`);
        seen.add(key);
        current = { scope, nodes: [], relations: [], history: [], state: [] };
        groups.push(current);
        counts.scopes++;
        break;
      }
      case 'memory': {
        if (!current) bad(n, 'a memory before any scope line');
        const r = obj(record.node, n, 'node');
        const embedding = vectorFromBase64(r.embedding);
        if (!embedding) bad(n, 'node.embedding must be base64 of Float32 values');
        const prov = obj(r.provenance, n, 'node.provenance');
        current.nodes.push({
          id: r.id as string,
          scope: current.scope,
          text: r.text as string,
          speaker: (r.speaker ?? null) as string | null,
          observedAt: r.observedAt as string,
          eventTime: (r.eventTime ?? null) as MemoryNode['eventTime'],
          entities: r.entities as string[],
          keywords: r.keywords as string[],
          types: r.types as MemoryNode['types'],
          embedding,
          gate: (r.gate ?? null) as MemoryNode['gate'],
          provenance: { sourceId: (prov.sourceId ?? null) as string | null, contentHash: prov.contentHash as string, metadata: (prov.metadata ?? {}) as Record<string, unknown> },
          obsoleteBy: (r.obsoleteBy ?? null) as string | null,
          createdAt: r.createdAt as string,
        });
        counts.memories++;
        break;
      }
      case 'relation': {
        if (!current) bad(n, 'a relation before any scope line');
        const r = obj(record.relation, n, 'relation');
        current.relations.push({
          id: r.id as string,
          from: r.from as string,
          to: r.to as string,
          view: r.view as Relation['view'],
          subtype: r.subtype as Relation['subtype'],
          probability: r.probability as number,
          origin: r.origin as Relation['origin'],
          createdAt: r.createdAt as string,
        });
        counts.relations++;
        break;
      }
      case 'history': {
        if (!current) bad(n, 'a history row before any scope line');
        const h = obj(record.entry, n, 'entry');
        current.history.push({ scope: current.scope, op: h.op as HistoryEntry['op'], nodeId: (h.nodeId ?? null) as string | null, at: h.at as string, data: obj(h.data ?? {}, n, 'entry.data') });
        counts.history++;
        break;
      }
      case 'state': {
        if (!current) bad(n, 'a state line before any scope line');
        if (typeof record.name !== 'string' || !EXPORTED_STATE_NAMES.includes(record.name)) bad(n, `unknown state name ${JSON.stringify(record.name)}`);
        if (typeof record.value !== 'string') bad(n, 'state.value must be a string');
        current.state.push({ name: record.name, value: record.value });
        counts.state++;
        break;
      }
      case 'end': {
        ended = obj(record.counts, n, 'end.counts') as unknown as ExportCounts;
        break;
      }
      default:
        bad(n, `unknown record kind ${JSON.stringify(record.kind)}`);
    }
  }
  if (!header) bad(1, 'the file is empty (no export header)');
  if (!ended) bad(n + 1, 'the file ends without its end line (truncated?)');
  for (const k of Object.keys(counts) as (keyof ExportCounts)[]) {
    if (ended[k] !== counts[k]) bad(n, `the end line counts ${ended[k]} ${k}, the file holds ${counts[k]} (truncated or edited?)`);
  }
  // every batch's shape, before anything is written (ids, vectors of the header's dimension, enums, dates)
  groups.forEach((g, i) => {
    try {
      checkWriteBatch({ scope: g.scope, nodes: g.nodes, relations: g.relations, history: g.history }, header!.embedder.dimension);
    } catch (e) {
      if (!MemError.isInstance(e)) throw e;
      throw new MemValidationError((e as MemError).code, `export scope ${i + 1} (${scopeKey(g.scope)}): ${(e as Error).message}`, { cause: e, details: { ...(e as MemError).details, scope: g.scope } });
    }
    const ids = new Set(g.nodes.map((x) => x.id));
    for (const r of g.relations) {
      for (const end of [r.from, r.to]) if (!ids.has(end)) bad(n, `relation ${r.id} of scope ${scopeKey(g.scope)} points at ${end}, not a memory of the file`);
    }
  });
  return { header, groups, counts };
}

/**
 * Import an export (lines as `exportMemories` wrote them; a trailing `\n` per line is optional)
 * into a store, SQLite or Neo4j. The whole file is read and checked first; then the store is opened
 * with the file's schema version and embedder, every target scope must be empty (no memories, no
 * history) or hold exactly the file's scope (an earlier import of this file: skipped, so a killed
 * or repeated import is finished by running it again, without duplicates), and each scope is
 * written in one atomic batch (memories, relations, history), followed by its saved gate state.
 * Memory and relation ids, times, gate decisions and p are kept; the target assigns history `seq` numbers.
 * With `options.match`, only the file's scopes matching it are imported (the report counts those).
 * @throws ImportMismatchError IMPORT_MISMATCH (format version, schema version, embedding model or
 *   dimension differ from the target store's or `options`'), MemValidationError INVALID_INPUT and
 *   the batch codes (a malformed, truncated or edited file; `details.line`), StoreConflictError
 *   STORE_CONFLICT (a target scope holds other memories or history), ScopeNotFoundError SCOPE_NOT_FOUND
 *   (`match` selects none of the file's scopes), SCOPE_INVALID (a bad `match`); nothing is written then.
 *   A store failure or a kill mid-way leaves the scopes written before it complete and the rest
 *   absent: running the same import again completes it.
 */
export async function importMemories(store: MemoryStore, lines: AsyncIterable<string> | Iterable<string>, options: ImportOptions = {}): Promise<ImportReport> {
  const match = checkMatch(options.match);
  const read = await readExport(lines, options);
  const { header } = read;
  const groups = read.groups.filter((g) => matches(g.scope, match));
  if (groups.length === 0 && read.groups.length > 0 && Object.values(match).some((v) => v !== undefined)) {
    const named = describeMatch(match);
    throw new ScopeNotFoundError(`The export file holds no scope matching ${named} (it holds ${read.groups.length}); nothing was imported`, { details: { match } });
  }
  const counts = groups.length === read.groups.length ? read.counts : countsOf(groups);
  const meta: StoreMeta = { schemaVersion: header.schemaVersion, embeddingModel: header.embedder.model, dimension: header.embedder.dimension };
  const recorded = await store.meta();
  if (recorded) {
    const diffs: { field: string; file: unknown; target: unknown }[] = [];
    for (const f of ['schemaVersion', 'embeddingModel', 'dimension'] as const) if (recorded[f] !== meta[f]) diffs.push({ field: f, file: meta[f], target: recorded[f] });
    if (diffs.length) throw mismatch(diffs, `The target store records ${recorded.embeddingModel} (${recorded.dimension}-d), the export was made with ${meta.embeddingModel} (${meta.dimension}-d)${recorded.schemaVersion !== meta.schemaVersion ? ` (memory schema ${recorded.schemaVersion} vs ${meta.schemaVersion})` : ''}: import into an empty store of the file's embedder, then re-embed there (\`mem reembed\`)`, 'store');
  }
  try {
    await store.open(meta);
  } catch (e) {
    if (StoreMetaMismatchError.isInstance(e) || (MemError.isInstance(e) && e.code === 'STORE_META_MISMATCH')) {
      throw new ImportMismatchError(`The target store records another memory schema or embedder than the export; nothing was imported (${(e as Error).message})`, { cause: e, details: (e as MemError).details });
    }
    throw e;
  }
  const busy: string[] = [];
  const done = new Set<ScopeGroup>();
  for (const g of groups) {
    const state = await targetScopeState(store, g);
    if (state === 'imported') done.add(g);
    else if (state === 'other') busy.push(JSON.stringify(g.scope));
  }
  if (busy.length) {
    throw new StoreConflictError(
      `The target already holds other memories or history in ${busy.length} of the export's scopes (${busy.slice(0, 3).join(', ')}${busy.length > 3 ? ', …' : ''}); import into an empty store or scope (a scope holding exactly the file's memories counts as imported); nothing was imported`,
      { details: { scopes: busy.map((b) => JSON.parse(b) as ResolvedScope) } },
    );
  }
  for (const g of groups) {
    if (!done.has(g)) {
      // checked again and written under the store's write lock when it has one (the SQLite file):
      // a writer that added to the scope since the check above makes this a conflict, never a mix
      const writeScope = async () => {
        const now = await targetScopeState(store, g);
        if (now === 'other') {
          throw new StoreConflictError(`Another writer added to ${JSON.stringify(g.scope)} while importing; the scopes before it were imported, this one and the rest were not (run the import again into an empty scope)`, {
            details: { scopes: [g.scope] },
          });
        }
        if (now === 'empty') await store.write({ scope: g.scope, nodes: g.nodes, relations: g.relations, history: g.history });
      };
      await (store.exclusive ? store.exclusive(writeScope) : writeScope());
    }
    // saved again for a scope imported before (a run killed between its write and this)
    for (const s of g.state) if (store.saveState) await store.saveState(g.scope, s.name, s.value);
  }
  return { header, counts, scopes: groups.map((g) => g.scope), skipped: groups.filter((g) => done.has(g)).map((g) => g.scope) };
}

function countsOf(groups: ScopeGroup[]): ExportCounts {
  const c: ExportCounts = { scopes: groups.length, memories: 0, relations: 0, history: 0, state: 0 };
  for (const g of groups) {
    c.memories += g.nodes.length;
    c.relations += g.relations.length;
    c.history += g.history.length;
    c.state += g.state.length;
  }
  return c;
}

/**
 * What the target holds in an export scope: nothing (`empty`), exactly the file's scope
 * (`imported`: the same memory ids with the same content hashes, as many relations and history
 * rows: an earlier import of this file wrote it), or something else (`other`).
 */
async function targetScopeState(store: MemoryStore, g: ScopeGroup): Promise<'empty' | 'imported' | 'other'> {
  const count = await store.count(g.scope);
  if (count === 0) {
    // a scope of the file without memories (forgotten while it was exported) holds history only
    const rows = (await store.history(g.scope, { limit: g.history.length + 1 })).length;
    return rows === 0 ? 'empty' : g.nodes.length === 0 && rows === g.history.length ? 'imported' : 'other';
  }
  if (count !== g.nodes.length) return 'other';
  const stored = new Map<string, string>();
  for (let at = 0; at < g.nodes.length; at += PAGE) {
    for (const n of await store.getMany(g.scope, g.nodes.slice(at, at + PAGE).map((x) => x.id))) stored.set(n.id, n.provenance.contentHash);
  }
  if (g.nodes.some((n) => stored.get(n.id) !== n.provenance.contentHash)) return 'other';
  if ((await store.relations(g.scope)).length !== g.relations.length) return 'other';
  return (await store.history(g.scope)).length === g.history.length ? 'imported' : 'other';
}

/** Split a text (a whole export file) into lines for {@link importMemories}. */
export function exportLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Conversion between `@mem/core` model objects and Neo4j property maps (ours).
 * Neo4j properties cannot hold nested maps, so structured fields (event time, type scores, gate
 * decision, metadata, history data) are stored as JSON strings; lists of strings and the embedding
 * (a list of floats) are stored natively so the indexes can use them.
 */
import type { GateAction, HistoryEntry, MemoryNode, NodeDigest, Relation, ResolvedScope } from '@mem/store-spec';
import { scopeKey, searchText } from '@mem/store-spec';

const TOKEN = /[\p{L}\p{N}]+/gu;

/**
 * The text the full-text index sees: core's `searchText` normalisation (NFKC, lower case, CJK
 * unigrams + bigrams, Thai word segmentation, marks removed) reduced to its letter/digit tokens,
 * space-separated, so Neo4j's `whitespace` analyzer tokenises exactly as the SQLite store does.
 */
export function indexText(text: string): string {
  return (searchText(text).match(TOKEN) ?? []).join(' ');
}

/**
 * Store-wide unique key of a node or relation: its id is unique only within a scope, so the
 * uniqueness constraint is on `[scopeKey, id]` (JSON-encoded; no separator can collide).
 */
export function uidOf(scope: ResolvedScope, id: string): string {
  return JSON.stringify([scopeKey(scope), id]);
}

/**
 * Store-wide key of an observation's content: `[scopeKey, contentHash]` (JSON). A uniqueness
 * constraint on it makes the database refuse a second node for the same observation in a scope,
 * whichever process writes it (core's content hash covers scope, text, speaker, time and source).
 */
export function contentKeyOf(scope: ResolvedScope, contentHash: string): string {
  return JSON.stringify([scopeKey(scope), contentHash]);
}

export type Props = Record<string, unknown>;

/** Scope properties carried by every `:Memory` and `:MemoryHistory` node. */
export function scopeProps(scope: ResolvedScope): Props {
  return {
    scopeKey: scopeKey(scope),
    namespace: scope.namespace,
    userId: scope.userId,
    agentId: scope.agentId,
    runId: scope.runId,
  };
}

/** Properties of a `:Memory` node; `rid` is the store-assigned insertion sequence number (tie-breaker for ordering). */
export function nodeToProps(node: MemoryNode, rid = 0): Props {
  return {
    ...scopeProps(node.scope),
    uid: uidOf(node.scope, node.id),
    rid,
    id: node.id,
    searchText: indexText(node.text),
    observedMs: Date.parse(node.observedAt),
    createdMs: Date.parse(node.createdAt),
    text: node.text,
    speaker: node.speaker,
    observedAt: node.observedAt,
    eventTime: node.eventTime ? JSON.stringify(node.eventTime) : null,
    entities: [...node.entities],
    keywords: [...node.keywords],
    types: JSON.stringify(node.types),
    embedding: Array.from(node.embedding),
    gate: node.gate ? JSON.stringify(node.gate) : null,
    sourceId: node.provenance.sourceId,
    contentHash: node.provenance.contentHash,
    contentKey: contentKeyOf(node.scope, node.provenance.contentHash),
    metadata: JSON.stringify(node.provenance.metadata ?? {}),
    obsoleteBy: node.obsoleteBy ?? null,
    createdAt: node.createdAt,
  };
}

function parseJson<T>(value: unknown, fallback: T): T {
  if (typeof value !== 'string' || value === '') return fallback;
  return JSON.parse(value) as T;
}

function toNum(value: unknown): number {
  if (typeof value === 'number') return value;
  if (value && typeof (value as any).toNumber === 'function') return (value as any).toNumber();
  return Number(value);
}

function strList(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

export function propsToScope(p: Props): ResolvedScope {
  return {
    namespace: String(p.namespace ?? 'default'),
    userId: String(p.userId ?? ''),
    agentId: String(p.agentId ?? ''),
    runId: String(p.runId ?? ''),
  };
}

/** A `read.scan` row's node as a `NodeDigest` (`MemoryStore.scanNodes`): the gate record's action only. */
export function propsToDigest(p: Props): NodeDigest {
  const gate = parseJson<{ action?: GateAction } | null>(p.gate, null);
  return {
    id: String(p.id),
    observedAt: String(p.observedAt),
    entities: strList(p.entities),
    keywords: strList(p.keywords),
    embedding: Array.isArray(p.embedding) ? Float32Array.from(p.embedding.map(toNum)) : new Float32Array(0),
    gate: gate ? ({ action: gate.action } as { action: GateAction }) : null,
    provenance: { sourceId: p.sourceId == null ? null : String(p.sourceId), metadata: parseJson(p.metadata, {}) },
  };
}

export function propsToNode(p: Props): MemoryNode {
  const embedding = Array.isArray(p.embedding) ? Float32Array.from(p.embedding.map(toNum)) : new Float32Array(0);
  const node: MemoryNode = {
    id: String(p.id),
    scope: propsToScope(p),
    text: String(p.text ?? ''),
    speaker: p.speaker == null ? null : String(p.speaker),
    observedAt: String(p.observedAt),
    eventTime: parseJson(p.eventTime, null),
    entities: strList(p.entities),
    keywords: strList(p.keywords),
    types: parseJson(p.types, { episodic: 0, semantic: 0, procedural: 0, preference: 0 }),
    embedding,
    gate: parseJson(p.gate, null),
    provenance: {
      sourceId: p.sourceId == null ? null : String(p.sourceId),
      contentHash: String(p.contentHash ?? ''),
      metadata: parseJson(p.metadata, {}),
    },
    obsoleteBy: p.obsoleteBy == null ? null : String(p.obsoleteBy),
    createdAt: String(p.createdAt),
  };
  return node;
}

/** Properties of a relationship (`from`/`to` are read back from its end nodes). */
export function relationToProps(scope: ResolvedScope, r: Relation, rid = 0): Props {
  return {
    uid: uidOf(scope, r.id),
    rid,
    id: r.id,
    view: r.view,
    subtype: r.subtype,
    probability: r.probability,
    origin: r.origin,
    createdAt: r.createdAt,
  };
}

export function propsToRelation(p: Props): Relation {
  return {
    id: String(p.id),
    from: String(p.from),
    to: String(p.to),
    view: p.view as Relation['view'],
    subtype: p.subtype as Relation['subtype'],
    probability: toNum(p.probability),
    origin: p.origin as Relation['origin'],
    createdAt: String(p.createdAt),
  };
}

export function historyToProps(h: HistoryEntry, seq = 0): Props {
  return {
    ...scopeProps(h.scope),
    seq,
    op: h.op,
    nodeId: h.nodeId,
    at: h.at,
    data: JSON.stringify(h.data ?? {}),
  };
}

export function propsToHistory(p: Props): HistoryEntry {
  return {
    seq: toNum(p.seq),
    scope: propsToScope(p),
    op: p.op as HistoryEntry['op'],
    nodeId: p.nodeId == null ? null : String(p.nodeId),
    at: String(p.at),
    data: parseJson(p.data, {}),
  };
}

export { toNum };

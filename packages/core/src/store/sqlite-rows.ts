/**
 * The SQLite store's rows (ours): the row shapes of `nodes` and `relations`, their decoding into
 * MemoryNode / Relation, Float32 BLOB encoding, and the multi-row INSERT statements of a write batch
 * (schema v4, see ./schema.ts).
 */
import type { MemoryNode, Relation, RelationSubtype, RelationView, ResolvedScope } from '../types.js';

export type NodeRow = {
  rid: number;
  sid: number;
  id: string;
  text: string;
  speaker: string | null;
  observed_at: string;
  event_time: string | null;
  entities: string;
  keywords: string;
  types: string;
  embedding: Buffer;
  gate: string | null;
  source_id: string | null;
  content_hash: string;
  metadata: string;
  obsolete_by: string | null;
  created_at: string;
};

export type RelationRow = {
  rid: number;
  id: string;
  from_id: string;
  to_id: string;
  view: string;
  subtype: string;
  probability: number;
  origin: string;
  created_at: string;
};

export const NODE_COLUMNS =
  'n.rid, n.sid, n.id, n.text, n.speaker, n.observed_at, n.event_time, n.entities, n.keywords, n.types, n.embedding, n.gate, n.source_id, n.content_hash, n.metadata, n.obsolete_by, n.created_at';

/** Rows per multi-row INSERT statement (a statement per row count up to this is prepared once). */
export const ROWS_PER_INSERT = 32;

/** The multi-row INSERTs of a write batch: `head VALUES tuple, tuple, … tail`. */
export const ROW_INSERTS = {
  nodes: {
    head: `INSERT INTO nodes (sid, id, text, speaker, observed_at, event_time, entities, keywords, types, embedding, gate, source_id, content_hash, metadata, obsolete_by, created_at, observed_ms, created_ms, doc_len)`,
    tuple: '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    tail: `ON CONFLICT (sid, id) DO UPDATE SET text = excluded.text, speaker = excluded.speaker, observed_at = excluded.observed_at,
             event_time = excluded.event_time, entities = excluded.entities, keywords = excluded.keywords, types = excluded.types,
             embedding = excluded.embedding, gate = excluded.gate, source_id = excluded.source_id, content_hash = excluded.content_hash,
             metadata = excluded.metadata, obsolete_by = excluded.obsolete_by, created_at = excluded.created_at,
             observed_ms = excluded.observed_ms, created_ms = excluded.created_ms, doc_len = excluded.doc_len
           RETURNING id, rid`,
    returning: true,
  },
  fts: { head: 'INSERT INTO nodes_fts (rowid, scope, body)', tuple: '(?, ?, ?)', tail: '', returning: false },
  relations: {
    head: 'INSERT INTO relations (sid, id, src, dst, view, subtype, probability, origin, created_at)',
    tuple: '(?, ?, ?, ?, ?, ?, ?, ?, ?)',
    tail: `ON CONFLICT (sid, id) DO UPDATE SET src = excluded.src, dst = excluded.dst, view = excluded.view,
             subtype = excluded.subtype, probability = excluded.probability, origin = excluded.origin, created_at = excluded.created_at`,
    returning: false,
  },
  history: { head: 'INSERT INTO history (sid, op, node_id, at, data)', tuple: '(?, ?, ?, ?, ?)', tail: '', returning: false },
  scope_terms: {
    head: 'INSERT INTO scope_terms (sid, term, df)',
    tuple: '(?, ?, ?)',
    tail: 'ON CONFLICT (sid, term) DO UPDATE SET df = df + excluded.df',
    returning: false,
  },
} as const;

export function toBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

export function fromBlob(b: Buffer): Float32Array {
  const out = new Float32Array(b.byteLength / 4);
  new Uint8Array(out.buffer).set(b);
  return out;
}

export function rowToNode(r: NodeRow, scope: ResolvedScope): MemoryNode {
  return {
    id: r.id,
    scope: { ...scope },
    text: r.text,
    speaker: r.speaker,
    observedAt: r.observed_at,
    eventTime: r.event_time === null ? null : JSON.parse(r.event_time),
    entities: JSON.parse(r.entities),
    keywords: JSON.parse(r.keywords),
    types: JSON.parse(r.types),
    embedding: fromBlob(r.embedding),
    gate: r.gate === null ? null : JSON.parse(r.gate),
    provenance: { sourceId: r.source_id, contentHash: r.content_hash, metadata: JSON.parse(r.metadata) },
    obsoleteBy: r.obsolete_by,
    createdAt: r.created_at,
  };
}

export function rowToRelation(r: RelationRow): Relation {
  return {
    id: r.id,
    from: r.from_id,
    to: r.to_id,
    view: r.view as RelationView,
    subtype: r.subtype as RelationSubtype,
    probability: r.probability,
    origin: r.origin as Relation['origin'],
    createdAt: r.created_at,
  };
}

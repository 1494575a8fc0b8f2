/**
 * Small fixture helpers for store tests (ours). Deterministic: the same seed gives the same vector.
 */
import { createHash } from 'node:crypto';
import { resolveScope, scopeKey } from '../scope.js';
import type { HistoryEntry, HistoryOp, MemoryNode, Relation, RelationSubtype, ResolvedScope, Scope, StoreMeta } from '../types.js';
import { RELATION_SUBTYPES } from '../types.js';
import { mulberry32 } from '../random.js';

/** A resolved test scope `{ namespace: 'test', userId }` (plus overrides). */
export function testScope(userId: string, extra: Partial<ResolvedScope> = {}): ResolvedScope {
  return resolveScope({ namespace: 'test', userId, ...extra });
}

/** Store meta used by the conformance suite. */
export function testMeta(dimension = 8, embeddingModel = 'test-embedder'): StoreMeta {
  return { schemaVersion: 1, embeddingModel, dimension };
}

/** mulberry32 PRNG: a function returning floats in [0, 1) (`src/random.ts`). */
export const seededRandom: (seed: number) => () => number = mulberry32;

/** Unit-norm Float32Array. */
export function normalize(v: ArrayLike<number>): Float32Array {
  let sq = 0;
  for (let i = 0; i < v.length; i++) sq += v[i] * v[i];
  const inv = sq > 0 ? 1 / Math.sqrt(sq) : 0;
  return Float32Array.from(v, (x) => x * inv);
}

/** A deterministic random unit vector of `dim` dimensions. */
export function unitVector(dim: number, seed: number): Float32Array {
  const rnd = seededRandom(seed);
  return normalize(Array.from({ length: dim }, () => rnd() * 2 - 1));
}

/** The unit basis vector e_i (+ optional small tilt toward e_j), handy for exact cosine orderings. */
export function axisVector(dim: number, i: number, tilt = 0, j = (i + 1) % dim): Float32Array {
  const v = new Float32Array(dim);
  v[i] = 1;
  if (tilt) v[j] = tilt;
  return normalize(v);
}

/** Cosine of two vectors. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}

let counter = 0;
const BASE_TIME = Date.parse('2024-01-01T00:00:00.000Z');

/**
 * A complete MemoryNode in `scope` with `text` and `vector` (normalised). Ids are unique per process
 * unless given; observedAt/createdAt increase by one second per call, so creation order = time order.
 */
export function makeNode(scope: Scope, text: string, vector: ArrayLike<number>, overrides: Partial<MemoryNode> = {}): MemoryNode {
  const s = resolveScope(scope);
  const n = ++counter;
  const at = new Date(BASE_TIME + n * 1000).toISOString();
  return {
    id: `node-${n}-${Math.random().toString(36).slice(2, 8)}`,
    scope: s,
    text,
    speaker: null,
    observedAt: at,
    eventTime: null,
    entities: [],
    keywords: [],
    types: { episodic: 0.5, semantic: 0.5, procedural: 0, preference: 0 },
    embedding: normalize(vector),
    gate: null,
    provenance: {
      sourceId: null,
      contentHash: createHash('sha256').update(`${scopeKey(s)}\n${text}\n${n}`).digest('hex'),
      metadata: {},
    },
    obsoleteBy: null,
    createdAt: at,
    ...overrides,
  };
}

/** A relation from → to of `subtype` (its view from RELATION_SUBTYPES). */
export function makeRelation(from: string, to: string, subtype: RelationSubtype = 'RELATED_TO', overrides: Partial<Relation> = {}): Relation {
  const n = ++counter;
  return {
    id: `rel-${n}-${Math.random().toString(36).slice(2, 8)}`,
    from,
    to,
    view: RELATION_SUBTYPES[subtype],
    subtype,
    probability: 1,
    origin: 'rule',
    createdAt: new Date(BASE_TIME + n * 1000).toISOString(),
    ...overrides,
  };
}

/** A history row. */
export function makeHistory(scope: Scope, op: HistoryOp, nodeId: string | null, data: Record<string, unknown> = {}): HistoryEntry {
  const n = ++counter;
  return { scope: resolveScope(scope), op, nodeId, at: new Date(BASE_TIME + n * 1000).toISOString(), data };
}

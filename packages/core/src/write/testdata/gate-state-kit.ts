/**
 * Shared helpers of the gate-snapshot tests (gate-state.test.ts, gate-state.breakit.test.ts and the
 * crash child): synthetic stored nodes with clustered embeddings, and gate registries that save and
 * restore snapshots (as `createMemory` does) or always replay (the reference).
 */
import { createNoveltyGate, type NoveltyGate } from '@mem/gate-vmf';
import { scopeKey } from '../../scope.js';
import { createSqliteStore } from '../../store/index.js';
import { unitVector } from '../../testing/index.js';
import type { MemoryNode, MemoryStore, ResolvedScope } from '../../types.js';
import { GateRegistry } from '../gates.js';
import { uuidv7 } from '../ids.js';
import { DEFAULT_WRITE_GATE_OPTIONS, MEMORY_SCHEMA_VERSION, noveltyGateCodec } from '../memory.js';
import type { WriteGate } from '../ports.js';
import { HASH_EMBEDDER_DIMENSION, hashEmbedder } from './hash-embedder.js';

const dim = HASH_EMBEDDER_DIMENSION;

/**
 * Embedding i: one of five topic directions plus a little noise (dense scopes, as real text gives;
 * uniform random 16-d vectors would make the gate refit on every commit).
 */
export function clustered(i: number): Float32Array {
  const c = unitVector(dim, 1 + (i % 5));
  const e = unitVector(dim, 1000 + i);
  const v = new Float32Array(dim);
  let s = 0;
  for (let j = 0; j < dim; j++) s += (v[j] = c[j]! + 0.15 * e[j]!) ** 2;
  for (let j = 0; j < dim; j++) v[j]! /= Math.sqrt(s);
  return v;
}

/** Stored node i of `scope` as the write path would have stored it; every 7th a gate Noop (not a gate member). */
export function syntheticNode(i: number, scope: ResolvedScope, options: { id?: string; tag?: string } = {}): MemoryNode {
  const tag = options.tag ?? 'syn';
  return {
    id: options.id ?? uuidv7(),
    scope,
    text: `${tag} memory ${i}`,
    speaker: null,
    observedAt: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
    eventTime: null,
    entities: [],
    keywords: [],
    types: { episodic: 1, semantic: 0, procedural: 0, preference: 0 },
    embedding: clustered(i),
    gate: { action: i % 7 === 6 ? 'noop' : 'add', novelty: 1, score: -1, threshold: 0, kappa: 1, density: 1, nearest: null },
    provenance: { sourceId: `${tag}:${i}`, contentHash: `h${scopeKey(scope)}:${tag}:${i}`, metadata: {} },
    obsoleteBy: null,
    createdAt: new Date().toISOString(),
  };
}

/** Store n synthetic nodes (i = from … from + n − 1) in write order, 1000 per batch. */
export async function seedNodes(store: MemoryStore, scope: ResolvedScope, n: number, from = 0): Promise<MemoryNode[]> {
  const nodes: MemoryNode[] = [];
  for (let i = from; i < from + n; i++) nodes.push(syntheticNode(i, scope));
  for (let i = 0; i < nodes.length; i += 1000) await store.write({ scope, nodes: nodes.slice(i, i + 1000) });
  return nodes;
}

const gateOptions = (extra: Record<string, unknown> = {}) => ({ ...DEFAULT_WRITE_GATE_OPTIONS, ...extra });

/** A registry like createMemory's default (per-scope gates, saved and restored). */
export function savingRegistry(store: MemoryStore, extra: Record<string, unknown> = {}): GateRegistry {
  const o = gateOptions(extra);
  return new GateRegistry(store, { factory: () => createNoveltyGate(o) as unknown as WriteGate, codec: noveltyGateCodec(createNoveltyGate(o).options) });
}

/** The reference: the same gates, always replayed in full. */
export function replayingRegistry(store: MemoryStore, extra: Record<string, unknown> = {}): GateRegistry {
  const o = gateOptions(extra);
  return new GateRegistry(store, { factory: () => createNoveltyGate(o) as unknown as WriteGate });
}

/** The full serialized state of a scope's gate as the registry rebuilds it. */
export async function gateJson(reg: GateRegistry, scope: ResolvedScope): Promise<string> {
  const rt = await reg.runtime(scope, scopeKey(scope));
  return JSON.stringify((rt.gate as unknown as NoveltyGate).serialize());
}

/** A SQLite file store at `path`, opened for the hash embedder (the write-path tests' embedder). */
export async function openHashStore(path: string): Promise<ReturnType<typeof createSqliteStore> & { path: string }> {
  const store = createSqliteStore({ path });
  await store.open({ schemaVersion: MEMORY_SCHEMA_VERSION, embeddingModel: hashEmbedder().model, dimension: dim });
  return Object.assign(store, { path });
}

/** The shorthands each gate-snapshot test file uses for its scope `S`. */
export function gateKit(S: ResolvedScope) {
  return {
    seed: (store: MemoryStore, n: number, from = 0, scope: ResolvedScope = S) => seedNodes(store, scope, n, from),
    saving: savingRegistry,
    replaying: replayingRegistry,
    gateState: (reg: GateRegistry, scope: ResolvedScope = S) => gateJson(reg, scope),
  };
}

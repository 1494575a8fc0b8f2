/**
 * Break-it tests of gate snapshots (ours; see gates.ts module comment and gate-state.test.ts): hostile
 * or stale saved state, concurrent writers, failing stores, crashes. Whatever happens, a rebuilt gate
 * must be bit-identical to a full replay of the stored nodes, and a snapshot that does not apply must
 * never be used.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNoveltyGate, type NoveltyGate } from '@mem/gate-vmf';
import { resolveScope, scopeKey } from '../scope.js';
import { createSqliteStore } from '../store/index.js';
import { unitVector } from '../testing/fixtures.js';
import type { MemoryNode, MemoryStore, ResolvedScope } from '../types.js';
import { GATE_STATE_NAME, GateRegistry } from './gates.js';
import { uuidv7 } from './ids.js';
import { DEFAULT_WRITE_GATE_OPTIONS, MEMORY_SCHEMA_VERSION, noveltyGateCodec } from './memory.js';
import type { WriteGate } from './ports.js';
import { HASH_EMBEDDER_DIMENSION, hashEmbedder } from './testdata/hash-embedder.js';

const dir = mkdtempSync(join(tmpdir(), 'mem-gate-breakit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const dim = HASH_EMBEDDER_DIMENSION;
const S = resolveScope({ userId: 'gate-breakit' });
const KEY = scopeKey(S);
let fileNo = 0;

async function openStore(path = join(dir, `s${++fileNo}.db`)): Promise<MemoryStore & { path: string }> {
  const store = createSqliteStore({ path });
  await store.open({ schemaVersion: MEMORY_SCHEMA_VERSION, embeddingModel: hashEmbedder().model, dimension: dim });
  return Object.assign(store, { path });
}

/** Embedding i: one of five topic directions plus a little noise (dense scopes, as real text gives). */
function clustered(i: number): Float32Array {
  const c = unitVector(dim, 1 + (i % 5));
  const e = unitVector(dim, 1000 + i);
  const v = new Float32Array(dim);
  let s = 0;
  for (let j = 0; j < dim; j++) s += (v[j] = c[j]! + 0.15 * e[j]!) ** 2;
  for (let j = 0; j < dim; j++) v[j]! /= Math.sqrt(s);
  return v;
}

function synthetic(i: number, scope: ResolvedScope, id = uuidv7()): MemoryNode {
  return {
    id,
    scope,
    text: `synthetic memory ${i}`,
    speaker: null,
    observedAt: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
    eventTime: null,
    entities: [],
    keywords: [],
    types: { episodic: 1, semantic: 0, procedural: 0, preference: 0 },
    embedding: clustered(i),
    gate: { action: i % 7 === 6 ? 'noop' : 'add', novelty: 1, score: -1, threshold: 0, kappa: 1, density: 1, nearest: null },
    provenance: { sourceId: `syn:${i}`, contentHash: `h${scopeKey(scope)}:${i}`, metadata: {} },
    obsoleteBy: null,
    createdAt: new Date().toISOString(),
  };
}

/** n stored nodes in write order; every 7th a gate Noop (not a gate member). */
async function seed(store: MemoryStore, n: number, from = 0, scope: ResolvedScope = S): Promise<MemoryNode[]> {
  const nodes: MemoryNode[] = [];
  for (let i = from; i < from + n; i++) nodes.push(synthetic(i, scope));
  for (let i = 0; i < nodes.length; i += 1000) await store.write({ scope, nodes: nodes.slice(i, i + 1000) });
  return nodes;
}

const gateOptions = (extra: Record<string, unknown> = {}) => ({ ...DEFAULT_WRITE_GATE_OPTIONS, ...extra });
function saving(store: MemoryStore, extra: Record<string, unknown> = {}) {
  const o = gateOptions(extra);
  return new GateRegistry(store, { factory: () => createNoveltyGate(o) as unknown as WriteGate, codec: noveltyGateCodec(createNoveltyGate(o).options) });
}
function replaying(store: MemoryStore, extra: Record<string, unknown> = {}) {
  const o = gateOptions(extra);
  return new GateRegistry(store, { factory: () => createNoveltyGate(o) as unknown as WriteGate });
}
async function gateState(reg: GateRegistry, scope: ResolvedScope = S): Promise<string> {
  const rt = await reg.runtime(scope, scopeKey(scope));
  return JSON.stringify((rt.gate as unknown as NoveltyGate).serialize());
}
/** Save the scope's gate now (through a replaying-then-saving registry) and return the saved JSON. */
async function saveNow(store: MemoryStore, scope: ResolvedScope = S): Promise<string> {
  const reg = saving(store);
  const rt = await reg.runtime(scope, scopeKey(scope));
  await reg.afterCommit(rt, 0);
  expect(reg.counters.saved).toBe(1);
  return (await store.loadState!(scope, GATE_STATE_NAME))!;
}
/** Put `state` (object or raw text) in the slot, rebuild, and check the gate equals a full replay; returns whether the snapshot was used. */
async function rebuildWith(store: MemoryStore, state: unknown, scope: ResolvedScope = S): Promise<boolean> {
  await store.saveState!(scope, GATE_STATE_NAME, typeof state === 'string' ? state : JSON.stringify(state));
  const r = saving(store);
  sameGate(await gateState(r, scope), await gateState(replaying(store), scope));
  return r.counters.restored === 1;
}

/** Bit-identical gate snapshots (a short message instead of a megabyte diff). */
function sameGate(got: string, replay: string, what = 'rebuilt gate'): void {
  expect(got === replay, `${what} differs from a full replay`).toBe(true);
}

const f64b64 = (a: number[]) => Buffer.from(new Float64Array(a).buffer).toString('base64');

describe('forged or stale snapshots are never used', () => {
  it('a snapshot whose ids are the right prefix but in another order', async () => {
    const store = await openStore();
    await seed(store, 1400);
    const snap = JSON.parse(await saveNow(store));
    const ids: string[] = snap.scopes[0].ids;
    const swapped = [ids[1], ids[0], ...ids.slice(2)];
    expect(await rebuildWith(store, { ...snap, scopes: [{ ...snap.scopes[0], ids: swapped }] })).toBe(false);
    // reversed tail
    expect(await rebuildWith(store, { ...snap, scopes: [{ ...snap.scopes[0], ids: [...ids.slice(0, 500), ...ids.slice(500).reverse()] }] })).toBe(false);
    // the legit one still applies
    expect(await rebuildWith(store, snap)).toBe(true);
    await store.close();
  });

  it('a snapshot carrying its own vectors (never written by the write path) that differ from the nodes', async () => {
    const store = await openStore();
    await seed(store, 1400);
    const snap = JSON.parse(await saveNow(store));
    const n = snap.scopes[0].ids.length;
    const rows = new Float32Array(n * dim);
    for (let r = 0; r < n; r++) rows.set(clustered(r + 77), r * dim);
    const vectors = Buffer.from(rows.buffer).toString('base64');
    expect(await rebuildWith(store, { ...snap, scopes: [{ ...snap.scopes[0], vectors }] })).toBe(false);
    await store.close();
  });

  it('an empty snapshot (no ids) with a forged τ and commit count', async () => {
    const store = await openStore();
    await seed(store, 1400);
    const snap = JSON.parse(await saveNow(store));
    const empty = { ...snap.scopes[0], ids: [], sum: f64b64(new Array(dim).fill(0)), scatter: null, basis: null, pcaComponents: 0, index: null, sketch: null, changesSinceFit: 0 };
    expect(await rebuildWith(store, { ...snap, scopes: [{ ...empty, tau: 0.01, commits: 123_456 }] })).toBe(false);
    await store.close();
  });

  it('commit count or τ that do not fit the ids', async () => {
    const store = await openStore();
    await seed(store, 1400);
    const snap = JSON.parse(await saveNow(store));
    expect(await rebuildWith(store, { ...snap, scopes: [{ ...snap.scopes[0], commits: snap.scopes[0].commits + 5 }] })).toBe(false);
    await store.close();
  });

  it('non-finite numbers hidden in base64 (sum, basis, scatter, sketch)', async () => {
    const store = await openStore();
    await seed(store, 1400);
    const snap = JSON.parse(await saveNow(store));
    const sc = snap.scopes[0];
    const poison = (b64: string, v: number) => {
      const a = new Float64Array(new Uint8Array(Buffer.from(b64, 'base64')).buffer);
      a[0] = v;
      return Buffer.from(a.buffer).toString('base64');
    };
    for (const bad of [NaN, Infinity, -Infinity]) {
      expect(await rebuildWith(store, { ...snap, scopes: [{ ...sc, sum: poison(sc.sum, bad) }] })).toBe(false);
      expect(await rebuildWith(store, { ...snap, scopes: [{ ...sc, basis: poison(sc.basis, bad) }] })).toBe(false);
      if (sc.scatter) expect(await rebuildWith(store, { ...snap, scopes: [{ ...sc, scatter: poison(sc.scatter, bad) }] })).toBe(false);
    }
    await store.close();
  });

  it('truncated or garbage base64, wrong shapes, hostile JSON (__proto__, huge or duplicate ids, other scopes)', async () => {
    const store = await openStore();
    const other = resolveScope({ userId: 'gate-breakit-other' });
    await seed(store, 1400);
    await seed(store, 1400, 0, other);
    const text = await saveNow(store);
    const snap = JSON.parse(text);
    const sc = snap.scopes[0];
    const ids: string[] = sc.ids;
    const otherSnap = JSON.parse(await saveNow(store, other));
    const forged: unknown[] = [
      { ...snap, scopes: [{ ...sc, sum: sc.sum.slice(0, -4) }] },
      { ...snap, scopes: [{ ...sc, basis: sc.basis.slice(0, -8) }] },
      { ...snap, scopes: [{ ...sc, sum: '!!!!' }] },
      { ...snap, scopes: [{ ...sc, pcaComponents: sc.pcaComponents + 1 }] },
      { ...snap, scopes: [{ ...sc, dimension: dim + 1 }] },
      { ...snap, scopes: [{ ...sc, ids: [...ids, ...ids] }] },
      { ...snap, scopes: [{ ...sc, ids: [ids[0], ids[0], ...ids.slice(2)] }] },
      { ...snap, scopes: [{ ...sc, ids: [...ids.slice(0, -1), 42] }] },
      { ...snap, scopes: [{ ...sc, ids: Array.from({ length: 200_000 }, (_, i) => `x${i}`) }] },
      { ...snap, scopes: [sc, sc] },
      { ...snap, scopes: { 0: sc, length: 1 } },
      { ...snap, scopes: [{ ...sc, ids: { length: ids.length } }] },
      { ...snap, version: 2 },
      { ...snap, format: 'other' },
      { ...snap, options: { ...snap.options, tau0: snap.options.tau0 + 1e-12 } },
      { ...snap, options: { ...snap.options, mode: 'exact' } },
      // the other scope's snapshot, as is and relabelled to this scope
      otherSnap,
      { ...otherSnap, scopes: [{ ...otherSnap.scopes[0], scope: KEY }] },
      null,
      [],
      42,
      '"a string"',
      text.replace('"options":{', '"options":{"__proto__":{"tau0":0.9},'),
      text.replace('"scopes":[{', '"scopes":[{"__proto__":{"ids":[]},'),
      text.replace('{"format"', '{"__proto__":{"scopes":[]},"format"'),
      text.slice(0, text.length / 2),
    ];
    for (const [i, f] of forged.entries()) {
      const proto = typeof f === 'string' && f.includes('__proto__');
      const used = await rebuildWith(store, f);
      // an own "__proto__" key is ignored by the parser of the snapshot: harmless either way
      if (!proto) expect(used, `forged snapshot ${i} was used`).toBe(false);
      expect(({} as Record<string, unknown>).tau0).toBeUndefined();
    }
    expect(await rebuildWith(store, text)).toBe(true);
    await store.close();
  });

  it('a stored node rewritten in place (same id, new embedding) after the save', async () => {
    const store = await openStore();
    const nodes = await seed(store, 1400);
    await saveNow(store);
    const victim = nodes[10]!;
    await store.write({ scope: S, nodes: [{ ...victim, embedding: clustered(9999) }] });
    const r = saving(store);
    sameGate(await gateState(r), await gateState(replaying(store)));
    expect(r.counters.restored).toBe(0);
    await store.close();
  });
});

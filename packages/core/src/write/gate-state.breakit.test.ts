/**
 * Break-it tests of gate snapshots (ours; see gates.ts module comment and gate-state.test.ts): hostile
 * or stale saved state, concurrent writers, failing stores, crashes. Whatever happens, a rebuilt gate
 * must be bit-identical to a full replay of the stored nodes, and a snapshot that does not apply must
 * never be used.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { NoveltyGate } from '@mem/gate-vmf';
import { resolveScope, scopeKey } from '../scope.js';
import { createSqliteStore } from '../store/index.js';
import { prepareChild, atLeastTwoAcks, runAndKill } from '../testdata/crash-harness.js';
import { seededRandom } from '../testing/index.js';
import type { MemoryStore, ResolvedScope } from '../types.js';
import { GATE_STATE_NAME, sealGateState } from './gates.js';
import { createMemory, type Memory, type MemoryOptions } from './memory.js';
import { failingController, flakyStore, simpleExtractor } from './test-kit.js';
import { clustered, gateKit, openHashStore } from './testdata/gate-state-kit.js';
import { HASH_EMBEDDER_DIMENSION, hashEmbedder } from './testdata/hash-embedder.js';
import { MemValidationError } from '../errors.js';
import { expectMemError } from '@mem/test-utils';

const dir = mkdtempSync(join(tmpdir(), 'mem-gate-breakit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const dim = HASH_EMBEDDER_DIMENSION;
const S = resolveScope({ userId: 'gate-breakit' });
const KEY = scopeKey(S);
let fileNo = 0;

const openStore = (path = join(dir, `s${++fileNo}.db`)) => openHashStore(path);
const { seed, saving, replaying, gateState } = gateKit(S);
/** Save the scope's gate now (through a replaying-then-saving registry) and return the saved JSON. */
async function saveNow(store: MemoryStore, scope: ResolvedScope = S): Promise<string> {
  const reg = saving(store);
  const rt = await reg.runtime(scope, scopeKey(scope));
  await reg.afterCommit(rt, 0);
  expect(reg.counters.saved).toBe(1);
  return (await store.loadState!(scope, GATE_STATE_NAME))!;
}
/** Put `state` (object or raw text) in the slot, rebuild, and check the gate equals a full replay; returns whether the snapshot was used. */
const replays = new WeakMap<MemoryStore, Map<string, string>>();
/** A full replay's gate of the scope (memoised per store: the forging tests only touch the state slot). */
async function replayOf(store: MemoryStore, scope: ResolvedScope): Promise<string> {
  let m = replays.get(store);
  if (!m) replays.set(store, (m = new Map()));
  const key = `${scopeKey(scope)}#${await store.count(scope)}`;
  if (!m.has(key)) m.set(key, await gateState(replaying(store), scope));
  return m.get(key)!;
}
/**
 * Put `state` in the slot, as a hostile writer would: objects (and JSON object texts) sealed with a
 * fresh digest, so each check behind the digest is exercised; anything else as is.
 */
function forge(state: unknown): string {
  if (typeof state === 'string') {
    try {
      const o = JSON.parse(state);
      return o && typeof o === 'object' && !Array.isArray(o) ? sealGateState(o) : state;
    } catch {
      return state;
    }
  }
  return state && typeof state === 'object' && !Array.isArray(state) ? sealGateState(state) : JSON.stringify(state);
}
async function rebuildWith(store: MemoryStore, state: unknown, scope: ResolvedScope = S, raw = false): Promise<boolean> {
  await store.saveState!(scope, GATE_STATE_NAME, raw ? (state as string) : forge(state));
  const r = saving(store);
  sameGate(await gateState(r, scope), await replayOf(store, scope));
  return r.counters.restored === 1;
}

/** Bit-identical gate snapshots (a short message instead of a megabyte diff). */
function sameGate(got: string, replay: string, what = 'rebuilt gate'): void {
  expect(got === replay, `${what} differs from a full replay`).toBe(true);
}

/** A store seeded with 1 400 memories and the gate snapshot saved now (parsed). */
async function seededSnapshot() {
  const store = await openStore();
  await seed(store, 1400);
  return { store, snap: JSON.parse(await saveNow(store)) };
}

const f64b64 = (a: number[]) => Buffer.from(new Float64Array(a).buffer).toString('base64');

describe('forged or stale snapshots are never used', () => {
  it('a snapshot whose ids are the right prefix but in another order', async () => {
    const { store, snap } = await seededSnapshot();
    const ids: string[] = snap.scopes[0].ids;
    const swapped = [ids[1], ids[0], ...ids.slice(2)];
    expect(await rebuildWith(store, { ...snap, scopes: [{ ...snap.scopes[0], ids: swapped }] })).toBe(false);
    // reversed tail
    expect(await rebuildWith(store, { ...snap, scopes: [{ ...snap.scopes[0], ids: [...ids.slice(0, 500), ...ids.slice(500).reverse()] }] })).toBe(false);
    // the legit one still applies
    expect(await rebuildWith(store, snap)).toBe(true);
    await store.close();
  });

  it('a snapshot saved by another @mem/gate-vmf version, or without the stamp, is replayed', async () => {
    const { store, snap } = await seededSnapshot();
    expect(snap.implementation).toMatch(/^@mem\/gate-vmf@\d+\.\d+\.\d+/);
    expect(await rebuildWith(store, { ...snap, implementation: '@mem/gate-vmf@0.0.0-older' })).toBe(false);
    const { implementation: _stamp, ...unstamped } = snap;
    expect(await rebuildWith(store, unstamped)).toBe(false);
    expect(await rebuildWith(store, snap)).toBe(true);
    await store.close();
  });

  it('a snapshot carrying its own vectors (never written by the write path) that differ from the nodes', async () => {
    const { store, snap } = await seededSnapshot();
    const n = snap.scopes[0].ids.length;
    const rows = new Float32Array(n * dim);
    for (let r = 0; r < n; r++) rows.set(clustered(r + 77), r * dim);
    const vectors = Buffer.from(rows.buffer).toString('base64');
    expect(await rebuildWith(store, { ...snap, scopes: [{ ...snap.scopes[0], vectors }] })).toBe(false);
    await store.close();
  });

  it('an empty snapshot (no ids) with a forged τ and commit count', async () => {
    const { store, snap } = await seededSnapshot();
    const empty = { ...snap.scopes[0], ids: [], sum: f64b64(new Array(dim).fill(0)), scatter: null, basis: null, pcaComponents: 0, index: null, sketch: null, changesSinceFit: 0 };
    expect(await rebuildWith(store, { ...snap, scopes: [{ ...empty, tau: 0.01, commits: 123_456 }] })).toBe(false);
    await store.close();
  });

  it('commit count or τ that do not fit the ids', async () => {
    const { store, snap } = await seededSnapshot();
    expect(await rebuildWith(store, { ...snap, scopes: [{ ...snap.scopes[0], commits: snap.scopes[0].commits + 5 }] })).toBe(false);
    await store.close();
  });

  it('non-finite numbers hidden in base64 (sum, basis, scatter)', async () => {
    const { store, snap } = await seededSnapshot();
    const sc = snap.scopes[0];
    const poison = (b64: string, v: number) => {
      const a = new Float64Array(new Uint8Array(Buffer.from(b64, 'base64')).buffer);
      a[0] = v;
      return Buffer.from(a.buffer).toString('base64');
    };
    // (each value in each field: packages/gate-vmf/src/snapshot.breakit.test.ts)
    expect(await rebuildWith(store, { ...snap, scopes: [{ ...sc, sum: poison(sc.sum, NaN) }] })).toBe(false);
    expect(await rebuildWith(store, { ...snap, scopes: [{ ...sc, basis: poison(sc.basis, Infinity) }] })).toBe(false);
    expect(sc.scatter).not.toBeNull();
    expect(await rebuildWith(store, { ...snap, scopes: [{ ...sc, scatter: poison(sc.scatter, -Infinity) }] })).toBe(false);
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
      { ...snap, options: { ...snap.options, tau0: snap.options.tau0 + 1e-12 } },
      { ...snap, options: { ...snap.options, mode: 'exact' } },
      // the other scope's snapshot, as is and relabelled to this scope
      otherSnap,
      { ...otherSnap, scopes: [{ ...otherSnap.scopes[0], scope: KEY }] },
      null,
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

  it('a saved text damaged anywhere (a changed character, cut short) is refused by its digest', async () => {
    const store = await openStore();
    await seed(store, 1400);
    const text = await saveNow(store);
    expect(await rebuildWith(store, text, S, true)).toBe(true);
    const snap = JSON.parse(text);
    const sc = snap.scopes[0];
    // one character of each field that no other check covers (PCA basis, scatter, sketch basis, τ, refits)
    const spots = [sc.basis, sc.scatter, sc.sketch?.basis ?? sc.basis, `"tau":${sc.tau}`, `"refits":${sc.refits}`].map((f: string) => text.indexOf(f) + Math.floor(f.length / 2));
    for (const at of spots) {
      expect(at).toBeGreaterThan(0);
      const c = text[at]!;
      const damaged = text.slice(0, at) + (c === 'A' ? 'B' : c === '1' ? '2' : /[0-9]/.test(c) ? '1' : 'A') + text.slice(at + 1);
      expect(damaged).not.toBe(text);
      expect(await rebuildWith(store, damaged, S, true), `damage at ${at}`).toBe(false);
    }
    expect(await rebuildWith(store, text.slice(0, -10), S, true)).toBe(false);
    expect(await rebuildWith(store, JSON.stringify({ ...snap, digest: undefined }), S, true)).toBe(false);
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

const NAMES = ['Mira', 'Tom', 'Lena', 'Ravi', 'Sofia'];
const THINGS = ['bicycle', 'guitar', 'teapot', 'kite', 'canoe', 'lamp', 'camera'];
/** Observation i of a run: a few repeated topics, so the gate routes Add, Update and Noop. */
function obs(i: number, scope: ResolvedScope = S, run = 'r') {
  const topic = `${NAMES[i % 5]} talked about the ${THINGS[(i * 3) % 7]} with friends at the old market near the river bridge on a sunny afternoon`;
  return {
    text: i % 3 ? `${topic} (${run} ${i}).` : `${NAMES[i % 5]} bought a ${THINGS[i % 7]} (${run} ${i}).`,
    speaker: NAMES[i % 5],
    observedAt: new Date(Date.UTC(2025, 0, 1, 9, 0, i)).toISOString(),
    scope,
    sourceId: `${run}:${i}`,
  };
}
function memoryOn(store: MemoryStore, extra: Partial<MemoryOptions> = {}): Memory {
  return createMemory({ store, embedder: hashEmbedder(), extractor: simpleExtractor, consolidateEvery: 5, ...extra });
}
/** A file store seeded with n synthetic nodes per scope, closed again. */
async function seededFile(n: number, scopes: ResolvedScope[] = [S]): Promise<string> {
  const path = join(dir, `m${++fileNo}.db`);
  const store = await openStore(path);
  for (const sc of scopes) await seed(store, n, 0, sc);
  await store.close();
  return path;
}
/** Reopen the file: the saved snapshot must apply (when `used`) and give a full replay's gate. */
async function checkFile(path: string, scopes: ResolvedScope[] = [S], used = true, options: Record<string, unknown> = {}): Promise<void> {
  const store = await openStore(path);
  expect(store.checkIntegrity()).toEqual([]);
  for (const sc of scopes) {
    const r = saving(store, options);
    sameGate(await gateState(r, sc), await gateState(replaying(store, options), sc), `gate of ${scopeKey(sc)}`);
    if (used) expect(r.counters.restored, `snapshot of ${scopeKey(sc)} used`).toBe(1);
  }
  await store.close();
}

describe('gate snapshots: random sequences of store operations', () => {
  it('writes, saves, forgets, in-place rewrites and damage in random order: every rebuild equals a full replay', async () => {
    const rnd = seededRandom(20261130);
    const store = await openStore();
    let nodes = await seed(store, 1250); // 1072 gate members: saved from 1000 on
    let next = 1250;
    let restored = 0;
    const log: string[] = [];
    for (let step = 0; step < 10; step++) {
      const op = Math.floor(rnd() * 5);
      if (op === 0) {
        const k = 1 + Math.floor(rnd() * 40);
        nodes = nodes.concat(await seed(store, k, next));
        next += k;
        log.push(`write ${k}`);
      } else if (op === 1) {
        const victim = nodes[Math.floor(rnd() * nodes.length)]!;
        await store.forget(S, victim.id);
        nodes = nodes.filter((n) => n.id !== victim.id);
        log.push('forget');
      } else if (op === 2) {
        const i = Math.floor(rnd() * nodes.length);
        const v = nodes[i]!;
        const flip = rnd() < 0.5;
        nodes[i] = { ...v, embedding: flip ? v.embedding : clustered(50_000 + step), gate: flip ? { ...v.gate!, action: v.gate!.action === 'noop' ? 'add' : 'noop' } : v.gate };
        await store.write({ scope: S, nodes: [nodes[i]!] });
        log.push(flip ? 'rewrite membership' : 'rewrite embedding');
      } else if (op === 3) {
        const text = await store.loadState!(S, GATE_STATE_NAME);
        if (text) await store.saveState!(S, GATE_STATE_NAME, text.replace(/"refits":\d+/, '"refits":0'));
        log.push('damage');
      } else log.push('-');
      // a process that saves now and then (as the write path does), and a rebuild
      const reg = saving(store);
      const rt = await reg.runtime(S, KEY);
      sameGate(JSON.stringify((rt.gate as unknown as NoveltyGate).serialize()), await gateState(replaying(store)), `after ${log.join(', ')}`);
      restored += reg.counters.restored;
      log.push(`r${reg.counters.restored}`);
      if (rnd() < 0.7) await reg.afterCommit(rt, 1_000_000);
    }
    expect(restored).toBeGreaterThan(0);
    await store.close();
  });
});

describe('gate snapshots through createMemory: live gates, failures, concurrency', () => {
  it('the live gate (routes, Noops, Updates, consolidation, derived nodes) saved on close equals a full replay', async () => {
    const path = await seededFile(1200);
    // a fixed κ (gate options pass through the codec too) makes near-repeats Noops and Updates
    const gate = { kappa: 400 };
    // a System-Two stand-in: Updates escalate to merges, which store derived nodes (gate members too)
    let merged = 0;
    const summarizer = { summarize: async (r: { kind: string; memories: { text: string }[] }) => `${r.kind} summary ${++merged}: ${r.memories.map((x) => x.text).join(' / ')}` };
    const m = memoryOn(createSqliteStore({ path }), { gate, summarizer });
    for (let i = 0; i < 40; i += 4) await m.add([obs(i), obs(i + 1), obs(i + 2)]);
    for (let i = 40; i < 60; i++) await m.add(obs(i));
    const st = await m.stats();
    expect(st.gate.noop).toBeGreaterThan(0);
    expect(st.gate.update).toBeGreaterThan(0);
    expect(st.consolidations).toBeGreaterThan(0);
    expect(st.summarizerCalls).toBeGreaterThan(0);
    expect(st.gateState.saved).toBeGreaterThanOrEqual(1);
    await m.close();
    await checkFile(path, [S], true, gate);
  });

  it('a store whose saveState throws, or hangs then rejects: every write succeeds, failures counted, no retry storm', async () => {
    for (const mode of ['throw', 'slow'] as const) {
      const path = await seededFile(1200);
      const inner = createSqliteStore({ path });
      let calls = 0;
      const store = new Proxy(inner, {
        get(t, prop, recv) {
          if (prop === 'saveState') {
            return async () => {
              calls++;
              if (mode === 'throw') throw new Error('state table locked');
              await new Promise((res) => setTimeout(res, 30));
              throw new Error('timed out');
            };
          }
          const v = Reflect.get(t, prop, recv);
          return typeof v === 'function' ? v.bind(t) : v;
        },
      });
      const m = memoryOn(store);
      const out = [];
      for (let i = 0; i < 12; i++) out.push(await m.add(obs(i)));
      expect(out.every((r) => r.node)).toBe(true);
      const st = await m.stats();
      expect(st.gateState.saved).toBe(0);
      expect(st.gateState.saveFailures).toBe(calls);
      // one failed save after the first write, not one per write (each attempt serializes the gate)
      expect(calls).toBe(1);
      await m.close(); // one last attempt
      expect(calls).toBe(2);
      await checkFile(path, [S], false);
      const s2 = await openStore(path);
      expect(await s2.count(S)).toBe(1212);
      await s2.close();
    }
  });

  it('close() while writes are pending: every write is stored, then the gate is saved once', async () => {
    const path = await seededFile(1200);
    const m = memoryOn(createSqliteStore({ path }));
    const adds: Promise<unknown>[] = Array.from({ length: 15 }, (_, i) => (i % 3 ? m.add(obs(i)) : m.add([obs(100 + i), obs(200 + i)])));
    const closing = m.close();
    const res = await Promise.allSettled(adds);
    expect(res.every((r) => r.status === 'fulfilled')).toBe(true);
    await closing;
    await checkFile(path);
  });

  it('failed writes around a save (store down, controller down after the gate commit): the next rebuild restores + replays the tail exactly', async () => {
    const path = await seededFile(1200);
    const { store, fail } = flakyStore(createSqliteStore({ path }));
    const { createSystemOne } = await import('@mem/system-one');
    // while cfail.on, the first relation call fails: after the write's gate commits, before the store write
    const cfail = { on: false };
    const isRelation = (qs: Record<string, { kind?: string }>) => cfail.on && Object.values(qs).some((q) => q.kind?.startsWith('relation.'));
    const controller = failingController(createSystemOne({ cache: false }) as never, 1, isRelation as never);
    const m = memoryOn(store, { systemOne: controller as never });
    await m.add(obs(0)); // rebuild (1029 commits replayed) + save
    expect((await m.stats()).gateState).toMatchObject({ saved: 1, restored: 0 });
    fail.on = true;
    await expect(m.add([obs(1), obs(2)])).rejects.toThrow(/store/);
    fail.on = false;
    await m.add(obs(3));
    expect((await m.stats()).gateState).toMatchObject({ restored: 1, replayedCommits: 1029 }); // snapshot + no tail
    cfail.on = true;
    let failures = 0;
    for (let i = 4; i < 14; i++) await m.add(obs(i)).catch(() => failures++);
    expect(failures).toBe(1);
    expect((await m.stats()).gateState.restored).toBe(2);
    await m.close();
    await checkFile(path);
  });

  it('two Memory instances on one file, interleaved, then restart', async () => {
    const path = await seededFile(1200);
    const a = memoryOn(createSqliteStore({ path }));
    const b = memoryOn(createSqliteStore({ path }));
    await a.add(obs(0, S, 'a')); // a rebuilds and saves
    await b.add(obs(1, S, 'b')); // b rebuilds (sees a's node) and saves
    for (let i = 2; i < 12; i++) await (i % 2 ? b : a).add(obs(i, S, i % 2 ? 'b' : 'a'));
    await a.close(); // saves a's view (without b's later nodes)
    await checkFile(path, [S], false);
    await b.close(); // saves b's view (without a's later nodes)
    await checkFile(path, [S], false);
    // the next process replays, saves, and the one after restores
    const c = memoryOn(createSqliteStore({ path }));
    await c.add(obs(50, S, 'c'));
    await c.close();
    await checkFile(path);
  });

  it('forget, then add and restart; many scopes with Unicode names; a scope never reads another scope\'s snapshot', async () => {
    const scopes = [S, resolveScope({ userId: 'ユーザー🙂', agentId: 'agënt' }), resolveScope({ namespace: 'ns', runId: 'r\u0301ün' })];
    const path = await seededFile(1200, scopes);
    const m = memoryOn(createSqliteStore({ path }));
    for (const [k, sc] of scopes.entries()) await m.add(obs(k, sc));
    expect((await m.stats()).gateState.saved).toBe(3);
    const victim = (await m.list({ scope: scopes[1]!, limit: 5 }))[2]!;
    expect(await m.forget(victim.id, { scope: scopes[1]! })).toBe(true);
    await m.close();
    await checkFile(path, [scopes[0]!, scopes[2]!]);
    await checkFile(path, [scopes[1]!], false); // the forget dropped its snapshot
    const m2 = memoryOn(createSqliteStore({ path }));
    await m2.add(obs(9, scopes[1]!)); // replays, saves again
    await m2.close();
    await checkFile(path, scopes);
    // scope 0's snapshot copied into scope 2's slot (and relabelled) is refused
    const store = await openStore(path);
    const a = JSON.parse((await store.loadState!(scopes[0]!, GATE_STATE_NAME))!);
    expect(await rebuildWith(store, a, scopes[2]!)).toBe(false);
    expect(await rebuildWith(store, { ...a, scopes: [{ ...a.scopes[0], scope: scopeKey(scopes[2]!) }] }, scopes[2]!)).toBe(false);
    await store.close();
  });
});

describe('gate snapshots under other gate options', () => {
  it('restore + tail equals a full replay with the cluster index, the sketch, exact mode, another refit schedule, normalize', async () => {
    const variants: Record<string, unknown>[] = [
      { fastCertify: 'score', fastMinN: 500 },
      { fastCertify: 'decision', fastMinN: 64, sketchDims: 4 },
      { mode: 'exact' },
      { refitMaxScale: 1, refitFraction: 0.2, refitMin: 3 }, // ('always' refits on each commit: too slow here)
      { normalize: true, dimension: dim, kappa: 30 },
    ];
    const store = await openStore();
    await seed(store, 1200);
    const base = await store.count(S);
    let extra = 0;
    for (const [i, o] of variants.entries()) {
      const reg = saving(store, o);
      await reg.afterCommit(await reg.runtime(S, KEY), 0);
      expect(reg.counters.saved, `variant ${i} saved`).toBe(1);
      const snap = JSON.parse((await store.loadState!(S, GATE_STATE_NAME))!);
      if (o.fastCertify === 'score') expect(snap.scopes[0].index).not.toBeNull();
      if (o.fastCertify === 'decision') expect(snap.scopes[0].sketch).not.toBeNull();
      await seed(store, 150, base + extra);
      extra += 150;
      const r = saving(store, o);
      sameGate(await gateState(r), await gateState(replaying(store, o)), `variant ${i}`);
      expect(r.counters.restored, `variant ${i} restored`).toBe(1);
      // and the snapshot of one variant is never used by another
      const other = saving(store, variants[(i + 1) % variants.length]);
      await other.runtime(S, KEY);
      expect(other.counters.restored).toBe(0);
    }
    await store.close();
  });

  it('live writes in fast mode (index or sketch in use at N ≈ 1000): the saved gate equals a full replay', async () => {
    for (const certify of ['score', 'decision'] as const) {
      const path = await seededFile(1200);
      const gate = { kappa: 400, fastMinN: 64, fastCertify: certify };
      const m = memoryOn(createSqliteStore({ path }), { gate });
      for (let i = 0; i < 24; i += 4) await m.add([obs(i), obs(i + 1), obs(i + 2)]);
      for (let i = 24; i < 36; i++) await m.add(obs(i));
      const st = await m.stats();
      expect(st.gate.noop + st.gate.update).toBeGreaterThan(0);
      await m.close();
      await checkFile(path, [S], true, gate);
    }
  });
});

describe('gate snapshots: crashes, schema migration, the state slot itself', () => {
  it('SIGKILL during saves: the file is intact and the rebuilt gate equals a full replay', async () => {
    const here = dirname(fileURLToPath(import.meta.url));
    const external = ['better-sqlite3', 'hnswlib-node', 'wink-*', 'chrono-node', '@huggingface/*', 'openai'];
    const child = await prepareChild(join(here, 'testdata', 'gate-state-crash-child.ts'), join(here, '..', '..'), 'mem-gate-state-crash-test', external);
    const scope = resolveScope({ namespace: 'crash', userId: 'gate-state' });
    const path = join(dir, 'crash.db');
    const rnd = seededRandom(Date.now() >>> 0);
    let acked = 0;
    let restored = 0;
    try {
      for (let run = 0; run < 2; run++) {
        acked += (await runAndKill(child, [path], join(here, '..', '..'), 80 + Math.floor(rnd() * 250), atLeastTwoAcks)).length;
        const store = await openStore(path);
        expect(store.checkIntegrity()).toEqual([]);
        const r = saving(store);
        sameGate(await gateState(r, scope), await gateState(replaying(store), scope), `gate after kill ${run}`);
        restored += r.counters.restored;
        await store.close();
      }
    } finally {
      child.dispose();
    }
    expect(acked).toBeGreaterThan(2); // the children did save between kills
    expect(restored).toBeGreaterThan(0);
  }, 180_000);

  it('a schema-v5 file is upgraded in place: every node kept, the state table added and usable', async () => {
    const path = join(dir, 'v5.db');
    const store = await openStore(path);
    const nodes = await seed(store, 1200);
    await store.close();
    // what a v5 build left: no scope_state table, migrations up to 5
    const raw = new Database(path);
    raw.exec('DROP TABLE scope_state');
    raw.prepare('DELETE FROM migrations WHERE version >= 6').run();
    raw.close();
    const upgraded = await openStore(path);
    expect(upgraded.checkIntegrity()).toEqual([]);
    expect(await upgraded.count(S)).toBe(1200);
    expect((await upgraded.get(S, nodes[777]!.id))?.text).toBe(nodes[777]!.text);
    expect(await upgraded.loadState!(S, GATE_STATE_NAME)).toBeNull();
    await saveNow(upgraded);
    await upgraded.close();
    const check = new Database(path, { readonly: true });
    expect((check.prepare('SELECT MAX(version) AS v FROM migrations').get() as { v: number }).v).toBeGreaterThanOrEqual(6);
    check.close();
    await checkFile(path);
  });

  it('saveState / loadState refuse bad names and values with a typed error and keep the slot as it was', async () => {
    const store = await openStore();
    await store.saveState!(S, 'n', 'kept');
    for (const name of ['', 'x'.repeat(201), 7, null, undefined, {}]) {
      await expectMemError(store.saveState!(S, name as string, 'v'), MemValidationError, 'INVALID_INPUT');
      await expectMemError(store.loadState!(S, name as string), MemValidationError, 'INVALID_INPUT');
    }
    for (const value of [7, {}, undefined, ['a'], Buffer.from('x')]) await expectMemError(store.saveState!(S, 'n', value as string), MemValidationError, 'INVALID_INPUT');
    // a lone surrogate cannot be stored as UTF-8: refused, not silently replaced by U+FFFD
    await expectMemError(store.saveState!(S, 'n', 'bad \uD800 value'), MemValidationError, 'INVALID_INPUT');
    await expectMemError(store.saveState!(S, 'n', '\uDC00'), MemValidationError, 'INVALID_INPUT');
    expect(await store.loadState!(S, 'n')).toBe('kept');
    // well-formed Unicode round-trips, in names and values; names are per scope
    await store.saveState!(S, 'ünï-🙂'.repeat(20), 'välue 🙂 \u0000 end');
    expect(await store.loadState!(S, 'ünï-🙂'.repeat(20))).toBe('välue 🙂 \u0000 end');
    expect(await store.loadState!(resolveScope({ userId: 'someone-else' }), 'n')).toBeNull();
    // null deletes; deleting in an unknown scope creates nothing
    await store.saveState!(S, 'n', null);
    expect(await store.loadState!(S, 'n')).toBeNull();
    await store.saveState!(resolveScope({ userId: 'nobody' }), 'n', null);
    expect(await store.scopes()).toEqual([]);
    await store.close();
  });

  it('a store whose loadState throws or returns junk: the scope is replayed', async () => {
    const inner = await openStore();
    await seed(inner, 1200);
    await saveNow(inner);
    for (const junk of [() => Promise.reject(new Error('io')), () => Promise.resolve({ not: 'a string' }), () => Promise.resolve('')]) {
      const store = new Proxy(inner, {
        get: (t, p, r) => (p === 'loadState' ? junk : typeof Reflect.get(t, p, r) === 'function' ? Reflect.get(t, p, r).bind(t) : Reflect.get(t, p, r)),
      }) as MemoryStore;
      const reg = saving(store);
      sameGate(await gateState(reg), await gateState(replaying(inner)));
      expect(reg.counters.restored).toBe(0);
    }
    await inner.close();
  });
});

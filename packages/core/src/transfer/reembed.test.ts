/**
 * Re-embedding (issue 32 point 4), default tier, between two cheap embedders (the 16-d and 24-d
 * hash test embedders): vectors, gate decisions and the recorded embedder move to the new space;
 * the old embedder is refused afterwards, also by a handle another "process" opened before; a
 * failed run leaves the old space and resumes; a memory written during staging is embedded too.
 * The SIGKILL test is reembed.crash.test.ts; MiniLM: reembed.minilm.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveScope } from '../scope.js';
import { createSqliteStore } from '../store/index.js';
import { createMemory, MEMORY_SCHEMA_VERSION } from '../write/memory.js';
import { failingEmbedder, simpleExtractor } from '../write/test-kit.js';
import { hashEmbedder } from '../write/testdata/hash-embedder.js';
import type { Embedder } from '../types.js';
import { reembedStore } from './reembed.js';
import { EmbedderError, MemValidationError, StoreMetaMismatchError } from '../errors.js';
import { expectMemError } from '@mem/test-utils';

const dir = mkdtempSync(join(tmpdir(), 'mem-reembed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const alice = resolveScope({ userId: 'alice' });
const bob = resolveScope({ userId: 'bob' });
const OLD = hashEmbedder(16);
const NEW = hashEmbedder(24);
const metaOf = (e: Embedder) => ({ schemaVersion: MEMORY_SCHEMA_VERSION, embeddingModel: e.model, dimension: e.dimension });

const NAMES = ['Mira', 'Tom', 'Lena', 'Ravi'];
const THINGS = ['bicycle', 'guitar', 'teapot', 'kite', 'canoe', 'lamp'];
const text = (i: number) => `${NAMES[i % 4]} talked about the ${THINGS[(i * 5) % 6]} and the ${THINGS[(i * 7 + 1) % 6]} (turn ${i % 9}).`;

async function seeded(path: string, n = 60): Promise<void> {
  const memory = createMemory({ store: createSqliteStore({ path }), embedder: OLD, extractor: simpleExtractor });
  await memory.add(Array.from({ length: n }, (_, i) => ({ text: text(i), observedAt: new Date(Date.UTC(2024, 0, 1, 9, i)).toISOString(), scope: i % 3 ? alice : bob, sourceId: `s${i}` })));
  const [first] = await memory.list({ scope: bob });
  await memory.forget(first!.id, { scope: bob });
  await memory.close();
}

/** Every node of the file is in the space of `e` (its vector is e's vector of its text). */
async function assertSpace(path: string, e: Embedder): Promise<void> {
  const store = createSqliteStore({ path });
  await store.open(metaOf(e));
  for (const scope of [alice, bob]) {
    const nodes = await store.list(scope, { limit: 10_000 });
    const want = await e.embed(nodes.map((n) => n.text));
    nodes.forEach((n, i) => expect(Array.from(n.embedding), n.text).toEqual(Array.from(want[i]!)));
  }
  expect(store.checkIntegrity()).toEqual([]);
  await store.close();
}

describe('reembedStore', () => {
  it('moves vectors, gate decisions and the recorded embedder to the new space; the old embedder is refused afterwards', async () => {
    const path = join(dir, 'full.sqlite');
    await seeded(path);
    // a handle opened with the old embedder before the re-embedding (another process, in real use)
    const stale = createSqliteStore({ path });
    await stale.open(metaOf(OLD));
    const events: string[] = [];
    const report = await reembedStore(createSqliteStore({ path }), NEW, { batchSize: 7, onProgress: (e) => events.push(e.phase) });
    expect(report).toMatchObject({ from: { model: 'test-hash-16', dimension: 16 }, to: { model: 'test-hash-24', dimension: 24 }, memories: 59, embedded: 59, resumedFrom: 0 });
    expect(events).toContain('embed');
    expect(events).toContain('switch');
    expect(report.gate.tauNoop.old).not.toBeNull();
    expect(report.gate.tauNoop.new).not.toBeNull();
    expect(report.gate.notice).toMatch(/must be re-calibrated/);
    expect(report.gate.actions.new.add + report.gate.actions.new.update + report.gate.actions.new.noop + report.gate.actions.new.none).toBe(59);
    await assertSpace(path, NEW);
    // the history says so, once per scope (a writer holding a scope's old state rebuilds it: GateRegistry.catchUp)
    const marks = createSqliteStore({ path });
    await marks.open(metaOf(NEW));
    expect((await marks.history(alice)).filter((h) => h.op === 'REEMBED').map((h) => [h.nodeId, h.data])).toEqual([[null, { from: 'test-hash-16 (16-d)', to: 'test-hash-24 (24-d)' }]]);
    await marks.close();

    // the stale handle may not write old-space vectors into the new space, nor search with them
    await expectMemError(stale.vectorSearch(alice, (await OLD.embed(['kite']))[0]!, 3), StoreMetaMismatchError, 'STORE_META_MISMATCH');
    await stale.close();
    await expectMemError(createMemory({ store: createSqliteStore({ path }), embedder: OLD }).list({ scope: alice }), StoreMetaMismatchError, 'STORE_META_MISMATCH');

    // the new space works through the write path: the gate state is the new space's, duplicates are found
    const memory = createMemory({ store: createSqliteStore({ path }), embedder: NEW, extractor: simpleExtractor });
    const again = await memory.add({ text: text(1), observedAt: new Date(Date.UTC(2024, 0, 1, 9, 1)).toISOString(), scope: alice, sourceId: 's1' });
    expect(again.action).toBe('duplicate');
    const fresh = await memory.add({ text: 'Mira talked about the canoe and the kite again.', observedAt: '2024-02-01T00:00:00Z', scope: alice });
    expect(fresh.node.gate?.nearest).not.toBeNull();
    const nodes = await memory.list({ scope: alice, limit: 1000 });
    // gate decisions are the new space's: each stored decision's nearest memory is a gate member of the scope before it
    expect(nodes.filter((n) => n.gate?.nearest === null)).toHaveLength(1);
    await memory.close();
    await expectMemError(reembedStore(createSqliteStore({ path }), NEW), MemValidationError, 'INVALID_INPUT');
  });

  it('a failed run leaves the old space; the next run resumes from the staged vectors and ends as a clean run does', async () => {
    const path = join(dir, 'resume.sqlite');
    const clean = join(dir, 'clean.sqlite');
    await seeded(path);
    await seeded(clean);
    await expectMemError(reembedStore(createSqliteStore({ path }), failingEmbedder(NEW, 4), { batchSize: 10 }), EmbedderError, 'EMBEDDER_ERROR');
    await assertSpace(path, OLD);
    const resumed = await reembedStore(createSqliteStore({ path }), NEW, { batchSize: 10 });
    expect(resumed.resumedFrom).toBe(30);
    expect(resumed.embedded).toBe(29);
    await reembedStore(createSqliteStore({ path: clean }), NEW);
    await assertSpace(path, NEW);
    const a = createSqliteStore({ path });
    const b = createSqliteStore({ path: clean });
    await a.open(metaOf(NEW));
    await b.open(metaOf(NEW));
    // the two files were seeded apart (other ids): nearest memories compared by text
    const gates = async (s: typeof a) => {
      const nodes = await s.list(alice, { limit: 1000 });
      const textOf = new Map(nodes.map((n) => [n.id, n.text]));
      return nodes.map((n) => [n.text, n.gate && { ...n.gate, nearest: n.gate.nearest && { ...n.gate.nearest, id: textOf.get(n.gate.nearest.id) } }]);
    };
    expect((await gates(a)).map((x) => x[0])).toEqual((await gates(b)).map((x) => x[0]));
    expect((await gates(a)).map((x) => x[1])).toEqual((await gates(b)).map((x) => x[1]));
    await a.close();
    await b.close();
  });

  it('a memory another writer adds while vectors are staged is embedded before the switch', async () => {
    const path = join(dir, 'writer.sqlite');
    await seeded(path, 20);
    const other = createMemory({ store: createSqliteStore({ path }), embedder: OLD, extractor: simpleExtractor });
    let calls = 0;
    const racing: Embedder = {
      ...NEW,
      async embed(texts) {
        if (++calls === 1) await other.add({ text: 'Ravi added this during the re-embedding.', observedAt: '2024-03-01T00:00:00Z', scope: alice });
        return NEW.embed(texts);
      },
    };
    const report = await reembedStore(createSqliteStore({ path }), racing, { batchSize: 50 });
    expect(report.memories).toBe(20);
    await other.close().catch(() => undefined);
    await assertSpace(path, NEW);
  });

  it('a second run on the file while one runs fails with STORE_CONFLICT naming the first (never a raw SQLite error); the first ends in the new space', async () => {
    const path = join(dir, 'two-runs.sqlite');
    await seeded(path, 40);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const staging = new Promise<void>((r) => (started = r));
    const held: Embedder = {
      ...NEW,
      async embed(texts) {
        started();
        await gate;
        return NEW.embed(texts);
      },
    };
    const first = reembedStore(createSqliteStore({ path }), held, { batchSize: 8 });
    await staging;
    // the same target and another one: both refused while the first owns the staging area
    for (const e of [NEW, hashEmbedder(32)]) {
      const err = await reembedStore(createSqliteStore({ path }), e).then(
        () => null,
        (x: unknown) => x,
      );
      expect(err, e.model).toMatchObject({ code: 'STORE_CONFLICT', details: { owner: { pid: process.pid, model: NEW.model } } });
      expect((err as Error).message).toMatch(/Another mem reembed \(process \d+, to test-hash-24/);
    }
    // the owner recorded in the file: this process, with its start time on Linux (a reused pid is then told apart)
    {
      const raw = new Database(path, { readonly: true });
      const owner = JSON.parse((raw.prepare("SELECT value FROM meta WHERE key = 'reembedOwner'").get() as { value: string }).value);
      raw.close();
      expect(owner).toMatchObject({ pid: process.pid, model: NEW.model });
      if (process.platform === 'linux') expect(Number.isInteger(owner.pidStart)).toBe(true);
    }
    release();
    expect((await first).memories).toBe(39);
    await assertSpace(path, NEW);
    // once it ended, the file is free again: a run to a third space works
    expect((await reembedStore(createSqliteStore({ path }), hashEmbedder(32))).to.dimension).toBe(32);
  });
});

describe('reembed owner liveness', () => {
  it('a recorded owner is alive only while its pid runs the same process (a reused pid is another process)', async () => {
    const { ownerAlive, processStart } = await import('../store/sqlite-reembed.js');
    const me = { pid: process.pid, pidStart: processStart(process.pid), token: 't', startedAt: '', model: 'm' };
    expect(ownerAlive(me, () => true)).toBe(true);
    expect(ownerAlive(me, () => false)).toBe(false);
    if (me.pidStart !== undefined) expect(ownerAlive({ ...me, pidStart: me.pidStart + 1 }, () => true)).toBe(false);
    expect(ownerAlive({ ...me, pidStart: undefined }, () => true)).toBe(true);
  });
});

/**
 * Gate snapshots (ours; gates.ts module comment): a scope's SAGE gate is saved without its vectors
 * through `MemoryStore.saveState` and restored with the nodes' embeddings plus a replay of the
 * commits after it. Whatever path a rebuild takes, the gate ends in the state a full replay gives,
 * bit for bit; a snapshot that does not apply is never used.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNoveltyGate } from '@mem/gate-vmf';
import { resolveScope, scopeKey } from '../scope.js';
import { createSqliteStore } from '../store/index.js';
import type { MemoryStore } from '../types.js';
import { GATE_SAVE_MIN_SIZE, GATE_STATE_NAME, GateRegistry } from './gates.js';
import { createMemory, DEFAULT_WRITE_GATE_OPTIONS } from './memory.js';
import type { WriteGate } from './ports.js';
import { simpleExtractor } from './test-kit.js';
import { gateKit, openHashStore } from './testdata/gate-state-kit.js';
import { hashEmbedder } from './testdata/hash-embedder.js';

const dir = mkdtempSync(join(tmpdir(), 'mem-gate-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const S = resolveScope({ userId: 'gate-state' });
const KEY = scopeKey(S);
let fileNo = 0;

const openStore = (path = join(dir, `s${++fileNo}.db`)) => openHashStore(path);
const { seed, saving, replaying, gateState } = gateKit(S);

describe('gate snapshots (GateRegistry)', () => {
  it('a restored snapshot plus the replayed tail equals a full replay, bit for bit (certificate sketch included)', async () => {
    const store = await openStore();
    await seed(store, 6000); // 5143 members: past fastMinN, so the IVF index and sketch exist
    const first = saving(store);
    const rt = await first.runtime(S, KEY);
    expect(first.counters).toMatchObject({ restored: 0, replayedCommits: 5143 });
    expect(rt.unsaved).toBe(5143);
    await first.afterCommit(rt, 0); // enough unsaved: saves
    expect(first.counters.saved).toBe(1);
    expect(rt.unsaved).toBe(0);
    const text = (await store.loadState!(S, GATE_STATE_NAME))!;
    const snap = JSON.parse(text);
    expect(snap.scopes).toHaveLength(1);
    expect(snap.scopes[0].vectors).toBeNull();
    expect(snap.scopes[0].sketch).not.toBeNull(); // fastCertify "decision" keeps a sketch (no IVF index)
    // restore with nothing after the snapshot
    const again = saving(store);
    expect(await gateState(again)).toBe(await gateState(replaying(store)));
    expect(again.counters).toMatchObject({ restored: 1, replayedCommits: 0 });
    // more writes after the snapshot (as after a crash): restore + tail replay
    await seed(store, 300, 6000);
    const tail = saving(store);
    expect(await gateState(tail)).toBe(await gateState(replaying(store)));
    expect(tail.counters).toMatchObject({ restored: 1, replayedCommits: 257 });
    await store.close();
  });

  it('saves only from GATE_SAVE_MIN_SIZE members and every 10 % of the size after that', async () => {
    const store = await openStore();
    await seed(store, 700);
    const reg = saving(store);
    const rt = await reg.runtime(S, KEY);
    await reg.afterCommit(rt, 0);
    expect(reg.counters.saved).toBe(0); // 600 members < 1000
    await seed(store, 700, 700);
    const reg2 = saving(store);
    const rt2 = await reg2.runtime(S, KEY);
    expect(rt2.gate.size(KEY)).toBeGreaterThanOrEqual(GATE_SAVE_MIN_SIZE);
    await reg2.afterCommit(rt2, 0);
    expect(reg2.counters.saved).toBe(1);
    await reg2.afterCommit(rt2, 100); // < max(250, 10 % of 1200)
    expect(reg2.counters.saved).toBe(1);
    await reg2.afterCommit(rt2, 150);
    expect(reg2.counters.saved).toBe(2);
    await store.close();
  });

  it('never uses a snapshot that does not apply: forget, other gate options, foreign or corrupt state', async () => {
    const store = await openStore();
    const nodes = await seed(store, 1400);
    const reg = saving(store);
    await reg.afterCommit(await reg.runtime(S, KEY), 0);
    expect(reg.counters.saved).toBe(1);
    const saved = (await store.loadState!(S, GATE_STATE_NAME))!;

    // other gate options: replayed under the options in force
    const tuned = saving(store, { tau0: 0.2 });
    expect(await gateState(tuned)).toBe(await gateState(replaying(store, { tau0: 0.2 })));
    expect(tuned.counters.restored).toBe(0);

    // a snapshot that is not a prefix of the replay (a member missing from it, an unknown id)
    const snap = JSON.parse(saved);
    for (const forged of [
      { ...snap, scopes: [{ ...snap.scopes[0], ids: snap.scopes[0].ids.slice(1), vectors: null }] },
      { ...snap, scopes: [{ ...snap.scopes[0], ids: [...snap.scopes[0].ids.slice(0, -1), 'not-a-node'] }] },
      { ...snap, scopes: [{ ...snap.scopes[0], scope: 'other|scope||' }] },
      { ...snap, scopes: [{ ...snap.scopes[0], sum: 'AAAA' }] },
      { ...snap, scopes: [] },
      'not json {',
    ]) {
      await store.saveState!(S, GATE_STATE_NAME, typeof forged === 'string' ? forged : JSON.stringify(forged));
      const r = saving(store);
      expect(await gateState(r)).toBe(await gateState(replaying(store)));
      expect(r.counters.restored).toBe(0);
    }

    // forget drops the snapshot; the next rebuild replays in full
    await store.saveState!(S, GATE_STATE_NAME, saved);
    expect(await store.forget(S, nodes[3]!.id)).toBe(true);
    expect(await store.loadState!(S, GATE_STATE_NAME)).toBeNull();
    const after = saving(store);
    expect(await gateState(after)).toBe(await gateState(replaying(store)));
    expect(after.counters.restored).toBe(0);
    await store.close();
  });

  it('a store without loadState / saveState, or a shared gate: nothing saved, same replay', async () => {
    const store = await openStore();
    await seed(store, 1300);
    const bare: MemoryStore = Object.create(store, { loadState: { value: undefined }, saveState: { value: undefined } });
    const reg = saving(bare);
    const rt = await reg.runtime(S, KEY);
    await reg.afterCommit(rt, 0);
    expect(reg.counters.saved).toBe(0);
    expect(await gateState(reg)).toBe(await gateState(replaying(store)));
    const shared = new GateRegistry(store, { shared: createNoveltyGate({ ...DEFAULT_WRITE_GATE_OPTIONS }) as unknown as WriteGate });
    const srt = await shared.runtime(S, KEY);
    await shared.afterCommit(srt, 0);
    expect(shared.counters.saved).toBe(0);
    expect(await store.loadState!(S, GATE_STATE_NAME)).toBeNull();
    await store.close();
  });
});

describe('gate snapshots through createMemory', () => {
  it('close() saves the gate; a new process restores it and decides like a full replay', async () => {
    const path = join(dir, 'memory.db');
    const store = await openStore(path);
    await seed(store, 1200);
    await store.close();
    const m1 = createMemory({ store: createSqliteStore({ path }), embedder: hashEmbedder(), extractor: simpleExtractor });
    await m1.add({ text: 'the first write rebuilds the gate', scope: S, observedAt: '2025-01-01T00:00:00Z' });
    const s1 = await m1.stats();
    expect(s1.gateState).toMatchObject({ restored: 0, replayedCommits: 1029, saved: 1 }); // 1029 ≥ 10 %: saved after the write
    await m1.add({ text: 'one more after the save', scope: S, observedAt: '2025-01-01T00:01:00Z' });
    await m1.close(); // saves the unsaved commit
    const probe = { text: 'a probe to compare decisions', scope: S, observedAt: '2025-01-01T00:02:00Z' };
    const copy = join(dir, 'memory-replay.db');
    {
      const s = await openStore(path);
      await s.close();
    }
    const { copyFileSync } = await import('node:fs');
    copyFileSync(path, copy);
    const m2 = createMemory({ store: createSqliteStore({ path }), embedder: hashEmbedder(), extractor: simpleExtractor });
    const r2 = await m2.add(probe);
    expect((await m2.stats()).gateState).toMatchObject({ restored: 1, replayedCommits: 0 });
    await m2.close();
    const replayStore = await openStore(copy);
    await replayStore.saveState!(S, GATE_STATE_NAME, null);
    const m3 = createMemory({ store: replayStore, embedder: hashEmbedder(), extractor: simpleExtractor });
    const r3 = await m3.add(probe);
    expect((await m3.stats()).gateState).toMatchObject({ restored: 0, replayedCommits: 1031 });
    expect(r3.action).toBe(r2.action);
    expect(r3.node.gate).toEqual(r2.node.gate);
    await m3.close();
  });
});

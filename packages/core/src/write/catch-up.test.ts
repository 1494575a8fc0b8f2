/**
 * Incremental catch-up of 'shared' writers (ours, issue 32; `GateRegistry.catchUp`): a scope's
 * runtime brought up to date with only the history rows after the last seen `seq` ends in the state
 * a full rebuild from the store gives (gate bit for bit, candidate index, episode chain, cached
 * obsolescence), and falls back to a rebuild on a forget, a re-embedding, an in-place rewrite, a
 * missing node or an out-of-order id. Then at the Memory level: two writers taking turns on two scopes read back a
 * number of memories linear in the adds (counts, not time).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveScope, scopeKey } from '../scope.js';
import { createSqliteStore } from '../store/index.js';
import { makeHistory } from '../testing/index.js';
import type { MemoryNode, MemoryStore } from '../types.js';
import { GateRegistry, type ScopeRuntime } from './gates.js';
import { uuidv7 } from './ids.js';
import { createMemory } from './memory.js';
import { simpleExtractor } from './test-kit.js';
import { gateKit, openHashStore, syntheticNode } from './testdata/gate-state-kit.js';
import { hashEmbedder } from './testdata/hash-embedder.js';

const dir = mkdtempSync(join(tmpdir(), 'mem-catch-up-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const S = resolveScope({ userId: 'catch-up' });
const KEY = scopeKey(S);
let fileNo = 0;
const { saving, replaying, gateState } = gateKit(S);

/** Node i with entities, keywords and a dialogue id (episode chain `D<i mod 3>`); every 7th a gate Noop. */
function node(i: number, id?: string): MemoryNode {
  const n = syntheticNode(i, S, id ? { id } : {});
  return {
    ...n,
    entities: [`Person${i % 4}`, `Place${i % 9}`],
    keywords: [`topic${i % 5}`, `word${i % 11}`],
    provenance: { ...n.provenance, sourceId: `D${i % 3}:${i}` },
  };
}

/** Store nodes as the write path does: one row per node (ADD / NOOP), then a RELATE row. */
async function write(store: MemoryStore, nodes: MemoryNode[], extra: { obsolete?: [string, string] } = {}): Promise<void> {
  const history = nodes.map((n) => makeHistory(S, n.gate?.action === 'noop' ? 'NOOP' : 'ADD', n.id, { gate: n.gate }));
  if (extra.obsolete) history.unshift(makeHistory(S, 'OBSOLETE', extra.obsolete[0], { obsoleteBy: extra.obsolete[1] }));
  history.push(makeHistory(S, 'RELATE', null, { count: 0 }));
  await store.write({ scope: S, nodes, history, nodeUpdates: extra.obsolete ? [{ id: extra.obsolete[0], obsoleteBy: extra.obsolete[1] }] : undefined });
}

const latestSeq = async (store: MemoryStore) => (await store.history(S, { limit: 1 }))[0]?.seq ?? 0;

/** Everything of a runtime a rebuild sets, as comparable JSON (the gate, the index's records and posting lists, the episode chain, the last id). */
async function runtimeState(reg: GateRegistry): Promise<Record<string, unknown>> {
  const rt: ScopeRuntime = await reg.runtime(S, KEY);
  const index = rt.index as unknown as { records: Map<string, { entities: Set<string>; keywords: Set<string> }>; postings: Map<string, string[]> };
  return {
    gate: await gateState(reg),
    size: rt.gate.size(KEY),
    records: [...index.records].map(([id, m]) => [id, [...m.entities], [...m.keywords]]),
    postings: [...index.postings].sort(([a], [b]) => (a < b ? -1 : 1)),
    episodes: [...rt.lastByEpisode].sort(),
    lastId: rt.lastId,
  };
}

describe('GateRegistry.catchUp', () => {
  it('applying only the rows after the seen seq gives the state of a full rebuild', async () => {
    const store = await openHashStore(join(dir, `s${++fileNo}.db`));
    const first = Array.from({ length: 300 }, (_, i) => node(i));
    for (let i = 0; i < first.length; i += 100) await write(store, first.slice(i, i + 100));
    const live = saving(store);
    await live.runtime(S, KEY); // loaded: a full rebuild of 300
    const cached = (await live.runtime(S, KEY)).nodes;
    cached.put(first[10]!);
    let seen = await latestSeq(store);
    // another writer: three writes, one of them superseding node 10 (OBSOLETE of a node held here)
    for (const [from, to] of [
      [300, 340],
      [340, 341],
      [341, 420],
    ] as const) {
      const batch = Array.from({ length: to - from }, (_, k) => node(from + k));
      await write(store, batch, from === 340 ? { obsolete: [first[10]!.id, batch[0]!.id] } : {});
      const rows = await store.history(S, { afterSeq: seen });
      expect(rows.length).toBe(to - from + 1 + (from === 340 ? 1 : 0));
      expect(await live.catchUp(S, KEY, rows)).toBeNull();
      seen = rows[rows.length - 1]!.seq!;
      // the same state as a registry rebuilt from every stored memory
      expect(await runtimeState(live)).toEqual(await runtimeState(replaying(store)));
    }
    expect(cached.get(first[10]!.id)?.obsoleteBy).not.toBeNull();
    expect(live.counters).toMatchObject({ rebuilt: 1, caughtUp: 3, caughtUpNodes: 120 });
    // only the new memories were read back: 120 of 420
    await store.close();
  });

  it('falls back to a rebuild on a forget, a re-embedding, an in-place rewrite, a missing node and an out-of-order id', async () => {
    const store = await openHashStore(join(dir, `s${++fileNo}.db`));
    await write(store, Array.from({ length: 20 }, (_, i) => node(i)));
    const cases: [string, (held: MemoryNode[]) => Promise<void>][] = [
      ['forget', async (held) => void (await store.forget(S, held[3]!.id))],
      // what a re-embedding's switch writes per scope (every vector rewritten in place)
      ['reembed', async () => store.write({ scope: S, history: [makeHistory(S, 'REEMBED', null, { from: 'a', to: 'b' })] })],
      ['rewrite', async (held) => write(store, [{ ...held[5]!, embedding: node(99).embedding }])],
      ['missing', async () => store.write({ scope: S, history: [makeHistory(S, 'ADD', uuidv7())] })],
      // a node whose id was made before the newest one held (another writer's earlier id, committed later)
      ['out-of-order', async (held) => write(store, [node(77, `${held[held.length - 1]!.id.slice(0, -12)}000000000000`)])],
    ];
    for (const [reason, change] of cases) {
      const reg = saving(store);
      const rt = await reg.runtime(S, KEY);
      const held = await store.list(S, { orderBy: 'createdAt', order: 'asc' });
      held.sort((a, b) => (a.id < b.id ? -1 : 1));
      expect(rt.lastId).toBe(held[held.length - 1]!.id);
      const seen = await latestSeq(store);
      await change(held);
      expect(await reg.catchUp(S, KEY, await store.history(S, { afterSeq: seen })), reason).toBe(reason);
      expect(reg.loaded(KEY)).toBe(false); // dropped: the next use rebuilds
      expect(await runtimeState(reg)).toEqual(await runtimeState(replaying(store)));
      expect(reg.counters).toMatchObject({ rebuilt: 2, caughtUp: 0 });
    }
    await store.close();
  });
});

describe("'shared' writers read back what is new, not the whole scope", () => {
  it('two writers taking turns on two scopes: memories read back grow linearly with the adds (counts, not time)', async () => {
    const path = join(dir, `m${++fileNo}.db`);
    const counted = () => {
      const store = createSqliteStore({ path });
      const counts = { listed: 0 };
      const list = store.list.bind(store);
      store.list = async (...a: Parameters<typeof list>) => {
        const page = await list(...a);
        counts.listed += page.length;
        return page;
      };
      return { memory: createMemory({ store, embedder: hashEmbedder(), extractor: simpleExtractor, writers: 'shared' }), counts };
    };
    const writers = [counted(), counted()];
    const scopes = [{ userId: 'turns-a' }, { userId: 'turns-b' }];
    const readBack = async () => {
      let total = 0;
      for (const w of writers) total += w.counts.listed + (await w.memory.stats()).gateState.caughtUpNodes;
      return total;
    };
    const perSize: number[] = [];
    let adds = 0;
    try {
      for (const n of [40, 160]) {
        const start = await readBack();
        for (let i = 0; i < n; i++) {
          for (const [w, writer] of writers.entries()) {
            await writer.memory.add({ text: `writer ${w} note ${adds} about topic ${adds % 13} in room ${i % 7}`, scope: scopes[i % 2]!, observedAt: new Date(Date.UTC(2024, 0, 1, 0, adds)).toISOString() });
            adds++;
          }
        }
        perSize.push((await readBack()) - start);
      }
      const stats = await Promise.all(writers.map((w) => w.memory.stats()));
      // each writer built each scope once; every other turn was caught up, reading only the other writer's new memories
      expect(stats.map((s) => s.gateState.rebuilt)).toEqual([2, 2]);
      expect(stats.reduce((a, s) => a + s.gateState.caughtUp, 0)).toBeGreaterThan(2 * 200 - 10);
      // 4× the adds read back ~4× the memories (a rebuild per turn read back ~16×: quadratic)
      expect(perSize[1]! / perSize[0]!).toBeLessThan(4.5);
      expect(perSize[1]!).toBeLessThanOrEqual(2 * 160 + 8);
      expect(Object.values(stats[0]!.nodes).reduce((a, b) => a + b, 0)).toBe(400);
    } finally {
      for (const w of writers) await w.memory.close();
    }
  });
});

/**
 * What the first write after a start reads (issue 33): a scope's in-process state (gate, candidate
 * index, episode chain) is rebuilt from keyset pages of `scanNodes` — every memory once, no text —
 * instead of `list` pages with offsets decoding whole nodes; the rebuilt state equals the `list`
 * path's. Counts of store reads, not timings, so a regression shows at a small size.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveScope, scopeKey } from '../scope.js';
import type { MemoryStore, ResolvedScope } from '../types.js';
import { indexedMemory } from './candidate-index.js';
import type { GateRegistry } from './gates.js';
import { createMemory } from './memory.js';
import { simpleExtractor } from './test-kit.js';
import { gateKit, openHashStore, syntheticNode } from './testdata/gate-state-kit.js';
import { hashEmbedder } from './testdata/hash-embedder.js';

const dir = mkdtempSync(join(tmpdir(), 'mem-rebuild-reads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const S = resolveScope({ userId: 'rebuild-reads' });
const KEY = scopeKey(S);
let fileNo = 0;
const { saving, gateState } = gateKit(S);

/** Node i with entities, keywords and a session (so the candidate index and episode chain have something to hold). */
const richNode = (i: number, scope: ResolvedScope = S, id?: string) => ({
  ...syntheticNode(i, scope, id ? { id } : {}),
  entities: [`person${i % 13}`],
  keywords: [`topic${i % 29}`, `thing${i % 7}`],
  provenance: { sourceId: `D${i % 5}:${i}`, contentHash: `h:${i}:${id ?? ''}`, metadata: i % 11 === 0 ? { session: `s${i % 3}` } : {} },
});

/** A store wrapper counting whole nodes and digests read back, by method; `hide` removes methods (a store without them). */
function counting(inner: MemoryStore, hide: (keyof MemoryStore)[] = []) {
  const reads: Record<string, number> = {};
  const count = (name: string, n: number) => (reads[name] = (reads[name] ?? 0) + n);
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      if (hide.includes(prop as keyof MemoryStore)) return undefined;
      const v = Reflect.get(target, prop, receiver);
      if (prop === 'capabilities' && hide.length) return (v as string[]).filter((c) => !hide.includes(c as keyof MemoryStore));
      if (typeof v !== 'function') return v;
      return async (...args: unknown[]) => {
        const out = await (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (['list', 'getMany', 'scanNodes', 'vectorSearch', 'lexicalSearch'].includes(String(prop))) count(String(prop), (out as unknown[]).length);
        if (prop === 'get' && out) count('get', 1);
        return out;
      };
    },
  });
  return { store, reads };
}

/** Everything a rebuild derives from the stored memories, comparable across rebuilds. */
async function runtimeState(reg: GateRegistry) {
  const rt = await reg.runtime(S, KEY);
  const lookups = [0, 1, 5, 12].map((i) => {
    const m = indexedMemory(richNode(i));
    return rt.index.lookup(m.entities, m.keywords).map((r) => r.id);
  });
  return { gate: await gateState(reg), size: rt.index.size, lookups, episodes: [...rt.lastByEpisode], lastId: rt.lastId };
}

describe('rebuilding a scope after a start (issue 33)', () => {
  it('the first add after reopening reads every memory once as a digest and at most a few whole nodes', async () => {
    const path = join(dir, `r${++fileNo}.db`);
    const seedStore = await openHashStore(path);
    const N = 4500;
    for (let i = 0; i < N; i += 1000) await seedStore.write({ scope: S, nodes: Array.from({ length: Math.min(1000, N - i) }, (_, j) => richNode(i + j)) });
    await seedStore.close();
    const { store, reads } = counting(await openHashStore(path));
    const memory = createMemory({ store, embedder: hashEmbedder(), extractor: simpleExtractor, writers: 'single' });
    const [r] = await memory.add([{ text: 'person3 met topic4 by the river', observedAt: '2024-06-01T10:00:00Z', scope: { userId: 'rebuild-reads' } }]);
    expect(r!.stored).toBe(true);
    expect(reads.scanNodes, 'every stored memory read once as a digest').toBe(N);
    expect(reads.list ?? 0, 'no list pages (offsets, whole nodes)').toBe(0);
    const whole = (reads.getMany ?? 0) + (reads.get ?? 0) + (reads.vectorSearch ?? 0) + (reads.lexicalSearch ?? 0);
    expect(whole, `whole nodes read: ${JSON.stringify(reads)}`).toBeLessThanOrEqual(2 * 10); // the candidates (K_w = 10) at most
    const stats = await memory.stats();
    expect(stats.gateState.rebuildReads).toBe(N);
    expect(stats.gateState.rebuildMs.read).toBeGreaterThan(0);
    await memory.close();
  });

  it('the state rebuilt from scanNodes equals the one rebuilt from list pages', async () => {
    const store = await openHashStore(join(dir, `r${++fileNo}.db`));
    // written out of id order across batches: the rebuild must still apply them in id order
    const nodes = Array.from({ length: 5200 }, (_, i) => richNode(i));
    const order = nodes.map((_, i) => i).sort((a, b) => ((a * 7919) % 5200) - ((b * 7919) % 5200));
    for (let i = 0; i < order.length; i += 1000) await store.write({ scope: S, nodes: order.slice(i, i + 1000).map((j) => nodes[j]!) });
    const viaScan = counting(store);
    const viaList = counting(store, ['scanNodes']);
    const a = await runtimeState(saving(viaScan.store));
    const b = await runtimeState(saving(viaList.store));
    expect(viaScan.reads.list ?? 0).toBe(0);
    expect(viaList.reads.list).toBe(5200);
    expect(a).toEqual(b);
    expect(a.size).toBe(5200);
    expect(a.lastId).toBe(nodes.map((n) => n.id).sort().at(-1));
    await store.close();
  });

  it('ids the store orders otherwise than JavaScript (outside the basic plane) fall back to list, same state', async () => {
    const store = await openHashStore(join(dir, `r${++fileNo}.db`));
    // SQLite (UTF-8 bytes) puts U+FFFD before U+10000; JavaScript (UTF-16 units) after it
    const ids = ['m-a', 'm-\u{10000}', 'm-\uFFFD', 'm-z'];
    await store.write({ scope: S, nodes: ids.map((id, i) => richNode(i, S, id)) });
    const viaScan = counting(store);
    const a = await runtimeState(saving(viaScan.store));
    const b = await runtimeState(saving(counting(store, ['scanNodes']).store));
    expect(viaScan.reads.list).toBe(4); // fell back
    expect(a).toEqual(b);
    expect(a.lastId).toBe('m-\uFFFD'.localeCompare('m-z') < 0 ? 'm-z' : 'm-\uFFFD');
    await store.close();
  });
});

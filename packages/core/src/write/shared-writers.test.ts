/**
 * Several writers on one store (`MemoryOptions.writers`, ours): with `'shared'` a Memory notices
 * another writer's commits before its own next write to the scope and rebuilds that scope's gate
 * from the store; with `'single'` it trusts its in-process gate. Two Memory instances on one SQLite
 * file stand in for two processes on one Neo4j database (the Neo4j integration tier runs real
 * processes); and a store conflict (another writer stored the same observation first) is retried
 * and answered as a duplicate.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreConflictError } from '../errors.js';
import { createSqliteStore } from '../store/index.js';
import type { MemoryStore } from '../types.js';
import { makeNode, testMeta, testScope } from '../testing/index.js';
import { createMemory } from './memory.js';
import { simpleExtractor } from './test-kit.js';
import { hashEmbedder } from './testdata/hash-embedder.js';

const dir = mkdtempSync(join(tmpdir(), 'mem-shared-writers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const scope = { userId: 'shared' };
const at = (m: number) => `2024-05-01T10:${String(m).padStart(2, '0')}:00Z`;

async function twoWriters(writers: 'single' | 'shared') {
  const path = join(dir, `w${++n}.db`);
  const open = () => createMemory({ store: createSqliteStore({ path }), embedder: hashEmbedder(), extractor: simpleExtractor, writers });
  return { a: open(), b: open() };
}

describe('several writers on one store', () => {
  for (const writers of ['shared', 'single'] as const) {
    it(`${writers}: B's gate ${writers === 'shared' ? 'sees' : 'misses'} what A stored after B's last write`, async () => {
      const { a, b } = await twoWriters(writers);
      try {
        await b.add({ text: 'the weather in Lisbon was mild in spring', scope, observedAt: at(1) }); // B's gate is built now
        const x = await a.add({ text: 'Maria adopted a grey cat called Pixel', scope, observedAt: at(2) });
        const y = await b.add({ text: 'Maria adopted a grey cat called Pixel today', scope, observedAt: at(3) });
        const nearest = y.node.gate?.nearest?.id ?? null;
        if (writers === 'shared') expect(nearest).toBe(x.node.id);
        else expect(nearest).not.toBe(x.node.id);
      } finally {
        await a.close();
        await b.close();
      }
    });
  }

  it('shared: a store conflict (same observation stored by another writer first) is retried and returns that node as a duplicate', async () => {
    const path = join(dir, `w${++n}.db`);
    const inner = createSqliteStore({ path });
    const other = createMemory({ store: createSqliteStore({ path }), embedder: hashEmbedder(), extractor: simpleExtractor });
    const obs = { text: 'the bakery on Rua Augusta opens at seven', scope, observedAt: at(5) };
    let raced = false;
    // a store whose first write loses the race: the other writer commits the same observation, then the store refuses ours
    const write = async (batch: Parameters<MemoryStore['write']>[0]) => {
      if (!raced && batch.nodes?.length) {
        raced = true;
        await other.add(obs);
        throw new StoreConflictError('content key taken by another writer');
      }
      return inner.write(batch);
    };
    // a store without a cross-process write lock (neither `exclusive` nor `lockScopes`): under a lock no other
    // writer can commit between the dedup read and the write, so this race cannot happen there
    const racing = new Proxy(inner, {
      get: (target, key) =>
        key === 'write' ? write : key === 'exclusive' || key === 'lockScopes' ? undefined : typeof (target as any)[key] === 'function' ? (target as any)[key].bind(target) : (target as any)[key],
    }) as MemoryStore;
    const mem = createMemory({ store: racing, embedder: hashEmbedder(), extractor: simpleExtractor, writers: 'shared' });
    try {
      const r = await mem.add(obs);
      expect(raced).toBe(true);
      expect(r.action).toBe('duplicate');
      expect(r.stored).toBe(false);
      expect(await inner.count({ namespace: 'default', userId: 'shared', agentId: '', runId: '' })).toBe(1);
    } finally {
      await mem.close();
      await other.close();
    }
  });

  it("a SQLite file store defaults to 'shared' (the gate sees another connection's commits), ':memory:' to 'single'", async () => {
    const path = join(dir, `w${++n}.db`);
    const open = () => createMemory({ store: createSqliteStore({ path }), embedder: hashEmbedder(), extractor: simpleExtractor });
    const a = open();
    const b = open();
    try {
      expect(createSqliteStore({ path: ':memory:' }).concurrentWriters).toBe(false);
      expect(createSqliteStore({ path }).concurrentWriters).toBe(true);
      await b.add({ text: 'the weather in Lisbon was mild in spring', scope, observedAt: at(1) });
      const x = await a.add({ text: 'Maria adopted a grey cat called Pixel', scope, observedAt: at(2) });
      const y = await b.add({ text: 'Maria adopted a grey cat called Pixel today', scope, observedAt: at(3) });
      expect(y.node.gate?.nearest?.id).toBe(x.node.id);
      // the same observation through the other connection is a duplicate of the stored node
      const again = await b.add({ text: 'Maria adopted a grey cat called Pixel', scope, observedAt: at(2) });
      expect(again).toMatchObject({ action: 'duplicate', stored: false, node: { id: x.node.id } });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('the SQLite store refuses a second node with the same content hash in a scope (STORE_CONFLICT), writing nothing of the batch', async () => {
    const store = createSqliteStore({ path: join(dir, `w${++n}.db`) });
    await store.open(testMeta(4));
    try {
      const s = testScope('conflict');
      const a = makeNode(s, 'one observation', [1, 0, 0, 0], { id: 'a' });
      await store.write({ scope: s, nodes: [a] });
      const twin = makeNode(s, 'one observation', [0, 1, 0, 0], { id: 'b', provenance: a.provenance });
      const other = makeNode(s, 'another observation', [0, 0, 1, 0], { id: 'c' });
      const err = await store.write({ scope: s, nodes: [other, twin] }).catch((e) => e);
      expect(err).toBeInstanceOf(StoreConflictError);
      expect(err.details).toMatchObject({ nodeId: 'b', existingId: 'a' });
      const inBatch = await store.write({ scope: s, nodes: [other, { ...makeNode(s, 'x', [0, 0, 0, 1], { id: 'd' }), provenance: other.provenance }] }).catch((e) => e);
      expect(inBatch).toBeInstanceOf(StoreConflictError);
      expect((await store.list(s)).map((x) => x.id)).toEqual(['a']);
      // an upsert of the same id keeps its hash; the same content in another scope is another observation
      await store.write({ scope: s, nodes: [{ ...a, text: 'one observation, edited' }] });
      const elsewhere = testScope('conflict-2');
      await store.write({ scope: elsewhere, nodes: [{ ...twin, scope: elsewhere }] });
      expect(await store.count(elsewhere)).toBe(1);
    } finally {
      await store.close();
    }
  });

  it("refuses an unknown writers value", () => {
    expect(() => createMemory({ embedder: hashEmbedder(), writers: 'many' as any })).toThrow(/writers/);
  });
});

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
    const racing = new Proxy(inner, {
      get: (target, key) => (key === 'write' ? write : typeof (target as any)[key] === 'function' ? (target as any)[key].bind(target) : (target as any)[key]),
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

  it("refuses an unknown writers value", () => {
    expect(() => createMemory({ embedder: hashEmbedder(), writers: 'many' as any })).toThrow(/writers/);
  });
});

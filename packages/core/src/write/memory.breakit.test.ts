/**
 * Break-it tests of the write path with the default extractor: one observation whose text makes
 * event-time resolution throw (see src/extract/time.breakit.test.ts: "in 273737 years" ends past
 * the Date range) fails the whole add() with WRITE_FAILED, category 'unavailable' (which reads as
 * "retry later", though every retry fails the same way), and takes every other observation of its
 * batch down with it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveScope } from '../scope.js';
import { createSqliteStore } from '../store/index.js';
import { createMemory } from './memory.js';
import { simpleExtractor } from './test-kit.js';
import { hashEmbedder } from './testdata/hash-embedder.js';
import { MemValidationError } from '../errors.js';
import { expectMemError } from '@mem/test-utils';

const dir = mkdtempSync(join(tmpdir(), 'mem-breakit-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const scope = { userId: 'breakit-poison' };
const at = (m: number) => new Date(Date.UTC(2023, 4, 8, 0, m)).toISOString();

describe('an observation whose event time is past the Date range', () => {
  // was a bug (one such text failed its whole batch with WRITE_FAILED at stage 'extract'): the
  // expression is now dropped, so both observations are stored and the far-future one has no event time
  it('add([normal, "… in 273737 years"]) stores both observations, the far-future one without an event time', async () => {
    const m = createMemory({ embedder: hashEmbedder() });
    try {
      const res = (await m.add([
        { text: 'I adopted a puppy named Oscar yesterday.', observedAt: at(0), scope },
        { text: 'Our robots will still be here in 273737 years, I bet.', observedAt: at(1), scope },
        { text: 'See you in 99980515 days, friend.', observedAt: at(2), scope },
      ])) as { stored: boolean; node: { eventTime: { start: string } | null } }[];
      expect(res.map((r) => r.stored)).toEqual([true, true, true]);
      expect(res[0]!.node.eventTime?.start).toBe('2023-05-07T00:00:00.000Z');
      expect(res[1]!.node.eventTime).toBeNull();
      expect(res[2]!.node.eventTime).toBeNull();
    } finally {
      await m.close();
    }
  });
});

describe('another connection forgets nodes behind the memory’s back (e.g. a deletion job in another process)', () => {
  const topics = ['garden tomato soil water', 'piano lesson music teacher'].map((t) => t.split(' '));
  const obs = (i: number) => ({ text: `Ann ${topics[i % 2]!.join(' ')} item${i}`, observedAt: at(i), scope });

  for (const every of [100, 3]) {
    it(`later adds succeed and never link a forgotten node (consolidateEvery ${every}: ${every === 3 ? 'a pass reviews the forgotten writes' : 'no pass'})`, async () => {
      const path = join(dir, `behind-${every}.db`);
      const m = createMemory({ store: createSqliteStore({ path }), embedder: hashEmbedder(), extractor: simpleExtractor, consolidateEvery: every });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(((await m.add(obs(i))) as { node: { id: string } }).node.id);
      const other = createSqliteStore({ path });
      await other.open({ schemaVersion: 1, embeddingModel: hashEmbedder().model, dimension: hashEmbedder().dimension });
      const gone = new Set([ids[3]!, ids[4]!]);
      for (const id of gone) expect(await other.forget(resolveScope(scope), id)).toBe(true);
      await other.close();
      for (let i = 5; i < 12; i++) {
        const r = (await m.add(obs(i))) as { relations: { from: string; to: string }[] };
        for (const rel of r.relations) expect(gone.has(rel.to) || gone.has(rel.from), `add ${i}`).toBe(false);
      }
      expect(await m.list({ scope, limit: 100 })).toHaveLength(10);
      await m.close();
    });
  }
});

describe('candidateEfSearch on a store whose scope has a ready HNSW graph', () => {
  it('ef 1 (the minimum) and 1e6 (the maximum): every add succeeds and finds candidates through the graph', async () => {
    for (const ef of [1, 1_000_000]) {
      const store = createSqliteStore({ path: ':memory:', ann: { threshold: 10, build: 'blocking', maxTail: 2 } });
      const m = createMemory({ store, embedder: hashEmbedder(), extractor: simpleExtractor, candidateEfSearch: ef, consolidateEvery: 7 });
      const words = ['river', 'stone', 'apple', 'cloud', 'piano', 'tiger', 'lemon', 'quiet'];
      for (let i = 0; i < 40; i++) await m.add({ text: `Ann ${words[i % 8]} ${words[(i * 3) % 8]} note ${i}`, observedAt: at(i), scope });
      expect(store.annStatus(resolveScope(scope)).state).toBe('ready');
      const rows = (await m.history({ scope, limit: 1000 })).filter((h) => h.op === 'ADD' || h.op === 'UPDATE' || h.op === 'NOOP');
      expect(rows).toHaveLength(40);
      // Update / Noop writes record no candidates; every later Add found some
      const adds = rows.slice(20).filter((h) => h.op === 'ADD');
      expect(adds.length).toBeGreaterThan(5);
      expect(adds.every((h) => (h.data.candidates as number) > 0), `ef ${ef}`).toBe(true);
      await m.close();
    }
  });

  it('candidateEfSearch 0, 1.5, NaN, -1, 1e6 + 1 are refused by createMemory (typed), before any write', async () => {
    for (const ef of [0, 1.5, NaN, -1, 1e6 + 1, Infinity]) {
      await expectMemError(() => createMemory({ embedder: hashEmbedder(), candidateEfSearch: ef }), MemValidationError, 'INVALID_INPUT');
    }
  });
});

/**
 * The MemoryStore conformance suite (ours, Mastra-style): every adapter runs the same tests.
 *
 * ```ts
 * import { runStoreConformance } from '@mem/store-spec/testing'; // also `@mem/core/testing`
 * runStoreConformance('sqlite', async () => createSqliteStore({ path: ':memory:' }));
 * ```
 * `makeStore` returns a fresh, empty, not yet opened store; the suite opens it with
 * `testMeta(options.dimension)` and closes it after each test.
 */
import { describe, expect, it, type TestContext } from 'vitest';
import { expectMemError } from '@mem/test-utils';
import { implementedCapabilities } from '../capabilities.js';
import { MemError, type MemErrorCode } from '../errors.js';
import { STORE_CAPABILITIES, type MemoryNode, type MemoryStore, type ResolvedScope, type StoreCapability, type StoreMeta } from '../types.js';
import { axisVector, cosine, makeHistory, makeNode, makeRelation, testMeta, testScope, unitVector } from './fixtures.js';

export interface StoreConformanceOptions {
  /** Embedding dimension used by the suite. Default 8. */
  dimension?: number;
  /**
   * Open a second handle on the same underlying data as `store` (same file, same database). When
   * given, persistence across handles and meta mismatch on reopen are tested too.
   */
  reopen?: (store: MemoryStore) => Promise<MemoryStore>;
  /** Per-test timeout in ms. Default 20 000. */
  timeoutMs?: number;
}

function comparable(n: MemoryNode) {
  return {
    ...n,
    scope: { ...n.scope },
    embedding: Array.from(n.embedding),
    speaker: n.speaker ?? null,
    obsoleteBy: n.obsoleteBy ?? null,
  };
}

/** Everything a scope holds, for "nothing changed" assertions. */
async function snapshot(store: MemoryStore, scope: ResolvedScope) {
  return {
    nodes: (await store.list(scope)).map((n) => n.id).sort(),
    relations: (await store.relations(scope)).map((r) => r.id).sort(),
    history: (await store.history(scope)).map((h) => h.seq),
  };
}

export function runStoreConformance(name: string, makeStore: () => Promise<MemoryStore>, options: StoreConformanceOptions = {}): void {
  const dim = options.dimension ?? 8;
  const meta: StoreMeta = testMeta(dim);
  const timeout = options.timeoutMs ?? 20_000;
  const A = testScope('alice');
  const B = testScope('bob');

  async function withStore(fn: (store: MemoryStore) => Promise<void>): Promise<void> {
    const store = await makeStore();
    await store.open(meta);
    try {
      await fn(store);
    } finally {
      await store.close();
    }
  }

  const t = (title: string, fn: (store: MemoryStore) => Promise<void>) => it(title, () => withStore(fn), timeout);
  /** A test of an optional part: reported as skipped, with the reason, when the store does not list `capability`. */
  const tc = (capability: StoreCapability, title: string, fn: (store: MemoryStore) => Promise<void>) =>
    it(
      `${title} [capability ${capability}]`,
      (ctx: TestContext) =>
        withStore(async (store) => {
          if (!store.capabilities?.includes(capability)) {
            ctx.skip(`${name} does not list the optional capability '${capability}' (${STORE_CAPABILITIES[capability].join(', ')})`);
            return;
          }
          await fn(store);
        }),
      timeout,
    );

  describe(`MemoryStore conformance: ${name}`, () => {
    describe('open and meta', () => {
      it(
        'records meta on first open and accepts the same meta again',
        async () => {
          const store = await makeStore();
          try {
            expect(await store.meta()).toBeNull();
            await store.open(meta);
            expect(await store.meta()).toEqual(meta);
            await store.open(meta);
            expect(await store.meta()).toEqual(meta);
            expect(typeof store.kind).toBe('string');
          } finally {
            await store.close();
          }
        },
        timeout,
      );

      t('refuses another embedding model or dimension, naming both values', async (store) => {
        const e1 = await expectMemError(store.open({ ...meta, embeddingModel: 'other-model' }), MemError, 'STORE_META_MISMATCH');
        expect(e1.category).toBe('conflict');
        expect(e1.message).toContain('other-model');
        expect(e1.message).toContain(meta.embeddingModel);
        const e2 = await expectMemError(store.open({ ...meta, dimension: dim + 3 }), MemError, 'STORE_META_MISMATCH');
        expect(e2.message).toContain(String(dim + 3));
        expect(e2.message).toContain(String(dim));
        await expectMemError(store.open({ ...meta, schemaVersion: meta.schemaVersion + 1 }), MemError, 'STORE_META_MISMATCH');
        expect(await store.meta()).toEqual(meta);
      });

      if (options.reopen) {
        const reopen = options.reopen;
        t('persists across handles and checks meta on reopen', async (store) => {
          const n = makeNode(A, 'persisted memory', unitVector(dim, 1));
          await store.write({ scope: A, nodes: [n], history: [makeHistory(A, 'ADD', n.id)] });
          await store.close();
          const again = await reopen(store);
          try {
            await expectMemError(again.open({ ...meta, embeddingModel: 'another-embedder' }), MemError, 'STORE_META_MISMATCH');
            await again.open(meta);
            expect(comparable((await again.get(A, n.id))!)).toEqual(comparable(n));
            expect((await again.history(A)).map((h) => h.op)).toEqual(['ADD']);
          } finally {
            await again.close();
          }
        });
      }
    });

    describe('write and read', () => {
      t('round-trips every node field', async (store) => {
        const n = makeNode(A, 'Alice adopted a cat named Miso', unitVector(dim, 2), {
          speaker: 'Alice',
          eventTime: { start: '2023-12-31T00:00:00.000Z', end: '2024-01-01T00:00:00.000Z', expression: 'yesterday' },
          entities: ['Alice', 'Miso'],
          keywords: ['cat', 'adopted'],
          types: { episodic: 0.9, semantic: 0.1, procedural: 0.05, preference: 0.2 },
          gate: { action: 'add', novelty: 0.4, score: 0.2, threshold: 0.1, kappa: 50, density: 3, nearest: { id: 'x', cosine: 0.3 } },
          provenance: { sourceId: 'D1:3', contentHash: 'hash-1', metadata: { session: 1, tags: ['a'] } },
        });
        await store.write({ scope: A, nodes: [n] });
        const got = await store.get(A, n.id);
        expect(got).not.toBeNull();
        expect(got!.embedding).toBeInstanceOf(Float32Array);
        expect(comparable(got!)).toEqual(comparable(n));
        expect(await store.get(A, 'no-such-id')).toBeNull();
        expect(await store.count(A)).toBe(1);
      });

      t('getMany keeps the order of the ids and skips missing ones', async (store) => {
        const ns = [0, 1, 2].map((i) => makeNode(A, `memory ${i}`, unitVector(dim, 10 + i)));
        await store.write({ scope: A, nodes: ns });
        const got = await store.getMany(A, [ns[2].id, 'missing', ns[0].id]);
        expect(got.map((n) => n.id)).toEqual([ns[2].id, ns[0].id]);
        expect(await store.getMany(A, [])).toEqual([]);
      });

      t('list orders by observedAt or createdAt, with limit and offset', async (store) => {
        const t0 = Date.parse('2024-05-01T00:00:00.000Z');
        const iso = (ms: number) => new Date(ms).toISOString();
        const ns = [2, 0, 1].map((i, j) =>
          makeNode(A, `event ${i}`, unitVector(dim, 20 + i), { observedAt: iso(t0 + i * 60_000), createdAt: iso(t0 + j * 60_000) }),
        );
        await store.write({ scope: A, nodes: ns });
        const texts = async (o: Parameters<MemoryStore['list']>[1]) => (await store.list(A, o)).map((n) => n.text);
        expect(await texts({})).toEqual(['event 0', 'event 1', 'event 2']);
        expect(await texts({ order: 'desc' })).toEqual(['event 2', 'event 1', 'event 0']);
        expect(await texts({ orderBy: 'createdAt' })).toEqual(['event 2', 'event 0', 'event 1']);
        expect(await texts({ limit: 2 })).toEqual(['event 0', 'event 1']);
        expect(await texts({ limit: 2, offset: 2 })).toEqual(['event 2']);
        expect(await store.count(A)).toBe(3);
      });

      t('findByContentHash finds a node of the scope', async (store) => {
        const n = makeNode(A, 'hashed', unitVector(dim, 30));
        await store.write({ scope: A, nodes: [n] });
        expect((await store.findByContentHash(A, n.provenance.contentHash))?.id).toBe(n.id);
        expect(await store.findByContentHash(A, 'nope')).toBeNull();
      });

      t('writing an existing id replaces the node (same scope)', async (store) => {
        const n = makeNode(A, 'old text about tea', axisVector(dim, 0));
        await store.write({ scope: A, nodes: [n] });
        await store.write({ scope: A, nodes: [{ ...n, text: 'new text about coffee', embedding: axisVector(dim, 1) }] });
        expect(await store.count(A)).toBe(1);
        expect((await store.get(A, n.id))!.text).toBe('new text about coffee');
        expect(await store.lexicalSearch(A, 'tea', 5)).toEqual([]);
        expect((await store.lexicalSearch(A, 'coffee', 5)).map((h) => h.node.id)).toEqual([n.id]);
        const hits = await store.vectorSearch(A, axisVector(dim, 1), 1);
        expect(hits[0].node.id).toBe(n.id);
        expect(hits[0].score).toBeCloseTo(1, 5);
      });

      t('nodeUpdates set and clear obsoleteBy', async (store) => {
        const a = makeNode(A, 'I live in Paris', unitVector(dim, 40));
        const b = makeNode(A, 'I moved to Lyon', unitVector(dim, 41));
        await store.write({ scope: A, nodes: [a, b] });
        await store.write({ scope: A, nodeUpdates: [{ id: a.id, obsoleteBy: b.id }], history: [makeHistory(A, 'OBSOLETE', a.id, { by: b.id })] });
        expect((await store.get(A, a.id))!.obsoleteBy).toBe(b.id);
        await store.write({ scope: A, nodeUpdates: [{ id: a.id, obsoleteBy: null }] });
        expect((await store.get(A, a.id))!.obsoleteBy ?? null).toBeNull();
        await expectMemError(store.write({ scope: A, nodeUpdates: [{ id: 'missing', obsoleteBy: b.id }] }), MemError, 'NODE_NOT_FOUND');
      });

      t('concurrent writes are all kept', async (store) => {
        const ns = Array.from({ length: 20 }, (_, i) => makeNode(A, `parallel ${i}`, unitVector(dim, 100 + i)));
        await Promise.all(ns.map((n) => store.write({ scope: A, nodes: [n], history: [makeHistory(A, 'ADD', n.id)] })));
        expect(await store.count(A)).toBe(20);
        expect((await store.history(A)).length).toBe(20);
      });
    });

    describe('atomic, validated batches (nothing partially written)', () => {
      const bad: [string, string, (x: MemoryNode, y: MemoryNode, other: MemoryNode) => Parameters<MemoryStore['write']>[0]][] = [
        ['a relation to a missing node', 'NODE_NOT_FOUND', (x, y) => ({ scope: A, nodes: [x, y], relations: [makeRelation(x.id, y.id), makeRelation(x.id, 'ghost')] })],
        ['a relation to a node of another scope', 'NODE_NOT_FOUND', (x, _y, other) => ({ scope: A, nodes: [x], relations: [makeRelation(x.id, other.id)] })],
        ['a subtype in the wrong view', 'INVALID_INPUT', (x, y) => ({ scope: A, nodes: [x, y], relations: [makeRelation(x.id, y.id, 'LEADS_TO', { view: 'temporal' })] })],
        ['an unknown subtype', 'INVALID_INPUT', (x, y) => ({ scope: A, nodes: [x, y], relations: [makeRelation(x.id, y.id, 'RELATED_TO', { subtype: 'LIKES' as any })] })],
        ['a probability above 1', 'INVALID_INPUT', (x, y) => ({ scope: A, nodes: [x, y], relations: [makeRelation(x.id, y.id, 'RELATED_TO', { probability: 1.5 })] })],
        ['a node of another scope', 'INVALID_INPUT', (x, _y, other) => ({ scope: A, nodes: [x, { ...other, id: 'moved' }] })],
        ['a non-finite vector', 'NON_FINITE_VECTOR', (x, y) => ({ scope: A, nodes: [x, { ...y, embedding: y.embedding.map((v, i) => (i === 0 ? NaN : v)) }] })],
        ['a vector of the wrong dimension', 'DIMENSION_MISMATCH', (x, y) => ({ scope: A, nodes: [x, { ...y, embedding: new Float32Array(dim + 1).fill(0.1) }] })],
        ['a zero vector', 'ZERO_VECTOR', (x, y) => ({ scope: A, nodes: [x, { ...y, embedding: new Float32Array(dim) }] })],
        ['empty text', 'TEXT_EMPTY', (x, y) => ({ scope: A, nodes: [x, { ...y, text: '  ' }] })],
        ['a duplicate node id', 'INVALID_INPUT', (x) => ({ scope: A, nodes: [x, { ...x }] })],
        ['a history row of another scope', 'INVALID_INPUT', (x) => ({ scope: A, nodes: [x], history: [makeHistory(A, 'ADD', x.id), makeHistory(B, 'ADD', x.id)] })],
        ['an unknown history op', 'INVALID_INPUT', (x) => ({ scope: A, nodes: [x], history: [makeHistory(A, 'DELETE' as any, x.id)] })],
        ['a batch without a scope', 'SCOPE_MISSING', (x) => ({ scope: undefined as any, nodes: [x] })],
      ];
      for (const [what, code, build] of bad) {
        t(`rejects a batch with ${what} (${code}) and writes nothing`, async (store) => {
          const seed = makeNode(A, 'existing memory', unitVector(dim, 50));
          const other = makeNode(B, 'bob memory', unitVector(dim, 51));
          await store.write({ scope: A, nodes: [seed], history: [makeHistory(A, 'ADD', seed.id)] });
          await store.write({ scope: B, nodes: [other] });
          const before = { a: await snapshot(store, A), b: await snapshot(store, B) };
          const x = makeNode(A, 'fresh xylophone x', unitVector(dim, 52));
          const y = makeNode(A, 'fresh xylophone y', unitVector(dim, 53));
          await expectMemError(store.write(build(x, y, other)), MemError, code as MemErrorCode);
          expect({ a: await snapshot(store, A), b: await snapshot(store, B) }).toEqual(before);
          expect(await store.get(A, x.id)).toBeNull();
          expect(await store.lexicalSearch(A, 'xylophone', 10)).toEqual([]);
        });
      }
    });

    describe('scope isolation', () => {
      t('the same id in two scopes stays two nodes; nothing crosses', async (store) => {
        const a = makeNode(A, 'alice likes green tea', axisVector(dim, 0), { id: 'shared-id' });
        const a2 = makeNode(A, 'alice plays chess', axisVector(dim, 2));
        const b = makeNode(B, 'bob likes green tea', axisVector(dim, 0), { id: 'shared-id' });
        const b2 = makeNode(B, 'bob secret diary', axisVector(dim, 0, 0.01));
        await store.write({ scope: A, nodes: [a, a2], relations: [makeRelation(a.id, a2.id)], history: [makeHistory(A, 'ADD', a.id)] });
        await store.write({ scope: B, nodes: [b, b2], relations: [makeRelation(b2.id, b.id, 'LEADS_TO')], history: [makeHistory(B, 'ADD', b.id)] });
        expect((await store.get(A, 'shared-id'))!.text).toBe(a.text);
        expect((await store.get(B, 'shared-id'))!.text).toBe(b.text);
        expect(await store.get(A, b2.id)).toBeNull();
        expect(await store.getMany(A, [b2.id])).toEqual([]);
        expect(await store.findByContentHash(A, b2.provenance.contentHash)).toBeNull();
        for (const h of await store.vectorSearch(A, axisVector(dim, 0), 10)) expect(h.node.scope).toEqual(A);
        expect((await store.vectorSearch(A, axisVector(dim, 0), 10)).map((h) => h.node.id).sort()).toEqual([a.id, a2.id].sort());
        expect((await store.lexicalSearch(A, 'secret diary bob', 10)).length).toBe(0);
        expect((await store.lexicalSearch(A, 'green tea', 10)).map((h) => h.node.text)).toEqual([a.text]);
        const nb = await store.neighbors(A, ['shared-id', b2.id]);
        expect(nb.map((x) => x.node.id)).toEqual([a2.id]);
        expect((await store.relations(A)).length).toBe(1);
        expect((await store.history(A)).every((h) => h.scope.userId === 'alice')).toBe(true);
        expect(await store.forget(A, b2.id)).toBe(false);
        expect(await store.get(B, b2.id)).not.toBeNull();
        expect(await store.count(B)).toBe(2);
        const keys = (await store.scopes()).map((s) => s.userId).sort();
        expect(keys).toEqual(['alice', 'bob']);
      });

      t('scopes differing only in namespace, agentId or runId are separate', async (store) => {
        const variants: ResolvedScope[] = [
          testScope('carol'),
          testScope('carol', { namespace: 'other' }),
          testScope('carol', { agentId: 'agent-1' }),
          testScope('carol', { runId: 'run-1' }),
        ];
        for (const [i, s] of variants.entries()) await store.write({ scope: s, nodes: [makeNode(s, `variant ${i} apple`, unitVector(dim, 60 + i))] });
        for (const [i, s] of variants.entries()) {
          expect((await store.list(s)).map((n) => n.text)).toEqual([`variant ${i} apple`]);
          expect((await store.lexicalSearch(s, 'apple', 10)).map((h) => h.node.text)).toEqual([`variant ${i} apple`]);
          expect((await store.vectorSearch(s, unitVector(dim, 99), 10)).length).toBe(1);
        }
        expect((await store.scopes()).length).toBe(4);
      });

      t('an unknown scope reads as empty', async (store) => {
        const s = testScope('nobody');
        expect(await store.list(s)).toEqual([]);
        expect(await store.count(s)).toBe(0);
        expect(await store.vectorSearch(s, unitVector(dim, 1), 5)).toEqual([]);
        expect(await store.lexicalSearch(s, 'anything', 5)).toEqual([]);
        expect(await store.neighbors(s, ['x'])).toEqual([]);
        expect(await store.history(s)).toEqual([]);
        expect(await store.forget(s, 'x')).toBe(false);
      });
    });

    describe('relations and neighbours', () => {
      t('neighbours by direction, view, subtype and limit (highest probability first)', async (store) => {
        const [c, x, y, z] = ['centre', 'effect', 'before', 'same person'].map((w, i) => makeNode(A, w, unitVector(dim, 70 + i)));
        const r1 = makeRelation(c.id, x.id, 'LEADS_TO', { probability: 0.9, origin: 'controller' });
        const r2 = makeRelation(y.id, c.id, 'PRECEDES', { probability: 1 });
        const r3 = makeRelation(c.id, z.id, 'SAME_ENTITY', { probability: 0.7 });
        const r4 = makeRelation(x.id, y.id, 'RELATED_TO', { probability: 0.65, origin: 'controller' });
        await store.write({ scope: A, nodes: [c, x, y, z], relations: [r1, r2, r3, r4] });
        const ids = async (q: Parameters<MemoryStore['neighbors']>[2], from = [c.id]) => (await store.neighbors(A, from, q)).map((n) => n.node.id);
        expect(await ids({})).toEqual([y.id, x.id, z.id]);
        expect(await ids({ direction: 'out' })).toEqual([x.id, z.id]);
        expect(await ids({ direction: 'in' })).toEqual([y.id]);
        expect(await ids({ views: ['causal', 'entity'] })).toEqual([x.id, z.id]);
        expect(await ids({ subtypes: ['PRECEDES'] })).toEqual([y.id]);
        expect(await ids({ limit: 1 })).toEqual([y.id]);
        const nb = await store.neighbors(A, [c.id, x.id], { direction: 'out' });
        expect(nb.map((n) => [n.fromId, n.node.id, n.relation.subtype])).toEqual([
          [c.id, x.id, 'LEADS_TO'],
          [c.id, z.id, 'SAME_ENTITY'],
          [x.id, y.id, 'RELATED_TO'],
        ]);
        expect(nb[0].relation).toEqual(r1);
        expect((await store.relations(A)).length).toBe(4);
        expect((await store.relations(A, { nodeId: x.id })).map((r) => r.id).sort()).toEqual([r1.id, r4.id].sort());
        expect((await store.relations(A, { limit: 2 })).length).toBe(2);
      });

      t('refuses views and subtypes outside the closed enums, inherited property names included (INVALID_INPUT)', async (store) => {
        const [c, x] = ['hub', 'spoke'].map((w, i) => makeNode(A, w, unitVector(dim, 90 + i)));
        await store.write({ scope: A, nodes: [c, x], relations: [makeRelation(c.id, x.id, 'LEADS_TO')] });
        for (const bad of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'SEMANTIC', 'Semantic', '']) {
          await expectMemError(store.neighbors(A, [c.id], { views: [bad as any] }), MemError, 'INVALID_INPUT');
          await expectMemError(store.neighbors(A, [c.id], { subtypes: [bad as any] }), MemError, 'INVALID_INPUT');
        }
        await expectMemError(store.neighbors(A, [c.id], { views: 'causal' as any }), MemError, 'INVALID_INPUT');
        await expectMemError(store.neighbors(A, [c.id], { direction: 'sideways' as any }), MemError, 'INVALID_INPUT');
        expect((await store.neighbors(A, [c.id], { views: ['causal'], subtypes: ['LEADS_TO'] })).map((n) => n.node.id)).toEqual([x.id]);
      });
    });

    describe('forget', () => {
      t('removes the node, its relations and index entries; history stays and a FORGET row is appended', async (store) => {
        const a = makeNode(A, 'the blue bicycle was stolen', axisVector(dim, 3));
        const b = makeNode(A, 'police report filed', axisVector(dim, 4));
        const c = makeNode(A, 'bought a new lock', axisVector(dim, 5));
        await store.write({
          scope: A,
          nodes: [a, b, c],
          relations: [makeRelation(a.id, b.id, 'LEADS_TO'), makeRelation(c.id, a.id, 'RELATED_TO'), makeRelation(b.id, c.id, 'PRECEDES')],
          history: [makeHistory(A, 'ADD', a.id), makeHistory(A, 'ADD', b.id), makeHistory(A, 'ADD', c.id)],
        });
        expect((await store.vectorSearch(A, axisVector(dim, 3), 1))[0].node.id).toBe(a.id);
        expect(await store.forget(A, a.id)).toBe(true);
        expect(await store.get(A, a.id)).toBeNull();
        expect(await store.count(A)).toBe(2);
        expect((await store.relations(A)).map((r) => r.subtype)).toEqual(['PRECEDES']);
        expect(await store.neighbors(A, [b.id, c.id], { subtypes: ['LEADS_TO', 'RELATED_TO'] })).toEqual([]);
        expect(await store.lexicalSearch(A, 'bicycle stolen', 5)).toEqual([]);
        expect((await store.vectorSearch(A, axisVector(dim, 3), 5)).map((h) => h.node.id)).not.toContain(a.id);
        const hist = await store.history(A, { nodeId: a.id });
        expect(hist.map((h) => h.op)).toEqual(['ADD', 'FORGET']);
        expect(await store.forget(A, a.id)).toBe(false);
        expect((await store.history(A, { nodeId: a.id })).length).toBe(2);
        expect(await store.forget(A, 'never-existed')).toBe(false);
      });

      t('a scope whose last node is forgotten is no longer listed by scopes()', async (store) => {
        const n = makeNode(B, 'only memory', unitVector(dim, 80));
        await store.write({ scope: B, nodes: [n] });
        await store.write({ scope: A, nodes: [makeNode(A, 'stays', unitVector(dim, 81))] });
        expect(await store.forget(B, n.id)).toBe(true);
        expect((await store.scopes()).map((s) => s.userId)).toEqual(['alice']);
        expect((await store.history(B)).map((h) => h.op)).toEqual(['FORGET']);
      });
    });

    describe('capabilities', () => {
      t('lists exactly the optional parts it implements', async (store) => {
        const listed = [...(store.capabilities ?? [])].sort();
        expect(new Set(listed).size, 'no capability listed twice').toBe(listed.length);
        expect(listed).toEqual(implementedCapabilities(store).sort());
        // a half-implemented capability (loadState without saveState) is neither listed nor usable
        for (const c of Object.keys(STORE_CAPABILITIES) as StoreCapability[]) {
          const has = STORE_CAPABILITIES[c].map((m) => typeof (store as unknown as Record<string, unknown>)[m] === 'function');
          expect(new Set(has).size, `${c}: all of ${STORE_CAPABILITIES[c].join(', ')} or none`).toBe(1);
        }
      });
    });

    describe('optional writes (exclusive, forgetScope)', () => {
      tc('exclusive', 'exclusive returns what fn returns; when fn throws it rethrows and keeps none of its writes; the store stays usable', async (store) => {
        if (!store.exclusive) throw new Error('unreachable: capability exclusive listed, checked above');
        const kept = makeNode(A, 'written under the lock', unitVector(dim, 300));
        expect(await store.exclusive(async () => (await store.write({ scope: A, nodes: [kept] }), 'done'))).toBe('done');
        const dropped = makeNode(A, 'written, then the block throws', unitVector(dim, 301));
        await expect(store.exclusive(async () => {
          await store.write({ scope: A, nodes: [dropped] });
          throw new Error('boom');
        })).rejects.toThrow('boom');
        // all or nothing: the write made inside the block that threw is not kept
        expect((await store.list(A)).map((n) => n.id)).toEqual([kept.id]);
        expect(await store.get(A, dropped.id)).toBeNull();
        expect(await store.exclusive(async () => store.count(A))).toBe(1);
      });
      tc('lockScopes', 'lockScopes returns what fn returns, runs two holders of a scope one after the other, rethrows and stays usable', async (store) => {
        if (!store.lockScopes) throw new Error('unreachable: capability lockScopes listed, checked above');
        const spans: [string, number, number][] = [];
        const hold = (tag: string, scopes: ResolvedScope[]) =>
          store.lockScopes!(scopes, async () => {
            const start = performance.now();
            await new Promise((r) => setTimeout(r, 60));
            const n = makeNode(A, `written under lock ${tag}`, unitVector(dim, 320 + spans.length));
            await store.write({ scope: A, nodes: [n] });
            spans.push([tag, start, performance.now()]);
            return tag;
          });
        expect(await Promise.all([hold('first', [A]), hold('second', [B, A]), hold('third', [A, A])])).toEqual(['first', 'second', 'third']);
        spans.sort((a, b) => a[1] - b[1]);
        // holders of scope A never overlap: each starts after the previous one ended
        for (let i = 1; i < spans.length; i++) expect(spans[i]![1], `${spans[i]![0]} started inside ${spans[i - 1]![0]}`).toBeGreaterThanOrEqual(spans[i - 1]![2] - 1);
        expect(await store.count(A)).toBe(3);
        await expect(store.lockScopes([A], async () => {
          throw new Error('boom');
        })).rejects.toThrow('boom');
        // released after a throw
        expect(await store.lockScopes([A], async () => store.count(A))).toBe(3);
        await expectMemError(store.lockScopes([{} as unknown as ResolvedScope], async () => 1), MemError, 'SCOPE_MISSING');
      });
      tc('forgetScope', 'forgetScope removes every node of the scope, one FORGET row each, and nothing elsewhere', async (store) => {
        if (!store.forgetScope) throw new Error('unreachable: capability forgetScope listed, checked above');
        const [x, y] = [makeNode(A, 'first of alice', unitVector(dim, 310)), makeNode(A, 'second of alice', unitVector(dim, 311))];
        await store.write({ scope: A, nodes: [x, y], relations: [makeRelation(x.id, y.id, 'RELATED_TO')] });
        await store.write({ scope: B, nodes: [makeNode(B, 'of bob', unitVector(dim, 310))] });
        expect(await store.forgetScope(A)).toBe(2);
        expect(await store.count(A)).toBe(0);
        expect(await store.relations(A)).toEqual([]);
        expect((await store.history(A)).filter((h) => h.op === 'FORGET').map((h) => h.nodeId).sort()).toEqual([x.id, y.id].sort());
        expect(await store.count(B)).toBe(1);
        expect(await store.forgetScope(A)).toBe(0);
      });
    });

    describe('derived state (optional loadState / saveState)', () => {
      tc('state', 'saves, replaces, deletes and reads back per scope and name; never across scopes', async (store) => {
        if (!store.loadState || !store.saveState) throw new Error('unreachable: capability state listed, checked above');
        expect(await store.loadState(A, 'gate')).toBeNull();
        const big = 'x'.repeat(300_000) + ' é 😀 中文';
        await store.saveState(A, 'gate', big);
        await store.saveState(A, 'other', '{"n":1}');
        await store.saveState(B, 'gate', 'bob');
        expect(await store.loadState(A, 'gate')).toBe(big);
        expect(await store.loadState(A, 'other')).toBe('{"n":1}');
        expect(await store.loadState(B, 'gate')).toBe('bob');
        expect(await store.loadState(testScope('carol'), 'gate')).toBeNull();
        await store.saveState(A, 'gate', 'v2');
        expect(await store.loadState(A, 'gate')).toBe('v2');
        await store.saveState(A, 'gate', null);
        expect(await store.loadState(A, 'gate')).toBeNull();
        expect(await store.loadState(A, 'other')).toBe('{"n":1}');
        expect(await store.loadState(B, 'gate')).toBe('bob');
        await store.saveState(testScope('dave'), 'gate', null); // deleting what never existed is fine
        // state alone does not make a scope appear in scopes() (nodes do)
        expect((await store.scopes()).map((s) => s.userId)).toEqual([]);
        await expectMemError(store.saveState(A, '', 'v'), MemError, 'INVALID_INPUT');
        await expectMemError(store.saveState(A, 'n'.repeat(201), 'v'), MemError, 'INVALID_INPUT');
        await expectMemError(store.saveState(A, 'gate', 42 as unknown as string), MemError, 'INVALID_INPUT');
        // a lone surrogate cannot round-trip through UTF-8 storage: refused, not silently changed
        await expectMemError(store.saveState(A, 'gate', 'broken \uDC00 pair'), MemError, 'INVALID_INPUT');
        expect(await store.loadState(A, 'gate')).toBeNull();
        await expectMemError(store.loadState(A, ''), MemError, 'INVALID_INPUT');
        expect(await store.loadState(A, 'other')).toBe('{"n":1}');
      });
      tc('state', 'a forget drops every saved value of its scope (and only of its scope)', async (store) => {
        if (!store.loadState || !store.saveState) throw new Error('unreachable: capability state listed, checked above');
        const a = makeNode(A, 'remember the lake trip', unitVector(dim, 90));
        await store.write({ scope: A, nodes: [a, makeNode(A, 'another memory', unitVector(dim, 91))] });
        await store.saveState(A, 'gate', 'aggregate of a');
        await store.saveState(A, 'other', 'more');
        await store.saveState(B, 'gate', 'bob');
        expect(await store.forget(A, 'never-existed')).toBe(false);
        expect(await store.loadState(A, 'gate')).toBe('aggregate of a');
        expect(await store.forget(A, a.id)).toBe(true);
        expect(await store.loadState(A, 'gate')).toBeNull();
        expect(await store.loadState(A, 'other')).toBeNull();
        expect(await store.loadState(B, 'gate')).toBe('bob');
      });
      if (options.reopen) {
        const reopen = options.reopen;
        tc('state', 'saved state persists across handles', async (store) => {
          if (!store.loadState || !store.saveState) throw new Error('unreachable: capability state listed, checked above');
          await store.saveState(A, 'gate', 'kept');
          await store.close();
          const again = await reopen(store);
          try {
            await again.open(meta);
            expect(await again.loadState!(A, 'gate')).toBe('kept');
          } finally {
            await again.close();
          }
        });
      }
    });

    describe('history', () => {
      t('is append-only with a monotonic seq; filters by node and keeps the latest under a limit', async (store) => {
        const n = makeNode(A, 'history subject', unitVector(dim, 90));
        const h1 = makeHistory(A, 'ADD', n.id, { text: n.text, nested: { k: [1, 2] } });
        await store.write({ scope: A, nodes: [n], history: [h1] });
        await store.write({ scope: B, nodes: [makeNode(B, 'b', unitVector(dim, 91))], history: [makeHistory(B, 'ADD', null)] });
        await store.write({ scope: A, history: [makeHistory(A, 'CONSOLIDATE', null, { checked: 3 }), makeHistory(A, 'RELATE', n.id)] });
        const all = await store.history(A);
        expect(all.map((h) => h.op)).toEqual(['ADD', 'CONSOLIDATE', 'RELATE']);
        for (let i = 1; i < all.length; i++) expect(all[i].seq!).toBeGreaterThan(all[i - 1].seq!);
        expect(all[0]).toMatchObject({ op: 'ADD', nodeId: n.id, at: h1.at, data: h1.data });
        expect(all[0].scope).toEqual(A);
        expect((await store.history(A, { nodeId: n.id })).map((h) => h.op)).toEqual(['ADD', 'RELATE']);
        expect((await store.history(A, { limit: 2 })).map((h) => h.op)).toEqual(['CONSOLIDATE', 'RELATE']);
        await store.write({ scope: A, history: [makeHistory(A, 'NOOP', n.id)] });
        const after = await store.history(A);
        expect(after.slice(0, 3)).toEqual(all);
        expect(after[3].seq!).toBeGreaterThan(all[2].seq!);
      });

      t('afterSeq returns only the rows appended after a seen seq (issue 32: incremental catch-up)', async (store) => {
        const n = makeNode(A, 'catch-up subject', unitVector(dim, 92));
        await store.write({ scope: A, nodes: [n], history: [makeHistory(A, 'ADD', n.id)] });
        const seen = (await store.history(A, { limit: 1 }))[0]!.seq!;
        expect(await store.history(A, { afterSeq: seen })).toEqual([]);
        await store.write({ scope: B, nodes: [makeNode(B, 'other scope', unitVector(dim, 93))], history: [makeHistory(B, 'ADD', null)] });
        expect(await store.history(A, { afterSeq: seen })).toEqual([]);
        const m = makeNode(A, 'catch-up second', unitVector(dim, 94));
        await store.write({ scope: A, nodes: [m], history: [makeHistory(A, 'ADD', m.id), makeHistory(A, 'RELATE', null)] });
        await store.write({ scope: A, history: [makeHistory(A, 'NOOP', n.id)] });
        const newer = await store.history(A, { afterSeq: seen });
        expect(newer.map((h) => [h.op, h.nodeId])).toEqual([
          ['ADD', m.id],
          ['RELATE', null],
          ['NOOP', n.id],
        ]);
        for (const h of newer) expect(h.seq!).toBeGreaterThan(seen);
        expect(await store.history(A, { afterSeq: 0 })).toEqual(await store.history(A));
        // with a limit: the latest rows among those after the seq; with a node: its rows only
        expect((await store.history(A, { afterSeq: seen, limit: 2 })).map((h) => h.op)).toEqual(['RELATE', 'NOOP']);
        expect((await store.history(A, { afterSeq: seen, nodeId: n.id })).map((h) => h.op)).toEqual(['NOOP']);
        expect(await store.history(A, { afterSeq: newer[2]!.seq! })).toEqual([]);
        await expectMemError(store.history(A, { afterSeq: -1 }), MemError, 'INVALID_INPUT');
        await expectMemError(store.history(A, { afterSeq: 1.5 }), MemError, 'INVALID_INPUT');
      });
    });

    describe('lexical search', () => {
      t('ranks by BM25 relevance within the scope', async (store) => {
        const ns = [
          makeNode(A, 'Caroline went hiking in the mountains with her dog', unitVector(dim, 200)),
          makeNode(A, 'Melanie painted a sunrise over the lake', unitVector(dim, 201)),
          makeNode(A, 'The dog loves hiking; hiking with the dog is the best', unitVector(dim, 202)),
        ];
        await store.write({ scope: A, nodes: ns });
        const hits = await store.lexicalSearch(A, 'hiking dog', 10);
        expect(hits.map((h) => h.node.id)).toEqual([ns[2].id, ns[0].id]);
        expect(hits[0].score).toBeGreaterThan(hits[1].score);
        expect(hits[1].score).toBeGreaterThan(0);
        expect((await store.lexicalSearch(A, 'HIKING', 10)).length).toBe(2);
        expect((await store.lexicalSearch(A, 'hiking dog', 1)).length).toBe(1);
        expect(await store.lexicalSearch(A, 'hiking', 0)).toEqual([]);
      });

      tc('lexicalSearchIds', 'lexicalSearchIds returns the same hits as lexicalSearch, scoped', async (store) => {
        if (!store.lexicalSearchIds) throw new Error('unreachable: capability lexicalSearchIds listed, checked above');
        const words = ['hiking', 'dog', 'lake', 'sunrise', 'mountain'];
        // 12 nodes with different counts of the query words, so the BM25 order has several levels and ties
        const nodes = Array.from({ length: 12 }, (_, i) => makeNode(A, `note ${i}: ${words.filter((_, j) => (i + j) % 3 !== 0).join(' ')} ${i % 4 === 0 ? 'hiking hiking' : ''}`, unitVector(dim, 230 + i)));
        await store.write({ scope: A, nodes });
        await store.write({ scope: B, nodes: [makeNode(B, 'hiking dog lake in the other scope', unitVector(dim, 230))] });
        for (const [query, k] of [['hiking dog', 5], ['lake sunrise mountain', 12], ['hiking', 30], ['"dog" AND (lake)', 3]] as const) {
          const full = await store.lexicalSearch(A, query, k);
          const ids = await store.lexicalSearchIds(A, query, k);
          expect(full.length, query).toBeGreaterThan(0);
          expect(ids.map((h) => h.id), query).toEqual(full.map((h) => h.node.id));
          expect(ids.map((h) => h.score), query).toEqual(full.map((h) => h.score));
        }
        expect(await store.lexicalSearchIds(A, 'hiking', 0)).toEqual([]);
        expect(await store.lexicalSearchIds(A, '   ', 5)).toEqual([]);
        expect(await store.lexicalSearchIds({ ...A, userId: 'nobody-here' }, 'hiking', 5)).toEqual([]);
        await expectMemError(store.lexicalSearchIds(A, 42 as unknown as string, 5), MemError, 'INVALID_INPUT');
      });

      t('treats quotes, operators and punctuation in the query as plain text', async (store) => {
        const n = makeNode(A, 'Coffee AND tea: the "near" future -- my star recipe (v2)', unitVector(dim, 210));
        const m = makeNode(A, 'unrelated note about gardening', unitVector(dim, 211));
        await store.write({ scope: A, nodes: [n, m] });
        const queries = [
          '"coffee',
          'coffee"',
          'star*',
          '*',
          'coffee AND',
          'AND',
          'OR tea NOT',
          'NEAR(coffee tea',
          'NEAR(',
          '-coffee',
          'coffee -tea',
          'body:coffee',
          '^coffee',
          '(coffee',
          "it's coffee",
          '{coffee tea}',
          'coffee + tea',
          '\\coffee',
          '"""',
          '   ',
          '!!! ???',
        ];
        for (const q of queries) {
          const hits = await store.lexicalSearch(A, q, 10);
          for (const h of hits) expect(h.node.id).toBe(n.id);
          if (/coffee|tea|star/i.test(q)) expect(hits.map((h) => h.node.id), q).toEqual([n.id]);
        }
        expect(await store.lexicalSearch(A, '"""', 10)).toEqual([]);
        expect(await store.lexicalSearch(A, '', 10)).toEqual([]);
      });

      t('stores unicode, emoji, CJK and right-to-left text unchanged and finds it again by a word', async (store) => {
        const samples: [string, string][] = [
          ['Zoë visited the Café Müller in Köln', 'Müller'],
          ['我每天早上都喝咖啡', '咖啡'],
          ['東京で新しい仕事を始めました', '東京'],
          ['오늘 친구와 영화를 봤어요', '친구와'],
          ['ذهبت إلى المكتبة يوم السبت', 'المكتبة'],
          ['אני אוהב לטייל בירושלים', 'בירושלים'],
          ['Привет, как дела с проектом?', 'проектом'],
          ['Party tonight 🎉👩‍👩‍👧 at the beach 🏖️', 'beach'],
          ['Ελληνικά γράμματα και λέξεις', 'γράμματα'],
          ['mixed עברית and English words', 'English'],
        ];
        const ns = samples.map(([text], i) => makeNode(A, text, unitVector(dim, 300 + i)));
        await store.write({ scope: A, nodes: ns });
        for (const [i, [text, word]] of samples.entries()) {
          expect((await store.get(A, ns[i].id))!.text).toBe(text);
          const hits = await store.lexicalSearch(A, word, 3);
          expect(hits.map((h) => h.node.id), `search ${word}`).toContain(ns[i].id);
          expect(hits[0].node.text).toBe(text);
        }
      });
    });

    describe('scanNodes', () => {
      tc('scanNodes', 'scanNodes pages every node of the scope in id order as digests, by keyset, scoped', async (store) => {
        if (!store.scanNodes) throw new Error('unreachable: capability scanNodes listed, checked above');
        const nodes = Array.from({ length: 7 }, (_, i) => ({
          ...makeNode(A, `scan ${i}`, unitVector(dim, 400 + i)),
          entities: [`e${i}`],
          keywords: [`k${i}`, 'shared'],
          gate: i === 3 ? null : { action: i % 2 ? ('noop' as const) : ('add' as const), novelty: 1, score: 0, threshold: 0, kappa: 1, density: 1, nearest: null },
        }));
        nodes[2]!.provenance = { ...nodes[2]!.provenance, sourceId: 'D1:2', metadata: { session: 's1' } };
        await store.write({ scope: A, nodes: [...nodes].reverse() });
        await store.write({ scope: B, nodes: [makeNode(B, 'other scope', unitVector(dim, 400))] });
        const want = [...nodes].sort((a, b) => (a.id < b.id ? -1 : 1));
        const pages: string[][] = [];
        let after: string | undefined;
        for (;;) {
          const page = await store.scanNodes(A, { afterId: after, limit: 3 });
          if (!page.length) break;
          pages.push(page.map((d) => d.id));
          for (const d of page) {
            const n = nodes.find((x) => x.id === d.id)!;
            expect(d.observedAt).toBe(n.observedAt);
            expect(d.entities).toEqual(n.entities);
            expect(d.keywords).toEqual(n.keywords);
            expect(Array.from(d.embedding)).toEqual(Array.from(n.embedding).map((x) => Math.fround(x)));
            expect(d.gate).toEqual(n.gate ? { action: n.gate.action } : null);
            expect(d.provenance).toEqual({ sourceId: n.provenance.sourceId, metadata: n.provenance.metadata });
            expect(d).not.toHaveProperty('text');
          }
          after = page.at(-1)!.id;
        }
        expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
        expect(pages.flat()).toEqual(want.map((n) => n.id));
        expect((await store.scanNodes(A)).map((d) => d.id)).toEqual(want.map((n) => n.id));
        expect(await store.scanNodes({ ...A, userId: 'nobody-here' })).toEqual([]);
        for (const limit of [0, -1, 1.5]) await expectMemError(store.scanNodes(A, { limit }), MemError, 'INVALID_INPUT');
      });
    });

    describe('vector search', () => {
      tc('vectorSearchIds', 'vectorSearchIds returns the same hits as vectorSearch, scoped', async (store) => {
        if (!store.vectorSearchIds) throw new Error('unreachable: capability vectorSearchIds listed, checked above');
        const nodes = Array.from({ length: 12 }, (_, i) => makeNode(A, `ids ${i}`, unitVector(dim, 200 + i)));
        await store.write({ scope: A, nodes });
        await store.write({ scope: B, nodes: [makeNode(B, 'other scope', unitVector(dim, 200))] });
        for (const [seed, k] of [[200, 5], [205, 12], [207, 30]] as const) {
          const q = unitVector(dim, seed);
          const full = await store.vectorSearch(A, q, k);
          const ids = await store.vectorSearchIds(A, q, k);
          expect(ids.map((h) => h.id)).toEqual(full.map((h) => h.node.id));
          ids.forEach((h, i) => expect(h.score).toBeCloseTo(full[i]!.score, 6));
        }
        expect(await store.vectorSearchIds(A, unitVector(dim, 1), 0)).toEqual([]);
        expect(await store.vectorSearchIds({ ...A, userId: 'nobody-here' }, unitVector(dim, 1), 5)).toEqual([]);
      });

      t('orders by cosine similarity and reports the cosine as score', async (store) => {
        const q = axisVector(dim, 0);
        const ns = [0.0, 0.3, 0.6, 1.2, 3].map((tilt, i) => makeNode(A, `v${i}`, axisVector(dim, 0, tilt)));
        const far = makeNode(A, 'opposite', axisVector(dim, 0).map((x) => -x));
        await store.write({ scope: A, nodes: [...ns.slice().reverse(), far] });
        const hits = await store.vectorSearch(A, q, 10);
        expect(hits.map((h) => h.node.text)).toEqual(['v0', 'v1', 'v2', 'v3', 'v4', 'opposite']);
        for (const h of hits) expect(h.score).toBeCloseTo(cosine(h.node.embedding, q), 5);
        expect(hits[5].score).toBeCloseTo(-1, 5);
        expect((await store.vectorSearch(A, q, 2)).map((h) => h.node.text)).toEqual(['v0', 'v1']);
        expect(await store.vectorSearch(A, q, 0)).toEqual([]);
        // An unnormalised query gives the same ranking and cosine scores.
        const scaled = q.map((x) => x * 7);
        expect((await store.vectorSearch(A, scaled, 3)).map((h) => h.node.text)).toEqual(['v0', 'v1', 'v2']);
      });

      t('rejects a query of the wrong dimension or with non-finite values', async (store) => {
        await store.write({ scope: A, nodes: [makeNode(A, 'x', unitVector(dim, 400))] });
        await expectMemError(store.vectorSearch(A, new Float32Array(dim + 2).fill(1), 3), MemError, 'DIMENSION_MISMATCH');
        const nan = unitVector(dim, 1);
        nan[0] = NaN;
        await expectMemError(store.vectorSearch(A, nan, 3), MemError, 'NON_FINITE_VECTOR');
      });

      t('finds the true nearest among many random vectors', async (store) => {
        const ns = Array.from({ length: 300 }, (_, i) => makeNode(A, `random ${i}`, unitVector(dim, 1000 + i)));
        for (let i = 0; i < ns.length; i += 100) await store.write({ scope: A, nodes: ns.slice(i, i + 100) });
        for (let qi = 0; qi < 5; qi++) {
          const q = unitVector(dim, 5000 + qi);
          const expected = ns
            .map((n) => ({ id: n.id, s: cosine(n.embedding, q) }))
            .sort((x, y) => y.s - x.s)
            .slice(0, 5)
            .map((x) => x.id);
          expect((await store.vectorSearch(A, q, 5)).map((h) => h.node.id)).toEqual(expected);
        }
      });
    });
  });
}

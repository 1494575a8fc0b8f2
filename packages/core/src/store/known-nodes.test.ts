/** The write path's cache of known node row ids must never outlive a change it did not see. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { makeHistory, makeNode, makeRelation, testScope, unitVector } from '../testing/index.js';
import { createSqliteStore } from './sqlite.js';
import { MemNotFoundError, StoreError } from '../errors.js';
import { expectMemError } from '@mem/test-utils';

const dir = mkdtempSync(join(tmpdir(), 'mem-known-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const META = { schemaVersion: 1, embeddingModel: 'test', dimension: 16 };
const A = testScope('alice');

async function open(path: string) {
  const s = createSqliteStore({ path });
  await s.open(META);
  return s;
}

/**
 * `writer` stores x → y, `forgetter` forgets x, then a relation z → x written by `writer` must fail
 * NODE_NOT_FOUND (texts 'x<suffix>', 'y<suffix>', 'z<suffix>'). Returns x and z.
 */
async function linkAfterForget(writer: Awaited<ReturnType<typeof open>>, forgetter: Awaited<ReturnType<typeof open>>, suffix: string) {
  const x = makeNode(A, `x${suffix}`, unitVector(16, 1));
  const y = makeNode(A, `y${suffix}`, unitVector(16, 2));
  await writer.write({ scope: A, nodes: [x, y], relations: [makeRelation(x.id, y.id)] });
  expect(await forgetter.forget(A, x.id)).toBe(true);
  const z = makeNode(A, `z${suffix}`, unitVector(16, 3));
  await expectMemError(writer.write({ scope: A, nodes: [z], relations: [makeRelation(z.id, x.id)] }), MemNotFoundError, 'NODE_NOT_FOUND');
  return { x, z };
}

describe('known node rids (write path cache)', () => {
  it('a node forgotten by this connection cannot be linked afterwards', async () => {
    const store = await open(':memory:');
    await linkAfterForget(store, store, '');
    expect(store.checkIntegrity()).toEqual([]);
    await store.close();
  });

  it('another connection forgetting (and re-adding) a node is seen by the next write', async () => {
    const path = join(dir, 'two.db');
    const one = await open(path);
    const two = await open(path);
    // connection one knows x; connection two removes it
    const { x, z } = await linkAfterForget(one, two, ' node');
    // re-added under the same id by connection two: a new row id, which connection one must use
    await two.write({ scope: A, nodes: [x] });
    await one.write({ scope: A, nodes: [z], relations: [makeRelation(z.id, x.id, 'RELATED_TO', { id: 'z-x' })] });
    const nb = await two.neighbors(A, [x.id]);
    expect(nb.map((n) => [n.relation.id, n.node.id])).toEqual([['z-x', z.id]]);
    expect(one.checkIntegrity()).toEqual([]);
    await one.close();
    await two.close();
  });

  it('a write that fails after its nodes were inserted teaches the cache nothing', async () => {
    const path = join(dir, 'fail.db');
    const store = await open(path);
    const raw = new Database(path);
    raw.exec("CREATE TRIGGER inject BEFORE INSERT ON history WHEN NEW.op = 'NOOP' BEGIN SELECT RAISE(ABORT, 'injected failure'); END");
    raw.close();
    const x = makeNode(A, 'x', unitVector(16, 1));
    // history is written last: x's row was inserted (and its rid returned) before the failure
    await expectMemError(store.write({ scope: A, nodes: [x], history: [makeHistory(A, 'NOOP', x.id)] }), StoreError, 'STORE_ERROR');
    const z = makeNode(A, 'z', unitVector(16, 2));
    await expectMemError(store.write({ scope: A, nodes: [z], relations: [makeRelation(z.id, x.id)] }), MemNotFoundError, 'NODE_NOT_FOUND');
    expect(await store.count(A)).toBe(0);
    await store.close();
  });
});

/** Per-query k-NN options of the SQLite store (`vectorSearchIds(…, { efSearch })`). */
import { describe, expect, it } from 'vitest';
import { makeNode, testScope, unitVector } from '../testing/index.js';
import { createSqliteStore } from './sqlite.js';
import { MemValidationError } from '../errors.js';
import { expectMemError } from '@mem/test-utils';

const META = { schemaVersion: 1, embeddingModel: 'test', dimension: 16 };
const A = testScope('alice');

describe('vectorSearchIds efSearch', () => {
  it('a small ef on a large scope still returns k hits, in the same order as the exact scores, and agrees with the default breadth', async () => {
    const store = createSqliteStore({ path: ':memory:', ann: { threshold: 200, build: 'blocking' } });
    await store.open(META);
    const ns = Array.from({ length: 800 }, (_, i) => makeNode(A, `item ${i}`, unitVector(16, i + 1)));
    await store.write({ scope: A, nodes: ns });
    await store.buildAnnIndex(A);
    expect(store.annStatus(A).state).toBe('ready');
    let agree = 0;
    for (let qi = 0; qi < 20; qi++) {
      const q = unitVector(16, 50_000 + qi);
      const narrow = await store.vectorSearchIds(A, q, 10, { efSearch: 1 });
      const wide = await store.vectorSearchIds(A, q, 10);
      expect(narrow).toHaveLength(10);
      for (let i = 1; i < narrow.length; i++) expect(narrow[i - 1]!.score).toBeGreaterThanOrEqual(narrow[i]!.score);
      agree += narrow.filter((h) => wide.some((w) => w.id === h.id)).length;
    }
    // ef is raised to at least max(2k, k + 10) = 20, so even ef 1 finds most true neighbours
    expect(agree / 200).toBeGreaterThan(0.8);
    await store.close();
  });

  it('rejects a negative or fractional efSearch with INVALID_INPUT', async () => {
    const store = createSqliteStore({ path: ':memory:' });
    await store.open(META);
    await store.write({ scope: A, nodes: [makeNode(A, 'x', unitVector(16, 1))] });
    await expectMemError(store.vectorSearchIds(A, unitVector(16, 2), 1, { efSearch: -1 }), MemValidationError, 'INVALID_INPUT');
    await expectMemError(store.vectorSearchIds(A, unitVector(16, 2), 1, { efSearch: 2.5 }), MemValidationError, 'INVALID_INPUT');
    expect(await store.vectorSearchIds(A, unitVector(16, 2), 1, { efSearch: 8 })).toHaveLength(1);
    await store.close();
  });
});

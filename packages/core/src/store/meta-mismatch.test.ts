import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from './sqlite.js';
import { StoreMetaMismatchError } from '../errors.js';
import type { StoreMeta } from '../types.js';
import { expectMemError } from '@mem/test-utils';

const dir = mkdtempSync(join(tmpdir(), 'mem-meta-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A store file created with meta `stored`, reopened with meta `requested`: the STORE_META_MISMATCH error. */
async function reopenMismatch(name: string, stored: StoreMeta, requested: StoreMeta): Promise<StoreMetaMismatchError> {
  const path = join(dir, name);
  const s = createSqliteStore({ path });
  await s.open(stored);
  await s.close();
  return expectMemError(createSqliteStore({ path }).open(requested), StoreMetaMismatchError, 'STORE_META_MISMATCH');
}

describe('store meta mismatch (issue 17)', () => {
  it('names both dimensions when the model names differ too', async () => {
    const e = await reopenMismatch('a.db', { schemaVersion: 1, embeddingModel: 'wink-sg-100d', dimension: 100 }, { schemaVersion: 1, embeddingModel: 'all-MiniLM-L6-v2', dimension: 384 });
    expect(e.message).toMatch(/embeddingModel.*wink-sg-100d.*all-MiniLM-L6-v2/);
    expect(e.message).toMatch(/dimension.*100.*384/);
    expect(e.details).toMatchObject({ fields: ['embeddingModel', 'dimension'], dimension: { stored: 100, requested: 384 } });
  });

  it('a dimension-only mismatch names only the dimension', async () => {
    const e = await reopenMismatch('b.db', { schemaVersion: 1, embeddingModel: 'm', dimension: 8 }, { schemaVersion: 1, embeddingModel: 'm', dimension: 16 });
    expect(e.message).toMatch(/dimension.*8.*16/);
    expect(e.message).not.toMatch(/embeddingModel/);
  });
});

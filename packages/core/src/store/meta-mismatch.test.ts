import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {  } from '../testing/index.js';
import { createSqliteStore } from './sqlite.js';
import { StoreMetaMismatchError } from '../errors.js';
import { expectMemError } from '@mem/test-utils';

const dir = mkdtempSync(join(tmpdir(), 'mem-meta-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('store meta mismatch (issue 17)', () => {
  it('names both dimensions when the model names differ too', async () => {
    const path = join(dir, 'a.db');
    const s = createSqliteStore({ path });
    await s.open({ schemaVersion: 1, embeddingModel: 'wink-sg-100d', dimension: 100 });
    await s.close();
    const e = await expectMemError(createSqliteStore({ path }).open({ schemaVersion: 1, embeddingModel: 'all-MiniLM-L6-v2', dimension: 384 }), StoreMetaMismatchError, 'STORE_META_MISMATCH');
    expect(e.message).toMatch(/embeddingModel.*wink-sg-100d.*all-MiniLM-L6-v2/);
    expect(e.message).toMatch(/dimension.*100.*384/);
    expect(e.details).toMatchObject({ fields: ['embeddingModel', 'dimension'], dimension: { stored: 100, requested: 384 } });
  });

  it('a dimension-only mismatch names only the dimension', async () => {
    const path = join(dir, 'b.db');
    const s = createSqliteStore({ path });
    await s.open({ schemaVersion: 1, embeddingModel: 'm', dimension: 8 });
    await s.close();
    const e = await expectMemError(createSqliteStore({ path }).open({ schemaVersion: 1, embeddingModel: 'm', dimension: 16 }), StoreMetaMismatchError, 'STORE_META_MISMATCH');
    expect(e.message).toMatch(/dimension.*8.*16/);
    expect(e.message).not.toMatch(/embeddingModel/);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { runStoreConformance } from '../testing/index.js';
import { createSqliteStore, type SqliteStore } from './sqlite.js';

runStoreConformance('sqlite :memory:', async () => createSqliteStore({ path: ':memory:' }));

const dir = mkdtempSync(join(tmpdir(), 'mem-sqlite-conf-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
runStoreConformance('sqlite file', async () => createSqliteStore({ path: join(dir, `store-${++n}.db`) }), {
  reopen: async (store) => createSqliteStore({ path: (store as SqliteStore).path }),
});

// The HNSW path: every scope above 50 nodes gets an index, built on the first search.
runStoreConformance('sqlite :memory: with HNSW', async () =>
  createSqliteStore({ path: ':memory:', ann: { threshold: 50, build: 'blocking' } }),
);

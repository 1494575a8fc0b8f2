/**
 * Crash safety: a child process writes batches to a store file and is SIGKILLed at random moments,
 * 15 times; after each kill the file must pass integrity checks, every acknowledged batch must be
 * present in full, and no batch may be present in part.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom, testScope } from '../testing/index.js';
import { createSqliteStore } from './sqlite.js';
import { prepareChild, atLeastTwoAcks, runAndKill, type CrashChild } from '../testdata/crash-harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const childEntry = join(here, 'testdata', 'crash-child.ts');
const dir = mkdtempSync(join(tmpdir(), 'mem-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KILLS = 15;
const pkgDir = join(here, '..', '..');
let child: CrashChild;
beforeAll(async () => {
  child = await prepareChild(childEntry, pkgDir, 'mem-crash-test', ['better-sqlite3', 'hnswlib-node']);
}, 60_000);
afterAll(() => child?.dispose());
const PER_BATCH = 4;

const scopes = [testScope('crash-a'), testScope('crash-b')];

/** Reopen the file and check: integrity, no partial batch, every acknowledged batch present. Returns the batch count. */
async function verify(path: string, acked: Set<string>): Promise<number> {
  const store = createSqliteStore({ path });
  await store.open({ schemaVersion: 1, embeddingModel: 'crash', dimension: 16 });
  try {
    expect(store.checkIntegrity()).toEqual([]);
    const batches = new Map<string, { nodes: number; relations: number; history: number }>();
    const entry = (id: string) => {
      const b = id.replace(/-(n|r)\d+$/, '');
      if (!batches.has(b)) batches.set(b, { nodes: 0, relations: 0, history: 0 });
      return batches.get(b)!;
    };
    for (const s of scopes) {
      for (const n of await store.list(s)) entry(n.id).nodes++;
      for (const r of await store.relations(s)) entry(r.id).relations++;
      for (const h of await store.history(s)) entry(h.nodeId!).history++;
    }
    for (const [id, c] of batches) expect(c, `batch ${id}`).toEqual({ nodes: PER_BATCH, relations: PER_BATCH - 1, history: PER_BATCH });
    for (const id of acked) expect(batches.has(id), `acknowledged batch ${id} is missing`).toBe(true);
    return batches.size;
  } finally {
    await store.close();
  }
}

describe('sqlite store survives SIGKILL during writes', () => {
  it(`${KILLS} random kills: integrity ok, every acknowledged batch present, no partial batch`, async () => {
    const path = join(dir, 'crash.db');
    const rnd = seededRandom(Date.now() >>> 0);
    const acked = new Set<string>();
    let batches = 0;
    for (let run = 0; run < KILLS; run++) {
      for (const id of await runAndKill(child, [path, String(run)], pkgDir, 30 + Math.floor(rnd() * 400), atLeastTwoAcks)) acked.add(id);
      batches = await verify(path, acked);
    }
    expect(acked.size).toBeGreaterThan(KILLS); // the children did write between kills
    expect(batches).toBeGreaterThanOrEqual(acked.size);
  }, 240_000);

  it('two processes writing (and searching) the same file at once, both killed: nothing lost, nothing partial', async () => {
    const path = join(dir, 'two-writers.db');
    const [a, b] = await Promise.all([runAndKill(child, [path, '100'], pkgDir, 1200, atLeastTwoAcks), runAndKill(child, [path, '200'], pkgDir, 1200, atLeastTwoAcks)]);
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    await verify(path, new Set([...a, ...b]));
  }, 150_000);
});

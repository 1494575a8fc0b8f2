/**
 * Crash safety of the write path (issue #4): a child process runs `createMemory` on a SQLite file and
 * adds observations (single adds and batches, the real write path with a fast test embedder and
 * extractor); the parent SIGKILLs it at random moments, 10 times. After each kill the file must pass
 * the integrity checks, every acknowledged observation must be stored exactly once, every stored
 * observation must have its one write-history row (nothing partial), and the next child reopens the
 * file with `createMemory` (gate rebuilt by replay) and keeps adding. At the end the parent reopens
 * it too and adds again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resolveScope } from '../scope.js';
import { createSqliteStore } from '../store/index.js';
import { seededRandom } from '../testing/index.js';
import { createMemory, MEMORY_SCHEMA_VERSION } from './memory.js';
import { simpleExtractor } from './test-kit.js';
import { atLeastTwoAcks, childForFile, runAndKill } from '../testdata/crash-harness.js';
import { HASH_EMBEDDER_DIMENSION, hashEmbedder } from './testdata/hash-embedder.js';

const here = dirname(fileURLToPath(import.meta.url));
const childEntry = join(here, 'testdata', 'ingest-crash-child.ts');
const dir = mkdtempSync(join(tmpdir(), 'mem-ingest-crash-'));
const pkgDir = join(here, '..', '..');
const child = childForFile(childEntry, pkgDir, 'mem-ingest-crash-test', { cleanup: () => rmSync(dir, { recursive: true, force: true }) });

const KILLS = 10;
const scope = resolveScope({ namespace: 'crash', userId: 'ingest' });

/** Reopen the file and check it; returns the stored sourceIds. */
async function verify(path: string, acked: Set<string>): Promise<string[]> {
  const store = createSqliteStore({ path });
  await store.open({ schemaVersion: MEMORY_SCHEMA_VERSION, embeddingModel: hashEmbedder().model, dimension: HASH_EMBEDDER_DIMENSION });
  try {
    expect(store.checkIntegrity()).toEqual([]);
    const nodes = await store.list(scope, { limit: 1_000_000 });
    const bySource = new Map<string, number>();
    for (const n of nodes) bySource.set(n.provenance.sourceId!, (bySource.get(n.provenance.sourceId!) ?? 0) + 1);
    for (const [id, count] of bySource) expect(count, `observation ${id} stored ${count} times`).toBe(1);
    for (const id of acked) expect(bySource.has(id), `acknowledged observation ${id} is missing`).toBe(true);
    // nothing partial: each stored node has exactly one write-history row (ADD / UPDATE / NOOP)
    const writes = new Map<string, number>();
    for (const h of await store.history(scope, { limit: 1_000_000 })) {
      if (h.nodeId && (h.op === 'ADD' || h.op === 'UPDATE' || h.op === 'NOOP')) writes.set(h.nodeId, (writes.get(h.nodeId) ?? 0) + 1);
    }
    for (const n of nodes) expect(writes.get(n.id), `history of ${n.provenance.sourceId}`).toBe(1);
    expect(writes.size).toBe(nodes.length);
    return [...bySource.keys()];
  } finally {
    await store.close();
  }
}

describe('write path survives SIGKILL during ingest', () => {
  it(`${KILLS} random kills: integrity ok, every acknowledged observation stored exactly once, reopen and add again`, async () => {
    const path = join(dir, 'ingest.db');
    const rnd = seededRandom(Date.now() >>> 0);
    const acked = new Set<string>();
    let stored: string[] = [];
    for (let run = 0; run < KILLS; run++) {
      for (const id of await runAndKill(child, [path, String(run)], pkgDir, 50 + Math.floor(rnd() * 600), atLeastTwoAcks)) acked.add(id);
      stored = await verify(path, acked);
    }
    console.log(`ingest crash test: ${KILLS} kills, ${acked.size} acknowledged observations, ${stored.length} stored`);
    expect(acked.size).toBeGreaterThan(KILLS); // the children did write between kills
    expect(stored.length).toBeGreaterThanOrEqual(acked.size);

    // reopen with createMemory in this process: the gate is rebuilt by replay, and adding works
    const memory = createMemory({ store: createSqliteStore({ path }), embedder: hashEmbedder(), extractor: simpleExtractor });
    try {
      const fresh = await memory.add({ text: 'Mira came back after the crash tests.', observedAt: '2024-02-01T09:00:00.000Z', scope, sourceId: 'after:0' });
      expect(fresh.stored).toBe(true);
      expect(['add', 'update', 'noop']).toContain(fresh.action);
      const first = (await memory.list({ scope, limit: 1, orderBy: 'createdAt', order: 'asc' }))[0]!;
      const again = await memory.add({
        text: first.text,
        speaker: first.speaker ?? undefined,
        observedAt: first.observedAt,
        scope,
        sourceId: first.provenance.sourceId ?? undefined,
        metadata: first.provenance.metadata,
      });
      expect(again.action).toBe('duplicate');
    } finally {
      await memory.close();
    }
    expect(await verify(path, new Set([...acked, 'after:0']))).toHaveLength(stored.length + 1);
  }, 240_000);
});

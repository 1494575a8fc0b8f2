// Export / import across stores (issue 32 point 3), against a REAL Neo4j 5 server (integration tier;
// gated on MEM_NEO4J_URI, see neo4j.integration.test.ts): memories written by the real write path
// into SQLite → @mem/export JSONL → imported into Neo4j → exported again is byte-identical up to the
// header's documented volatile fields (exportedAt, source); a file of another embedder is refused
// with IMPORT_MISMATCH; the same file again is skipped scope by scope (idempotent re-run), and a file
// whose scope holds other memories in the target is STORE_CONFLICT, nothing written.
// WARNING: deletes every :Memory, :MemoryHistory, :MemoryMeta and :MemoryState node of the target database.
import { afterAll, describe, expect, it } from 'vitest';
import { createMemory, createSqliteStore, exportLines, exportMemories, importMemories, resolveScope, ImportMismatchError, StoreConflictError } from '@mem/core';
import { stableExport } from '@mem/core/testing';
import { wordHashEmbedder } from './word-hash-embedder.js';
import { createNeo4jStore } from '../src/store.js';
import { DATABASE, PASSWORD, URI, USER, logSkip, resetDatabase } from './neo4j-test-db.js';
import { expectMemError } from '@mem/test-utils';

logSkip('transfer.integration.test.ts');

const stable = stableExport;

async function collect(lines: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const l of lines) out += l;
  return out;
}

const stores: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of stores) await s.close().catch(() => {});
});

describe.runIf(URI)('export / import between SQLite and Neo4j', () => {
  it('SQLite → JSONL → Neo4j → JSONL is byte-identical up to exportedAt and source', async () => {
    const sqlite = createSqliteStore({ path: ':memory:' });
    const memory = createMemory({ store: sqlite, embedder: wordHashEmbedder() });
    const t = (i: number) => new Date(Date.UTC(2024, 0, 1, 10, i)).toISOString();
    await memory.add([
      { text: 'Mira bought a red bicycle in Lyon.', speaker: 'Mira', observedAt: t(0), scope: { userId: 'alice' }, sourceId: 'D1:1', metadata: { mood: 'happy' } },
      { text: 'Mira rode the red bicycle to work yesterday.', speaker: 'Mira', observedAt: t(1), scope: { userId: 'alice' } },
      { text: 'Mira rode the red bicycle to work yesterday.', speaker: 'Mira', observedAt: t(2), scope: { userId: 'alice' } },
      { text: "O'Brien's meeting with Omar moved to Friday — 東京 ✓.", observedAt: t(3), scope: { userId: 'alice', runId: 'work' } },
      { text: 'Bob will forget this.', observedAt: t(4), scope: { userId: 'bob' } },
      { text: 'Bob likes green tea.', observedAt: t(5), scope: { userId: 'bob' } },
    ]);
    const gone = (await memory.list({ scope: { userId: 'bob' } })).find((n) => n.text.startsWith('Bob will'))!;
    await memory.forget(gone.id, { scope: { userId: 'bob' } });
    await sqlite.saveState(resolveScope({ userId: 'alice' }), '@mem/gate-vmf', '{"saved":"snapshot"}');
    const first = await collect(exportMemories(sqlite));
    await memory.close();
    expect(first).toContain('"kind":"relation"');
    expect(first).toContain('"op":"FORGET"');

    await resetDatabase(16);
    const neo = createNeo4jStore({ uri: URI!, user: USER, password: PASSWORD, database: DATABASE, connectionTimeoutMs: 10_000 });
    stores.push(neo);
    const report = await importMemories(neo, exportLines(first));
    expect(report.counts).toMatchObject({ scopes: 3, memories: 5, state: 1 });
    const second = await collect(exportMemories(neo));
    expect(JSON.parse(exportLines(second)[0]!).source).toBe('neo4j');
    expect(stable(second)).toBe(stable(first));
    // the imported graph answers reads
    const [hit] = await neo.lexicalSearch(resolveScope({ userId: 'alice' }), 'bicycle Lyon', 1);
    expect(hit!.node.text).toBe('Mira bought a red bicycle in Lyon.');

    // the same file again (a re-run after a kill): every scope already holds exactly its content and
    // is skipped; nothing is written twice
    const rerun = await importMemories(neo, exportLines(first));
    expect(rerun.skipped).toHaveLength(3);
    expect(stable(await collect(exportMemories(neo)))).toBe(stable(first));
    // a scope that holds other memories is a conflict, refused before anything is written
    const onNeo = createMemory({ store: neo, embedder: wordHashEmbedder() });
    await onNeo.add({ text: 'Bob drinks coffee now.', observedAt: t(6), scope: { userId: 'bob' } });
    await expectMemError(importMemories(neo, exportLines(first)), StoreConflictError, 'STORE_CONFLICT', { scopes: [resolveScope({ userId: 'bob' })] });
    expect(await neo.count(resolveScope({ userId: 'bob' }))).toBe(2);
    const foreign = exportLines(first).map((l, i) => (i === 0 ? l.replace('"model":"test-word-hash-32"', '"model":"another-32"') : l));
    await expectMemError(importMemories(neo, foreign), ImportMismatchError, 'IMPORT_MISMATCH', { field: 'embeddingModel' });
    expect(await neo.count(resolveScope({ userId: 'alice' }))).toBe(3);
  });
});

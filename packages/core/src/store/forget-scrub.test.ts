/**
 * Verifiable forgetting on the SQLite file store (issue 32 point 2): a unique canary sentence is
 * stored among ordinary memories (FTS index, BM25 counts, a persisted HNSW graph in the `.ann`
 * folder), then forgotten; every byte of every file in the store's folder is scanned for the canary's
 * text, its distinctive words and its embedding's bytes: zero matches, both while the store is still
 * open (main file and WAL) and after it closed. The history keeps that the memory was forgotten but
 * not its text. `forgetScope` does the same for a whole scope.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveScope } from '../scope.js';
import { createMemory } from '../write/memory.js';
import { simpleExtractor } from '../write/test-kit.js';
import { hashEmbedder } from '../write/testdata/hash-embedder.js';
import { createSqliteStore } from './sqlite.js';

const root = mkdtempSync(join(tmpdir(), 'mem-forget-scrub-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every file under `dir` (recursively). */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

/** `file: needle` for each needle found in a file under `dir`. */
function scan(dir: string, needles: Buffer[]): string[] {
  const hits: string[] = [];
  for (const f of files(dir)) {
    const bytes = readFileSync(f);
    for (const n of needles) if (bytes.includes(n)) hits.push(`${f.slice(dir.length + 1)}: ${n.length === 16 ? 'embedding bytes' : n.toString()}`);
  }
  return hits;
}

const WORDS = ['harbour', 'violin', 'market', 'garden', 'river', 'lantern', 'bicycle', 'teapot', 'compass', 'atlas'];
const ordinary = (i: number) => `Note ${i}: the ${WORDS[i % 10]} by the ${WORDS[(i * 3 + 1) % 10]} was ${i % 2 ? 'quiet' : 'busy'} on day ${i}.`;

function openMemory(path: string) {
  // a low ANN threshold and persisted graphs, so the `.ann` folder holds the canary's vector
  const store = createSqliteStore({ path, ann: { threshold: 20, build: 'blocking', persist: true } });
  return { store, memory: createMemory({ store, embedder: hashEmbedder(), extractor: simpleExtractor }) };
}

/** The canary's needles: the whole sentence, each distinctive word, and 16 bytes of its unit embedding. */
function needles(text: string, embedding: Float32Array): Buffer[] {
  const words = text.split(/\W+/).filter((w) => w.length >= 10);
  return [Buffer.from(text), ...words.map((w) => Buffer.from(w)), ...words.map((w) => Buffer.from(w.toLowerCase())), Buffer.from(embedding.buffer, embedding.byteOffset, 16)];
}

describe('forgetting leaves no trace in the store folder', () => {
  it('forget(id): the canary is in no byte of any file (open and after close); history keeps the FORGET, not the text', async () => {
    const dir = join(root, 'one');
    const path = join(dir, 'mem.sqlite');
    const scope = { userId: 'canary-one' };
    const canary = 'Zephyrinecanary whispered the vault combination Quixotrellis-4471 to Marguerithe.';
    let first = openMemory(path);
    for (let i = 0; i < 60; i++) await first.memory.add({ text: ordinary(i), scope, observedAt: new Date(Date.UTC(2024, 0, 1, 9, i)).toISOString() });
    const c = await first.memory.add({ text: canary, scope, observedAt: '2024-01-02T09:00:00Z' });
    for (let i = 60; i < 80; i++) await first.memory.add({ text: ordinary(i), scope, observedAt: new Date(Date.UTC(2024, 0, 3, 9, i)).toISOString() });
    const rs = resolveScope(scope);
    await first.store.buildAnnIndex(rs);
    expect((await first.memory.search('Zephyrinecanary vault', { scope, k: 3 })).evidence.length).toBeGreaterThan(0);
    await first.memory.close(); // saves the HNSW graph (with the canary's vector) next to the file
    const n = needles(canary, c.node.embedding);
    // the scan can find it before forget: in the database and in the saved HNSW graph
    const before = scan(dir, n);
    expect(before).toContain(`mem.sqlite: ${canary}`);
    expect(before.filter((h) => h.startsWith('mem.sqlite.ann/') && h.endsWith('embedding bytes')).length).toBe(1);

    first = openMemory(path);
    expect(await first.memory.forget(c.node.id, { scope })).toBe(true);
    // store still open: main file, WAL, `.ann` folder
    expect(scan(dir, n)).toEqual([]);
    expect(await first.memory.get(c.node.id, { scope })).toBe(null);
    expect((await first.store.lexicalSearch(rs, 'Zephyrinecanary Quixotrellis', 5)).length).toBe(0);
    // the history keeps that it was forgotten, not what it said
    const h = await first.memory.history({ scope, nodeId: c.node.id });
    expect(h.map((x) => x.op)).toEqual(['ADD', 'FORGET']);
    const all = JSON.stringify(await first.memory.history({ scope, limit: 100_000 }));
    for (const w of ['Zephyrinecanary', 'Quixotrellis', 'Marguerithe', 'vault']) expect(all).not.toContain(w);
    // searches still work and rebuild the ANN graph without the canary
    expect((await first.memory.search('violin harbour', { scope, k: 5 })).evidence.length).toBe(5);
    await first.store.buildAnnIndex(rs);
    expect(first.store.checkIntegrity()).toEqual([]);
    await first.memory.close();
    expect(scan(dir, n)).toEqual([]);
  }, 120_000);

  it('forgetScope: every memory of the scope, in every file; other scopes untouched; one FORGET row per memory', async () => {
    const dir = join(root, 'scope');
    const path = join(dir, 'mem.sqlite');
    const gone = { userId: 'canary-scope' };
    const kept = { userId: 'kept-scope' };
    const { store, memory } = openMemory(path);
    const canaries = ['Obsidianwren keeps the spare key under the Thistlewaite planter.', 'Halcyonmarsh owes Corvinbright eleven thousand dollars.'];
    const added = [];
    for (let i = 0; i < 30; i++) await memory.add({ text: ordinary(i), scope: gone, observedAt: new Date(Date.UTC(2024, 0, 1, 9, i)).toISOString() });
    for (const t of canaries) added.push(await memory.add({ text: t, scope: gone, observedAt: '2024-02-01T09:00:00Z' }));
    for (let i = 0; i < 10; i++) await memory.add({ text: ordinary(100 + i), scope: kept, observedAt: new Date(Date.UTC(2024, 0, 1, 9, i)).toISOString() });
    await store.buildAnnIndex(resolveScope(gone));
    await memory.close();
    const n = added.flatMap((a) => needles(a.node.text, a.node.embedding));
    expect(scan(dir, n).length).toBeGreaterThan(0);

    const again = openMemory(path);
    expect(await again.memory.forgetScope({ scope: gone })).toBe(32);
    expect(scan(dir, n)).toEqual([]);
    expect(await again.memory.list({ scope: gone })).toEqual([]);
    expect((await again.memory.list({ scope: kept })).length).toBe(10);
    const h = await again.memory.history({ scope: gone, limit: 100_000 });
    expect(h.filter((x) => x.op === 'FORGET').length).toBe(32);
    for (const a of added) expect(h.filter((x) => x.nodeId === a.node.id).map((x) => x.op)).toEqual(['ADD', 'FORGET']);
    expect(JSON.stringify(h)).not.toMatch(/Obsidianwren|Thistlewaite|Halcyonmarsh|Corvinbright/);
    expect(await again.memory.forgetScope({ scope: gone })).toBe(0);
    // the scope takes new memories again
    expect((await again.memory.add({ text: 'A new start for this scope.', scope: gone })).action).toBe('add');
    expect(again.store.checkIntegrity()).toEqual([]);
    await again.memory.close();
    expect(scan(dir, n)).toEqual([]);
  }, 120_000);
});

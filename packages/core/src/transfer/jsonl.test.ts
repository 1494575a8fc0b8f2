/**
 * Export / import (issue 32 point 3): a store written by the real write path (hash test embedder)
 * exports to JSONL, imports into a new store and exports again byte-identically except the header's
 * documented volatile fields; gate snapshots, relations with p, history (a FORGET row too) travel;
 * a file of another version or embedder, a truncated or edited file and a non-empty target are
 * refused with typed errors and nothing written.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemError, ImportMismatchError, MemValidationError, StoreConflictError, ScopeNotFoundError } from '../errors.js';
import { resolveScope } from '../scope.js';
import { createSqliteStore } from '../store/index.js';
import { GATE_STATE_NAME } from '../write/gates.js';
import { createMemory, MEMORY_SCHEMA_VERSION } from '../write/memory.js';
import { simpleExtractor } from '../write/test-kit.js';
import { hashEmbedder } from '../write/testdata/hash-embedder.js';
import type { MemoryStore } from '../types.js';
import { EXPORT_VOLATILE_FIELDS, exportLines, exportMemories, importMemories } from './jsonl.js';
import { expectMemError } from '@mem/test-utils';

const dir = mkdtempSync(join(tmpdir(), 'mem-transfer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const alice = { userId: 'alice' };
const aliceWork = { userId: 'alice', runId: 'work' };
const bob = { userId: 'bob' };

async function collect(it: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const line of it) out += line;
  return out;
}

/** The export without the header's documented volatile fields. */
export function stable(text: string): string {
  const lines = exportLines(text);
  const head = JSON.parse(lines[0]!);
  for (const f of EXPORT_VOLATILE_FIELDS) delete head[f];
  return [JSON.stringify(head), ...lines.slice(1)].join('\n');
}

async function seeded(path: string): Promise<MemoryStore> {
  const memory = createMemory({ store: createSqliteStore({ path }), embedder: hashEmbedder(), extractor: simpleExtractor });
  const t = (i: number) => new Date(Date.UTC(2024, 0, 1, 10, i)).toISOString();
  await memory.add([
    { text: 'Mira bought a red bicycle in Lyon.', speaker: 'Mira', observedAt: t(0), scope: alice, sourceId: 'D1:1', metadata: { mood: 'happy', n: 1 } },
    { text: 'Mira rode the red bicycle to work.', speaker: 'Mira', observedAt: t(1), scope: alice, sourceId: 'D1:2' },
    { text: 'Mira rode the red bicycle to work.', speaker: 'Mira', observedAt: t(2), scope: alice, sourceId: 'D1:3' },
    { text: 'The meeting with Omar moved to Friday.', speaker: 'Mira', observedAt: t(3), scope: aliceWork },
    { text: 'Bob likes green tea — ünïcödé ✓ 日本語.', observedAt: t(4), scope: bob },
  ]);
  const [gone] = await memory.list({ scope: bob });
  await memory.add({ text: 'Bob will forget this.', observedAt: t(5), scope: bob });
  const forgettable = (await memory.list({ scope: bob })).find((n) => n.text.startsWith('Bob will'))!;
  expect(await memory.forget(forgettable.id, { scope: bob })).toBe(true);
  expect(gone).toBeDefined();
  await memory.close();
  const store = createSqliteStore({ path });
  await store.open({ schemaVersion: MEMORY_SCHEMA_VERSION, embeddingModel: hashEmbedder().model, dimension: hashEmbedder().dimension });
  // a saved gate snapshot travels as it is (the write path saves one from 1000 memories on)
  await store.saveState(resolveScope(alice), GATE_STATE_NAME, '{"saved":"snapshot"}');
  return store;
}

describe('exportMemories / importMemories', () => {
  it('SQLite → JSONL → SQLite → JSONL is byte-identical up to the header fields exportedAt and source', async () => {
    const a = await seeded(join(dir, 'a.sqlite'));
    const first = await collect(exportMemories(a));
    const lines = exportLines(first).map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ kind: 'header', format: '@mem/export', version: 1, schemaVersion: 1, embedder: { model: 'test-hash-16', dimension: 16 }, source: 'sqlite' });
    const kinds = lines.map((l) => l.kind);
    expect(kinds.filter((k) => k === 'scope')).toHaveLength(3);
    expect(kinds.filter((k) => k === 'memory')).toHaveLength(5);
    expect(kinds.filter((k) => k === 'relation').length).toBeGreaterThan(0);
    expect(kinds.filter((k) => k === 'state')).toHaveLength(1);
    expect(lines.some((l) => l.kind === 'history' && l.entry.op === 'FORGET')).toBe(true);
    expect(lines.at(-1)).toMatchObject({ kind: 'end', counts: { scopes: 3, memories: 5, state: 1 } });
    expect(first).not.toContain('Bob will forget this');

    const b = createSqliteStore({ path: join(dir, 'b.sqlite') });
    // a file an editor saved with a byte-order mark and CRLF line ends imports the same
    const report = await importMemories(b, exportLines(`\ufeff${first.replace(/\n/g, '\r\n')}`));
    expect(report.counts.memories).toBe(5);
    const second = await collect(exportMemories(b));
    expect(stable(second)).toBe(stable(first));
    // the imported store is usable by the write path and searchable (vectors, FTS, relations)
    const [hit] = await b.lexicalSearch(resolveScope(alice), 'bicycle Lyon', 1);
    expect(hit!.node.text).toBe('Mira bought a red bicycle in Lyon.');
    const original = await a.list(resolveScope(alice));
    const copy = await b.list(resolveScope(alice));
    expect(copy.map((n) => [n.id, Array.from(n.embedding), n.gate])).toEqual(original.map((n) => [n.id, Array.from(n.embedding), n.gate]));
    expect(await b.relations(resolveScope(alice))).toEqual(await a.relations(resolveScope(alice)));
    expect(await b.loadState(resolveScope(alice), GATE_STATE_NAME)).toBe('{"saved":"snapshot"}');
    await a.close();
    await b.close();
  });

  it('Memory.export / Memory.import: the imported memories are duplicates and gate neighbours of later adds', async () => {
    const a = await seeded(join(dir, 'facade.sqlite'));
    await a.close();
    const source = createMemory({ store: createSqliteStore({ path: join(dir, 'facade.sqlite') }), embedder: hashEmbedder(), extractor: simpleExtractor });
    let text = '';
    for await (const line of source.export({ match: { userId: 'alice' } })) text += line;
    await source.close();
    const target = createMemory({ store: createSqliteStore({ path: ':memory:' }), embedder: hashEmbedder(), extractor: simpleExtractor });
    // the target memory has written before (its gates and caches are live)
    await target.add({ text: 'Unrelated warm-up in another scope.', observedAt: '2024-01-01T00:00:00Z', scope: { userId: 'carol' } });
    const report = await target.import(exportLines(text));
    expect(report.scopes.map((s) => s.userId)).toEqual(['alice', 'alice']);
    const again = await target.add({ text: 'Mira bought a red bicycle in Lyon.', speaker: 'Mira', observedAt: new Date(Date.UTC(2024, 0, 1, 10, 0)).toISOString(), scope: alice, sourceId: 'D1:1' });
    expect(again.action).toBe('duplicate');
    const near = await target.add({ text: 'Mira bought a red bicycle in Lyon!', speaker: 'Mira', observedAt: '2024-01-02T10:00:00Z', scope: alice });
    expect(near.node.gate?.nearest).not.toBeNull();
    await expectMemError(target.import(exportLines(text)), StoreConflictError, 'STORE_CONFLICT');
    const other = createMemory({ store: createSqliteStore({ path: ':memory:' }), embedder: { ...hashEmbedder(), model: 'another-16' }, extractor: simpleExtractor });
    await expectMemError(other.import(exportLines(text)), ImportMismatchError, 'IMPORT_MISMATCH');
    await other.close();
    await target.close();
  });

  it('exports only the matching scopes (match { userId })', async () => {
    const a = await seeded(join(dir, 'match.sqlite'));
    const text = await collect(exportMemories(a, { match: { userId: 'alice' } }));
    const scopes = exportLines(text).map((l) => JSON.parse(l)).filter((l) => l.kind === 'scope').map((l) => l.scope);
    expect(scopes).toEqual([resolveScope(alice), resolveScope(aliceWork)]);
    await expectMemError(collect(exportMemories(a, { match: { user: 'alice' } as never })), MemValidationError, 'SCOPE_INVALID');
    await a.close();
  });

  it('refuses another format version, schema version or embedder (IMPORT_MISMATCH), a truncated or edited file (INVALID_INPUT) and a non-empty target (STORE_CONFLICT); nothing written', async () => {
    const a = await seeded(join(dir, 'refuse.sqlite'));
    const good = exportLines(await collect(exportMemories(a)));
    await a.close();
    const edit = (i: number, f: (r: any) => void) => good.map((l, j) => (j === i ? JSON.stringify(((r) => (f(r), r))(JSON.parse(l))) : l));
    const cases: [string, string[], object, string, string?][] = [
      ['format version 2', edit(0, (h) => (h.version = 2)), {}, 'IMPORT_MISMATCH', 'version'],
      ['another schema version', good, { schemaVersion: 2 }, 'IMPORT_MISMATCH', 'schemaVersion'],
      ['another embedder', good, { embedder: { model: 'all-MiniLM-L6-v2', dimension: 384 } }, 'IMPORT_MISMATCH', 'embeddingModel'],
      ['truncated', good.slice(0, -3), {}, 'INVALID_INPUT'],
      ['edited count', edit(good.length - 1, (e) => (e.counts.memories = 9)), {}, 'INVALID_INPUT'],
      ['a bad vector', good.map((l) => l.replace(/"embedding":"[^"]+"/, '"embedding":"AAAAAA=="')), {}, 'DIMENSION_MISMATCH'],
      ['not JSON', [good[0]!, '{oops', ...good.slice(1)], {}, 'INVALID_INPUT'],
    ];
    for (const [name, lines, options, code, field] of cases) {
      const target = createSqliteStore({ path: join(dir, `refuse-${name.replace(/\W/g, '-')}.sqlite`) });
      const err = await importMemories(target, lines, options).then(
        () => null,
        (e: unknown) => e,
      );
      expect(MemError.isInstance(err), name).toBe(true);
      expect((err as MemError).code, name).toBe(code);
      if (field) expect((err as MemError).details?.field, name).toBe(field);
      expect(await target.meta(), `${name}: nothing written`).toBeNull();
      await target.close();
    }
    // a target store of another embedder
    const other = createSqliteStore({ path: join(dir, 'other-embedder.sqlite') });
    await other.open({ schemaVersion: MEMORY_SCHEMA_VERSION, embeddingModel: 'all-MiniLM-L6-v2', dimension: 384 });
    await expectMemError(importMemories(other, good), ImportMismatchError, 'IMPORT_MISMATCH', { field: 'embeddingModel' });
    await other.close();
    // a target that holds other memories in one of the scopes: refused before any scope is written
    const busy = createSqliteStore({ path: join(dir, 'busy.sqlite') });
    const extra = createMemory({ store: busy, embedder: hashEmbedder(), extractor: simpleExtractor });
    await extra.add({ text: 'Bob already has a memory here.', observedAt: '2024-02-01T00:00:00Z', scope: bob });
    const twice = await importMemories(busy, good).then(
      () => null,
      (e: unknown) => e,
    );
    expect((twice as MemError).code).toBe('STORE_CONFLICT');
    expect((twice as MemError).details?.scopes).toEqual([resolveScope(bob)]);
    expect(await busy.count(resolveScope(alice))).toBe(0);
    await extra.close();
  });

  it('an import killed between scopes is finished by running it again: the scopes written are skipped, no duplicate, the same export', async () => {
    const a = await seeded(join(dir, 'resume-src.sqlite'));
    const text = await collect(exportMemories(a));
    await a.close();
    const good = exportLines(text);
    // what a kill after the first scope's transaction leaves: that scope complete, the rest absent
    const firstScopeEnd = good.findIndex((l, i) => i > 1 && JSON.parse(l).kind === 'scope');
    const head = JSON.parse(good[0]!);
    const partial = good.slice(0, firstScopeEnd);
    const firstCounts = { scopes: 1, memories: 0, relations: 0, history: 0, state: 0 } as Record<string, number>;
    for (const l of partial.slice(2)) firstCounts[{ memory: 'memories', relation: 'relations', history: 'history', state: 'state' }[JSON.parse(l).kind as string]!]!++;
    const target = createSqliteStore({ path: join(dir, 'resume.sqlite') });
    await importMemories(target, [JSON.stringify(head), ...partial.slice(1), JSON.stringify({ kind: 'end', counts: firstCounts })]);
    const report = await importMemories(target, good);
    expect(report.skipped).toEqual([report.scopes[0]]);
    expect(report.scopes).toHaveLength(3);
    expect(stable(await collect(exportMemories(target)))).toBe(stable(text));
    // once complete, a third run writes nothing and changes nothing
    const third = await importMemories(target, good);
    expect(third.skipped).toEqual(third.scopes);
    expect(stable(await collect(exportMemories(target)))).toBe(stable(text));
    expect(target.checkIntegrity()).toEqual([]);
    await target.close();
  });

  it('a writer that adds to a scope between the emptiness check and its write makes the import a conflict (SQLite: re-checked under the write lock), never a mix', async () => {
    const a = await seeded(join(dir, 'race-src.sqlite'));
    const good = exportLines(await collect(exportMemories(a)));
    await a.close();
    const path = join(dir, 'race.sqlite');
    const target = createSqliteStore({ path });
    const other = createMemory({ store: createSqliteStore({ path }), embedder: hashEmbedder(), extractor: simpleExtractor });
    let raced = false;
    // the import's store, with another process's add landing right before the first scope's write
    const racing = new Proxy(target, {
      get(t, key) {
        const v = Reflect.get(t, key, t);
        if (key !== 'exclusive' || typeof v !== 'function') return typeof v === 'function' ? v.bind(t) : v;
        return async (fn: () => Promise<unknown>) => {
          if (!raced) {
            raced = true;
            await other.add({ text: 'Mira added this while the import ran.', observedAt: '2024-05-01T00:00:00Z', scope: alice });
          }
          return t.exclusive(fn);
        };
      },
    });
    const err = await importMemories(racing, good).then(
      () => null,
      (e: unknown) => e,
    );
    expect(raced).toBe(true);
    expect(err).toMatchObject({ code: 'STORE_CONFLICT', details: { scopes: [resolveScope(alice)] } });
    expect((await target.list(resolveScope(alice))).map((n) => n.text)).toEqual(['Mira added this while the import ran.']);
    await other.close();
    await target.close();
  });

  it('an export during which the store was re-embedded stops before its end line (STORE_CONFLICT): never a file of two spaces', async () => {
    const a = await seeded(join(dir, 'reembedded-during.sqlite'));
    // the switch lands between two pages: meta() answers the new embedder from its second call on
    let calls = 0;
    const switching = new Proxy(a, {
      get(t, key) {
        const v = Reflect.get(t, key, t);
        if (key === 'meta') return async () => (++calls > 1 ? { schemaVersion: MEMORY_SCHEMA_VERSION, embeddingModel: 'test-hash-24', dimension: 24 } : t.meta());
        return typeof v === 'function' ? v.bind(t) : v;
      },
    });
    const lines: string[] = [];
    const err = await (async () => {
      for await (const l of exportMemories(switching)) lines.push(l);
    })().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'STORE_CONFLICT' });
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.some((l) => l.includes('"kind":"end"'))).toBe(false);
    await expectMemError(importMemories(createSqliteStore({ path: ':memory:' }), lines), MemValidationError, 'INVALID_INPUT');
    await a.close();
  });

  it('import with a scope filter writes only the matching scopes of the file; one that matches none is SCOPE_NOT_FOUND, nothing written', async () => {
    const a = await seeded(join(dir, 'import-match-src.sqlite'));
    const good = exportLines(await collect(exportMemories(a)));
    await a.close();
    const target = createSqliteStore({ path: join(dir, 'import-match.sqlite') });
    const report = await importMemories(target, good, { match: { userId: 'bob' } });
    expect(report.scopes).toEqual([resolveScope(bob)]);
    expect(report.counts).toMatchObject({ scopes: 1, memories: 1 });
    expect((await target.scopes()).map((x) => x.userId)).toEqual(['bob']);
    await expectMemError(importMemories(target, good, { match: { userId: 'nobody' } }), ScopeNotFoundError, 'SCOPE_NOT_FOUND');
    await expectMemError(importMemories(target, good, { match: { user: 'bob' } as never }), MemValidationError, 'SCOPE_INVALID');
    // the rest of the file afterwards: bob is skipped as imported, alice's scopes written
    const rest = await importMemories(target, good);
    expect(rest.skipped).toEqual([resolveScope(bob)]);
    expect((await target.scopes()).length).toBe(3);
    await target.close();
  });

  it('a scope filter that names no scope is SCOPE_NOT_FOUND before any line; a scope whose memories were all forgotten exports empty', async () => {
    const a = await seeded(join(dir, 'unknown.sqlite'));
    const err = await collect(exportMemories(a, { match: { userId: 'nobody' } })).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'SCOPE_NOT_FOUND', category: 'not_found', details: { match: { userId: 'nobody' } } });
    // a server's default scope (empty agent and run) is named by its given fields only
    const named = await collect(exportMemories(a, { match: { namespace: 'default', userId: 'nobody', agentId: '', runId: '' } })).catch((e: Error) => e.message);
    expect(named).toMatch(/^No scope of the store matches namespace "default", userId "nobody": /);
    // every memory of bob forgotten: the scope exists (history), its export holds no scope
    for (const n of await a.list(resolveScope(bob))) await a.forget(resolveScope(bob), n.id);
    const empty = exportLines(await collect(exportMemories(a, { match: { userId: 'bob' } }))).map((l) => JSON.parse(l));
    expect(empty.map((l) => l.kind)).toEqual(['header', 'end']);
    // every scope of an empty store: no error
    const blank = createSqliteStore({ path: join(dir, 'blank.sqlite') });
    await blank.open({ schemaVersion: MEMORY_SCHEMA_VERSION, embeddingModel: hashEmbedder().model, dimension: hashEmbedder().dimension });
    expect(exportLines(await collect(exportMemories(blank))).map((l) => JSON.parse(l).kind)).toEqual(['header', 'end']);
    await blank.close();
    await a.close();
  });
});

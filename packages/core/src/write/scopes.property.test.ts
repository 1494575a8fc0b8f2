import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scopeKey, resolveScope } from '../scope.js';
import { createSqliteStore } from '../store/index.js';
import type { Embedder } from '../types.js';
import { createMemory } from './memory.js';
import { scriptedController, simpleExtractor } from './test-kit.js';
import { MemValidationError } from '../errors.js';
import { expectMemError } from '@mem/test-utils';

/** A tiny deterministic embedder (hashed bag of words, 16-d) so the property runs fast. */
const hashEmbedder: Embedder = {
  model: 'test-hash-16',
  dimension: 16,
  async embed(texts) {
    return texts.map((t) => {
      const v = new Float32Array(16);
      for (const w of t.toLowerCase().split(/\W+/).filter(Boolean)) {
        let h = 2166136261;
        for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
        v[(h >>> 0) % 16]! += 1;
        v[(h >>> 8) % 16]! += 0.5;
      }
      v[0]! += 0.01;
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    });
  },
};

const SCOPES = [{ userId: 'a' }, { userId: 'b' }, { userId: 'a', agentId: 'x' }, { namespace: 'other', userId: 'a' }];
/** Misspelt / unknown scope keys: every operation given one must throw SCOPE_INVALID and change nothing. */
const MISSPELT = [{ userid: 'a' }, { userId: 'a', nameSpace: 'other' }, { user_id: 'b' }, { userId: 'b', tenant: 'x' }, { UserId: 'a', agentID: 'x' }];
const WORDS = ['Mira', 'Tom', 'bicycle', 'tea', 'Berlin', 'bread', 'concert', 'garden', 'Lena', 'piano'];

describe('write path: scopes never leak (property)', () => {
  it('random multi-scope adds, batches, forgets and misspelt scope keys: every read, edge and search stays in its scope', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), scope: fc.integer({ min: 0, max: 3 }), words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }) }),
      fc.record({ kind: fc.constant('batch' as const), items: fc.array(fc.record({ scope: fc.integer({ min: 0, max: 3 }), words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }) }), { minLength: 1, maxLength: 6 }) }),
      fc.record({ kind: fc.constant('forget' as const), scope: fc.integer({ min: 0, max: 3 }), pick: fc.nat() }),
      fc.record({ kind: fc.constant('misspelt' as const), bad: fc.integer({ min: 0, max: MISSPELT.length - 1 }), at: fc.nat(), words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        const { controller } = scriptedController((k) => (k.endsWith('_semantic') || k.endsWith('_redundant') ? 0.9 : 0.3));
        const m = createMemory({ store: createSqliteStore({ path: ':memory:' }), embedder: hashEmbedder, systemOne: controller, extractor: simpleExtractor, consolidateEvery: 3 });
        const expected = new Map<string, Set<string>>(SCOPES.map((s) => [scopeKey(resolveScope(s)), new Set<string>()]));
        let n = 0;
        const obs = (scope: number, words: string[]) => ({ text: `${words.join(' ')} #${n++}`, scope: SCOPES[scope]!, observedAt: new Date(Date.UTC(2024, 0, 1, 0, n)).toISOString() });
        for (const o of ops) {
          if (o.kind === 'add') {
            const r = await m.add(obs(o.scope, o.words));
            expected.get(scopeKey(r.node.scope))!.add(r.node.id);
          } else if (o.kind === 'batch') {
            const rs = await m.add(o.items.map((it) => obs(it.scope, it.words)));
            for (const r of rs) expected.get(scopeKey(r.node.scope))!.add(r.node.id);
          } else if (o.kind === 'misspelt') {
            // a misspelt key anywhere (alone, or inside a batch) is a typed error and writes nothing
            const bad = MISSPELT[o.bad]! as never;
            const before = await Promise.all(SCOPES.map((s) => m.list({ scope: s, limit: 1000 }).then((l) => l.length)));
            await expectMemError(m.add({ text: `${o.words.join(' ')} #${n++}`, scope: bad }), MemValidationError, 'SCOPE_INVALID');
            const batch = [obs(0, o.words), obs(1, o.words)] as { scope: unknown }[];
            batch.splice(o.at % 3, 0, { ...obs(2, o.words), scope: bad });
            await expectMemError(m.add(batch as never), MemValidationError, 'SCOPE_INVALID');
            await expectMemError(m.search(o.words.join(' '), { scope: bad }), MemValidationError, 'SCOPE_INVALID');
            await expectMemError(m.list({ scope: bad }), MemValidationError, 'SCOPE_INVALID');
            await expectMemError(m.forget('x', { scope: bad }), MemValidationError, 'SCOPE_INVALID');
            const after = await Promise.all(SCOPES.map((s) => m.list({ scope: s, limit: 1000 }).then((l) => l.length)));
            expect(after).toEqual(before);
          } else {
            const ids = [...expected.get(scopeKey(resolveScope(SCOPES[o.scope]!)))!];
            if (ids.length) {
              const id = ids[o.pick % ids.length]!;
              for (const s of SCOPES) if (s !== SCOPES[o.scope]) expect(await m.forget(id, { scope: s })).toBe(false);
              expect(await m.forget(id, { scope: SCOPES[o.scope]! })).toBe(true);
              expected.get(scopeKey(resolveScope(SCOPES[o.scope]!)))!.delete(id);
            }
          }
        }
        for (const s of SCOPES) {
          const key = scopeKey(resolveScope(s));
          const mine = expected.get(key)!;
          const listed = await m.list({ scope: s, limit: 1000 });
          expect(new Set(listed.map((x) => x.id))).toEqual(mine);
          const rels = await m.store.relations(resolveScope(s));
          for (const r of rels) {
            expect(mine.has(r.from)).toBe(true);
            expect(mine.has(r.to)).toBe(true);
          }
          const { evidence } = await m.search(WORDS.join(' '), { scope: s, k: 50 });
          for (const e of evidence) expect(mine.has(e.node.id)).toBe(true);
        }
        await m.close();
      }),
      { numRuns: 25, seed: 4242 },
    );
  }, 60_000);
});

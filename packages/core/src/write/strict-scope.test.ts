import { describe, expect, it } from 'vitest';
import { resolveScope } from '../scope.js';
import { createSqliteStore } from '../store/index.js';
import { createMemory } from './memory.js';
import { scriptedController, simpleExtractor } from './test-kit.js';
import { validateObservation } from './validate.js';
import { MemValidationError } from '../errors.js';
import { expectMemError } from '@mem/test-utils';

const hashEmbedder = {
  model: 'test-3',
  dimension: 3,
  async embed(texts: string[]) {
    return texts.map((t) => Float32Array.from([1, t.length % 7, 0.5]));
  },
};

describe('scopes are strict (issue 17)', () => {
  it('an unknown or misspelt key is SCOPE_INVALID and names the key it probably meant', async () => {
    expect(() => resolveScope({ userId: 'a', nameSpace: 'B' } as never)).toThrow(/Unknown scope key "nameSpace" \(did you mean "namespace"\?\)/);
    await expectMemError(() => resolveScope({ userid: 'alice' } as never), MemValidationError, 'SCOPE_INVALID');
    expect(() => resolveScope({ userId: 'a', tenant: 'x' } as never)).toThrow(/"tenant"/);
    expect(resolveScope({ userId: 'a', namespace: 'B' })).toEqual({ namespace: 'B', userId: 'a', agentId: '', runId: '' });
  });

  it('a scope whose getter throws is a typed error, not a crash', async () => {
    const scope = {
      get userId(): string {
        throw new Error('boom');
      },
    };
    await expectMemError(() => resolveScope(scope), MemValidationError, 'SCOPE_INVALID');
  });

  it('createMemory: { userId, nameSpace } does not land in namespace "default"', async () => {
    const { controller } = scriptedController(() => 0.1);
    const m = createMemory({ store: createSqliteStore({ path: ':memory:' }), embedder: hashEmbedder, systemOne: controller, extractor: simpleExtractor });
    await expectMemError(m.add({ text: 'Alice likes tea', scope: { userId: 'alice', nameSpace: 'B' } as never, observedAt: '2025-01-01T00:00:00Z' }), MemValidationError, 'SCOPE_INVALID');
    expect(await m.list({ scope: { userId: 'alice' } })).toEqual([]);
    await expectMemError(m.search('tea', { scope: { userid: 'alice' } as never }), MemValidationError, 'SCOPE_INVALID');
    await m.close();
  });
});

describe('a metadata getter that throws (issue 17)', () => {
  it('gives INVALID_INPUT instead of an untyped error', async () => {
    const metadata = {
      get secret(): string {
        throw new Error('getter exploded');
      },
    };
    await expectMemError(() => validateObservation({ text: 'hi', scope: { userId: 'a' }, observedAt: '2025-01-01T00:00:00Z', metadata }), MemValidationError, 'INVALID_INPUT');
  });

  it('a throwing getter on the observation itself is INVALID_INPUT too', async () => {
    const o = {
      scope: { userId: 'a' },
      get text(): string {
        throw new Error('no text for you');
      },
    };
    await expectMemError(() => validateObservation(o), MemValidationError, 'INVALID_INPUT');
  });

  it('a getter that throws only on the second read (serialisation) is INVALID_INPUT', async () => {
    let reads = 0;
    const metadata = {
      get flaky(): number {
        if (++reads > 1) throw new Error('second read');
        return 1;
      },
    };
    await expectMemError(() => validateObservation({ text: 'hi', scope: { userId: 'a' }, observedAt: '2025-01-01T00:00:00Z', metadata }), MemValidationError, 'INVALID_INPUT');
  });
});

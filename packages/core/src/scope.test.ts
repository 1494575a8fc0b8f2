import { describe, expect, it } from 'vitest';
import { parseScopeKey, resolveScope, scopeKey } from './scope.js';
import { MemError } from './errors.js';

function code(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return MemError.isInstance(e) ? e.code : 'untyped';
  }
  return undefined;
}

describe('resolveScope', () => {
  it('fills defaults and round-trips through scopeKey', () => {
    const s = resolveScope({ userId: 'maya', runId: 'r1' });
    expect(s).toEqual({ namespace: 'default', userId: 'maya', agentId: '', runId: 'r1' });
    expect(parseScopeKey(scopeKey(s))).toEqual(s);
  });
  it('rejects missing and careless scopes with typed errors', () => {
    expect(code(() => resolveScope(undefined))).toBe('SCOPE_MISSING');
    expect(code(() => resolveScope({ namespace: 'x' }))).toBe('SCOPE_MISSING');
    expect(code(() => resolveScope({ userId: 7 as any }))).toBe('SCOPE_INVALID');
    expect(code(() => resolveScope({ userId: 'a|b' }))).toBe('SCOPE_INVALID');
    expect(code(() => resolveScope({ userId: ' ' }))).toBe('SCOPE_INVALID');
    expect(code(() => resolveScope({ userId: 'a\u0000' }))).toBe('SCOPE_INVALID');
    expect(code(() => resolveScope({ userId: 'x'.repeat(257) }))).toBe('SCOPE_INVALID');
    expect(code(() => resolveScope({ userId: 'Zoë 🐶 山田' }))).toBeUndefined();
  });
});

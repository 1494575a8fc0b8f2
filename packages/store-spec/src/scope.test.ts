import { describe, expect, it } from 'vitest';
import { parseScopeKey, resolveScope, scopeKey, scopeValueProblem } from './scope.js';
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
  it('refuses a value that is empty once whitespace and invisible (format, zero-width, default-ignorable) characters are removed', () => {
    for (const v of ['\u200b', '\u200b\u200c\u200d', '\ufeff', '\u2060', '\u00ad', ' \u200b ', '\u3164', '\u2800', '\ufe0f', '\u202e', '\u00a0\u3000']) {
      for (const key of ['userId', 'agentId', 'runId', 'namespace'] as const) {
        expect(code(() => resolveScope({ userId: 'maya', [key]: v }))).toBe('SCOPE_INVALID');
      }
    }
    // visible text around them is still a value (kept as given)
    expect(resolveScope({ userId: 'ma\u200bya' }).userId).toBe('ma\u200bya');
    expect(resolveScope({ userId: '👩\u200d💻' }).userId).toBe('👩\u200d💻');
  });
  it('scopeValueProblem: the character rules of resolveScope for opaque scope / id strings (used by the gate service)', () => {
    for (const v of [' ', '\t\n', '\u200b', '\ufeff', '\u3164', 'a\u0000b', 'a\u007f', 'x\ny']) expect(scopeValueProblem(v), JSON.stringify(v)).not.toBeNull();
    for (const v of ['user:alice', 'default|alice||run 1', 'ma\u200bya', 'Zoë 🐶 山田']) expect(scopeValueProblem(v), JSON.stringify(v)).toBeNull();
  });
  it('reads only own keys: an inherited (or prototype-polluted) key never changes the scope', () => {
    expect(code(() => resolveScope(Object.create({ userId: 'someone-else' })))).toBe('SCOPE_MISSING');
    const s = resolveScope(Object.assign(Object.create({ agentId: 'intruder', namespace: 'other' }), { userId: 'maya' }));
    expect(s).toEqual({ namespace: 'default', userId: 'maya', agentId: '', runId: '' });
    const proto = Object.prototype as Record<string, unknown>;
    proto.runId = 'polluted';
    try {
      expect(resolveScope({ userId: 'maya' }).runId).toBe('');
    } finally {
      delete proto.runId;
    }
  });
});

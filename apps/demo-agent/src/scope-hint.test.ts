import { describe, expect, it } from 'vitest';
import { resolveScope, type ResolvedScope } from '@mem/core';
import { createStack } from './stack.js';
import { closestScopes, knownScopesClause, scopeFlags, unknownScopeNote } from './scope-hint.js';

const S = (userId: string, extra: Partial<ResolvedScope> = {}): ResolvedScope => ({ namespace: 'default', userId, agentId: '', runId: '', ...extra });

describe('scope hints for a mistyped --user (break-it point 3)', () => {
  it('orders the known scopes closest first and names the flags of each', () => {
    const known = [S('bob'), S('alice', { runId: 'r1' }), S('alice'), S('alicia')];
    expect(closestScopes(S('alcie'), known).map(scopeFlags)).toEqual(['--user alice', '--user alicia', '--user alice --run r1', '--user bob']);
    expect(closestScopes({ userId: 'alcie' }, known).map(scopeFlags)).toEqual(['--user alice', '--user alice --run r1', '--user alicia', '--user bob']);
    expect(scopeFlags(S('Maya Lopez', { namespace: 'acme', agentId: 'a$b' }))).toBe('--namespace acme --user "Maya Lopez" --agent "a\\$b"');
  });

  it('names at most five and counts the rest; says so when the store holds no memory', () => {
    const known = Array.from({ length: 8 }, (_, i) => S(`user${i}`));
    const clause = knownScopesClause(S('user'), known);
    expect(clause).toMatch(/^the store's scopes, closest first, are: user "user0" \(--user user0\), .*, and 3 more \(`mem export --all` lists every scope\)$/);
    expect(clause.match(/--user/g)).toHaveLength(5);
    expect(knownScopesClause(S('x'), [])).toBe('the store holds no memory in any scope');
  });

  it('unknownScopeNote: null for a scope holding a memory, the closest scopes otherwise', async () => {
    const stack = await createStack({ db: ':memory:', scope: { userId: 'alice' }, systemTwo: null });
    try {
      await stack.add([{ text: 'I play the violin.' }]);
      const alice = resolveScope({ userId: 'alice' });
      expect(await unknownScopeNote(stack.store, alice)).toBeNull();
      expect(await unknownScopeNote(stack.store, resolveScope({ userId: 'alcie' }))).toBe('nothing is stored under user "alcie"; the store\'s scope is: user "alice" (--user alice)');
    } finally {
      await stack.close();
    }
  });
});

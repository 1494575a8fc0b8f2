import { z } from 'zod';
import { scopeValueProblem } from '@mem/gate-vmf';
import { MemValidationError } from './errors.js';
import type { ResolvedScope, Scope } from './types.js';

const FIELD_MAX = 256;

/** The scope keys; any other key is refused (a misspelt key must not fall back to a default scope). */
export const SCOPE_KEYS = ['namespace', 'userId', 'agentId', 'runId'] as const;

/** Shape check only (values are checked below, with their own messages): a strict object of the four keys. */
const ScopeKeysSchema = z.strictObject({
  namespace: z.unknown().optional(),
  userId: z.unknown().optional(),
  agentId: z.unknown().optional(),
  runId: z.unknown().optional(),
});

// The character rules of scope values live in @mem/gate-vmf (shared with the gate service).
export { scopeValueProblem };

/** The scope key an unknown key most likely meant (case-insensitive match, else a shared 4-letter prefix). */
function nearestScopeKey(key: string): string | undefined {
  const low = key.toLowerCase();
  return SCOPE_KEYS.find((k) => k.toLowerCase() === low) ?? SCOPE_KEYS.find((k) => low.startsWith(k.toLowerCase().slice(0, 4)) || k.toLowerCase().startsWith(low.slice(0, 4)));
}

/**
 * Validate a scope and fill defaults (ours). Throws MemValidationError `SCOPE_MISSING` when none of
 * userId / agentId / runId is given, `SCOPE_INVALID` for an unknown key (`{ userId, nameSpace }`,
 * `{ userid }`: strict, so a typo never lands in the default scope), a key that cannot be read
 * (a throwing getter), non-strings, over-long values, `|`, control characters, whitespace-only
 * values or values made only of invisible characters (`"\u200b"`: zero-width, format,
 * default-ignorable). Only own properties are read: an inherited `userId` (prototype) counts as absent.
 */
export function resolveScope(scope: Scope | undefined | null): ResolvedScope {
  if (!scope || typeof scope !== 'object' || Array.isArray(scope)) {
    throw new MemValidationError('SCOPE_MISSING', 'A scope { userId | agentId | runId } is required');
  }
  let checked: ReturnType<typeof ScopeKeysSchema.safeParse>;
  let own: Set<string>;
  try {
    checked = ScopeKeysSchema.safeParse(scope);
    // Only own keys count: a key inherited from a prototype (or a polluted Object.prototype) must
    // never move a read or write into another scope.
    own = new Set(SCOPE_KEYS.filter((k) => Object.prototype.hasOwnProperty.call(scope, k)));
  } catch (cause) {
    throw new MemValidationError('SCOPE_INVALID', 'scope could not be read (a property getter threw)', { cause });
  }
  if (!checked.success) {
    const unknown = checked.error.issues.flatMap((i) => (i.code === 'unrecognized_keys' ? i.keys : []));
    if (unknown.length) {
      const near = nearestScopeKey(unknown[0]!);
      throw new MemValidationError(
        'SCOPE_INVALID',
        `Unknown scope key${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}${near ? ` (did you mean "${near}"?)` : ''}; a scope has only ${SCOPE_KEYS.join(', ')}`,
        { details: { unknownKeys: unknown } },
      );
    }
    throw new MemValidationError('SCOPE_INVALID', `scope is invalid: ${checked.error.issues[0]?.message ?? 'unknown problem'}`);
  }
  const given = checked.data as Record<string, unknown>;
  const out: ResolvedScope = { namespace: 'default', userId: '', agentId: '', runId: '' };
  for (const key of SCOPE_KEYS) {
    const v = own.has(key) ? given[key] : undefined;
    if (v === undefined || v === null || v === '') continue;
    if (typeof v !== 'string') throw new MemValidationError('SCOPE_INVALID', `scope.${key} must be a string`);
    if (v.length > FIELD_MAX) throw new MemValidationError('SCOPE_INVALID', `scope.${key} is longer than ${FIELD_MAX}`);
    if (v.includes('|')) throw new MemValidationError('SCOPE_INVALID', `scope.${key} must not contain "|"`);
    const problem = scopeValueProblem(v);
    if (problem) throw new MemValidationError('SCOPE_INVALID', `scope.${key} ${problem}`);
    out[key] = v;
  }
  if (!out.userId && !out.agentId && !out.runId) {
    throw new MemValidationError('SCOPE_MISSING', 'A scope needs at least one of userId, agentId, runId');
  }
  return out;
}

/** Stable string key of a resolved scope: `namespace|userId|agentId|runId`. */
export function scopeKey(scope: ResolvedScope): string {
  return `${scope.namespace}|${scope.userId}|${scope.agentId}|${scope.runId}`;
}

/** Inverse of scopeKey. */
export function parseScopeKey(key: string): ResolvedScope {
  const [namespace = 'default', userId = '', agentId = '', runId = ''] = key.split('|');
  return { namespace, userId, agentId, runId };
}

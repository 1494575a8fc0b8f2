import { MemValidationError } from './errors.js';
import type { ResolvedScope, Scope } from './types.js';

const FIELD_MAX = 256;

/**
 * Validate a scope and fill defaults (ours). Throws MemValidationError `SCOPE_MISSING` when none of
 * userId / agentId / runId is given, `SCOPE_INVALID` for non-strings, over-long values, `|`, control
 * characters or whitespace-only values.
 */
export function resolveScope(scope: Scope | undefined | null): ResolvedScope {
  if (!scope || typeof scope !== 'object') {
    throw new MemValidationError('SCOPE_MISSING', 'A scope { userId | agentId | runId } is required');
  }
  const out: ResolvedScope = { namespace: 'default', userId: '', agentId: '', runId: '' };
  for (const key of ['namespace', 'userId', 'agentId', 'runId'] as const) {
    const v = (scope as any)[key];
    if (v === undefined || v === null || v === '') continue;
    if (typeof v !== 'string') throw new MemValidationError('SCOPE_INVALID', `scope.${key} must be a string`);
    if (v.length > FIELD_MAX) throw new MemValidationError('SCOPE_INVALID', `scope.${key} is longer than ${FIELD_MAX}`);
    if (v.includes('|')) throw new MemValidationError('SCOPE_INVALID', `scope.${key} must not contain "|"`);
    if (/[\u0000-\u001f\u007f]/.test(v)) throw new MemValidationError('SCOPE_INVALID', `scope.${key} must not contain control characters`);
    if (v.trim() === '') throw new MemValidationError('SCOPE_INVALID', `scope.${key} must not be only whitespace`);
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

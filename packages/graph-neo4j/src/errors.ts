/**
 * The one place where `neo4j-driver` errors become `@mem/core` typed errors (ours).
 *
 * | driver / system error                                   | mapped to |
 * |---------------------------------------------------------|-----------|
 * | `ServiceUnavailable`, `SessionExpired`, pool-acquisition / connect timeouts, ECONNREFUSED, ETIMEDOUT, ENOTFOUND, ECONNRESET, EHOSTUNREACH | `StoreUnavailableError` |
 * | `Neo.ClientError.Security.*` (bad credentials, rate limit, expired) | `StoreUnavailableError`, `details.code` = the Neo4j code |
 * | `Neo.ClientError.Database.DatabaseNotFound`, `Neo.TransientError.General.DatabaseUnavailable` | `StoreUnavailableError` |
 * | `Neo.ClientError.Schema.ConstraintValidationFailed`     | `StoreConflictError` (`STORE_CONFLICT`), `details.constraint = true`: another writer stored the same observation (content key) or id first |
 * | `Neo.TransientError.*` (deadlock, lock timeout)         | `StoreError`, `details.retriable = true` |
 * | anything else (syntax, procedure missing, …)            | `StoreError` |
 * | an `@mem` error (thrown by our own checks)              | passed through unchanged |
 */
import { MemError, StoreConflictError, StoreError, StoreUnavailableError } from '@mem/store-spec';

const NET_CODES = new Set(['ECONNREFUSED', 'ETIMEDOUT', 'ENOTFOUND', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const UNAVAILABLE_CODES = new Set([
  'ServiceUnavailable',
  'SessionExpired',
  'Neo.ClientError.Database.DatabaseNotFound',
  'Neo.TransientError.General.DatabaseUnavailable',
]);

/** Driver errors without a usable code (`N/A`) that still mean "cannot reach the server". */
const UNAVAILABLE_MESSAGE = /connection acquisition timed out|failed to establish connection|connection timeout|could not perform discovery|connection was closed by server/i;

function codeOf(e: unknown): string | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const code = (e as any).code;
  return typeof code === 'string' ? code : undefined;
}

/** Find a network errno code in the error or its cause chain (the driver wraps socket errors). */
function netCode(e: unknown): string | undefined {
  let cur: unknown = e;
  for (let i = 0; i < 5 && cur && typeof cur === 'object'; i++) {
    const c = codeOf(cur);
    if (c && NET_CODES.has(c)) return c;
    const m = String((cur as any).message ?? '').match(/\b(ECONNREFUSED|ETIMEDOUT|ENOTFOUND|ECONNRESET|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN)\b/);
    if (m) return m[1];
    cur = (cur as any).cause;
  }
  return undefined;
}

export interface ErrorContext {
  /** Store method that failed, e.g. `write`. */
  operation: string;
  /** Server address (no credentials). */
  uri?: string;
}

/** Map any error thrown while talking to Neo4j to a `MemError` (the driver error is kept as `cause`). */
export function mapNeo4jError(e: unknown, ctx: ErrorContext): MemError {
  if (MemError.isInstance(e)) return e;
  const code = codeOf(e);
  const message = String((e as any)?.message ?? e);
  const details: Record<string, unknown> = { operation: ctx.operation };
  if (ctx.uri) details.uri = ctx.uri;
  if (code) details.code = code;
  const net = netCode(e);
  if (net) details.errno = net;

  if ((code && UNAVAILABLE_CODES.has(code)) || net || UNAVAILABLE_MESSAGE.test(message)) {
    return new StoreUnavailableError(`Neo4j is unavailable${ctx.uri ? ` at ${ctx.uri}` : ''} (${ctx.operation}): ${message}`, { cause: e, details });
  }
  if (code?.startsWith('Neo.ClientError.Security.')) {
    return new StoreUnavailableError(`Neo4j refused the credentials (${code}) during ${ctx.operation}`, { cause: e, details });
  }
  if (code === 'Neo.ClientError.Schema.ConstraintValidationFailed') {
    return new StoreConflictError(`Neo4j constraint violated during ${ctx.operation} (another writer stored the same observation or id first); nothing was written: ${message}`, {
      cause: e,
      details: { ...details, constraint: true },
    });
  }
  if (code?.startsWith('Neo.TransientError.')) {
    return new StoreError(`Neo4j transient failure during ${ctx.operation}: ${message}`, { cause: e, details: { ...details, retriable: true } });
  }
  return new StoreError(`Neo4j failure during ${ctx.operation}: ${message}`, { cause: e, details });
}

/** Reject with `StoreUnavailableError` when `promise` does not settle within `ms` milliseconds. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, ctx: ErrorContext): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new StoreUnavailableError(`Neo4j did not answer within ${ms} ms${ctx.uri ? ` at ${ctx.uri}` : ''} (${ctx.operation})`, {
          details: { operation: ctx.operation, uri: ctx.uri, timeoutMs: ms },
        }),
      );
    }, ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

import { describe, expect, it } from 'vitest';
import { MemError, MemValidationError } from '@mem/core';
import { Neo4jError } from 'neo4j-driver';
import { mapNeo4jError, withTimeout } from './errors.js';

const ctx = { operation: 'write', uri: 'neo4j://db:7687' };
const neoErr = (code: string, msg = 'x') => new Neo4jError(msg, code, 'gql', 'desc');

describe('mapNeo4jError', () => {
  it.each([
    ['ServiceUnavailable', 'STORE_UNAVAILABLE', 'unavailable'],
    ['SessionExpired', 'STORE_UNAVAILABLE', 'unavailable'],
    ['Neo.ClientError.Security.Unauthorized', 'STORE_UNAVAILABLE', 'unavailable'],
    ['Neo.ClientError.Security.AuthenticationRateLimit', 'STORE_UNAVAILABLE', 'unavailable'],
    ['Neo.ClientError.Database.DatabaseNotFound', 'STORE_UNAVAILABLE', 'unavailable'],
    ['Neo.ClientError.Schema.ConstraintValidationFailed', 'STORE_CONFLICT', 'conflict'],
    ['Neo.TransientError.Transaction.DeadlockDetected', 'STORE_ERROR', 'internal'],
    ['Neo.ClientError.Statement.SyntaxError', 'STORE_ERROR', 'internal'],
  ])('%s → %s', (code, memCode, category) => {
    const original = neoErr(code, 'driver says no');
    const e = mapNeo4jError(original, ctx);
    expect(MemError.isInstance(e)).toBe(true);
    expect(e.code).toBe(memCode);
    expect(e.category).toBe(category);
    expect(e.details).toMatchObject({ code, operation: 'write', uri: 'neo4j://db:7687' });
    expect(e.cause).toBe(original);
  });

  it('marks constraint and transient errors', () => {
    expect(mapNeo4jError(neoErr('Neo.ClientError.Schema.ConstraintValidationFailed'), ctx).details).toMatchObject({ constraint: true });
    expect(mapNeo4jError(neoErr('Neo.TransientError.Transaction.LockClientStopped'), ctx).details).toMatchObject({ retriable: true });
  });

  it('auth errors say so without leaking the message as credentials', () => {
    const e = mapNeo4jError(neoErr('Neo.ClientError.Security.Unauthorized', 'The client is unauthorized due to authentication failure.'), ctx);
    expect(e.message).toContain('refused the credentials');
  });

  it('finds socket errno codes in the cause chain', () => {
    const inner = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const e = mapNeo4jError(new Error('wrapper', { cause: inner }), ctx);
    expect(e.code).toBe('STORE_UNAVAILABLE');
    expect(e.details!.errno).toBe('ECONNREFUSED');
  });

  it('maps the driver\'s code-less acquisition timeout to unavailable', () => {
    const e = mapNeo4jError(neoErr('N/A', 'Connection acquisition timed out in 800 ms. Pool status: Active conn count = 0'), ctx);
    expect(e.code).toBe('STORE_UNAVAILABLE');
  });

  it('passes @mem errors through and wraps unknown values', () => {
    const mine = new MemValidationError('INVALID_INPUT', 'bad');
    expect(mapNeo4jError(mine, ctx)).toBe(mine);
    expect(mapNeo4jError('weird', ctx).code).toBe('STORE_ERROR');
  });
});

describe('withTimeout', () => {
  it('rejects with StoreUnavailableError after the deadline and passes results through', async () => {
    const t0 = Date.now();
    const err: any = await withTimeout(new Promise(() => {}), 50, ctx).catch((e) => e);
    expect(err.code).toBe('STORE_UNAVAILABLE');
    expect(err.details.timeoutMs).toBe(50);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(await withTimeout(Promise.resolve(7), 50, ctx)).toBe(7);
  });
});

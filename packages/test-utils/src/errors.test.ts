import { describe, expect, it } from 'vitest';
import { errorCodeOf, expectMemError } from './errors.js';

const MARK = Symbol('test');
class CodedError extends Error {
  readonly [MARK] = true;
  constructor(readonly code: 'A' | 'B', readonly details?: Record<string, unknown>) {
    super(`coded ${code}`);
  }
  static isInstance(e: unknown): e is CodedError {
    return typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[MARK] === true;
  }
}

describe('expectMemError', () => {
  it('accepts a rejected promise, a throwing function and an async function, and returns the error', async () => {
    const e = await expectMemError(Promise.reject(new CodedError('A', { n: 1 })), CodedError, 'A', { n: 1 });
    expect(e.details).toEqual({ n: 1 });
    await expectMemError(() => { throw new CodedError('B'); }, CodedError, 'B');
    await expectMemError(async () => { throw new CodedError('B'); }, CodedError, 'B');
  });
  it('fails on no error, another class, another code or other details', async () => {
    await expect(expectMemError(Promise.resolve(1), CodedError, 'A')).rejects.toThrow(/nothing was thrown/);
    await expect(expectMemError(() => { throw new Error('plain'); }, CodedError, 'A')).rejects.toThrow(/got Error/);
    await expect(expectMemError(() => { throw new CodedError('B'); }, CodedError, 'A')).rejects.toThrow(/expected a CodedError A/);
    await expect(expectMemError(() => { throw new CodedError('A', { n: 2 }); }, CodedError, 'A', { n: 1 })).rejects.toThrow();
  });
});

describe('errorCodeOf', () => {
  it("names the class's code, another throw, or no throw", () => {
    expect(errorCodeOf(() => { throw new CodedError('B'); }, CodedError)).toBe('B');
    expect(errorCodeOf(() => { throw new Error('plain'); }, CodedError)).toBe('other: Error: plain');
    expect(errorCodeOf(() => 1, CodedError)).toBe('none');
  });
});

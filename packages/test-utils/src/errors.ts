/**
 * The one way `@mem` tests check an error (docs/architecture.md, "Code rules"; issue 35): the class's
 * static `isInstance` (vercel/ai's marker check, which works across module copies), then `code`.
 */
import { expect } from 'vitest';

/** An error class with a marker check: every `@mem` error class (`MemError` and its subclasses, `GateError`, `SystemOneError`). */
export interface ErrorClass<T extends { code: string }> {
  readonly name: string;
  readonly prototype: T;
  isInstance(e: unknown): boolean;
}

/**
 * Runs `run` (a promise, or a function, sync or async) and expects it to throw an error that
 * `Cls.isInstance` accepts, with `code` and, when given, `details` matching (a subset, as
 * `toMatchObject`). Returns the error for further checks. Fails when nothing is thrown.
 *
 * ```ts
 * await expectMemError(store.write(batch), MemValidationError, 'INVALID_INPUT');
 * await expectMemError(() => createNoveltyGate({ alpha: 1 }), GateError, 'BAD_OPTIONS');
 * ```
 */
export async function expectMemError<T extends { code: string }>(
  run: PromiseLike<unknown> | (() => unknown),
  Cls: ErrorClass<T>,
  code: T['code'],
  details?: Record<string, unknown>,
): Promise<T> {
  let caught: unknown;
  let threw = false;
  try {
    await (typeof run === 'function' ? run() : run);
  } catch (e) {
    caught = e;
    threw = true;
  }
  expect(threw, `expected a ${Cls.name} ${code}, but nothing was thrown`).toBe(true);
  const what = caught instanceof Error ? `${caught.name} ${(caught as { code?: string }).code ?? ''}: ${caught.message}` : String(caught);
  expect(Cls.isInstance(caught), `expected a ${Cls.name} ${code}, got ${what}`).toBe(true);
  const err = caught as T & { details?: unknown };
  expect(err.code, `expected a ${Cls.name} ${code}, got ${what}`).toBe(code);
  if (details) expect(err.details).toMatchObject(details);
  return err;
}

/**
 * The code of the error `f` (a sync function) throws when `Cls.isInstance` accepts it; `other: <the
 * error>` for any other throw, `none` when `f` returns. For tables of calls checked by code alone
 * (`expect(errorCodeOf(() => parse(x), MemError)).toBe('INVALID_INPUT')`); one call is checked
 * with `expectMemError`.
 */
export function errorCodeOf<T extends { code: string }>(f: () => unknown, Cls: ErrorClass<T>): string {
  try {
    f();
  } catch (e) {
    return Cls.isInstance(e) ? (e as T).code : `other: ${String(e)}`;
  }
  return 'none';
}

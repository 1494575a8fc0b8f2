import { SystemOneError } from '../src/errors';

/** Test helper: the SystemOneError code `f` throws, `other: …` for any other throw, or `no error`. */
export function errorCodeOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return SystemOneError.isInstance(e) ? e.code : `other: ${String(e)}`;
  }
  return 'no error';
}

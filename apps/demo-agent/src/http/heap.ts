/**
 * V8 heap sizing for the long-running `mem serve` process (ours; issue 33 point 5).
 *
 * Between two full collections V8 lets the old generation grow to a multiple of what was live after
 * the last one; the multiple is chosen from the measured GC and mutator speeds and reaches ~2× on a
 * server taking adds (each request's objects outlive a few young-generation collections, so they
 * are promoted and die in the old generation). Measured with `bench:load --adds 10000`: ~90 MB
 * live, old space committed up to ~190 MB. The growth percent below caps the multiple at 1.3: more
 * frequent full collections, 43 MB less resident memory after 10,000 adds
 * (371 → 328 MB in one session; docs/benchmarks.md "`mem serve` under load"). It is a V8 flag read at every full
 * collection, so setting it after start-up takes effect.
 */
import v8 from 'node:v8';

/** Heap growing factor of `mem serve` = 1 + this / 100. */
export const SERVER_HEAP_GROWING_PERCENT = 30;

/**
 * The V8 flag `mem serve` sets, or null when the process was started with its own
 * `--heap-growing-percent` (then that one is kept).
 * @param execArgv node's own arguments (process.execArgv)
 */
export function serverHeapFlag(execArgv: readonly string[]): string | null {
  if (execArgv.some((a) => /^--heap[-_]growing[-_]percent\b/.test(a))) return null;
  return `--heap-growing-percent=${SERVER_HEAP_GROWING_PERCENT}`;
}

/** Apply `serverHeapFlag` to this process (see the module comment). Returns the flag set, or null. */
export function tuneHeapForServer(execArgv: readonly string[] = process.execArgv): string | null {
  const flag = serverHeapFlag(execArgv);
  if (flag) v8.setFlagsFromString(flag);
  return flag;
}

/** Errors of the write path (ours): any failure before the store acknowledged becomes a typed "nothing was written" error. */
import { MemError } from '../errors.js';

/** Wrap a stage's failure as WRITE_FAILED (EMBEDDER_ERROR for a foreign embedder error); WRITE_FAILED passes through. */
export function wrapError(stage: string, e: unknown): MemError {
  if (MemError.isInstance(e) && (e as MemError).code === 'WRITE_FAILED') return e as MemError;
  const msg = e instanceof Error ? e.message : String(e);
  const code = stage === 'embed' && !MemError.isInstance(e) ? 'EMBEDDER_ERROR' : 'WRITE_FAILED';
  const category = MemError.isInstance(e) ? ((e as MemError).category ?? 'internal') : 'unavailable';
  return new MemError(code, category === 'validation' ? 'internal' : category, `Write failed at ${stage}; nothing was written: ${msg}`, {
    cause: e,
    details: { stage, causeCode: MemError.isInstance(e) ? (e as MemError).code : undefined },
  });
}

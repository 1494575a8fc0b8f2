/** Strict UTF-8 decoding of user input (ours): bytes that are not UTF-8 are an error, never U+FFFD. */
import { isUtf8 } from 'node:buffer';
import { MemValidationError } from '@mem/core';

/**
 * 1-based number of the first line (lines end at LF, byte 0x0A) of `bytes` that is not UTF-8, or
 * null when all of `bytes` is UTF-8.
 */
export function firstNonUtf8Line(bytes: Uint8Array): number | null {
  if (isUtf8(bytes)) return null;
  let line = 1;
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0x0a) continue;
    if (!isUtf8(bytes.subarray(start, i))) return line;
    line++;
    start = i + 1;
  }
  return line;
}

/**
 * Decode `bytes` as UTF-8, keeping a leading BOM (as `readFileSync(file, 'utf8')` does). Bytes that
 * are not UTF-8 (e.g. a Latin-1 "é", one byte 0xE9) would otherwise become U+FFFD and be stored
 * changed without a word, so they throw MemValidationError `INVALID_INPUT` naming `what` and the
 * first line holding them.
 */
export function decodeUtf8Strict(bytes: Uint8Array, what: string): string {
  const line = firstNonUtf8Line(bytes);
  if (line !== null) {
    throw new MemValidationError(
      'INVALID_INPUT',
      `${what} is not UTF-8: line ${line} holds bytes that are not UTF-8 (e.g. Latin-1 or Windows-1252 text); convert it first, e.g. \`iconv -f latin1 -t utf-8\`; nothing was written`,
      { details: { line } },
    );
  }
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
}

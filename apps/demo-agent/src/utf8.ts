/** Strict UTF-8 decoding of user input (ours): bytes that are not UTF-8 are an error, never U+FFFD. */
import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
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

/** U+FFFD REPLACEMENT CHARACTER: what a lossy UTF-8 decoder puts where bytes were not UTF-8. */
export const REPLACEMENT_CHAR = '\ufffd';

/**
 * The command-line arguments exactly as the OS passed them to this process (Linux:
 * `/proc/self/cmdline`), as bytes, or null where they cannot be read (other systems). Node decodes
 * argv lossily, so only these bytes tell a U+FFFD the user typed from bytes that were not UTF-8.
 */
export function rawProcessArgs(read: () => Buffer = () => readFileSync('/proc/self/cmdline')): Buffer[] | null {
  let bytes: Buffer;
  try {
    bytes = read();
  } catch {
    return null;
  }
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0) continue;
    parts.push(bytes.subarray(start, i));
    start = i + 1;
  }
  if (start < bytes.length) parts.push(bytes.subarray(start));
  return parts;
}

/**
 * Refuse a command-line argument holding U+FFFD (ours; break-it point 6). Node decodes argv as UTF-8
 * and turns bytes that are not UTF-8 (a Latin-1 "é" from a Latin-1 terminal) into U+FFFD, so
 * `mem remember "café"` would store "caf\uFFFD" without a word. Whether the user meant the character
 * cannot be told from the command line: a wrapper that is itself a Node process (`pnpm mem`, tsx)
 * has already decoded the bytes and passes U+FFFD on as valid UTF-8. So every argument holding
 * U+FFFD is refused; text that is meant to hold one goes through a file or stdin
 * (`mem remember --file`, `mem remember -`), which are read strictly (a real U+FFFD is kept there,
 * bytes that are not UTF-8 are refused). `args` are the user's arguments (argv after the script),
 * `raw` the same as bytes (the tail of {@link rawProcessArgs}) or null: they only sharpen the message
 * ("is not UTF-8" when the bytes show it).
 * @throws MemValidationError `INVALID_INPUT` with `details.argument` (1-based position) and
 *   `details.problem`: `not-utf8` (the raw bytes are not UTF-8) or `replacement-character`
 */
export function assertArgsUtf8(args: readonly string[], raw: readonly Buffer[] | null): void {
  const rawArgs = raw && raw.length >= args.length ? raw.slice(raw.length - args.length) : null;
  args.forEach((arg, i) => {
    if (!arg.includes(REPLACEMENT_CHAR)) return;
    const bytes = rawArgs?.[i];
    const notUtf8 = Boolean(bytes && !isUtf8(bytes));
    const shown = arg.length > 60 ? `${arg.slice(0, 60)}…` : arg;
    const what = notUtf8
      ? 'is not UTF-8: the terminal passed bytes that are not UTF-8 (e.g. Latin-1 or Windows-1252 text), which Node turns into U+FFFD (the replacement character)'
      : 'holds U+FFFD (the replacement character), what bytes that are not UTF-8 (e.g. Latin-1 text) become when Node or a wrapper such as pnpm decodes the command line';
    throw new MemValidationError(
      'INVALID_INPUT',
      `Command-line argument ${i + 1} ("${shown}") ${what}; the text would be stored changed, so nothing was written. Set the terminal to UTF-8, or pass the text in a UTF-8 file or on stdin (\`mem remember --file note.txt\`, \`mem remember - < note.txt\`), which are read strictly: a U+FFFD really in the text is kept, bytes that are not UTF-8 are refused`,
      { details: { argument: i + 1, problem: notUtf8 ? 'not-utf8' : 'replacement-character' } },
    );
  });
}

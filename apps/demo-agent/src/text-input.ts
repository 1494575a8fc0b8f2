/**
 * The text of `mem remember` (ours; break-it point 6): the argument, a UTF-8 file (`--file`) or
 * stdin (`-`). A file and stdin are read strictly: bytes that are not UTF-8 are refused (never
 * U+FFFD), a U+FFFD really in the text is kept, a leading BOM and one final line break are dropped
 * (an editor's or `echo`'s, not part of what was said).
 */
import { MemValidationError } from '@mem/core';
import { readInputFile } from './output.js';
import { decodeUtf8Strict } from './utf8.js';

/** All of stdin as bytes. */
export async function readStdinBytes(stream: NodeJS.ReadableStream = process.stdin): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}

/** Drop a leading BOM and one final `\n` / `\r\n`. */
function trimFileText(text: string): string {
  return text.replace(/^\ufeff/, '').replace(/\r?\n$/, '');
}

/**
 * The text to remember: `arg` as given, or (`arg` = `-`) stdin, or the `file`.
 * @throws MemValidationError INVALID_INPUT for neither or both of a text and --file, an unreadable
 *   file (named), a file or stdin that is not UTF-8 (the line named)
 */
export async function rememberText(arg: string | undefined, file: string | undefined, stdin: () => Promise<Buffer> = () => readStdinBytes()): Promise<string> {
  if (arg !== undefined && file !== undefined) throw new MemValidationError('INVALID_INPUT', 'Give the text to remember or --file <path>, not both');
  if (file !== undefined) return trimFileText(readInputFile(file, 'text file', { strictUtf8: true }));
  if (arg === '-') return trimFileText(decodeUtf8Strict(await stdin(), 'stdin'));
  if (arg === undefined) throw new MemValidationError('INVALID_INPUT', 'Give the text to remember: as an argument, with --file <path>, or - to read it from stdin');
  return arg;
}

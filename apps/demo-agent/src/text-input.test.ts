import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemError } from '@mem/core';
import { rememberText } from './text-input.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'mem-text-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const codeOf = (p: Promise<unknown>) => p.then(() => 'none', (e) => (MemError.isInstance(e) ? e.code : 'untyped'));
const stdin = (bytes: Buffer) => async () => bytes;

describe('rememberText: the argument, --file or - (stdin), read strictly (break-it point 6)', () => {
  it('keeps a U+FFFD that is really in a file or on stdin; drops a BOM and one final line break', async () => {
    const file = path.join(dir, 'note.txt');
    writeFileSync(file, '\ufeffI typed \ufffd on purpose.\n\n', 'utf8');
    expect(await rememberText(undefined, file)).toBe('I typed \ufffd on purpose.\n');
    expect(await rememberText('-', undefined, stdin(Buffer.from('café au lait\r\n')))).toBe('café au lait');
    expect(await rememberText('as typed', undefined)).toBe('as typed');
  });
  it('refuses bytes that are not UTF-8, both or neither of a text and --file, an unreadable file', async () => {
    const latin1 = path.join(dir, 'latin1.txt');
    writeFileSync(latin1, Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    expect(await codeOf(rememberText(undefined, latin1))).toBe('INVALID_INPUT');
    await expect(rememberText('-', undefined, stdin(Buffer.from([0x63, 0xe9])))).rejects.toThrow(/stdin is not UTF-8: line 1/);
    expect(await codeOf(rememberText('x', latin1))).toBe('INVALID_INPUT');
    expect(await codeOf(rememberText(undefined, undefined))).toBe('INVALID_INPUT');
    await expect(rememberText(undefined, path.join(dir, 'missing.txt'))).rejects.toThrow(/missing\.txt/);
  });
});

import { describe, expect, it } from 'vitest';
import { MemValidationError } from '@mem/core';
import { assertArgsUtf8, decodeUtf8Strict, firstNonUtf8Line, rawProcessArgs } from './utf8.js';

describe('decodeUtf8Strict', () => {
  it('decodes UTF-8, keeping a BOM and a U+FFFD that was really in the text', () => {
    expect(decodeUtf8Strict(Buffer.from('\ufeffcafé ☕ \ufffd', 'utf8'), 'x')).toBe('\ufeffcafé ☕ \ufffd');
    expect(decodeUtf8Strict(new Uint8Array(), 'x')).toBe('');
  });
  it('refuses Latin-1 bytes with INVALID_INPUT naming the first bad line, instead of U+FFFD', () => {
    const bytes = Buffer.concat([Buffer.from('Bob: fine\nBob: caf'), Buffer.from([0xe9]), Buffer.from(' au lait\nBob: na'), Buffer.from([0xef]), Buffer.from('ve\n')]);
    expect(firstNonUtf8Line(bytes)).toBe(2);
    let err: unknown;
    try {
      decodeUtf8Strict(bytes, 'input file chat.txt');
    } catch (e) {
      err = e;
    }
    expect(MemValidationError.isInstance(err)).toBe(true);
    expect((err as MemValidationError).code).toBe('INVALID_INPUT');
    expect((err as Error).message).toMatch(/input file chat\.txt is not UTF-8: line 2 /);
  });
  it('finds a bad byte on the last line, and a UTF-8 sequence cut by the end', () => {
    expect(firstNonUtf8Line(Buffer.from([0x61, 0x0a, 0x62, 0xff]))).toBe(2);
    expect(firstNonUtf8Line(Buffer.from([0x61, 0xe2, 0x82]))).toBe(1);
    expect(firstNonUtf8Line(Buffer.from('a\nb\n'))).toBeNull();
  });
});

describe('command-line arguments holding U+FFFD (break-it point 6)', () => {
  const codeAndDetails = (args: string[], raw: Buffer[] | null) => {
    try {
      assertArgsUtf8(args, raw);
      return null;
    } catch (e) {
      expect(MemValidationError.isInstance(e)).toBe(true);
      return { code: (e as MemValidationError).code, details: (e as MemValidationError).details, message: (e as Error).message };
    }
  };
  it('refuses an argument holding U+FFFD, naming it and the way through a file or stdin; other arguments pass', () => {
    expect(codeAndDetails(['--user', 'zoë', 'remember', 'café ☕'], null)).toBeNull();
    const r = codeAndDetails(['--user', 'x', 'remember', 'the caf\ufffd on the corner'], null)!;
    expect(r).toMatchObject({ code: 'INVALID_INPUT', details: { argument: 4, problem: 'replacement-character' } });
    expect(r.message).toMatch(/argument 4 \("the caf\ufffd on the corner"\) holds U\+FFFD/);
    expect(r.message).toContain('mem remember --file note.txt');
  });
  it('says "not UTF-8" when the raw bytes show it; a U+FFFD that arrived as valid UTF-8 is still refused (a Node wrapper may have decoded it)', () => {
    const raw = [Buffer.from('/usr/bin/node'), Buffer.from('/x/mem.js'), Buffer.from('remember'), Buffer.from([0x63, 0x61, 0x66, 0xe9])];
    expect(codeAndDetails(['remember', 'caf\ufffd'], raw)).toMatchObject({ details: { argument: 2, problem: 'not-utf8' } });
    const typed = [Buffer.from('node'), Buffer.from('mem.js'), Buffer.from('remember'), Buffer.from('caf\ufffd', 'utf8')];
    expect(codeAndDetails(['remember', 'caf\ufffd'], typed)).toMatchObject({ details: { argument: 2, problem: 'replacement-character' } });
  });
  it('rawProcessArgs splits /proc/self/cmdline at NUL bytes; null where it cannot be read', () => {
    expect(rawProcessArgs(() => Buffer.from('node\0mem.js\0caf\xe9\0', 'latin1'))!.map((b) => [...b])).toEqual([[...Buffer.from('node')], [...Buffer.from('mem.js')], [0x63, 0x61, 0x66, 0xe9]]);
    expect(rawProcessArgs(() => { throw new Error('ENOENT'); })).toBeNull();
  });
});

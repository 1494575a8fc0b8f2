import { describe, expect, it } from 'vitest';
import { MemValidationError } from '@mem/core';
import { decodeUtf8Strict, firstNonUtf8Line } from './utf8.js';

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

import { describe, expect, it } from 'vitest';
import { MemError, MemValidationError } from '../errors.js';
import { contentHash, DEFAULT_MAX_TEXT_BYTES, forbiddenCharacter, validateObservation } from './validate.js';
import { TIME_RANGE } from './time.js';

const scope = { userId: 'u1' };
const codeOf = (input: any, opts?: any) => {
  try {
    validateObservation(input, opts);
    return 'ok';
  } catch (e) {
    expect(MemError.isInstance(e)).toBe(true);
    expect(e).toBeInstanceOf(MemValidationError);
    return (e as MemError).code;
  }
};

describe('validateObservation', () => {
  it('normalizes a valid observation', () => {
    const o = validateObservation({
      text: 'Cafe\u0301 talk',
      speaker: '  Mira ',
      observedAt: '2024-05-14T12:00:00+02:00',
      scope,
      sourceId: 'D1:3',
      metadata: { session: 1, tags: ['a'], nested: { ok: true, n: null } },
    });
    expect(o.text).toBe('Café talk'); // NFC
    expect(o.speaker).toBe('Mira');
    expect(o.observedAt).toBe('2024-05-14T10:00:00.000Z');
    expect(o.scope).toEqual({ namespace: 'default', userId: 'u1', agentId: '', runId: '' });
    expect(o.scopeKey).toBe('default|u1||');
    expect(o.contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(o.metadata).toEqual({ session: 1, tags: ['a'], nested: { ok: true, n: null } });
  });

  it('defaults observedAt to now', () => {
    const o = validateObservation({ text: 'x', scope }, { now: () => Date.UTC(2020, 0, 1) });
    expect(o.observedAt).toBe('2020-01-01T00:00:00.000Z');
    expect(o.observedAtDefaulted).toBe(true);
  });

  it('typed codes', () => {
    expect(codeOf({ text: '', scope })).toBe('TEXT_EMPTY');
    expect(codeOf({ text: ' \n\t\u3000', scope })).toBe('TEXT_EMPTY');
    expect(codeOf({ text: 'x'.repeat(DEFAULT_MAX_TEXT_BYTES + 1), scope })).toBe('TEXT_TOO_LONG');
    expect(codeOf({ text: 'x'.repeat(DEFAULT_MAX_TEXT_BYTES), scope })).toBe('ok');
    expect(codeOf({ text: '日本語', scope }, { maxTextBytes: 8 })).toBe('TEXT_TOO_LONG'); // 9 UTF-8 bytes
    expect(codeOf({ text: 'x', scope, observedAt: '2024-05-14T10:00:00' })).toBe('MISSING_TIMEZONE');
    expect(codeOf({ text: 'x', scope, observedAt: '2024-05-14T10:00:00' }, { timeZone: 'Asia/Tokyo' })).toBe('ok');
    expect(codeOf({ text: 'x', scope, observedAt: 'soon' })).toBe('BAD_DATE');
    expect(codeOf({ text: 'x' })).toBe('SCOPE_MISSING');
    expect(codeOf({ text: 'x', scope: {} })).toBe('SCOPE_MISSING');
    expect(codeOf({ text: 'x', scope: { userId: 'a|b' } })).toBe('SCOPE_INVALID');
    expect(codeOf({ text: 42, scope })).toBe('INVALID_INPUT');
    expect(codeOf({ text: 'x', scope, userId: 'typo' })).toBe('INVALID_INPUT');
    expect(codeOf({ text: 'bad \uD800 surrogate', scope })).toBe('INVALID_INPUT');
    expect(codeOf({ text: 'x', scope, metadata: { f: () => 1 } })).toBe('INVALID_INPUT');
    expect(codeOf({ text: 'x', scope, metadata: { n: Number.POSITIVE_INFINITY } })).toBe('INVALID_INPUT');
    expect(codeOf({ text: 'x', scope, metadata: { d: new Date() } })).toBe('INVALID_INPUT');
    const cyc: any = { a: 1 };
    cyc.self = cyc;
    expect(codeOf({ text: 'x', scope, metadata: cyc })).toBe('INVALID_INPUT');
    expect(codeOf({ text: 'x', scope, metadata: [1] })).toBe('INVALID_INPUT');
    expect(codeOf(null)).toBe('INVALID_INPUT');
  });

  it('adversarial: invisible-only text, non-finite / invalid observedAt, last day of 9999', () => {
    // text with no visible character is empty (NUL, zero-width space, BOM, other controls)
    expect(codeOf({ text: '\u0000', scope })).toBe('TEXT_EMPTY');
    expect(codeOf({ text: '\u200b\u200b \ufeff\u0007', scope })).toBe('TEXT_EMPTY');
    // break-it point 2: a NUL (or another C0 control but tab / LF / CR, or U+FFFE / U+FFFF) is refused even among visible characters
    expect(codeOf({ text: 'a\u0000b', scope })).toBe('INVALID_INPUT');
    // every bad observedAt is BAD_DATE (not a generic INVALID_INPUT)
    expect(codeOf({ text: 'x', scope, observedAt: Number.NaN })).toBe('BAD_DATE');
    expect(codeOf({ text: 'x', scope, observedAt: Number.POSITIVE_INFINITY })).toBe('BAD_DATE');
    expect(codeOf({ text: 'x', scope, observedAt: new Date('nope') })).toBe('BAD_DATE');
    expect(codeOf({ text: 'x', scope, observedAt: true })).toBe('BAD_DATE');
    expect(codeOf({ text: 'x', scope, observedAt: {} })).toBe('BAD_DATE');
    // the event-time resolver needs room after observedAt: 9999-12-31 is rejected up front
    expect(codeOf({ text: 'x', scope, observedAt: '9999-12-30T23:59:59.999Z' })).toBe('ok');
    expect(codeOf({ text: 'x', scope, observedAt: '9999-12-31T00:00:00Z' })).toBe('BAD_DATE');
  });

  it('break-it point 2: observedAt lies in 1583-01-01 … 9999-12-30 UTC (TIME_RANGE); year 0000 and 0001 sentinels are BAD_DATE', () => {
    expect(TIME_RANGE).toEqual({ min: '1583-01-01T00:00:00.000Z', max: '9999-12-30T23:59:59.999Z' });
    for (const bad of ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00Z', '1582-12-31T23:59:59.999Z', '1583-01-01T00:30:00+01:00', Date.UTC(1582, 11, 31), new Date(Date.UTC(1000, 0, 1))]) {
      expect(codeOf({ text: 'x', scope, observedAt: bad as any }), String(bad)).toBe('BAD_DATE');
    }
    expect(codeOf({ text: 'x', scope, observedAt: '1583-01-01T00:00:00Z' })).toBe('ok');
    expect(codeOf({ text: 'x', scope, observedAt: Date.UTC(1583, 0, 1) })).toBe('ok');
    expect(codeOf({ text: 'x', scope, observedAt: '0000-01-01T00:00:00' }, { timeZone: 'UTC' })).toBe('BAD_DATE');
    let err: unknown;
    try {
      validateObservation({ text: 'x', scope, observedAt: '0000-01-01T00:00:00Z' });
    } catch (e) {
      err = e;
    }
    expect((err as Error).message).toMatch(/out of range: it must lie from 1583-01-01T00:00:00\.000Z to 9999-12-30T23:59:59\.999Z/);
  });

  it('break-it point 2: text, speaker and sourceId refuse C0 controls but tab / LF / CR, and U+FFFE / U+FFFF (INVALID_INPUT, the character named)', () => {
    for (const c of ['\u0000', '\u0001', '\u0008', '\u000b', '\u000c', '\u001b', '\u001f', '\ufffe', '\uffff']) {
      expect(codeOf({ text: `a${c}b`, scope }), JSON.stringify(c)).toBe('INVALID_INPUT');
      expect(codeOf({ text: 'ok', speaker: `Bo${c}b`, scope }), JSON.stringify(c)).toBe('INVALID_INPUT');
      expect(codeOf({ text: 'ok', sourceId: `D1${c}`, scope }), JSON.stringify(c)).toBe('INVALID_INPUT');
    }
    // allowed: tab, line feed, carriage return, DEL and C1 controls (XML 1.0 Char), other format characters, a U+FFFD really in the text
    expect(codeOf({ text: 'line one\r\n\tline two \u007f \u0085 \u200d \ufffd', scope })).toBe('ok');
    expect(forbiddenCharacter('ab\u0000c')).toEqual({ index: 2, codePoint: 'U+0000' });
    expect(forbiddenCharacter('\uffff')).toEqual({ index: 0, codePoint: 'U+FFFF' });
    expect(forbiddenCharacter('fine\n')).toBeNull();
    let err: any;
    try {
      validateObservation({ text: 'the code is 12\u000034', scope });
    } catch (e) {
      err = e;
    }
    expect(err.code).toBe('INVALID_INPUT');
    expect(err.message).toMatch(/^text: holds the control character U\+0000 at index 14/);
    expect(err.details).toMatchObject({ path: ['text'], field: 'text', codePoint: 'U+0000', index: 14 });
  });

  it('content hash covers scope, normalized text, speaker, time and source', () => {
    const base = { scopeKey: 'k', text: 'hello  world', speaker: 'a', observedAt: 't', sourceId: 's' };
    const h = contentHash(base);
    expect(contentHash({ ...base, text: ' hello world ' })).toBe(h);
    expect(contentHash({ ...base, scopeKey: 'k2' })).not.toBe(h);
    expect(contentHash({ ...base, text: 'Hello world' })).not.toBe(h);
    expect(contentHash({ ...base, speaker: null })).not.toBe(h);
    expect(contentHash({ ...base, observedAt: 't2' })).not.toBe(h);
    expect(contentHash({ ...base, sourceId: null })).not.toBe(h);
  });
});

import { describe, expect, it } from 'vitest';
import { MemError } from '../errors.js';
import { errorCodeOf } from '@mem/test-utils';
import { normalizeObservedAt, timeZoneOffsetMs, zonedWallTimeToUtc } from './time.js';

const code = (f: () => unknown) => errorCodeOf(f, MemError);

describe('normalizeObservedAt', () => {
  it('keeps zoned ISO strings as UTC', () => {
    expect(normalizeObservedAt('2024-05-14T10:00:00Z')).toBe('2024-05-14T10:00:00.000Z');
    expect(normalizeObservedAt('2024-05-14T12:00:00+02:00')).toBe('2024-05-14T10:00:00.000Z');
    expect(normalizeObservedAt('2024-05-14T05:30:00-0430')).toBe('2024-05-14T10:00:00.000Z');
    expect(normalizeObservedAt('2024-05-14 10:00:00.123456Z')).toBe('2024-05-14T10:00:00.123Z');
  });

  it('accepts Date and epoch milliseconds', () => {
    expect(normalizeObservedAt(new Date(Date.UTC(2024, 0, 2, 3, 4, 5)))).toBe('2024-01-02T03:04:05.000Z');
    expect(normalizeObservedAt(Date.UTC(2024, 0, 2, 3, 4, 5))).toBe('2024-01-02T03:04:05.000Z');
    expect(normalizeObservedAt(1e11)).toBe('1973-03-03T09:46:40.000Z');
    expect(normalizeObservedAt(-86_400_000)).toBe('1969-12-31T00:00:00.000Z');
    // the 1970 instant itself is still accepted as a Date or a string
    expect(normalizeObservedAt(new Date(0))).toBe('1970-01-01T00:00:00.000Z');
    expect(normalizeObservedAt('1970-01-01T00:00:00Z')).toBe('1970-01-01T00:00:00.000Z');
  });

  it('refuses a number that looks like epoch seconds (BAD_DATE naming both readings)', () => {
    const secs = Math.floor(Date.UTC(2024, 0, 2) / 1000);
    let err: any;
    try {
      normalizeObservedAt(secs);
    } catch (e) {
      err = e;
    }
    expect(err?.code).toBe('BAD_DATE');
    expect(err.message).toContain('epoch seconds');
    expect(err.message).toContain('1970-01-20');
    expect(code(() => normalizeObservedAt(0))).toBe('BAD_DATE');
    expect(code(() => normalizeObservedAt(1e11 - 1))).toBe('BAD_DATE');
  });

  it('rejects a zone-less string without timeZone', () => {
    expect(code(() => normalizeObservedAt('2024-05-14T10:00:00'))).toBe('MISSING_TIMEZONE');
    expect(code(() => normalizeObservedAt('2024-05-14'))).toBe('MISSING_TIMEZONE');
  });

  it('reads a zone-less string in the given IANA zone, across DST', () => {
    expect(normalizeObservedAt('2024-05-14T10:00:00', 'Europe/Paris')).toBe('2024-05-14T08:00:00.000Z'); // CEST
    expect(normalizeObservedAt('2024-01-14T10:00:00', 'Europe/Paris')).toBe('2024-01-14T09:00:00.000Z'); // CET
    expect(normalizeObservedAt('2024-07-01T00:00', 'America/New_York')).toBe('2024-07-01T04:00:00.000Z');
    expect(normalizeObservedAt('2024-07-01T00:00', 'Asia/Kolkata')).toBe('2024-06-30T18:30:00.000Z');
    // spring-forward gap 02:30 does not exist in Paris on 2024-03-31: later offset
    expect(normalizeObservedAt('2024-03-31T02:30:00', 'Europe/Paris')).toBe('2024-03-31T01:30:00.000Z');
    // fall-back ambiguity 02:30 on 2024-10-27 happens twice: earlier instant
    expect(normalizeObservedAt('2024-10-27T02:30:00', 'Europe/Paris')).toBe('2024-10-27T00:30:00.000Z');
  });

  it('rejects bad dates and unknown zones', () => {
    expect(code(() => normalizeObservedAt('2024-02-30T10:00:00Z'))).toBe('BAD_DATE');
    expect(code(() => normalizeObservedAt('2024-13-01T10:00:00Z'))).toBe('BAD_DATE');
    expect(code(() => normalizeObservedAt('yesterday'))).toBe('BAD_DATE');
    expect(code(() => normalizeObservedAt('1:56 pm on 8 May, 2023'))).toBe('BAD_DATE');
    expect(code(() => normalizeObservedAt(Number.NaN))).toBe('BAD_DATE');
    expect(code(() => normalizeObservedAt(new Date('nope')))).toBe('BAD_DATE');
    expect(code(() => normalizeObservedAt('2024-05-14T10:00:00', 'Mars/Olympus'))).toBe('INVALID_INPUT');
  });

  it('years before 1583 are BAD_DATE in every form (break-it point 2); the zone math still reads years 0000–0099 as themselves (Date.UTC would map them to 1900–1999)', () => {
    for (const wall of ['0000-06-01T10:00:00', '0001-01-01T12:00:00', '0050-06-01T10:00:00', '0099-12-31T23:00:00', '1582-10-15T00:00:00']) {
      expect(code(() => normalizeObservedAt(wall, 'UTC'))).toBe('BAD_DATE');
      expect(code(() => normalizeObservedAt(`${wall}Z`))).toBe('BAD_DATE');
      expect(code(() => normalizeObservedAt(`${wall}+02:00`))).toBe('BAD_DATE');
      const wallMs = Date.parse(`${wall}Z`);
      expect(zonedWallTimeToUtc(wallMs, 'UTC')).toBe(wallMs);
      // Etc/GMT-2 is a fixed UTC+02:00 (no local mean time in its history)
      expect(zonedWallTimeToUtc(wallMs, 'Etc/GMT-2')).toBe(wallMs - 2 * 3600_000);
    }
    // the calendar check still applies: 1600 is a Gregorian leap year, 1700 is not
    expect(normalizeObservedAt('1600-02-29T10:00:00', 'UTC')).toBe('1600-02-29T10:00:00.000Z');
    expect(code(() => normalizeObservedAt('1700-02-29T10:00:00', 'UTC'))).toBe('BAD_DATE');
    expect(code(() => normalizeObservedAt('1700-02-29T10:00:00Z'))).toBe('BAD_DATE');
    const year50 = new Date(Date.UTC(2000, 5, 1, 10));
    year50.setUTCFullYear(50);
    expect(timeZoneOffsetMs('UTC', year50.getTime())).toBe(0);
    expect(timeZoneOffsetMs('Etc/GMT-2', year50.getTime())).toBe(2 * 3600_000);
  });

  it('offsets agree with Intl', () => {
    const t = Date.UTC(2024, 6, 1, 12);
    expect(timeZoneOffsetMs('UTC', t)).toBe(0);
    expect(timeZoneOffsetMs('Asia/Tokyo', t)).toBe(9 * 3600_000);
    expect(zonedWallTimeToUtc(Date.UTC(2024, 6, 1, 21), 'Asia/Tokyo')).toBe(t);
  });
});

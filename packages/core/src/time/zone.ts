/**
 * Time-zone arithmetic shared by the write path (observedAt normalisation, src/write/time.ts) and
 * event-time extraction (src/extract/time.ts) (ours). A leaf module: it imports nothing of the
 * package but the error classes, so neither side imports the other.
 */
import { MemValidationError } from '../errors.js';

const dtfCache = new Map<string, Intl.DateTimeFormat>();

/** The `Intl.DateTimeFormat` for a zone; throws MemValidationError `INVALID_INPUT` for an unknown IANA name. */
function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = dtfCache.get(timeZone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        era: 'short',
      });
    } catch (cause) {
      throw new MemValidationError('INVALID_INPUT', `Unknown IANA time zone "${timeZone}"`, { cause, details: { timeZone } });
    }
    dtfCache.set(timeZone, f);
  }
  return f;
}

/** Throws `INVALID_INPUT` unless `timeZone` is a valid IANA zone name. */
export function assertTimeZone(timeZone: string): void {
  formatterFor(timeZone);
}

/**
 * Epoch ms of a UTC calendar time with a full proleptic-Gregorian year (ours): like `Date.UTC`, but
 * years 0–99 stay years 0–99 (`Date.UTC` maps them to 1900–1999). Month is 0-based, as in `Date.UTC`.
 */
export function utcFromFields(year: number, month0: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  const d = new Date(Date.UTC(2000, month0, day, hour, minute, second, ms));
  // setUTCFullYear keeps month/day/time as they are and takes the year literally
  if (year >= 0 && year < 100) return d.setUTCFullYear(year, d.getUTCMonth(), d.getUTCDate());
  return Date.UTC(year, month0, day, hour, minute, second, ms);
}

/** Offset of `timeZone` from UTC at instant `utcMs`, in ms (e.g. +7 200 000 for CEST). */
export function timeZoneOffsetMs(timeZone: string, utcMs: number): number {
  const parts = formatterFor(timeZone).formatToParts(new Date(utcMs));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? '0');
  let year = get('year');
  if (parts.find((p) => p.type === 'era')?.value === 'BC') year = 1 - year;
  const wall = utcFromFields(year, get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  const secondsFloor = utcMs - (((utcMs % 1000) + 1000) % 1000);
  return wall - secondsFloor;
}

/**
 * UTC instant of a wall-clock time read in `timeZone` (ms since epoch). A time that does not
 * exist (spring-forward gap) is read with the offset before the transition (02:30 → 03:30 in
 * Paris), an ambiguous one (fall-back) as the earlier instant — Temporal's "compatible" rule.
 */
export function zonedWallTimeToUtc(wallMs: number, timeZone: string): number {
  // offsets a day before and after bracket any transition near this wall time
  const before = timeZoneOffsetMs(timeZone, wallMs - 86_400_000);
  const after = timeZoneOffsetMs(timeZone, wallMs + 86_400_000);
  const valid = [...new Set([before, after])]
    .map((o) => wallMs - o)
    .filter((utc) => timeZoneOffsetMs(timeZone, utc) === wallMs - utc);
  if (valid.length) return Math.min(...valid); // ambiguous (fall-back): the earlier instant
  return wallMs - before; // gap (spring-forward): keep the pre-transition offset → a later wall time
}

/**
 * Whether an epoch-ms number is more likely epoch **seconds** (ours): 0 ≤ value < 10¹¹, i.e. as ms
 * a time between 1970-01-01 and 1973-03-03, while every time in seconds from 1970 to 5138 falls in
 * that range. Such numbers are refused rather than stored half a century off; a real time of those
 * years can still be given as a Date or an ISO string.
 */
export function looksLikeEpochSeconds(value: number): boolean {
  return value >= 0 && value < 1e11;
}

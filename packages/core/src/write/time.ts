/**
 * Timestamp normalisation for observations (ours). Every stored time is UTC ISO-8601 with
 * milliseconds (`2024-05-14T10:00:00.000Z`). A timestamp string without a zone is ambiguous, so it
 * is rejected (`MISSING_TIMEZONE`) unless the caller names an IANA time zone to read it in; the
 * wall-clock → UTC conversion uses `Intl.DateTimeFormat` (no tz database of our own).
 */
import { MemValidationError } from '../errors.js';
import { assertTimeZone, looksLikeEpochSeconds, timeZoneOffsetMs, utcFromFields, zonedWallTimeToUtc } from '../time/zone.js';

export { assertTimeZone, timeZoneOffsetMs, zonedWallTimeToUtc };

/** `YYYY-MM-DD`, optional `THH:MM[:SS[.fff]]` (or a space), optional zone `Z` / `±HH:MM` / `±HHMM` / `±HH`. */
const ISO_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * 1583-01-01T00:00:00.000Z, the first instant an `observedAt` or `now` may name (ours; break-it
 * point 2). ISO 8601 leaves years before 1583 (before the Gregorian calendar) to agreement between
 * the parties: such a date is ambiguous (Julian or proleptic Gregorian: ten days apart), and the
 * years clients send there are almost always a "no date" value (`0000-01-01`, Go's and .NET's
 * `0001-01-01T00:00:00Z`), which would otherwise be stored as when something was said.
 */
const MIN_MS = Date.UTC(1583, 0, 1);
/**
 * 9999-12-30T23:59:59.999Z: the event-time resolver (`resolveEventTime`, src/extract) needs room
 * after observedAt ("next month" in 9999) and rejects 9999-12-31; rejecting it here keeps that a
 * validation error (BAD_DATE) raised before any write work instead of a failed write.
 */
const MAX_MS = Date.UTC(9999, 11, 30, 23, 59, 59, 999);

/** The instants an `observedAt` (and a search's `now`) may name, inclusive, UTC ISO-8601; outside: BAD_DATE. */
export const TIME_RANGE = { min: new Date(MIN_MS).toISOString(), max: new Date(MAX_MS).toISOString() } as const;

/** Name of the field being read, for messages and details (`observedAt` for writes, `now` for searches). */
type Field = 'observedAt' | 'now';

function fail(field: Field, code: 'BAD_DATE' | 'MISSING_TIMEZONE', message: string, value: unknown): never {
  throw new MemValidationError(code, message, { details: { [field]: value } });
}

function checkRange(field: Field, ms: number, value: unknown): number {
  if (!Number.isFinite(ms)) fail(field, 'BAD_DATE', `${field} must be a finite number of epoch milliseconds, got ${String(value)}`, value);
  if (ms < MIN_MS || ms > MAX_MS) fail(field, 'BAD_DATE', `${field} is out of range: it must lie from ${TIME_RANGE.min} to ${TIME_RANGE.max} (UTC; years before 1583 are ambiguous, and 0000-01-01 / 0001-01-01 are usually a missing date)`, value);
  return ms;
}

/**
 * Read a search's reference time `now` strictly (ours): the same forms as `normalizeObservedAt`
 * (ISO-8601 `YYYY-MM-DD[THH:MM[:SS[.fff]]]` with `Z` or `±HH:MM`, a Date, epoch ms); a zone-less
 * string is read in `timeZone` (IANA) when given, else MISSING_TIMEZONE — never in the process's
 * local zone. Loose forms `Date.parse` would take ("March 3", "garbage") are BAD_DATE.
 * Returns UTC ISO-8601 with milliseconds.
 * @throws MemValidationError `BAD_DATE`, `MISSING_TIMEZONE` (details.now = the value given)
 */
export function normalizeNow(value: string | Date | number, timeZone?: string): string {
  return normalizeInstant(value, timeZone, 'now');
}

/**
 * Normalise an observation time to UTC ISO-8601 (ours).
 * - `Date` (valid) and epoch **milliseconds** (finite number) are instants; a number in [0, 10¹¹)
 *   is refused as probable epoch seconds ({@link looksLikeEpochSeconds}).
 * - strings must be ISO-8601 `YYYY-MM-DD[THH:MM[:SS[.fff]]]` with a zone (`Z`, `±HH:MM`); a
 *   zone-less string is read in `timeZone` (IANA) when given, else `MISSING_TIMEZONE`.
 * Throws MemValidationError `BAD_DATE` for anything else (including impossible dates like 02-30) and
 * for an instant outside {@link TIME_RANGE} (1583-01-01 to 9999-12-30 UTC).
 */
export function normalizeObservedAt(value: string | Date | number, timeZone?: string): string {
  return normalizeInstant(value, timeZone, 'observedAt');
}

function normalizeInstant(value: string | Date | number, timeZone: string | undefined, field: Field): string {
  if (value instanceof Date) {
    return new Date(checkRange(field, value.getTime(), value)).toISOString();
  }
  if (typeof value === 'number') {
    if (looksLikeEpochSeconds(value)) {
      fail(
        field,
        'BAD_DATE',
        `${field} ${value} looks like epoch seconds (as ms it is ${new Date(value).toISOString()}); pass epoch milliseconds, a Date or an ISO-8601 string`,
        value,
      );
    }
    return new Date(checkRange(field, value, value)).toISOString();
  }
  if (typeof value !== 'string') fail(field, 'BAD_DATE', `${field} must be an ISO-8601 string, a Date or epoch milliseconds`, value);
  const m = ISO_RE.exec(value.trim());
  if (!m) fail(field, 'BAD_DATE', `${field} "${value}" is not an ISO-8601 timestamp`, value);
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '0', zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  const ms = Math.floor(Number(`0.${frac}`) * 1000);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) {
    fail(field, 'BAD_DATE', `${field} "${value}" has a field out of range`, value);
  }
  const wallMs = utcFromFields(year, month - 1, day, hour, minute, second, ms);
  const wallDate = new Date(wallMs);
  if (wallDate.getUTCDate() !== day || wallDate.getUTCMonth() !== month - 1) {
    fail(field, 'BAD_DATE', `${field} "${value}" is not a calendar date`, value);
  }
  let utc: number;
  if (zone) {
    if (zone === 'Z' || zone === 'z') utc = wallMs;
    else {
      const sign = zone[0] === '-' ? -1 : 1;
      const digits = zone.slice(1).replace(':', '');
      const oh = Number(digits.slice(0, 2));
      const om = Number(digits.slice(2, 4) || '0');
      if (oh > 23 || om > 59) fail(field, 'BAD_DATE', `${field} "${value}" has an invalid zone offset`, value);
      utc = wallMs - sign * (oh * 60 + om) * 60_000;
    }
  } else {
    if (!timeZone) {
      fail(
        field,
        'MISSING_TIMEZONE',
        `${field} "${value}" has no time zone; add "Z" or an offset, or set a time zone (IANA, e.g. "Europe/Paris"): the timeZone option of createMemory / add, or --time-zone / MEM_TIME_ZONE for the mem CLI, server and MCP server`,
        value,
      );
    }
    utc = zonedWallTimeToUtc(wallMs, timeZone);
  }
  return new Date(checkRange(field, utc, value)).toISOString();
}

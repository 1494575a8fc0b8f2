/**
 * Session date parsing for the ingest formats (ours). Every result is a UTC ISO-8601 string.
 * Zone-less inputs ("2025-03-18 18:30") are read in the caller's time zone when it gives one, else as
 * UTC; LoCoMo's "1:56 pm on 8 May, 2023" always as UTC; strings with a zone keep it.
 */
import { MemValidationError, normalizeObservedAt } from '@mem/core';

const MONTHS: Record<string, number> = {
  jan: 0, feb: 1, mar: 2, apr: 3, may: 4, jun: 5, jul: 6, aug: 7, sep: 8, sept: 8, oct: 9, nov: 10, dec: 11,
};

/** LoCoMo session stamp `h:mm am|pm on D Month, YYYY` → Date (UTC), or null when it does not match. */
export function parseLocomoDate(text: string): Date | null {
  const m = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(text);
  if (!m) return null;
  let hour = Number(m[1]) % 12;
  if (m[3].toLowerCase() === 'pm') hour += 12;
  const month = MONTHS[m[5].slice(0, m[5].toLowerCase().startsWith('sept') ? 4 : 3).toLowerCase()];
  if (month === undefined) return null;
  const h12 = Number(m[1]);
  if (h12 < 1 || h12 > 12 || !isWallTime(Number(m[6]), month + 1, Number(m[4]), hour, Number(m[2]), 0)) return null;
  const d = new Date(Date.UTC(2000, month, Number(m[4]), hour, Number(m[2])));
  d.setUTCFullYear(Number(m[6]), month, Number(m[4])); // Date.UTC alone would read years 0–99 as 1900–1999
  return Number.isNaN(d.getTime()) ? null : d;
}

/** True when the fields name a real calendar date and wall time (no 02-30, 25:00, :60 — `Date` would roll them over). */
function isWallTime(year: number, month: number, day: number, hour: number, minute: number, second: number): boolean {
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return false;
  const probe = new Date(Date.UTC(2000, month - 1, day));
  probe.setUTCFullYear(year);
  return probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}

/**
 * Parse a session date: ISO-8601 with or without zone, a date only (`2025-03-18` → midnight), or the
 * LoCoMo stamp. A zone-less ISO date or date-time is read in `timeZone` (IANA, e.g. `Europe/Paris`;
 * `mem --time-zone`, issue 36) when given, else as UTC; LoCoMo stamps are always UTC (the dataset's
 * convention). Returns a UTC ISO string. Throws MemValidationError `BAD_DATE` when nothing matches, or
 * the date does not exist (02-30, 25:00).
 */
export function parseSessionDate(text: string, timeZone?: string): string {
  const t = text.trim();
  const locomo = parseLocomoDate(t);
  if (locomo) return locomo.toISOString();
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i.exec(t);
  if (iso && !isWallTime(Number(iso[1]), Number(iso[2]), Number(iso[3]), Number(iso[4] ?? 0), Number(iso[5] ?? 0), Number(iso[6] ?? 0))) {
    throw new MemValidationError('BAD_DATE', `"${t.slice(0, 80)}" is not a calendar date and time (e.g. 02-30, 25:00)`);
  }
  if (iso && !iso[7] && timeZone) return normalizeObservedAt(t, timeZone);
  if (iso) {
    const zoned = iso[7] ? t.replace(' ', 'T') : `${t.replace(' ', 'T')}${iso[4] ? '' : 'T00:00'}Z`;
    const d = new Date(zoned);
    if (!Number.isNaN(d.getTime())) return d.toISOString();
  }
  throw new MemValidationError('BAD_DATE', `Unrecognised date "${t.slice(0, 80)}" (use ISO-8601, e.g. 2025-03-18T18:30:00Z)`);
}

/**
 * LoCoMo reader for the write-path bench: every dialogue turn becomes one observation (one scope per
 * conversation, the session's date-time as observedAt in UTC, image captions appended to the text).
 * The data file is read at run time from ../shared/data/locomo/ (never copied into the repository).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ObservationInput } from '../src/types.js';

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" → "2023-05-08T13:56:00.000Z" (read as UTC; LoCoMo gives no zone). Null if the format differs. */
export function parseLocomoDateTime(text: string): string | null {
  const m = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(text);
  if (!m) return null;
  let hour = Number(m[1]) % 12;
  if (m[3]!.toLowerCase() === 'pm') hour += 12;
  const month = MONTHS.findIndex((x) => x.startsWith(m[5]!.toLowerCase().slice(0, 3)));
  if (month < 0) return null;
  const ms = Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/** Default location: `<repo>/../shared/data/locomo/locomo10-dev.json`, or `$MEM_LOCOMO_PATH`. */
export function locomoPath(): string {
  if (process.env.MEM_LOCOMO_PATH) return process.env.MEM_LOCOMO_PATH;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(resolve(dir, 'pnpm-workspace.yaml')) && dirname(dir) !== dir) dir = dirname(dir);
  return resolve(dir, '..', 'shared', 'data', 'locomo', 'locomo10-dev.json');
}

export interface LocomoSession {
  scope: { namespace: string; userId: string };
  observations: ObservationInput[];
}

/** Thrown (with a message naming MEM_LOCOMO_PATH) when the LoCoMo file is not where it was looked for. */
export class LocomoMissingError extends Error {}

/**
 * The parsed LoCoMo JSON at `path` (default `locomoPath()`). The data lives outside the repository
 * (`../shared/data/locomo/` next to the project's clone), so a clone elsewhere must point at it.
 * @throws LocomoMissingError when the file does not exist
 */
export function readLocomoJson(path = locomoPath()): any[] {
  if (!existsSync(path)) {
    throw new LocomoMissingError(
      `LoCoMo data not found at ${path}. It is not part of the repository: set MEM_LOCOMO_PATH=/path/to/locomo10-dev.json (in the project workspace: ../shared/data/locomo/locomo10-dev.json next to the clone).`,
    );
  }
  return JSON.parse(readFileSync(path, 'utf8')) as any[];
}

/** `readLocomoJson` for command-line scripts: prints the missing-data message and exits with code 2 instead of throwing. */
export function readLocomoJsonOrExit(path = locomoPath()): any[] {
  try {
    return readLocomoJson(path);
  } catch (e) {
    if (!(e instanceof LocomoMissingError)) throw e;
    console.error(e.message);
    process.exit(2);
  }
}

/** Sessions in conversation order; each session's turns in order. @throws LocomoMissingError */
export function readLocomo(path = locomoPath()): LocomoSession[] {
  const data = readLocomoJson(path);
  const out: LocomoSession[] = [];
  for (const sample of data) {
    const conv = sample.conversation ?? {};
    const scope = { namespace: 'locomo', userId: String(sample.sample_id) };
    const sessions = Object.keys(conv)
      .map((k) => /^session_(\d+)$/.exec(k))
      .filter((m): m is RegExpExecArray => !!m)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    for (const n of sessions) {
      const turns = conv[`session_${n}`];
      if (!Array.isArray(turns) || turns.length === 0) continue;
      const observedAt = parseLocomoDateTime(String(conv[`session_${n}_date_time`] ?? ''));
      if (!observedAt) throw new Error(`unparsed LoCoMo date "${conv[`session_${n}_date_time`]}"`);
      out.push({
        scope,
        observations: turns.map((t: any) => ({
          text: t.blip_caption ? `${t.text} [image: ${t.blip_caption}]` : String(t.text),
          speaker: String(t.speaker),
          observedAt,
          scope,
          sourceId: String(t.dia_id),
          metadata: { session: n },
        })),
      });
    }
  }
  return out;
}

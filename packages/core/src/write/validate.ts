/**
 * Validation of `Observation` inputs (ours; docs/design.md "Write path" step 1). Everything here runs
 * before any embedder, controller or store call, so a rejected observation writes nothing.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { MemValidationError, type MemErrorCode } from '../errors.js';
import { resolveScope, scopeKey } from '../scope.js';
import type { ObservationInput, ResolvedScope } from '../types.js';
import { normalizeObservedAt } from './time.js';
import { isWellFormed } from '../unicode.js';

export { isWellFormed };

/** Default maximum UTF-8 size of an observation's text: 64 KiB. */
export const DEFAULT_MAX_TEXT_BYTES = 64 * 1024;
const MAX_SPEAKER = 256;
const MAX_SOURCE_ID = 512;
const MAX_METADATA_BYTES = 64 * 1024;
const MAX_METADATA_DEPTH = 32;

/** An observation after validation: text kept as given (NFC), time in UTC, scope resolved. */
export interface NormalizedObservation {
  text: string;
  speaker: string | null;
  /** UTC ISO-8601. */
  observedAt: string;
  /** IANA zone whose calendar relative dates in the text use (the write's `timeZone` option), or null (UTC). */
  timeZone: string | null;
  /** True when the caller gave no observedAt (the write time was used). */
  observedAtDefaulted: boolean;
  scope: ResolvedScope;
  scopeKey: string;
  sourceId: string | null;
  metadata: Record<string, unknown>;
  /** sha256 (hex) of scope key + normalized text + speaker + observedAt + sourceId. */
  contentHash: string;
}

export interface ValidateOptions {
  /** Default 65 536 (64 KiB), measured in UTF-8 bytes. */
  maxTextBytes?: number;
  /** IANA zone used to read zone-less observedAt strings. */
  timeZone?: string;
  /** Injected clock (ms) for the default observedAt. */
  now?: () => number;
}

/** A character other than whitespace, controls (NUL…) and format characters (zero-width space, BOM…). */
const VISIBLE = /[^\s\p{Cc}\p{Cf}]/u;

const memIssue = (code: MemErrorCode, message: string, details?: Record<string, unknown>) => ({ code: 'custom' as const, message, params: { memCode: code, details } });

/**
 * Characters an observation's text, speaker and sourceId may not hold (ours; break-it point 2): the
 * C0 controls other than tab, line feed and carriage return (NUL, ESC, …) and the noncharacters
 * U+FFFE / U+FFFF — the characters XML 1.0 (§2.2 `Char`) leaves out. They are never text a person
 * said; a NUL cuts the text short in C-string consumers (SQLite's FTS tokenizer, many terminals and
 * drivers), and an escape sequence rewrites the terminal that prints it. Lone surrogates are
 * refused apart (`isWellFormed`).
 */
const FORBIDDEN_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/u;

/**
 * The first character of `s` that {@link FORBIDDEN_CHAR} refuses: its 0-based UTF-16 `index` and
 * `codePoint` as `U+0000`; null when there is none.
 */
export function forbiddenCharacter(s: string): { index: number; codePoint: string } | null {
  const m = FORBIDDEN_CHAR.exec(s);
  return m ? { index: m.index, codePoint: `U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` } : null;
}

/** The issue for a field holding a refused character, or null. */
function forbiddenIssue(field: 'text' | 'speaker' | 'sourceId', value: string) {
  const bad = forbiddenCharacter(value);
  if (!bad) return null;
  const what = bad.codePoint === 'U+FFFE' || bad.codePoint === 'U+FFFF' ? 'the noncharacter' : 'the control character';
  return { ...memIssue('INVALID_INPUT', `holds ${what} ${bad.codePoint} at index ${bad.index}: among the control characters U+0000–U+001F only tab, line feed and carriage return are allowed, and U+FFFE / U+FFFF not at all`, { field, ...bad }), path: [field] };
}

/** Recursive JSON-safety check: plain objects, arrays, strings, finite numbers, booleans, null. */
function jsonProblem(value: unknown, path: string, depth: number, seen: Set<object>): string | null {
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return null;
    case 'number':
      return Number.isFinite(value) ? null : `${path} is not a finite number`;
    case 'object': {
      if (depth > MAX_METADATA_DEPTH) return `${path} is nested deeper than ${MAX_METADATA_DEPTH}`;
      if (seen.has(value)) return `${path} is a circular reference`;
      seen.add(value);
      try {
        if (Array.isArray(value)) {
          for (let i = 0; i < value.length; i++) {
            const p = jsonProblem(value[i], `${path}[${i}]`, depth + 1, seen);
            if (p) return p;
          }
          return null;
        }
        const proto = Object.getPrototypeOf(value);
        if (proto !== Object.prototype && proto !== null) return `${path} is not a plain object`;
        for (const [k, v] of Object.entries(value)) {
          const p = jsonProblem(v, `${path}.${k}`, depth + 1, seen);
          if (p) return p;
        }
        return null;
      } finally {
        seen.delete(value);
      }
    }
    default:
      return `${path} is a ${typeof value}, not JSON`;
  }
}

const ObservationSchema = z
  .object({
    text: z.string({ error: 'text must be a string' }),
    speaker: z.string().nullish(),
    // any value: normalizeObservedAt types every bad one as BAD_DATE (NaN, Infinity, an invalid Date, a boolean…)
    observedAt: z.unknown().optional(),
    scope: z.unknown().optional(),
    sourceId: z.string().nullish(),
    metadata: z.unknown().optional(),
  })
  .strict()
  .superRefine((o, ctx) => {
    if (!VISIBLE.test(o.text)) ctx.addIssue(memIssue('TEXT_EMPTY', 'text is empty or has no visible character (whitespace, control or format characters only)'));
    if (!isWellFormed(o.text)) ctx.addIssue(memIssue('INVALID_INPUT', 'text contains a lone UTF-16 surrogate'));
    for (const [field, value] of [['text', o.text], ['speaker', o.speaker], ['sourceId', o.sourceId]] as const) {
      const issue = typeof value === 'string' ? forbiddenIssue(field, value) : null;
      if (issue) ctx.addIssue(issue);
    }
    if (o.speaker != null && (o.speaker.length > MAX_SPEAKER || !isWellFormed(o.speaker))) {
      ctx.addIssue(memIssue('INVALID_INPUT', `speaker must be well-formed and at most ${MAX_SPEAKER} characters`));
    }
    if (o.sourceId != null && (o.sourceId.length > MAX_SOURCE_ID || !isWellFormed(o.sourceId))) {
      ctx.addIssue(memIssue('INVALID_INPUT', `sourceId must be well-formed and at most ${MAX_SOURCE_ID} characters`));
    }
    if (o.metadata !== undefined && o.metadata !== null) {
      if (typeof o.metadata !== 'object' || Array.isArray(o.metadata)) {
        ctx.addIssue(memIssue('INVALID_INPUT', 'metadata must be a plain JSON object'));
      } else {
        let p: string | null;
        try {
          p = jsonProblem(o.metadata, 'metadata', 0, new Set());
        } catch (e) {
          p = `metadata could not be read (a property getter threw: ${e instanceof Error ? e.message : String(e)})`;
        }
        if (p) ctx.addIssue(memIssue('INVALID_INPUT', `metadata must be JSON-serializable: ${p}`));
        else if (Buffer.byteLength(JSON.stringify(o.metadata)) > MAX_METADATA_BYTES) {
          ctx.addIssue(memIssue('INVALID_INPUT', `metadata is larger than ${MAX_METADATA_BYTES} bytes as JSON`));
        }
      }
    }
  });

/** Text normalisation used for the content hash (ours): NFC, trimmed, whitespace runs → one space. */
export function normalizeTextForHash(text: string): string {
  return text.normalize('NFC').trim().replace(/\s+/gu, ' ');
}

/** sha256 (hex) of scope key + normalized text + speaker + observedAt + sourceId, NUL-separated (ours). */
export function contentHash(parts: {
  scopeKey: string;
  text: string;
  speaker: string | null;
  observedAt: string;
  sourceId: string | null;
}): string {
  return createHash('sha256')
    .update([parts.scopeKey, normalizeTextForHash(parts.text), parts.speaker ?? '', parts.observedAt, parts.sourceId ?? ''].join('\u0000'))
    .digest('hex');
}

/**
 * Validate and normalise one observation. Throws MemValidationError with code `TEXT_EMPTY`,
 * `TEXT_TOO_LONG`, `BAD_DATE` (also an observedAt outside `TIME_RANGE`, 1583-01-01 to 9999-12-30
 * UTC), `MISSING_TIMEZONE`, `SCOPE_MISSING`, `SCOPE_INVALID` or `INVALID_INPUT` (unknown key,
 * wrong type, non-JSON metadata, lone surrogate, a control character other than tab / LF / CR or
 * U+FFFE / U+FFFF in text, speaker or sourceId: `forbiddenCharacter`, `details.codePoint` / `index`).
 */
export function validateObservation(input: ObservationInput, options: ValidateOptions = {}): NormalizedObservation {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new MemValidationError('INVALID_INPUT', 'An observation must be an object { text, scope, ... }');
  }
  let parsed: ReturnType<typeof ObservationSchema.safeParse>;
  try {
    parsed = ObservationSchema.safeParse(input);
  } catch (cause) {
    // a getter on the observation or inside its metadata threw: typed, nothing written
    const msg = cause instanceof Error ? cause.message : String(cause);
    throw new MemValidationError('INVALID_INPUT', `observation could not be read (a property getter threw: ${msg})`, { cause });
  }
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const code = ((issue as any).params?.memCode as MemErrorCode | undefined) ?? 'INVALID_INPUT';
    const extra = (issue as any).params?.details as Record<string, unknown> | undefined;
    const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
    throw new MemValidationError(code, `${where}${issue.message}`, { details: { path: issue.path.map(String), ...extra } });
  }
  const o = parsed.data;
  const maxBytes = options.maxTextBytes ?? DEFAULT_MAX_TEXT_BYTES;
  const text = o.text.normalize('NFC');
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes) {
    throw new MemValidationError('TEXT_TOO_LONG', `text is ${bytes} bytes; the maximum is ${maxBytes} (UTF-8)`, {
      details: { bytes, maxTextBytes: maxBytes },
    });
  }
  const scope = resolveScope(o.scope as any);
  const key = scopeKey(scope);
  const observedAtDefaulted = o.observedAt === undefined || o.observedAt === null;
  const observedAt = observedAtDefaulted
    ? new Date((options.now ?? Date.now)()).toISOString()
    : normalizeObservedAt(o.observedAt as string | Date | number, options.timeZone);
  const speaker = o.speaker?.trim() ? o.speaker.trim().normalize('NFC') : null;
  const sourceId = o.sourceId?.trim() ? o.sourceId.trim() : null;
  let metadata: Record<string, unknown> = {};
  try {
    if (o.metadata) metadata = JSON.parse(JSON.stringify(o.metadata)) as Record<string, unknown>;
  } catch (cause) {
    // a getter that throws only on its second read, or a toJSON that throws
    throw new MemValidationError('INVALID_INPUT', 'metadata could not be serialised as JSON', { cause });
  }
  return {
    text,
    speaker,
    observedAt,
    observedAtDefaulted,
    timeZone: options.timeZone ?? null,
    scope,
    scopeKey: key,
    sourceId,
    metadata,
    contentHash: contentHash({ scopeKey: key, text, speaker, observedAt, sourceId }),
  };
}

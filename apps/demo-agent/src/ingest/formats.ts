/**
 * Readers for the files `mem ingest` accepts (ours). Each returns observations WITHOUT a scope;
 * the caller adds the scope. Everything is parsed and validated before anything is written, so a
 * bad line means nothing is ingested (typed MemValidationError naming the line).
 *
 * Formats, detected from the content:
 * - LoCoMo JSON (an array of samples with `conversation.session_N` and `session_N_date_time`):
 *   one group per conversation (sample_id); each turn is an observation whose sourceId is its
 *   dialogue id, image captions appended as text, the session date-time (read as UTC) as observedAt.
 * - Session JSON (this demo's format, `data/sample-conversation.json`): `{ sessions: [{ date,
 *   turns: [{ id, speaker, text }] }] }`.
 * - JSONL: one `{ text, speaker?, observedAt?, sourceId?, metadata? }` object per line.
 * Zone-less times (session dates, JSONL `observedAt`, transcript headers) are read in the caller's
 * `timeZone` (`mem --time-zone` / MEM_TIME_ZONE) when given, else as UTC; LoCoMo's always as UTC.
 * - Transcript: `Speaker: text` lines; a header line such as `## Session 2 — 2025-03-18T18:30Z`,
 *   `# 2025-03-18` or `[2025-03-18 18:30]` starts a session at that date.
 * In session JSON and transcripts, turn i of a session is stamped session date + i × 30 s so turns
 * keep their order (ours); LoCoMo keeps the dataset's exact session stamps.
 */
import { MemError, MemValidationError, normalizeObservedAt } from '@mem/core';
import { parseSessionDate } from './dates.js';
import { conversationObservations, type EvalObservation, type LocomoConversation } from '../eval/locomo.js';

export interface ParsedObservation {
  text: string;
  speaker?: string;
  observedAt?: string;
  sourceId?: string;
  metadata?: Record<string, unknown>;
}

export interface ParsedGroup {
  /** Conversation id for multi-conversation files (LoCoMo sample_id), else null. */
  id: string | null;
  observations: ParsedObservation[];
}

export type IngestFormat = 'locomo' | 'sessions' | 'jsonl' | 'transcript';

export interface ParsedFile {
  format: IngestFormat;
  groups: ParsedGroup[];
}

/** Seconds between consecutive turns of one session in session JSON and transcripts (ours). */
export const TURN_SPACING_SECONDS = 30;

function bad(message: string): never {
  throw new MemValidationError('INVALID_INPUT', message);
}

function stamp(sessionIso: string | undefined, index: number): string | undefined {
  if (!sessionIso) return undefined;
  return new Date(Date.parse(sessionIso) + index * TURN_SPACING_SECONDS * 1000).toISOString();
}

/**
 * Detect the format of `content` and parse it. `now` stamps transcript turns without a header;
 * `timeZone` (IANA) is the zone of zone-less times in session JSON, JSONL and transcripts (else UTC).
 */
export function parseIngestFile(content: string, options: { now?: string; timeZone?: string } = {}): ParsedFile {
  const tz = options.timeZone;
  const trimmed = content.replace(/^\uFEFF/, '').trim();
  if (!trimmed) bad('The file is empty');
  if (trimmed.startsWith('[') || (trimmed.startsWith('{') && !isJsonl(trimmed))) {
    let data: unknown;
    try {
      data = JSON.parse(trimmed);
    } catch (e) {
      if (trimmed.startsWith('[') && /^\[[^\]\n]*\d/.test(trimmed)) return parseTranscript(trimmed, options.now, tz);
      bad(`Invalid JSON: ${(e as Error).message}`);
    }
    if (Array.isArray(data)) return parseLocomo(data);
    if (data && typeof data === 'object' && Array.isArray((data as any).sessions)) return parseSessions(data as any, tz);
    if (data && typeof data === 'object' && typeof (data as any).text === 'string') return { format: 'jsonl', groups: [{ id: null, observations: [jsonlObservation(data, 1, tz)] }] };
    bad('Unrecognised JSON: expected a LoCoMo array, { sessions: [...] } or an observation object');
  }
  if (trimmed.startsWith('{')) return parseJsonl(trimmed, tz);
  return parseTranscript(trimmed, options.now, tz);
}

function isJsonl(text: string): boolean {
  const lines = text.split(/\r?\n/).filter((l) => l.trim());
  if (lines.length < 2) return false;
  try {
    JSON.parse(lines[0]);
    return true;
  } catch {
    return false;
  }
}

/**
 * LoCoMo samples → one group per conversation, through the evaluation's own session walk
 * (`eval/locomo.ts`), so `mem ingest` and `mem eval locomo` build the same observations: same text
 * (image caption and query appended), session date-time as observedAt (UTC), `D<s>:<t>` sourceId,
 * `{ session, turn }` metadata.
 */
export function parseLocomo(samples: unknown[]): ParsedFile {
  const groups: ParsedGroup[] = samples.map((sample: any, si) => {
    if (!sample?.conversation || typeof sample.conversation !== 'object') bad(`LoCoMo sample ${si} has no "conversation" object`);
    let turns: EvalObservation[];
    try {
      turns = conversationObservations(sample as LocomoConversation, si);
    } catch (e) {
      bad(`LoCoMo sample ${si}: ${(e as Error).message}`);
    }
    const observations: ParsedObservation[] = turns.map((o) => ({
      text: o.text,
      speaker: typeof o.speaker === 'string' ? o.speaker : undefined,
      observedAt: o.observedAt,
      sourceId: typeof o.sourceId === 'string' ? o.sourceId : undefined,
      metadata: { session: o.session, turn: o.turn },
    }));
    return { id: typeof sample.sample_id === 'string' ? sample.sample_id : `conversation-${si}`, observations };
  });
  return { format: 'locomo', groups };
}

/** This repo's session JSON (see data/sample-conversation.json). */
export function parseSessions(data: { sessions: any[] }, timeZone?: string): ParsedFile {
  const observations: ParsedObservation[] = [];
  data.sessions.forEach((session, si) => {
    if (!session || !Array.isArray(session.turns)) bad(`sessions[${si}] has no "turns" array`);
    const date = typeof session.date === 'string' ? parseSessionDate(session.date, timeZone) : undefined;
    session.turns.forEach((turn: any, ti: number) => {
      if (typeof turn?.text !== 'string' || !turn.text.trim()) bad(`sessions[${si}].turns[${ti}] has no text`);
      observations.push({
        text: turn.text.trim(),
        speaker: typeof turn.speaker === 'string' ? turn.speaker : undefined,
        observedAt: stamp(date, ti),
        sourceId: typeof turn.id === 'string' ? turn.id : undefined,
        metadata: { session: session.id ?? si + 1 },
      });
    });
  });
  return { format: 'sessions', groups: [{ id: null, observations }] };
}

function jsonlObservation(o: any, line: number, timeZone?: string): ParsedObservation {
  if (!o || typeof o !== 'object' || Array.isArray(o)) bad(`line ${line}: expected a JSON object`);
  if (typeof o.text !== 'string' || !o.text.trim()) bad(`line ${line}: "text" must be a non-empty string`);
  for (const key of ['speaker', 'sourceId'] as const) {
    if (o[key] !== undefined && o[key] !== null && typeof o[key] !== 'string') bad(`line ${line}: "${key}" must be a string`);
  }
  if (o.metadata !== undefined && (typeof o.metadata !== 'object' || o.metadata === null || Array.isArray(o.metadata))) {
    bad(`line ${line}: "metadata" must be an object`);
  }
  let observedAt: string | undefined;
  if (o.observedAt !== undefined && o.observedAt !== null) {
    if (typeof o.observedAt === 'number') {
      // core's rule for numbers: epoch ms in the years 0000–9999; [0, 1e11) is refused as probable
      // epoch seconds (BAD_DATE), so a seconds value is not stored as 1970
      try {
        observedAt = normalizeObservedAt(o.observedAt);
      } catch (e) {
        const code = MemError.isInstance(e) ? (e as MemError).code : 'BAD_DATE';
        throw new MemValidationError(code, `line ${line}: ${(e as Error).message}`);
      }
    } else if (typeof o.observedAt === 'string') {
      try {
        observedAt = parseSessionDate(o.observedAt, timeZone);
      } catch {
        bad(`line ${line}: "observedAt" is not a date: ${String(o.observedAt).slice(0, 60)}`);
      }
    } else bad(`line ${line}: "observedAt" must be an ISO string or epoch ms`);
  }
  return {
    text: o.text.trim(),
    speaker: o.speaker ?? undefined,
    observedAt,
    sourceId: o.sourceId ?? undefined,
    metadata: o.metadata,
  };
}

/** JSONL observations, one object per non-empty line. */
export function parseJsonl(text: string, timeZone?: string): ParsedFile {
  const observations: ParsedObservation[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (!raw.trim()) return;
    let o: unknown;
    try {
      o = JSON.parse(raw);
    } catch (e) {
      bad(`line ${i + 1}: invalid JSON (${(e as Error).message})`);
    }
    observations.push(jsonlObservation(o, i + 1, timeZone));
  });
  return { format: 'jsonl', groups: [{ id: null, observations }] };
}

const HEADER = /^(?:#{1,6}\s*|-{3,}\s*|\[\s*)(?:session\s*\d*\s*[—–:,(-]*\s*)?(.*?)\s*(?:\)|\]|-{3,})?\s*$/i;
const TURN = /^([^:\n]{1,60}?):\s+(.+)$/;

/** Plain transcript: `Speaker: text` lines with optional session date headers. */
export function parseTranscript(text: string, now?: string, timeZone?: string): ParsedFile {
  const observations: ParsedObservation[] = [];
  let session = 0;
  let sessionDate: string | undefined = now;
  let index = 0;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    const header = HEADER.exec(line);
    if (header && /^(#|-{3}|\[)/.test(line)) {
      const dateText = header[1];
      if (dateText) {
        try {
          sessionDate = parseSessionDate(dateText, timeZone);
        } catch {
          bad(`line ${i + 1}: session header without a readable date: "${line.slice(0, 80)}"`);
        }
      }
      session += 1;
      index = 0;
      return;
    }
    const turn = TURN.exec(line);
    observations.push({
      text: (turn ? turn[2] : line).trim(),
      speaker: turn ? turn[1].trim() : undefined,
      observedAt: stamp(sessionDate, index),
      sourceId: `T${Math.max(session, 1)}:${index + 1}`,
      metadata: { session: Math.max(session, 1), line: i + 1 },
    });
    index += 1;
  });
  if (observations.length === 0) bad('The transcript has no turns');
  return { format: 'transcript', groups: [{ id: null, observations }] };
}

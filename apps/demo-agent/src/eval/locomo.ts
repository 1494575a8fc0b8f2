/**
 * LoCoMo data handling for the offline evaluation (ours, following the LoCoMo release format:
 * Maharana et al., ACL 2024, `data/locomo10.json`): session dates, observations per turn, evidence
 * id normalisation, and the locomo-audit corrections.
 */
import { MemValidationError } from '@mem/core';

export interface LocomoTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
  query?: string;
  img_url?: string[];
}

export interface LocomoQa {
  question: string;
  answer?: string | number | null;
  adversarial_answer?: string | number | null;
  evidence?: string[];
  category: number;
}

export interface LocomoConversation {
  sample_id?: string;
  conversation: Record<string, unknown> & { speaker_a?: string; speaker_b?: string };
  qa: LocomoQa[];
}

/** One entry of locomo-audit-errors.json (dial481/locomo-audit). */
export interface AuditEntry {
  question_id: string;
  question?: string;
  category?: number;
  error_type?: string;
  correct_evidence?: string[] | null;
  correct_answer?: string | number | null;
}

/** A turn as an observation of the memory under test. */
export interface EvalObservation {
  /** `conversation` index in the data file (0-based). */
  conversation: number;
  /** Session number; a string `<conversation>/<session>` when conversations share one scope (BEAM `--one-scope`). */
  session: number | string;
  turn: number;
  /** Dialogue id, e.g. `D3:12`; used as the observation's `sourceId`. */
  sourceId: string;
  speaker: string;
  /** Turn text, plus the shared image's caption and search query when present. */
  text: string;
  /** Session date-time, UTC ISO-8601. */
  observedAt: string;
  /** Extra observation metadata (e.g. BEAM's `part` / `parts` of a split message). */
  metadata?: Record<string, unknown>;
}

/** A question prepared for scoring. */
export interface EvalQuestion {
  conversation: number;
  qaIndex: number;
  category: number;
  question: string;
  /** Gold answer as text ('' when none). Adversarial questions use `adversarial_answer`. */
  answer: string;
  /** Normalised, de-duplicated evidence dialogue ids. */
  evidence: string[];
  /** True when an audit correction was applied. */
  audited: boolean;
}

const MONTHS: Record<string, number> = {
  january: 0, february: 1, march: 2, april: 3, may: 4, june: 5, july: 6, august: 7, september: 8, october: 9, november: 10, december: 11,
};

/**
 * Parse LoCoMo's session stamp `h:mm am|pm on D Month, YYYY` (e.g. "1:56 pm on 8 May, 2023") as UTC
 * (the data has no zone). Returns ISO-8601 (`2023-05-08T13:56:00.000Z`). Throws MemValidationError
 * `BAD_DATE` when the text does not match or names an impossible date.
 */
export function parseLocomoDateTime(text: string): string {
  const m = /^\s*(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(String(text));
  const month = m ? MONTHS[m[5].toLowerCase()] ?? MONTHS[Object.keys(MONTHS).find((k) => k.startsWith(m[5].toLowerCase().slice(0, 3))) ?? ''] : undefined;
  if (!m || month === undefined) throw new MemValidationError('BAD_DATE', `not a LoCoMo session date: ${JSON.stringify(text)}`);
  const h12 = Number(m[1]);
  const minute = Number(m[2]);
  const day = Number(m[4]);
  const year = Number(m[6]);
  if (h12 < 1 || h12 > 12 || minute > 59) throw new MemValidationError('BAD_DATE', `bad time in ${JSON.stringify(text)}`);
  const hour = (h12 % 12) + (m[3].toLowerCase() === 'p' ? 12 : 0);
  const d = new Date(Date.UTC(year, month, day, hour, minute));
  if (d.getUTCDate() !== day || d.getUTCMonth() !== month) throw new MemValidationError('BAD_DATE', `impossible date ${JSON.stringify(text)}`);
  return d.toISOString();
}

/** Text of a turn: the utterance, then `[image: <caption>; <query>]` when an image was shared. */
export function turnText(t: LocomoTurn): string {
  const parts = [t.blip_caption, t.query].filter((x): x is string => typeof x === 'string' && x.trim() !== '');
  const base = (t.text ?? '').trim();
  return parts.length ? `${base}${base ? ' ' : ''}[image: ${parts.join('; ')}]` : base;
}

/** Every turn of a conversation as an observation, sessions in numeric order, turns in file order. */
export function conversationObservations(conv: LocomoConversation, conversation: number): EvalObservation[] {
  const c = conv.conversation;
  const sessions = Object.keys(c)
    .map((k) => /^session_(\d+)$/.exec(k))
    .filter((m): m is RegExpExecArray => !!m && Array.isArray(c[m[0]]))
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  const out: EvalObservation[] = [];
  for (const s of sessions) {
    const stamp = c[`session_${s}_date_time`];
    if (typeof stamp !== 'string') throw new MemValidationError('BAD_DATE', `conversation ${conversation} session ${s} has no date_time`);
    const observedAt = parseLocomoDateTime(stamp);
    (c[`session_${s}`] as LocomoTurn[]).forEach((t, i) => {
      const text = turnText(t);
      if (!text) return;
      out.push({ conversation, session: s, turn: i + 1, sourceId: t.dia_id, speaker: t.speaker, text, observedAt });
    });
  }
  return out;
}

/**
 * Normalise evidence ids as released: split `"D8:6; D9:17"`, repair `"D:11:26"` → `D11:26`, drop
 * ids that name no turn (`"D"`), de-duplicate keeping order.
 */
export function normalizeEvidence(raw: readonly unknown[] | null | undefined): string[] {
  const out: string[] = [];
  for (const r of raw ?? []) {
    for (const piece of String(r).split(/[;,\s]+/)) {
      const m = /^D:?(\d+):(\d+)$/i.exec(piece.trim());
      if (!m) continue;
      const id = `D${Number(m[1])}:${Number(m[2])}`;
      if (!out.includes(id)) out.push(id);
    }
  }
  return out;
}

/** The audit id of a question: `locomo_{conversation}_qa{index}` (both 0-based). */
export function auditId(conversation: number, qaIndex: number): string {
  return `locomo_${conversation}_qa${qaIndex}`;
}

/** Parse and check an audit file's content; throws MemValidationError `INVALID_INPUT`. */
export function parseAudit(json: unknown): Map<string, AuditEntry> {
  if (!Array.isArray(json)) throw new MemValidationError('INVALID_INPUT', 'audit file must be a JSON array');
  const map = new Map<string, AuditEntry>();
  for (const e of json) {
    if (!e || typeof e !== 'object' || typeof (e as AuditEntry).question_id !== 'string' || !/^locomo_\d+_qa\d+$/.test((e as AuditEntry).question_id)) {
      throw new MemValidationError('INVALID_INPUT', `audit entry without a valid question_id: ${JSON.stringify(e).slice(0, 120)}`);
    }
    map.set((e as AuditEntry).question_id, e as AuditEntry);
  }
  return map;
}

function answerText(a: unknown): string {
  return a === undefined || a === null ? '' : String(a);
}

/**
 * The questions of one conversation, with audit corrections applied when `audit` is given:
 * `correct_evidence` replaces the evidence (an empty list means the question has no valid evidence),
 * `correct_answer` replaces the answer.
 */
export function conversationQuestions(conv: LocomoConversation, conversation: number, audit?: Map<string, AuditEntry>): EvalQuestion[] {
  return conv.qa.map((qa, qaIndex) => {
    const fix = audit?.get(auditId(conversation, qaIndex));
    let evidence = normalizeEvidence(qa.evidence);
    let answer = answerText(qa.category === 5 ? (qa.adversarial_answer ?? qa.answer) : qa.answer);
    if (fix) {
      if (Array.isArray(fix.correct_evidence)) evidence = normalizeEvidence(fix.correct_evidence);
      if (fix.correct_answer !== undefined && fix.correct_answer !== null) answer = answerText(fix.correct_answer);
    }
    return { conversation, qaIndex, category: qa.category, question: String(qa.question), answer, evidence, audited: !!fix };
  });
}

/** Check the top-level shape of a LoCoMo file; throws MemValidationError `INVALID_INPUT`. */
export function checkLocomo(json: unknown): LocomoConversation[] {
  if (!Array.isArray(json) || json.length === 0) throw new MemValidationError('INVALID_INPUT', 'LoCoMo data must be a non-empty JSON array of conversations');
  json.forEach((c, i) => {
    if (!c || typeof c !== 'object' || typeof (c as any).conversation !== 'object' || !Array.isArray((c as any).qa)) {
      throw new MemValidationError('INVALID_INPUT', `LoCoMo conversation ${i} lacks "conversation" or "qa"`);
    }
  });
  return json as LocomoConversation[];
}

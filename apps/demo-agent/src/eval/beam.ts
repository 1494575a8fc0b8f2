/**
 * BEAM for the offline evaluation (`mem eval beam`; ours, following the release format of BEAM,
 * "Beyond a Million Tokens", Tavakoli et al., arXiv 2510.27246: `chats/<split>/<n>/chat.json` and
 * `probing_questions.json`). The data is read at run time and never shipped.
 *
 * - One memory per conversation; one observation per message: `sourceId` = its chat id, `speaker` =
 *   its role (`user` / `assistant`), the user's "->-> b,t" marker removed, `observedAt` = the batch's
 *   time anchor (UTC midnight) + the message's position in the batch in seconds, so order is kept.
 * - A message longer than `maxTextBytes` (UTF-8) is split into linked observations that share its
 *   sourceId (`metadata.part` / `metadata.parts`), cut at paragraph, sentence or word boundaries;
 *   every split is reported.
 * - Evidence = `source_chat_ids` in every shape (a list, a dict of lists, a string holding either);
 *   without it, the chat ids of `conversation_references` ("chat_id: 246, 248", "chat_id: 172-173").
 *   Ids that name no message are dropped and counted.
 * - Question groups: `overall` and the ten question types. Abstention questions have no evidence, so
 *   they count only in answer mode (System-Two answers judged against the rubric).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_MAX_TEXT_BYTES, MemValidationError } from '@mem/core';
import type { EvalObservation } from './locomo.js';
import { costTable, loadAverageLines, r4, recallAtK } from './metrics.js';
import { readInputFile } from '../output.js';
import type { DumpRow, EvalReport, PreparedConversation, PreparedQuestion, RunEvalOptions } from './engine.js';

/** The ten probing-question types of BEAM, in report order. */
export const BEAM_TYPES = [
  'abstention',
  'contradiction_resolution',
  'event_ordering',
  'information_extraction',
  'instruction_following',
  'knowledge_update',
  'multi_session_reasoning',
  'preference_following',
  'summarization',
  'temporal_reasoning',
] as const;

/** Report groups of BEAM: overall, then each type. */
export const BEAM_GROUPS: readonly string[] = ['overall', ...BEAM_TYPES];

export interface BeamMessage {
  role: string;
  id: number | string;
  content: string;
  time_anchor?: string;
  [k: string]: unknown;
}
export interface BeamBatch {
  batch_number?: string | number;
  time_anchor?: string | null;
  turns: BeamMessage[][];
}
export type BeamProbing = Record<string, Record<string, unknown>[]>;

/** The memory's limit on a sourceId (`@mem/core` validate.ts). */
const MAX_SOURCE_ID_CHARS = 512;
/** True when the string has no lone UTF-16 surrogate (the memory refuses such text). */
function wellFormed(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return false;
  }
  return true;
}

/** A split message: `parts` observations share `sourceId`. */
export interface SplitRecord {
  conversation: number;
  sourceId: string;
  bytes: number;
  parts: number;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/**
 * Parse a BEAM time anchor `Month-DD-YYYY` (e.g. "March-15-2024"; month names may be abbreviated) as
 * UTC midnight, ISO-8601. Throws MemValidationError `BAD_DATE` when it does not match or is impossible.
 */
export function parseBeamAnchor(text: string): string {
  const m = /^\s*([A-Za-z]+)[-\s/]+(\d{1,2})[-\s/,]+(\d{4})\s*$/.exec(String(text));
  const month = m ? MONTHS.findIndex((n) => n.startsWith(m[1].toLowerCase().slice(0, 3))) : -1;
  if (!m || month < 0) throw new MemValidationError('BAD_DATE', `not a BEAM time anchor: ${JSON.stringify(text)}`);
  const day = Number(m[2]);
  const d = new Date(Date.UTC(Number(m[3]), month, day));
  if (d.getUTCDate() !== day || d.getUTCMonth() !== month) throw new MemValidationError('BAD_DATE', `impossible date ${JSON.stringify(text)}`);
  return d.toISOString();
}

/** A user message's text without BEAM's trailing "->-> b,t" marker (not part of what was said). */
export function stripBeamMarker(text: string): string {
  return String(text).replace(/\s*->->\s*[\d\s,]*$/, '').trim();
}

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

/**
 * Split `text` into pieces of at most `maxBytes` UTF-8 bytes (ours): each cut at the last paragraph
 * break, else sentence end, else whitespace in the piece's second half, else at the byte limit
 * (never inside a code point). Pieces are trimmed; empty ones (e.g. runs of spaces) are dropped, so
 * nothing but whitespace is lost. Text within the limit is returned as one piece.
 */
export function splitLongText(text: string, maxBytes: number): string[] {
  if (!Number.isInteger(maxBytes) || maxBytes < 16) throw new MemValidationError('INVALID_INPUT', `maxTextBytes must be an integer ≥ 16, got ${maxBytes}`);
  if (utf8(text) <= maxBytes) return [text];
  const out: string[] = [];
  let rest = text;
  while (rest.length) {
    if (utf8(rest) <= maxBytes) {
      out.push(rest);
      break;
    }
    // the longest prefix within maxBytes, by code points
    let bytes = 0;
    let end = 0;
    for (const ch of rest) {
      const b = utf8(ch);
      if (bytes + b > maxBytes) break;
      bytes += b;
      end += ch.length;
    }
    const head = rest.slice(0, end);
    const half = Math.floor(end / 2);
    let cut = -1;
    for (const re of [/\n\s*\n/g, /[.!?]["'”’)\]]*\s/g, /\s/g]) {
      let m: RegExpExecArray | null;
      let last = -1;
      re.lastIndex = 0;
      while ((m = re.exec(head))) last = m.index + m[0].length;
      if (last > half) {
        cut = last;
        break;
      }
    }
    if (cut <= 0) cut = end;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  return out.map((p) => p.trim()).filter((p) => p.length > 0);
}

/**
 * Every message of a BEAM chat as observations (batches in file order; messages in order), with the
 * long ones split. Throws MemValidationError `INVALID_INPUT` for a malformed chat (not a list of
 * batches with `turns`, a message without role / id / content, a repeated id) and `BAD_DATE` when
 * the first batch has no time anchor (later batches without one keep the previous batch's date).
 */
export function beamObservations(chat: unknown, conversation: number, maxTextBytes: number = DEFAULT_MAX_TEXT_BYTES): { observations: EvalObservation[]; split: SplitRecord[] } {
  if (!Array.isArray(chat) || chat.length === 0) throw new MemValidationError('INVALID_INPUT', `BEAM conversation ${conversation}: chat.json must be a non-empty list of batches`);
  const observations: EvalObservation[] = [];
  const split: SplitRecord[] = [];
  const seen = new Set<string>();
  let anchor: string | null = null;
  chat.forEach((batch: BeamBatch, b) => {
    if (!batch || !Array.isArray(batch.turns)) throw new MemValidationError('INVALID_INPUT', `BEAM conversation ${conversation}: batch ${b + 1} has no "turns" list`);
    const messages = batch.turns.flatMap((ex) => (Array.isArray(ex) ? ex : [ex]));
    const own = (typeof batch.time_anchor === 'string' && batch.time_anchor !== 'None' ? batch.time_anchor : null) ?? messages.find((m) => typeof m?.time_anchor === 'string')?.time_anchor ?? null;
    if (own) anchor = parseBeamAnchor(own);
    if (!anchor) throw new MemValidationError('BAD_DATE', `BEAM conversation ${conversation}: batch ${b + 1} has no time anchor and no earlier batch has one`);
    const base = Date.parse(anchor);
    messages.forEach((m, i) => {
      if (!m || typeof m.content !== 'string' || typeof m.role !== 'string' || (typeof m.id !== 'number' && typeof m.id !== 'string')) {
        throw new MemValidationError('INVALID_INPUT', `BEAM conversation ${conversation}: batch ${b + 1} message ${i + 1} lacks role, id or content`);
      }
      const sourceId = String(m.id);
      if (seen.has(sourceId)) throw new MemValidationError('INVALID_INPUT', `BEAM conversation ${conversation}: chat id ${sourceId} repeats`);
      seen.add(sourceId);
      // checked here, before any memory is built, as the memory's own validation would (break-it)
      if (sourceId.length > MAX_SOURCE_ID_CHARS) throw new MemValidationError('INVALID_INPUT', `BEAM conversation ${conversation}: chat id ${sourceId.slice(0, 40)}… is longer than ${MAX_SOURCE_ID_CHARS} characters`);
      if (!wellFormed(m.content) || !wellFormed(m.role)) throw new MemValidationError('INVALID_INPUT', `BEAM conversation ${conversation}: chat id ${sourceId} contains a lone UTF-16 surrogate`);
      // the memory stores text in NFC, which can be longer in UTF-8 than the file's form: split the NFC form
      const raw = m.role === 'user' ? stripBeamMarker(m.content) : m.content.trim();
      const text = raw.normalize('NFC');
      if (!text) return;
      const observedAt = new Date(base + (i + 1) * 1000).toISOString();
      const pieces = splitLongText(text, maxTextBytes);
      if (pieces.length > 1) split.push({ conversation, sourceId, bytes: utf8(text), parts: pieces.length });
      pieces.forEach((piece, p) => {
        observations.push({
          conversation,
          session: b + 1,
          turn: i + 1,
          sourceId,
          speaker: m.role,
          text: piece,
          observedAt,
          ...(pieces.length > 1 ? { metadata: { part: p + 1, parts: pieces.length } } : {}),
        });
      });
    });
  });
  // an empty conversation would build no memory, and the retrievers would then read a never-opened store
  if (observations.length === 0) throw new MemValidationError('INVALID_INPUT', `BEAM conversation ${conversation}: chat.json holds no message text to remember`);
  return { observations, split };
}

/** Integers named by a BEAM evidence field: numbers, numeric strings, lists / dicts of them, or a string holding them. */
function idsIn(v: unknown, out: string[]): void {
  if (v === null || v === undefined) return;
  if (typeof v === 'number' && Number.isInteger(v)) out.push(String(v));
  else if (typeof v === 'string') for (const m of v.matchAll(/\d+/g)) out.push(String(Number(m[0])));
  else if (Array.isArray(v)) for (const x of v) idsIn(x, out);
  else if (typeof v === 'object') for (const x of Object.values(v as Record<string, unknown>)) idsIn(x, out);
}

/**
 * Evidence chat ids of a probing question, de-duplicated in order: `source_chat_ids` in any shape;
 * when it is absent, the ids of `conversation_references` entries that say `chat_id` (with ranges
 * "172-173" expanded). [] when neither names an id.
 */
export function beamEvidence(q: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (q.source_chat_ids !== undefined && q.source_chat_ids !== null) idsIn(q.source_chat_ids, out);
  else {
    const refs = Array.isArray(q.conversation_references) ? q.conversation_references : typeof q.conversation_references === 'string' ? [q.conversation_references] : [];
    for (const r of refs) {
      const s = String(r);
      const m = /chat[_ ]?ids?\s*:?\s*([\d\s,\-–]+)/i.exec(s);
      if (!m) continue;
      for (const part of m[1].split(',')) {
        const range = /^\s*(\d+)\s*[-–]\s*(\d+)\s*$/.exec(part);
        if (range && Number(range[2]) >= Number(range[1]) && Number(range[2]) - Number(range[1]) < 50) {
          for (let i = Number(range[1]); i <= Number(range[2]); i++) out.push(String(i));
        } else idsIn(part, out);
      }
    }
  }
  return [...new Set(out)];
}

/** A rubric as a list of items (a list, or a string holding a Python / JSON list). */
export function beamRubric(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String).filter((s) => s.trim());
  if (typeof v !== 'string' || !v.trim()) return [];
  try {
    const j = JSON.parse(v);
    if (Array.isArray(j)) return j.map(String);
  } catch {
    /* a Python repr: read its quoted items */
  }
  const items = [...v.matchAll(/'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1] ?? m[2]);
  return items.length ? items : [v];
}

/** The ideal answer of a probing question (`answer`, `ideal_answer`, `ideal_response` or `ideal_summary`), '' when none. */
export function beamAnswer(q: Record<string, unknown>): string {
  for (const k of ['answer', 'ideal_answer', 'ideal_response', 'ideal_summary']) if (typeof q[k] === 'string' && q[k]) return q[k] as string;
  return '';
}

/**
 * The probing questions of one conversation, types in `BEAM_TYPES` order (then any other type),
 * questions in file order; `qaIndex` counts over that order. Evidence ids that name no message of
 * `known` are dropped and counted in `missing`. With `maxQuestions`, the first questions of each type
 * in turn (round robin) are kept. Throws MemValidationError `INVALID_INPUT` for a malformed file.
 */
export function beamQuestions(
  probing: unknown,
  conversation: number,
  known: ReadonlySet<string>,
  maxQuestions?: number,
): { questions: PreparedQuestion[]; missing: number } {
  if (!probing || typeof probing !== 'object' || Array.isArray(probing)) throw new MemValidationError('INVALID_INPUT', `BEAM conversation ${conversation}: probing_questions.json must map question types to lists`);
  const p = probing as BeamProbing;
  const types = [...BEAM_TYPES.filter((t) => t in p), ...Object.keys(p).filter((t) => !(BEAM_TYPES as readonly string[]).includes(t)).sort()];
  let missing = 0;
  const all: (PreparedQuestion & { nth: number; typeRank: number })[] = [];
  let qaIndex = 0;
  types.forEach((type, typeRank) => {
    const list = p[type];
    if (!Array.isArray(list)) throw new MemValidationError('INVALID_INPUT', `BEAM conversation ${conversation}: question type ${type} is not a list`);
    list.forEach((q, nth) => {
      if (!q || typeof q.question !== 'string') throw new MemValidationError('INVALID_INPUT', `BEAM conversation ${conversation}: ${type} question ${nth + 1} has no "question"`);
      const ids = beamEvidence(q);
      const evidence = ids.filter((id) => known.has(id));
      missing += ids.length - evidence.length;
      const answer = beamAnswer(q);
      const groups = ['overall', type];
      all.push({
        qaIndex: qaIndex++,
        category: type,
        groups,
        answerGroups: groups,
        // answer-token recall needs an answer that is in the chat: not abstention's "no information"
        tokenGroups: type === 'abstention' || !answer ? [] : groups,
        question: q.question,
        answer,
        evidence,
        rubric: beamRubric(q.rubric),
        nth,
        typeRank,
      });
    });
  });
  let kept = all;
  if (maxQuestions !== undefined) {
    if (!Number.isInteger(maxQuestions) || maxQuestions < 1) throw new MemValidationError('INVALID_INPUT', `maxQuestions must be a positive integer, got ${maxQuestions}`);
    kept = [...all].sort((a, b) => a.nth - b.nth || a.typeRank - b.typeRank).slice(0, maxQuestions).sort((a, b) => a.qaIndex - b.qaIndex);
  }
  return { questions: kept.map(({ nth: _n, typeRank: _t, ...q }) => q), missing };
}

/** The conversation folders of a BEAM split directory (numeric names), ascending. */
export function beamConversationIds(dir: string): number[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    throw new MemValidationError(
      'INVALID_INPUT',
      `cannot read BEAM data ${dir}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : (e as Error).message} (BEAM is not in this repository: pass --data the folder holding <n>/chat.json, e.g. ../shared/data/beam/500K)`,
      { cause: e },
    );
  }
  return names.filter((n) => /^\d+$/.test(n)).map(Number).sort((a, b) => a - b);
}

function readJsonFile(file: string, what: string): unknown {
  const text = readInputFile(file, what);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new MemValidationError('INVALID_INPUT', `cannot read ${what} ${file}: not valid JSON (${(e as Error).message})`, { cause: e });
  }
}

export interface BeamConfig {
  data: string;
  /** All conversations were put into one memory scope (`--one-scope`); absent or false: one memory each. */
  one_scope?: boolean;
  /** Whitespace-separated words of every observation's text (the ingest size; BEAM counts ~1.8 tokens a word). */
  observation_words?: number;
  max_questions: number | null;
  max_text_bytes: number;
  /** Messages split into several observations. */
  split_messages: SplitRecord[];
  /** Evidence ids that named no message (dropped). */
  evidence_missing: number;
  /** Questions with no evidence (abstention, and any whose evidence names no message): left out of recall. */
  questions_without_evidence: number;
}

export type BeamReport = EvalReport<BeamConfig>;

export interface RunBeamEvalOptions extends Omit<RunEvalOptions, 'dataset' | 'groups'> {
  /** A BEAM split folder holding `<n>/chat.json` and `<n>/probing_questions.json` (e.g. ../shared/data/beam/500K). */
  data: string;
  /** Conversation folder numbers (default: all numeric folders). */
  conversations?: number[];
  /** Questions per conversation (round robin over types). Default: all. */
  maxQuestions?: number;
  /** Split messages longer than this (UTF-8 bytes). Default: the memory's default, 65 536. */
  maxTextBytes?: number;
  /**
   * Put every given conversation into ONE memory scope and ask each conversation's questions against
   * the whole of it (issue 33 point 3; see {@link oneScopeConversation}). Default false: one memory per
   * conversation.
   */
  oneScope?: boolean;
}

/**
 * The given BEAM conversations as ONE prepared conversation (ours; `mem eval beam --one-scope`):
 * every observation of every conversation goes into a single memory scope, conversations in the given
 * order. A message's id becomes `<conversation>:<chat id>` and its session `<conversation>/<batch>`, so
 * chat ids repeated across conversations stay distinct and no dialogue chain (SAME_EPISODE, previous
 * turn) crosses from one conversation into another. Each question keeps its own conversation
 * (`conversation`, reported in dump rows) and its evidence ids become `<conversation>:<chat id>`: the
 * other conversations are distractors. The merged conversation's `index` is 0 (no BEAM folder is 0).
 */
export function oneScopeConversation(prepared: PreparedConversation[]): PreparedConversation {
  const id = (c: number, sourceId: string) => `${c}:${sourceId}`;
  return {
    index: 0,
    observations: prepared.flatMap((p) => p.observations.map((o) => ({ ...o, sourceId: id(p.index, o.sourceId), session: `${p.index}/${o.session}` }))),
    questions: prepared.flatMap((p) => p.questions.map((q) => ({ ...q, conversation: p.index, evidence: q.evidence.map((e) => id(p.index, e)) }))),
  };
}

/** Whitespace-separated words of the observations' texts (ours; the ingest size of a run). */
export function observationWords(prepared: readonly PreparedConversation[]): number {
  let n = 0;
  for (const p of prepared) for (const o of p.observations) n += o.text.split(/\s+/).filter(Boolean).length;
  return n;
}

/**
 * Prepare BEAM conversations for the engine: every conversation's files are read and checked
 * before any system is built (a bad file fails the run up front, nothing written).
 */
export function prepareBeam(options: Pick<RunBeamEvalOptions, 'data' | 'conversations' | 'maxQuestions' | 'maxTextBytes'>): { prepared: PreparedConversation[]; config: BeamConfig } {
  const maxTextBytes = options.maxTextBytes ?? DEFAULT_MAX_TEXT_BYTES;
  if (!Number.isInteger(maxTextBytes) || maxTextBytes < 16 || maxTextBytes > DEFAULT_MAX_TEXT_BYTES) {
    throw new MemValidationError('INVALID_INPUT', `maxTextBytes must be an integer in 16..${DEFAULT_MAX_TEXT_BYTES} (the memory's limit), got ${maxTextBytes}`);
  }
  const available = beamConversationIds(options.data);
  const convs = options.conversations ?? available;
  if (convs.length === 0) throw new MemValidationError('INVALID_INPUT', `no BEAM conversations in ${options.data} (expected folders 1, 2, … holding chat.json)`);
  for (const c of convs) if (!available.includes(c)) throw new MemValidationError('INVALID_INPUT', `BEAM conversation ${c} is not in ${options.data} (found: ${available.join(', ') || 'none'})`);
  const config: BeamConfig = { data: options.data, max_questions: options.maxQuestions ?? null, max_text_bytes: maxTextBytes, split_messages: [], evidence_missing: 0, questions_without_evidence: 0 };
  const prepared = convs.map((c) => {
    const dir = path.join(options.data, String(c));
    const { observations, split } = beamObservations(readJsonFile(path.join(dir, 'chat.json'), `BEAM chat`), c, maxTextBytes);
    const { questions, missing } = beamQuestions(readJsonFile(path.join(dir, 'probing_questions.json'), 'BEAM probing questions'), c, new Set(observations.map((o) => o.sourceId)), options.maxQuestions);
    config.split_messages.push(...split);
    config.evidence_missing += missing;
    config.questions_without_evidence += questions.filter((q) => q.evidence.length === 0).length;
    return { index: c, observations, questions };
  });
  return { prepared, config };
}

/**
 * `mem eval beam`: recall@k per question type and overall, answer-token recall against the ideal
 * answer, build seconds, latency p50/p95 (and, with an answerer, rubric-judged answers). Throws
 * MemValidationError for bad data or options before anything is built; a failure in any
 * conversation throws and writes no dump (see `runEval`).
 */
export async function runBeamEval(options: RunBeamEvalOptions): Promise<BeamReport> {
  const { prepared, config } = prepareBeam(options);
  const { runEval } = await import('./engine.js');
  const oneScope = options.oneScope === true;
  const report = await runEval(oneScope ? [oneScopeConversation(prepared)] : prepared, {
    ...options,
    dataset: `beam ${path.basename(path.resolve(options.data))}${oneScope ? ' (one scope)' : ''}`,
    groups: BEAM_GROUPS,
  });
  return { ...report, conversations: prepared.length, config: { ...report.config, ...config, conversations: prepared.map((p) => p.index), one_scope: oneScope, observation_words: observationWords(prepared) } };
}

const fmt = (x: number | undefined) => (x === undefined ? '–' : x.toFixed(3));

/** Markdown tables of a BEAM report: recall@k per type for each k, answer-token recall, costs, splits. */
export function formatBeamMarkdown(report: BeamReport): string {
  const names = Object.keys(report.systems);
  const groups = BEAM_GROUPS.filter((g) => names.some((n) => report.systems[n].recall_at_k[g] && Object.keys(report.systems[n].recall_at_k[g]).length));
  const short = (g: string) => g.replaceAll('_', ' ');
  const out: string[] = [];
  const c = report.config;
  out.push(`BEAM ${report.dataset}: conversations ${c.conversations.join(', ')}, ${report.questions} questions (${c.questions_without_evidence} without evidence, left out of recall)${c.embedder ? `; embedder ${c.embedder}` : ''}`);
  for (const k of c.ks) {
    out.push('', `Evidence recall@${k}`, '', `| system | ${groups.map(short).join(' | ')} |`, `|---|${groups.map(() => '---:').join('|')}|`);
    for (const n of names) out.push(`| ${n} | ${groups.map((g) => fmt(report.systems[n].recall_at_k[g]?.[String(k)])).join(' | ')} |`);
  }
  const tg = BEAM_GROUPS.filter((g) => names.some((n) => report.systems[n].answer_token_recall[g] !== undefined));
  out.push('', `Answer-token recall in a ${c.budget_tokens}-token context (questions with an ideal answer, abstention excluded)`, '', `| system | ${tg.map(short).join(' | ')} |`, `|---|${tg.map(() => '---:').join('|')}|`);
  for (const n of names) out.push(`| ${n} | ${tg.map((g) => fmt(report.systems[n].answer_token_recall[g])).join(' | ')} |`);
  out.push('', ...costTable(report.systems, names), ...loadAverageLines(report.config));
  const answered = names.filter((n) => report.systems[n].answers);
  if (answered.length) {
    const first = report.systems[answered[0]].answers!;
    const ag = BEAM_GROUPS.filter((g) => answered.some((n) => report.systems[n].answers!.llm_judge[g] !== undefined));
    out.push('', `System-Two answers (${first.model}${first.judge_model ? `, rubric judge ${first.judge_model}` : ''}): rubric score (0 / 0.5 / 1 per item, mean)`, '', `| system | answered | failed | ${ag.map(short).join(' | ')} |`, `|---|---:|---:|${ag.map(() => '---:').join('|')}|`);
    for (const n of answered) {
      const a = report.systems[n].answers!;
      out.push(`| ${n} | ${a.answered} | ${a.failed} | ${ag.map((g) => fmt(a.llm_judge[g])).join(' | ')} |`);
    }
  }
  const sp = c.split_messages;
  out.push('', sp.length ? `Long messages split (> ${c.max_text_bytes} bytes): ${sp.map((s) => `conv ${s.conversation} chat ${s.sourceId} (${s.bytes} B → ${s.parts})`).join('; ')}` : `No message longer than ${c.max_text_bytes} bytes.`);
  if (c.evidence_missing) out.push(`Evidence ids naming no message (dropped): ${c.evidence_missing}`);
  return out.join('\n');
}

/** Recall@k per conversation × group from dump rows (BEAM's per-conversation tables; ours). */
export function recallByConversationAndType(rows: DumpRow[], k: number): Map<string, Map<number, Record<string, number>>> {
  const acc = new Map<string, Map<number, Map<string, { s: number; n: number }>>>();
  for (const r of rows) {
    const v = recallAtK(r.evidence, r.retrieved, k);
    if (v === null) continue;
    const bySys = acc.get(r.system) ?? new Map();
    acc.set(r.system, bySys);
    const byConv = bySys.get(r.conversation) ?? new Map();
    bySys.set(r.conversation, byConv);
    for (const g of ['overall', String(r.category)]) {
      const e = byConv.get(g) ?? { s: 0, n: 0 };
      e.s += v;
      e.n++;
      byConv.set(g, e);
    }
  }
  return new Map(
    [...acc].map(([s, m]) => [s, new Map([...m].map(([c, g]) => [c, Object.fromEntries([...g].map(([k2, e]) => [k2, r4(e.s / e.n)]))]))]),
  );
}

/** Recall@k per conversation (rows) and type (columns), one table per system (ours). */
export function formatBeamPerConversation(rows: DumpRow[], k: number): string {
  const by = recallByConversationAndType(rows, k);
  const out: string[] = [];
  for (const [system, convs] of by) {
    const groups = BEAM_GROUPS.filter((g) => [...convs.values()].some((r) => r[g] !== undefined));
    out.push('', `${system}: evidence recall@${k} per conversation`, '', `| conv | ${groups.map((g) => g.replaceAll('_', ' ')).join(' | ')} |`, `|---|${groups.map(() => '---:').join('|')}|`);
    for (const [c, r] of [...convs].sort((a, b) => a[0] - b[0])) out.push(`| ${c} | ${groups.map((g) => fmt(r[g])).join(' | ')} |`);
  }
  return out.join('\n');
}

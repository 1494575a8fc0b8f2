/**
 * The offline answer line of a when-question (issue 36; ours). Offline, the answer line quotes a
 * stored memory; for a question that asks for a time, a memory without a date does not answer it, so
 * the line quotes the best-ranked of the top {@link WHEN_WINDOW} evidence items whose text resolved to
 * a date (core's time extraction: "yesterday" said on 18 March → 17 March), and says both dates:
 * when the event happened and when it was said. With no dated item there, it quotes #1 and says
 * that its text gives no date.
 */
import type { EvidenceItem } from '../evidence.js';
import { offlineAnswerWords } from '../../public/wording.js';

/** How far down the evidence list a when-question's answer line may look for a dated memory. */
export const WHEN_WINDOW = 3;

/**
 * True when the question asks for a time: its first interrogative is "when", or "what/which
 * date/day/year/month/time/week", or it asks "how long ago". Grammar, not a cue list: the
 * interrogative of an English question is its first wh-word.
 */
export function asksWhen(question: string): boolean {
  const q = question.toLowerCase();
  const m = /\b(when|what|which|who|whom|whose|where|why|how)\b/.exec(q);
  if (!m) return false;
  if (m[1] === 'when') return true;
  const rest = q.slice(m.index + m[1].length);
  if ((m[1] === 'what' || m[1] === 'which') && /^\s+(date|day|year|month|time|week|weekend)\b/.test(rest)) return true;
  return m[1] === 'how' && /^\s+long\s+ago\b/.test(rest);
}

/** The item a when-question's offline answer line quotes, and its 1-based rank; undefined without evidence. */
export function whenAnswer<T extends Pick<EvidenceItem, 'eventTime'>>(evidence: T[]): { item: T; rank: number } | undefined {
  const i = evidence.slice(0, WHEN_WINDOW).findIndex((e) => e.eventTime);
  if (i >= 0) return { item: evidence[i]!, rank: i + 1 };
  return evidence.length ? { item: evidence[0]!, rank: 1 } : undefined;
}

/** `2025-03-17`, or `2025-02-22 … 2025-02-23` for a span (UTC calendar dates; core's spans end exclusively). */
export function eventDates(eventTime: NonNullable<EvidenceItem['eventTime']>): string {
  const start = eventTime.start.slice(0, 10);
  // core's event spans end exclusively ("yesterday" = [day, next day)): the last day is the one before `end`
  const endMs = eventTime.end ? Date.parse(eventTime.end) : Number.NaN;
  const last = Number.isFinite(endMs) && endMs > Date.parse(eventTime.start) ? new Date(endMs - 1).toISOString().slice(0, 10) : start;
  return last !== start ? `${start} … ${last}` : start;
}

/**
 * What the answer line adds for a when-question: ` — happened 2025-03-17 ("Yesterday"), said
 * 2025-03-18`, or ` — said 2025-03-18; the text gives no date` when the item has no event time.
 * (Which item it is, #1 or a lower one, the label says: {@link offlineAnswerLabel}.)
 */
export function whenNote(item: Pick<EvidenceItem, 'eventTime' | 'observedAt'>): string {
  const said = `said ${item.observedAt.slice(0, 10)}`;
  if (!item.eventTime) return ` — ${said}; the text gives no date`;
  return ` — happened ${eventDates(item.eventTime)} ("${item.eventTime.expression}"), ${said}`;
}

/** The label of an offline answer line: which evidence item it quotes, and that it was not generated (words: public/wording.js). */
export function offlineAnswerLabel(answerRank: number | null, fallback = false): string {
  const words = offlineAnswerWords(answerRank);
  return fallback ? `Answer (${words.replace('offline: ', 'offline fallback, System Two unavailable: ')})` : `Answer (${words})`;
}

/**
 * Dialogue evidence signals (ours): four facts about conversational memory that flat rankings
 * ignore, combined into one bounded term of the evidence order.
 *
 * 1. Coverage — the share of the query's content lemmas found in a turn or in the turn it answers
 *    (its previous turn): coordination-level matching (Salton & McGill 1983) over the dialogue
 *    context, so "It taught me self-acceptance" after "What did you take away from Becoming Nicole?"
 *    covers the query's words.
 * 2. Answer act — questions ask, statements after a question answer: a turn's answerness is
 *    q(previous turn) − q(turn), q = the share of a turn's sentences that are questions.
 * 3. Speaker — a question about one named participant ("What did Ana paint?") is usually answered by
 *    that participant's own turns: +1 for the named speaker's turns, −1 for the other speakers',
 *    0 when the query names no speaker or several.
 *
 * 4. Time — when the query names a time ("in June", "on 13 October 2023", "last year"; resolved by
 *    `@mem/core`'s `resolveEventTimes` against the search's `now`), turns said or dated within that
 *    interval (observedAt, or an overlapping resolved eventTime) get 1, the others 0.
 *
 * d_v = w_c · coverage + w_a · answerness + w_s · speaker + w_t · time (each term in [0, 1] or [−1, 1]).
 */
import { extractKeywords, resolveEventTimes } from '@mem/core';
import type { MemoryNode } from '@mem/core';
import { nodeTerms } from './lexical.js';

/** Weights of the dialogue signals (ours). Default coverage 1, answer act 1, speaker 0.5, time 1. */
export interface DialogueWeights {
  coverage: number;
  answer: number;
  speaker: number;
  time: number;
}

export const DEFAULT_DIALOGUE_WEIGHTS: DialogueWeights = { coverage: 1, answer: 1, speaker: 0.5, time: 1 };

/** An interval [start, end) in epoch ms. */
export interface TimeInterval {
  start: number;
  end: number;
}

const DAY_MS = 86_400_000;

/**
 * The interval the query's first time expression names, resolved against `nowIso` in the calendar of
 * `timeZone` (IANA; default UTC) by `resolveEventTimes` of `@mem/core` (an open end counts as one
 * day), or null when the query names no time. Throws INVALID_INPUT for an unknown zone.
 */
export function queryTimeInterval(query: string, nowIso: string, timeZone?: string): TimeInterval | null {
  const t = resolveEventTimes(query, nowIso, timeZone ? { timeZone } : {})[0];
  if (!t) return null;
  const start = Date.parse(t.start);
  const end = t.end ? Date.parse(t.end) : start + DAY_MS;
  return Number.isFinite(start) && Number.isFinite(end) && end > start ? { start, end } : null;
}

/**
 * Time match τ_v ∈ {0, 1}: 1 when the node was observed within `interval`, or its resolved eventTime
 * [start, end ?? start + 1 day) overlaps it; 0 otherwise or when `interval` is null.
 */
export function timeMatch(n: Pick<MemoryNode, 'observedAt' | 'eventTime'>, interval: TimeInterval | null): number {
  if (!interval) return 0;
  const at = Date.parse(n.observedAt);
  if (at >= interval.start && at < interval.end) return 1;
  if (n.eventTime) {
    const s = Date.parse(n.eventTime.start);
    const e = n.eventTime.end ? Date.parse(n.eventTime.end) : s + DAY_MS;
    if (s < interval.end && interval.start < e) return 1;
  }
  return 0;
}

const IMAGE = /\[image:[^\]]*\]/g;

/**
 * q(text): the share of the text's sentences that are questions (end in "?"), in [0, 1]; image
 * captions (`[image: …]`) are left out; 0 for text without a sentence.
 */
export function questionShare(text: string): number {
  const sentences = text
    .replace(IMAGE, ' ')
    .split(/(?<=[.!?]["'”’)\]]*)\s+/)
    .map((s) => s.trim())
    .filter((s) => /\p{L}/u.test(s));
  if (sentences.length === 0) return 0;
  return sentences.filter((s) => /\?["'”’)\]]*$/.test(s)).length / sentences.length;
}

const termSetMemo = new WeakMap<MemoryNode, Set<string>>();
/** The set of `nodeTerms(n, false)` (a memory's own content terms), memoised per node object (ours, for latency). */
export function nodeTermSet(n: MemoryNode): Set<string> {
  let t = termSetMemo.get(n);
  if (!t) termSetMemo.set(n, (t = new Set(nodeTerms(n, false))));
  return t;
}

const questionMemo = new WeakMap<MemoryNode, number>();
/** {@link questionShare} of a node's text, memoised per node object (ours, for latency). */
export function nodeQuestionShare(n: MemoryNode): number {
  let q = questionMemo.get(n);
  if (q === undefined) questionMemo.set(n, (q = questionShare(n.text)));
  return q;
}

/** Answerness a_v = q(previous turn) − q(turn) ∈ [−1, 1]; the previous turn counts 0 when absent. */
export function answerness(text: string, previousText: string | null | undefined): number {
  return (previousText ? questionShare(previousText) : 0) - questionShare(text);
}

/** Lower-case word tokens (runs of letters / digits), the same split for queries and names. */
const wordTokens = (s: string): string[] => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** A name's tokens; one-letter parts ("O" of O'Brien) only when the name has nothing longer. */
function nameTokens(name: string): string[] {
  const all = wordTokens(name);
  const long = all.filter((t) => t.length > 1);
  return long.length ? long : all;
}

/**
 * Lower-case name tokens of the speakers (e.g. "Ana Lima" → ana, lima; "Jean-Luc" → jean, luc;
 * "O'Brien" → brien), split like the query's words so hyphenated names match (adversarial.test.ts).
 */
export function speakerTokens(speakers: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const s of speakers) for (const t of nameTokens(s)) out.add(t);
  return out;
}

/** The one speaker among `speakers` the query names (any token of the name), or null when none or several are named. */
export function namedSpeaker(query: string, speakers: Iterable<string>): string | null {
  const words = new Set(wordTokens(query));
  const named = [...new Set(speakers)].filter((s) => nameTokens(s).some((t) => words.has(t)));
  return named.length === 1 ? named[0] : null;
}

/**
 * The query as the vector anchor and the cosine features embed it (ours, issue 16): without the names
 * of the scope's speakers. A sentence encoder weighs a shared name heavily, but a speaker's own turns
 * rarely contain their own name (the turns that do are mostly addressed to them: greetings, thanks),
 * so a question naming a speaker is pulled towards the wrong turns; who is asked about is left to the
 * speaker signal (`namedSpeaker`). Measured: exact-cosine recall@10 of all-MiniLM-L6-v2 on LoCoMo dev
 * 0.357 with names, 0.619 with the speakers' names removed from turns and questions
 * (packages/core/bench/dense-embedders-locomo.ts).
 *
 * Only speakers recorded as proper names are names: a speaker whose stored name starts with an
 * upper-case letter ("Caroline", "Jean-Luc"); role labels stored in lower case ("user", "assistant")
 * are not, so "How do I rate users?" keeps "users". Every word of the query equal (case-insensitively,
 * with or without a possessive 's) to a token of such a name is removed, spaces and lone hyphens left
 * behind are collapsed. Returns `query` unchanged when nothing is removed, or when nothing with a
 * letter or digit would be left.
 */
export function queryWithoutSpeakerNames(query: string, speakers: Iterable<string>): string {
  const names = new Set<string>();
  for (const s of new Set(speakers)) if (/^\p{Lu}/u.test(s.trim())) for (const t of nameTokens(s)) names.add(t);
  if (names.size === 0) return query;
  let removed = false;
  const out = query.replace(/[\p{L}\p{N}]+(?:['’][sS])?/gu, (w) => {
    const base = w.replace(/['’][sS]$/, '').toLowerCase();
    if (!names.has(base)) return w;
    removed = true;
    return '';
  });
  if (!removed) return query;
  const clean = out
    .replace(/(^|\s)[-‐–]+(?=\s|$)/gu, '$1')
    .replace(/\s+([,.;:!?)])/g, '$1')
    .replace(/\s{2,}/g, ' ')
    .replace(/^[\s,;:]+/, '')
    .trim();
  return /[\p{L}\p{N}]/u.test(clean) ? clean : query;
}

const keywordMemo = new Map<string, string[]>();
/** `extractKeywords(query)` lower-cased, memoised for the last 256 queries (ours, for latency: a search parses its query for the dialogue scorer and for abstention's term support). */
function queryKeywords(query: string): string[] {
  let k = keywordMemo.get(query);
  if (!k) {
    if (keywordMemo.size >= 256) keywordMemo.clear();
    keywordMemo.set(query, (k = extractKeywords(query).map((t) => t.toLowerCase())));
  }
  return k;
}

/** The query's content lemmas (`extractKeywords`), lower case, without speaker names. */
export function queryContentTerms(query: string, speakerNames: ReadonlySet<string> = new Set()): Set<string> {
  return new Set(queryKeywords(query).filter((t) => !speakerNames.has(t)));
}

/** Coverage |Q ∩ T| / |Q| of the query terms Q by the terms T (0 when Q is empty). */
export function termCoverage(query: ReadonlySet<string>, terms: Iterable<string>): number {
  if (query.size === 0) return 0;
  const t = new Set(terms);
  let hit = 0;
  for (const q of query) if (t.has(q)) hit++;
  return hit / query.size;
}

/** Speaker match σ_v: +1 if `speaker` is the named one, −1 if another speaker, 0 when no speaker is named or the turn has none. */
export function speakerMatch(speaker: string | null, named: string | null): number {
  if (!named || !speaker) return 0;
  return speaker === named ? 1 : -1;
}

/**
 * A scorer of d_v for one query (ours): `speakers` = the scope's speakers; `previous(node)` = the turn
 * the node follows (null when unknown); `queryTime` = {@link queryTimeInterval} of the query. Returns d_v and its parts
 * (`ownCoverage`: the coverage by the turn's own terms alone, a feature of the learned relevance model).
 */
export function createDialogueScorer(
  query: string,
  speakers: Iterable<string>,
  previous: (n: MemoryNode) => MemoryNode | null,
  weights: DialogueWeights = DEFAULT_DIALOGUE_WEIGHTS,
  queryTime: TimeInterval | null = null,
): (n: MemoryNode) => { value: number; coverage: number; ownCoverage: number; answerness: number; speaker: number; time: number } {
  const list = [...new Set(speakers)];
  const q = queryContentTerms(query, speakerTokens(list));
  const named = namedSpeaker(query, list);
  return (n) => {
    const prev = previous(n);
    const own = nodeTermSet(n);
    const before = prev ? nodeTermSet(prev) : null;
    let hitOwn = 0;
    let hit = 0;
    for (const t of q) {
      if (own.has(t)) {
        hitOwn++;
        hit++;
      } else if (before?.has(t)) hit++;
    }
    // = termCoverage(q, [...own, ...previous]) and termCoverage(q, own)
    const coverage = q.size ? hit / q.size : 0;
    const ownCoverage = q.size ? hitOwn / q.size : 0;
    const a = (prev ? nodeQuestionShare(prev) : 0) - nodeQuestionShare(n); // = answerness(n.text, prev?.text)
    const speaker = speakerMatch(n.speaker, named);
    const time = timeMatch(n, queryTime);
    return { value: weights.coverage * coverage + weights.answer * a + weights.speaker * speaker + weights.time * time, coverage, ownCoverage, answerness: a, speaker, time };
  };
}

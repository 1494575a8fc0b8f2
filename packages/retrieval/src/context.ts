/**
 * Context packing for System Two (ours): choose evidence by rank until a token budget is full, then
 * print it in a stable, readable order — grouped by session (observation time), chronological within,
 * with resolved event dates shown. Tokens are counted with `gpt-tokenizer` (o200k_base, the GPT-4o
 * family's encoding). What is true now (issue 37): a memory superseded by another one in the context
 * is shown inside the newer one's line, `now: <newer> (earlier: <older>, until <date>)`.
 */
import { createRequire } from 'node:module';
import { MemValidationError } from '@mem/core';
import type { Evidence, MemoryNode, SearchResult } from '@mem/core';

export interface ToContextOptions {
  /** Maximum tokens of the returned text (o200k_base). Required, integer ≥ 1. */
  tokenBudget: number;
  /** Show each item's sourceId (e.g. `D1:3`) in brackets. Default true. */
  showSourceIds?: boolean;
  /**
   * Cut each item to an excerpt of at most this many tokens (its sentences that share the most words
   * with `query`, in their own order; ours, issue 38), so that more items fit the budget. Default: the
   * result's `wide.excerptTokens` when the read path widened the set for a question that needs many
   * memories, else none (whole items).
   */
  excerptTokens?: number;
  /** The question the excerpts are chosen for (default: the result's `wide.query`). */
  query?: string;
}

export interface PackedContext {
  /** The packed context. */
  text: string;
  /** Its token count (o200k_base), ≤ tokenBudget. */
  tokens: number;
  /** The evidence included, in rank order. */
  included: Evidence[];
  /** How many evidence items did not fit. */
  omitted: number;
}

let tokenCounter: ((text: string) => number) | null = null;

/**
 * o200k_base token count of `text`. gpt-tokenizer decodes its rank table when loaded (~0.15 s), so it
 * is required on first use, not at import: a read that never packs context (the offline `mem ask`)
 * does not pay for it.
 */
function countTokens(text: string): number {
  tokenCounter ??= (createRequire(import.meta.url)('gpt-tokenizer') as typeof import('gpt-tokenizer')).countTokens;
  return tokenCounter(text);
}

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** `8 May 2023` (UTC; ours — the way people, and answers, write dates). Unparseable input is returned as is. */
export function formatDate(iso: string): string {
  const d = new Date(iso);
  if (!Number.isFinite(d.getTime())) return iso;
  return `${d.getUTCDate()} ${MONTH_NAMES[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** `8 May 2023, 13:56 UTC` (ours). */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  if (!Number.isFinite(d.getTime())) return iso;
  return `${formatDate(iso)}, ${d.toISOString().slice(11, 16)} UTC`;
}

function sessionKey(n: MemoryNode): string {
  const s = n.provenance?.metadata?.session;
  return s === undefined || s === null ? n.observedAt : `${String(s)}|${n.observedAt}`;
}

function sessionHeader(n: MemoryNode): string {
  const s = n.provenance?.metadata?.session;
  return `## ${s === undefined || s === null ? 'Session' : `Session ${String(s)}`} — ${formatTime(n.observedAt)}`;
}

function eventNote(n: MemoryNode): string {
  if (!n.eventTime) return '';
  const start = formatDate(n.eventTime.start);
  const end = n.eventTime.end ? formatDate(n.eventTime.end) : null;
  return ` (event: ${end && end !== start ? `${start} to ${end}` : start}, "${n.eventTime.expression}")`;
}

const flat = (t: string) => t.replace(/\s+/g, ' ').trim();

/**
 * One evidence line (ours). With the memory's state (issue 37): a memory that superseded others in
 * the same context reads `now: <text> (earlier: <older text>, until <date>)`, the older ones are not
 * repeated; a superseded memory whose successor is not in the context ends in `(no longer true since
 * <date>)`.
 */
function line(n: MemoryNode, showIds: boolean, earlier: readonly MemoryNode[] = [], staleSince: string | null = null, text: string = n.text): string {
  const id = showIds && n.provenance?.sourceId ? `[${n.provenance.sourceId}] ` : '';
  const who = n.speaker ? `${n.speaker}: ` : '';
  const before = earlier.length
    ? ` (earlier: ${earlier.map((o) => `${o.speaker && o.speaker !== n.speaker ? `${o.speaker}: ` : ''}${flat(o.text)}`).join('; ')}, until ${formatDate(n.observedAt)})`
    : '';
  const stale = staleSince ? ` (no longer true since ${formatDate(staleSince)})` : '';
  return `- ${id}${who}${earlier.length ? 'now: ' : ''}${flat(text)}${eventNote(n)}${before}${stale}`;
}

/** For each evidence item: the superseded items it replaces within `evidence`, and whether it is itself replaced there (ours). */
function statePairs(evidence: readonly Evidence[]): { earlierOf: Map<string, MemoryNode[]>; replaced: Set<string> } {
  const ids = new Set(evidence.map((e) => e.node.id));
  const earlierOf = new Map<string, MemoryNode[]>();
  const replaced = new Set<string>();
  for (const e of evidence) {
    const st = e.state;
    if (st?.status !== 'superseded' || !ids.has(st.by)) continue;
    replaced.add(e.node.id);
    const list = earlierOf.get(st.by) ?? [];
    list.push(e.node);
    earlierOf.set(st.by, list);
  }
  for (const list of earlierOf.values()) list.sort((a, b) => (a.observedAt < b.observedAt ? -1 : 1));
  return { earlierOf, replaced };
}

/**
 * Render evidence grouped by session, sessions and items chronological (ties by sourceId, then id).
 * A superseded item whose successor is in `evidence` is folded into the successor's line
 * (`now: … (earlier: …, until <date>)`); one whose successor is absent says `(no longer true since <date>)`.
 */
export function renderContext(evidence: Evidence[], showIds = true, texts?: ReadonlyMap<string, string>): string {
  const { earlierOf, replaced } = statePairs(evidence);
  const items = evidence.filter((e) => !replaced.has(e.node.id)).sort((a, b) => {
    const ka = sessionKey(a.node);
    const kb = sessionKey(b.node);
    const ta = Date.parse(a.node.observedAt);
    const tb = Date.parse(b.node.observedAt);
    if (ta !== tb) return ta - tb;
    if (ka !== kb) return ka < kb ? -1 : 1;
    return compareSource(a.node, b.node);
  });
  const out: string[] = [];
  let current: string | null = null;
  for (const e of items) {
    const key = sessionKey(e.node);
    if (key !== current) {
      if (current !== null) out.push('');
      out.push(sessionHeader(e.node));
      current = key;
    }
    const st = e.state;
    out.push(line(e.node, showIds, earlierOf.get(e.node.id), st?.status === 'superseded' && st.at ? st.at : null, texts?.get(e.node.id)));
  }
  return out.join('\n');
}

function compareSource(a: MemoryNode, b: MemoryNode): number {
  const sa = a.provenance?.sourceId ?? '';
  const sb = b.provenance?.sourceId ?? '';
  if (sa !== sb) return sa.localeCompare(sb, 'en', { numeric: true });
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Pack a search result's evidence into at most `tokenBudget` tokens. Items are admitted greedily in
 * rank order (an item that does not fit is skipped, smaller later ones may still fit); the admitted
 * items are then rendered by {@link renderContext}. Throws MemValidationError `INVALID_INPUT` for a
 * budget that is not a positive integer.
 */
export function toContext(result: Pick<SearchResult, 'evidence'> & { wide?: { query: string; excerptTokens: number } }, options: ToContextOptions): PackedContext {
  const budget = options?.tokenBudget;
  if (!Number.isInteger(budget) || budget < 1) {
    throw new MemValidationError('INVALID_INPUT', `toContext: tokenBudget must be a positive integer, got ${budget}`);
  }
  const showIds = options.showSourceIds ?? true;
  const excerptTokens = options.excerptTokens ?? result.wide?.excerptTokens;
  if (excerptTokens !== undefined && (!Number.isInteger(excerptTokens) || excerptTokens < 1)) {
    throw new MemValidationError('INVALID_INPUT', `toContext: excerptTokens must be a positive integer, got ${excerptTokens}`);
  }
  const texts = excerptTokens ? new Map(result.evidence.map((e) => [e.node.id, excerpt(e.node.text, options.query ?? result.wide?.query ?? '', excerptTokens)])) : undefined;
  const included: Evidence[] = [];
  const headers = new Set<string>();
  let estimate = 0;
  for (const e of result.evidence) {
    const key = sessionKey(e.node);
    // the state notes add words: counted generously here, exactly by the render below
    const stateCost = e.state?.status === 'superseded' ? 12 : 0;
    const cost = countTokens(line(e.node, showIds, [], null, texts?.get(e.node.id))) + stateCost + 1 + (headers.has(key) ? 0 : countTokens(sessionHeader(e.node)) + 2);
    if (estimate + cost > budget) continue;
    included.push(e);
    headers.add(key);
    estimate += cost;
  }
  let text = renderContext(included, showIds, texts);
  let tokens = text ? countTokens(text) : 0;
  while (tokens > budget && included.length > 0) {
    included.pop();
    text = renderContext(included, showIds, texts);
    tokens = text ? countTokens(text) : 0;
  }
  return { text, tokens, included, omitted: result.evidence.length - included.length };
}

const EXCERPT_STOP = new Set(['the', 'and', 'for', 'with', 'what', 'when', 'where', 'which', 'who', 'how', 'did', 'does', 'was', 'were', 'are', 'has', 'have', 'had', 'that', 'this', 'from', 'about', 'into', 'you', 'your', 'can', 'all', 'any']);
const excerptWords = (s: string) => new Set((s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 2 && !EXCERPT_STOP.has(w)));

/**
 * An excerpt of `text` of at most `maxTokens` tokens (o200k_base; ours, issue 38): its sentences ranked
 * by the number of `query` words they contain (ties: earlier first), taken while they fit, shown in
 * their own order joined by ` … `; the text itself when it fits; the first sentence cut at a word
 * boundary when no sentence fits.
 */
export function excerpt(text: string, query: string, maxTokens: number): string {
  const whole = flat(text);
  if (countTokens(whole) <= maxTokens) return whole;
  const sentences = whole.split(/(?<=[.!?;:])\s+/).filter(Boolean);
  const q = excerptWords(query);
  const scored = sentences.map((s, i) => ({ s, i, hits: [...excerptWords(s)].filter((w) => q.has(w)).length, tokens: countTokens(s) }));
  const picked: typeof scored = [];
  let used = 0;
  for (const x of [...scored].sort((a, b) => b.hits - a.hits || a.i - b.i)) {
    const add = x.tokens + (picked.length ? 2 : 0);
    if (used + add + 1 > maxTokens) continue;
    picked.push(x);
    used += add;
  }
  if (!picked.length) {
    const words = (sentences[0] ?? whole).split(' ');
    let cut = '';
    for (const w of words) {
      const next = cut ? `${cut} ${w}` : w;
      if (countTokens(`${next} …`) > maxTokens) break;
      cut = next;
    }
    return `${cut} …`;
  }
  picked.sort((a, b) => a.i - b.i);
  const body = picked.map((x) => x.s).join(' … ');
  return picked[picked.length - 1]!.i < sentences.length - 1 ? `${body} …` : body;
}

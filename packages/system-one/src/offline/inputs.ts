/** Offline scorers' inputs (ours): memory items from resolved refs, their cached text features and pair data, per-call caches. */
import type { ResolvedRef } from '../schema.js';
import { LruMap } from './lru-map.js';
import { eventInterval, features, intersectionSize, type Interval, MAX_TEXTS, sharedEntities, stem, type TextFeatures } from './text.js';

/** A memory item as the scorers see it. */
export interface Item {
  text: string;
  time?: unknown;
  start?: unknown;
  end?: unknown;
  entities?: unknown;
  keywords?: unknown;
  speaker?: unknown;
  cosine?: unknown;
  session?: unknown;
  relation?: unknown;
  probability?: unknown;
}

export interface ScoreContext {
  /** Cosine of two texts from injected embeddings, or undefined when no embedder is configured. */
  embedCosine(a: string, b: string): number | undefined;
  /** Map a raw cosine to [0, 1] (see `cosineRange` of the offline backend). */
  scaleCosine(c: number): number;
}

export type ScoreResult = number | Record<string, number>;
export type Scorer = (refs: ResolvedRef[], ctx: ScoreContext) => ScoreResult;

// ---------------------------------------------------------------------------------------------
// inputs
// ---------------------------------------------------------------------------------------------

/** A state value as an item: strings are texts, objects with `text` are items, others are JSON text. */
export function toItem(v: unknown): Item {
  if (typeof v === 'string') {
    // one (never mutated) item object per text, so its features are found by identity
    let it = stringItems.get(v);
    if (it === undefined) {
      stringItems.set(v, (it = { text: v }));
    }
    return it;
  }
  if (v && typeof v === 'object' && !Array.isArray(v) && typeof (v as any).text === 'string') return v as Item;
  if (v && typeof v === 'object' && !Array.isArray(v) && typeof (v as any).content === 'string') return { ...(v as any), text: (v as any).content };
  return { text: v === undefined ? '' : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v) };
}

/** Items of plain-string refs, by text (least recently used evicted first). */
const stringItems = new LruMap<string, Item>(MAX_TEXTS);

export function toItems(v: unknown): Item[] {
  if (Array.isArray(v)) return v.map(toItem);
  if (v === undefined || v === null || v === '') return [];
  return [toItem(v)];
}

/** `/\.\d+$/.test(p)` without a regex: the path ends with a dot and one or more digits. */
function isListItemPath(p: string): boolean {
  let i = p.length - 1;
  while (i >= 0) {
    const c = p.charCodeAt(i);
    if (c < 48 || c > 57) break;
    i--;
  }
  return i < p.length - 1 && i >= 0 && p.charCodeAt(i) === 46;
}

/** The (main, candidate) pair of a pair question: the list-item ref is the candidate, the other the main memory. */
export function pair(refs: ResolvedRef[]): [Item, Item] {
  let c: ResolvedRef | undefined;
  for (const r of refs) {
    if (isListItemPath(r.path)) {
      c = r;
      break;
    }
  }
  let m: ResolvedRef | undefined;
  for (const r of refs) {
    if (r !== c && !Array.isArray(r.value)) {
      m = r;
      break;
    }
  }
  if (c && m) return [toItem(m.value), toItem(c.value)];
  return [toItem(refs[0]?.value), toItem(refs[1]?.value)];
}

export function queryOf(refs: ResolvedRef[]): string {
  const q = refs.find((r) => r.path === 'query') ?? refs.find((r) => typeof r.value === 'string' && !isListItemPath(r.path));
  return q ? toItem(q.value).text : '';
}
export function evidenceOf(refs: ResolvedRef[]): Item[] {
  const e = refs.find((r) => r.path === 'evidence') ?? refs.find((r) => Array.isArray(r.value));
  return e ? toItems(e.value) : [];
}
export function candidateOf(refs: ResolvedRef[]): Item {
  const c = refs.find((r) => isListItemPath(r.path)) ?? refs.find((r) => r.path !== 'query' && !Array.isArray(r.value));
  return toItem(c?.value);
}
export function depthOf(refs: ResolvedRef[]): number {
  const d = refs.find((r) => typeof r.value === 'number');
  return d ? (d.value as number) : 0;
}

export interface ItemFeatures extends TextFeatures {
  ents: Set<string>;
  /** Content stems that are not part of an entity name (what the item is about, besides who). */
  topic: Set<string>;
  /** The content these features were computed from (items with equal content share one object). */
  speaker: string | undefined;
  given: string[];
  kws: string[];
  /** Lazily: the names this item may be aliased by (`aliasWords`). */
  alias?: string[];
}
/** The features of an item object and the item fields they were computed from (a mutated item is recomputed). */
interface ItemEntry {
  text: unknown;
  entities: unknown;
  keywords: unknown;
  speaker: unknown;
  f: ItemFeatures;
  /** `eventInterval` of the item and the fields it was computed from (see `intervalOf`). */
  iv?: { text: unknown; time: unknown; start: unknown; end: unknown; iv: Interval | null };
}
/**
 * Item objects already seen in the current backend call (see `withCallCache`): a plain Map that lives
 * for one call — a process-wide WeakMap costs more per new object (core builds fresh items per write)
 * than it saves; across calls, items are found again by content (`byText`).
 */
let callItems: Map<object, ItemEntry> | undefined;
/** True inside `withCallCache` (the map itself is created on first use). */
let inCall = false;
/**
 * Pair memos of the current backend call (see `pairOf`), dropped with it. They lived on the item
 * features before (512 per item, keyed by the other item's features), which kept a web of items,
 * their memos and their pairs alive after `byText` evicted them: ~5,000 items and ~40 MB after
 * 6,000 adds to a server (issue 33).
 */
let callPairs: Map<ItemFeatures, Map<ItemFeatures, PairData>> | undefined;

/** Run `fn(a, b)` (synchronous scoring of one batch) with a per-call cache of item features. */
export function withCallCache<T, A = undefined, B = undefined>(fn: (a: A, b: B) => T, a?: A, b?: B): T {
  const prevItems = callItems;
  const prevPairs = callPairs;
  const prevIn = inCall;
  callItems = undefined;
  callPairs = undefined;
  inCall = true;
  try {
    return fn(a as A, b as B);
  } finally {
    callItems = prevItems;
    callPairs = prevPairs;
    inCall = prevIn;
  }
}
/**
 * Item features by text, then by (speaker, entities, keywords): a new item object with known content
 * reuses them. At most `MAX_TEXTS` texts (least recently used evicted; it was 20,000 cleared when
 * full, which with the text features' memos held ~100 MB in a server after 10,000 adds), at most 8
 * variants each.
 */
const byText = new LruMap<string, ItemFeatures[]>(MAX_TEXTS);

/** Texts whose item features are kept (for tests and diagnostics). */
export function itemCacheSize(): number {
  return byText.size;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((e): e is string => typeof e === 'string') : []);
/** `sameStrings(a, strings(v))` without building the filtered copy. */
function sameStrings(a: string[], v: unknown): boolean {
  if (!Array.isArray(v)) return a.length === 0;
  let k = 0;
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i];
    if (typeof x !== 'string') continue;
    if (k >= a.length || a[k] !== x) return false;
    k++;
  }
  return k === a.length;
}

export function feat(it: Item): ItemFeatures {
  return entryOf(it).f;
}

function entryOf(it: Item): ItemEntry {
  const hit = callItems?.get(it);
  if (hit !== undefined && hit.text === it.text && hit.entities === it.entities && hit.keywords === it.keywords && hit.speaker === it.speaker) return hit;
  const speaker = typeof it.speaker === 'string' ? it.speaker : undefined;
  let variants = byText.get(it.text);
  let out: ItemFeatures | undefined;
  if (variants !== undefined) {
    for (const v of variants) {
      if (v.speaker === speaker && sameStrings(v.given, it.entities) && sameStrings(v.kws, it.keywords)) {
        out = v;
        break;
      }
    }
  }
  if (out === undefined) {
    const given = strings(it.entities);
    const kws = strings(it.keywords);
    const f = features(it.text);
    let ents = f.entities;
    let content = f.content;
    if (given.length || speaker !== undefined) {
      ents = new Set(ents);
      for (const e of given) ents.add(e.toLowerCase());
      if (speaker !== undefined) ents.add(speaker.toLowerCase());
    }
    if (kws.length) {
      content = new Set(content);
      for (const k of kws) for (const w of k.toLowerCase().split(/\s+/)) if (w) content.add(stem(w));
    }
    out = {
      text: f.text,
      lower: f.lower,
      tokens: f.tokens,
      content,
      entities: f.entities,
      negated: f.negated,
      numbers: f.numbers,
      memo: f.memo,
      ents,
      topic: topicOf(content, ents),
      speaker,
      given,
      kws,
      alias: undefined,
    };
    if (variants === undefined) byText.set(it.text, (variants = []));
    if (variants.length >= 8) variants.shift();
    variants.push(out);
  }
  const entry: ItemEntry = { text: it.text, entities: it.entities, keywords: it.keywords, speaker: it.speaker, f: out };
  if (inCall) (callItems ??= new Map()).set(it, entry);
  return entry;
}

/** The lexical part of redundancy of an ordered pair (see consolidation.ts `redundancyLex`). */
export interface RedundancyLex {
  same: boolean;
  /** -4 + 5·jaccard + 3·containment */
  base: number;
  negation: boolean;
  antonym: boolean;
  numbers: boolean;
  again: boolean;
  days: boolean;
}

/** Results of pure functions of two items' features, memoised (see `pairOf`). */
export interface PairData {
  lexical?: number;
  shared?: number;
  kw?: number;
  causal?: { ev: number; clauses: boolean };
  conflict?: number;
  redundancy?: RedundancyLex;
  topicCos?: number;
  topicInter?: number;
  again?: boolean;
}
/**
 * The memo of the ordered pair (fa, fb) for the current backend call (`withCallCache`); outside a
 * call, a fresh memo (nothing kept).
 */
export function pairOf(fa: ItemFeatures, fb: ItemFeatures): PairData {
  if (!inCall) return {};
  const all = (callPairs ??= new Map());
  let m = all.get(fa);
  if (m === undefined) all.set(fa, (m = new Map()));
  let p = m.get(fb);
  if (p === undefined) m.set(fb, (p = {}));
  return p;
}
export const sharedOf = (p: PairData, fa: ItemFeatures, fb: ItemFeatures): number => (p.shared ??= sharedEntities(fa.ents, fb.ents));
export const kwOf = (p: PairData, fa: ItemFeatures, fb: ItemFeatures): number => (p.kw ??= intersectionSize(fa.content, fb.content));

/** `eventInterval(it)`, memoised per item object (recomputed when its text or times change). */
export function intervalOf(it: Item): Interval | null {
  const e = entryOf(it);
  const hit = e.iv;
  if (hit !== undefined && hit.text === it.text && hit.time === it.time && hit.start === it.start && hit.end === it.end) return hit.iv;
  const iv = eventInterval(it);
  e.iv = { text: it.text, time: it.time, start: it.start, end: it.end, iv };
  return iv;
}

function topicOf(content: Set<string>, ents: Set<string>): Set<string> {
  if (!ents.size) return content;
  const names = new Set<string>();
  for (const e of ents) for (const t of e.split(' ')) names.add(stem(t));
  const out = new Set<string>();
  for (const c of content) if (!names.has(c)) out.add(c);
  return out;
}

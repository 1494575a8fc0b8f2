/**
 * One lazily created wink-nlp pipeline (sbd, pos, ner) shared by entity and keyword extraction
 * (wink-nlp + wink-eng-lite-web-model, MIT). Loading the model takes ~0.1 s (`loadWinkModel`), paid on
 * first use, not at import. A small LRU keyed by text (texts up to 4 096 characters) lets `extractEntities`
 * and `extractKeywords` on the same text parse it once.
 */
import { createRequire } from 'node:module';
import { loadWinkModel, type WinkModel } from './wink-model.js';

export interface ParsedToken {
  value: string;
  lower: string;
  /** Lower-case lemma; only for tokens that are not stop words with a POS in `LEMMA_POS`, else ''. */
  lemma: string;
  pos: string;
  stop: boolean;
  /** Whitespace before the token ('' when glued to the previous token). */
  space: string;
  /** Index of the sentence the token belongs to, and whether it opens it. */
  sentence: number;
  sentenceStart: boolean;
}

export interface ParsedText {
  tokens: ParsedToken[];
  /** wink named entities: value, type (DATE, CARDINAL, HASHTAG, MENTION, EMAIL, URL, …) and token span. */
  entities: { value: string; type: string; start: number; end: number }[];
}

interface WinkNlp {
  readDoc(text: string): any;
  its: any;
}

/** Read-only view of the wink English lexicon (common words and the parts of speech they can take). */
export interface WinkLexicon {
  /** True if `word` (lower-case) is not in the model's built-in lexicon. */
  isOOV(word: string): boolean;
  /** True if the base-form `word` can take part of speech `pos` (e.g. 'PROPN'). */
  hasSamePOS(word: string, pos: string): boolean;
}

/** The English model: `loadWinkModel`'s faster load, or the package's own if that fails (a changed layout). */
function englishModel(req: NodeRequire): WinkModel {
  try {
    return loadWinkModel(req);
  } catch {
    const model = req('wink-eng-lite-web-model');
    return model.default ?? model;
  }
}

let nlp: WinkNlp | null = null;
let lexicon: WinkLexicon | null = null;

function pipeline(): WinkNlp {
  if (!nlp) {
    const req = createRequire(import.meta.url);
    const winkNLP = req('wink-nlp');
    const m = englishModel(req);
    // Capture the unpacked model so the lexicon can be queried (see `commonWordLexicon`).
    let core: unknown = null;
    const wrapped = { ...m, core: () => (core = m.core()) };
    nlp = (winkNLP.default ?? winkNLP)(wrapped, ['sbd', 'pos', 'ner']) as WinkNlp;
    try {
      // wink-nlp does not export its lexicon lookup; its internal cache module gives read-only
      // access to the same unpacked model (wink-nlp 2.x). Without it, entity filtering is weaker.
      const Cache = req('wink-nlp/src/cache.js');
      const c = core ? Cache(core, m.featureFn) : null;
      if (c && typeof c.isOOV === 'function' && typeof c.hasSamePOS === 'function') lexicon = c as WinkLexicon;
    } catch {
      lexicon = null;
    }
  }
  return nlp;
}

/** The wink lexicon, or null if this wink-nlp version does not expose it. Loads the pipeline. */
export function commonWordLexicon(): WinkLexicon | null {
  pipeline();
  return lexicon;
}

const LRU_SIZE = 256;
const MAX_CACHED_CHARS = 4096;
const cache = new Map<string, ParsedText>();

/** Longest run of non-space characters handed to wink-nlp (ours; see `sanitizeForParse`). */
export const MAX_TOKEN_CHARS = 256;
const INVISIBLE = /[\u00AD\u200B\u2060\uFEFF]/g;
const NON_ASCII = /[^\x00-\x7F]/;
const LONG_RUN = new RegExp(`\\S{${MAX_TOKEN_CHARS + 1},}`, 'g');

/**
 * Text as wink-nlp sees it (ours): invisible characters that split words without being spaces
 * (soft hyphen U+00AD, zero-width space U+200B, word joiner U+2060, BOM U+FEFF; common in pasted
 * text) are removed, so "Zo\u200Be" is the name "zoe"; NFKC folds full-width and compatibility
 * letters ("Ｍｅｌａｎｉｅ" → "Melanie", which wink-nlp would not tag as a name); runs of more than `MAX_TOKEN_CHARS`
 * non-space characters (base64 blobs, hashes, minified data) are replaced by a space: wink-nlp's
 * time on one such token grows quadratically (20 000 characters took 1–10 s), and they are never
 * names or keywords.
 */
export function sanitizeForParse(text: string): string {
  // ASCII text has no invisible characters and is its own NFKC form.
  let t = NON_ASCII.test(text) ? text.replace(INVISIBLE, '').normalize('NFKC') : text;
  if (t.length > MAX_TOKEN_CHARS) t = t.replace(LONG_RUN, ' ');
  return t;
}

/** Latin letters beyond Latin-1 (Latin Extended-A/B, Latin Extended Additional): wink-nlp's tokenizer drops them. */
const EXTENDED_LATIN = /[\u0100-\u024F\u1E00-\u1EFF]/g;
const STAND_IN: Record<string, string> = { Ł: 'L', ł: 'l', Đ: 'D', đ: 'd', Ħ: 'H', ħ: 'h', ı: 'i', Œ: 'E', œ: 'e', ẞ: 'S', Ŋ: 'N', ŋ: 'n', Ŧ: 'T', ŧ: 't' };

/**
 * `text` with every extended Latin letter replaced by a one-character ASCII stand-in (its base
 * letter: Ż → Z, Ł → L, İ → I), so wink-nlp keeps "Łódź" one word instead of dropping letters
 * (ours). Same length as `text`, so token offsets map back to it.
 */
export function maskExtendedLatin(text: string): string {
  return text.replace(EXTENDED_LATIN, (ch) => {
    const base = STAND_IN[ch] ?? ch.normalize('NFD')[0]!;
    if (/^[A-Za-z]$/.test(base)) return base;
    return ch === ch.toLowerCase() ? 'x' : 'X';
  });
}

/**
 * Put the original letters back into tokens parsed from `maskExtendedLatin(original)` (values,
 * lower-case forms, lemmas that are a prefix of the word, entity values). Returns false, changing
 * nothing, when the tokens do not line up with the text (then the masked parse is not used).
 */
function unmask(original: string, masked: string, tokens: ParsedToken[], entities: ParsedText['entities']): boolean {
  const spans: [number, number][] = [];
  let pos = 0;
  for (const t of tokens) {
    pos += t.space.length;
    if (masked.slice(pos, pos + t.value.length) !== t.value) {
      const at = masked.indexOf(t.value, pos);
      if (at < 0) return false;
      pos = at;
    }
    spans.push([pos, pos + t.value.length]);
    pos += t.value.length;
  }
  tokens.forEach((t, i) => {
    const value = original.slice(spans[i]![0], spans[i]![1]);
    if (value === t.value) return;
    const lower = value.toLowerCase();
    if (t.lower.startsWith(t.lemma) && t.lemma.length <= lower.length) t.lemma = lower.slice(0, t.lemma.length);
    t.value = value;
    t.lower = lower;
  });
  for (const e of entities) {
    if (e.start < 0 || e.end >= tokens.length || e.end < e.start) continue;
    const from = spans[e.start]![0];
    const to = spans[e.end]![1];
    if (masked.slice(from, to) === e.value) e.value = original.slice(from, to);
  }
  return true;
}

/** Parse `text` with wink-nlp (cached; the result must be treated as read-only). */
export function parseText(text: string): ParsedText {
  const hit = cache.get(text);
  if (hit) {
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const clean = sanitizeForParse(text);
  const masked = NON_ASCII.test(clean) ? maskExtendedLatin(clean) : clean;
  if (masked !== clean) {
    const parsed = parseClean(masked);
    if (unmask(clean, masked, parsed.tokens, parsed.entities)) return remember(text, parsed);
  }
  return remember(text, parseClean(clean));
}

function remember(text: string, parsed: ParsedText): ParsedText {
  if (text.length > MAX_CACHED_CHARS) return parsed; // long texts would pin megabytes in the LRU
  cache.set(text, parsed);
  if (cache.size > LRU_SIZE) cache.delete(cache.keys().next().value as string);
  return parsed;
}

/**
 * Parts of speech whose lemma `extractKeywords` reads (content words; proper nouns use their
 * lower-case form instead). `parseText` computes lemmas only for these, when not stop words.
 */
export const LEMMA_POS = new Set(['NOUN', 'VERB', 'ADJ', 'ADV', 'NUM', 'X', 'SYM']);

/**
 * One wink-nlp parse of an already sanitised text. Token properties are read with one bulk
 * `tokens().out(its.x)` call per property (no per-token item objects), sentence by sentence over
 * the sentence spans.
 */
function parseClean(clean: string): ParsedText {
  const p = pipeline();
  const its = p.its;
  const doc = p.readDoc(clean);
  const all = doc.tokens();
  const values = all.out(its.value) as string[];
  const pos = all.out(its.pos) as string[];
  const stops = all.out(its.stopWordFlag) as boolean[];
  const spaces = all.out(its.precedingSpaces) as (string | undefined)[];
  const lemmas = all.out(its.lemma) as string[];
  const sentences = doc.sentences().out(its.span) as [number, number][];
  const tokens: ParsedToken[] = [];
  for (let si = 0; si < sentences.length; si++) {
    const [from, to] = sentences[si]!;
    for (let i = from; i <= to; i++) {
      const value = values[i]!;
      const stop = Boolean(stops[i]);
      const needsLemma = !stop && LEMMA_POS.has(pos[i]!);
      tokens.push({
        value,
        lower: value.toLowerCase(),
        lemma: needsLemma ? String(lemmas[i]).toLowerCase() : '',
        pos: pos[i]!,
        stop,
        space: spaces[i] ?? '',
        sentence: si,
        sentenceStart: i === from,
      });
    }
  }
  const details = doc.entities().out(its.detail) as { value: string; type: string }[];
  const spans = doc.entities().out(its.span) as [number, number][];
  const entities: ParsedText['entities'] = details.map((d, k) => ({ value: d.value, type: d.type, start: spans[k]![0], end: spans[k]![1] }));
  return { tokens, entities };
}

/**
 * Keyword extraction (ours, on wink-nlp's lemmas, POS tags and stop-word list).
 */
import { LEMMA_POS, parseText } from './nlp.js';

// NOUN, PROPN, VERB, ADJ, ADV, NUM, X, SYM (parseText gives lemmas for all but PROPN).
const CONTENT_POS = new Set([...LEMMA_POS, 'PROPN']);
// Chat filler and light verbs wink's stop-word list keeps (ours).
const EXTRA_STOP = new Set([
  'go', 'get', 'got', 'say', 'tell', 'make', 'know', 'think', 'really', 'just', 'also', 'yeah', 'yes', 'oh', 'hey', 'hi',
  'lol', 'okay', 'ok', 'thing', 'lot', 'way', 'well', 'much', 'even', 'still', 'wow', 'thanks', 'thank', 'sure', 'maybe',
  'like', 'bit', 'mr', 'mrs', 'ms', 'dr', 'prof', 'st', 'kind', 'something', 'anything', 'everything', 'nothing', "'s", '’s', "n't", 'not', 'gonna', 'wanna',
]);

const ASCII_ALNUM = /^[a-z0-9]+$/;

/**
 * Content-word lemmas of `text` (lower-case, deduplicated, in order of first occurrence): nouns,
 * proper nouns, verbs, adjectives, adverbs and numbers, without wink-nlp stop words, punctuation,
 * one-character tokens and a short chat-filler list. Hashtags lose their `#`. Used for the
 * keyword-overlap signal `|kw ∩ kw′| / max(1, |kw|)` of candidate discovery (Jev-Mem write path).
 * Pure and synchronous; well under 1 ms per sentence after the model's one-time load.
 */
export function extractKeywords(text: string): string[] {
  if (typeof text !== 'string' || text.trim() === '') return [];
  const { tokens } = parseText(text);
  const out: string[] = [];
  const seen = new Set<string>();
  for (const t of tokens) {
    if (t.stop || !CONTENT_POS.has(t.pos)) continue;
    let k = t.pos === 'PROPN' ? t.lower : t.lemma;
    if (ASCII_ALNUM.test(k)) {
      // Fast path, same result: an ASCII letters-and-digits word is its own NFKC form and has
      // nothing for the clean-up below to strip.
      if (k.length < 2 && !(k >= '0' && k <= '9')) continue;
    } else {
      k = k.normalize('NFKC');
      k = k.replace(/^[#@]+/, '').replace(/['’]s$/, '').replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
      if (k.length < 2 && !/^\p{N}$/u.test(k)) continue;
      if (!/[\p{L}\p{N}]/u.test(k)) continue;
    }
    if (EXTRA_STOP.has(k)) continue;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(k);
  }
  return out;
}

/**
 * Text normalisation for lexical (BM25) search (ours).
 *
 * SQLite's `unicode61` tokenizer splits on whitespace and punctuation, which works for most
 * scripts but not for scripts written without spaces (Chinese, Japanese, Thai, …), and it does
 * not remove Arabic / Hebrew vowel marks. Both the indexed text and the query pass through
 * {@link searchText}, so documents and queries are normalised the same way:
 *
 * 1. NFKC + lower case (and ß → ss);
 * 2. runs of Thai / Lao / Khmer / Myanmar are split into words with `Intl.Segmenter` (ICU);
 * 3. runs of Han / Hiragana / Katakana are expanded to overlapping character unigrams and bigrams
 *    (the approach of Lucene's CJK analyzer), so any word of one or more characters is findable;
 * 4. combining marks (Unicode category Mn: accents, harakat, niqqud) are removed;
 * 5. each emoji becomes a word `emj<codepoint-hex>` so emoji are searchable too;
 * 6. private-use characters (category Co) separate words, as they do for BM25's token count.
 */

const NO_SPACE_SCRIPTS = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]+/gu;
/** {@link NO_SPACE_SCRIPTS} without `g` (a stateless test). */
const HAS_NO_SPACE_SCRIPT = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30fc]+/gu;
const EMOJI = /\p{Extended_Pictographic}/gu;
const TOKEN = /[\p{L}\p{N}]+/gu;
/**
 * Private-use characters (category Co, e.g. U+F8FF) become spaces: FTS5's unicode61 counts them as
 * word characters, {@link docTokens} does not, and the two must split text into the same words.
 */
export const PRIVATE_USE = /\p{Co}/gu;

let segmenter: Intl.Segmenter | null | undefined;
function wordSegmenter(): Intl.Segmenter | null {
  if (segmenter === undefined) {
    try {
      segmenter = new Intl.Segmenter('th', { granularity: 'word' });
    } catch {
      segmenter = null;
    }
  }
  return segmenter;
}

function expandCjk(run: string): string {
  const chars = Array.from(run);
  const out: string[] = [...chars];
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
  return ` ${out.join(' ')} `;
}

/** The normalised text that is indexed (and that queries are matched against). Pure; ours. */
export function searchText(text: string): string {
  // ASCII fast path (same result: ASCII is NFKC- and NFD-stable and has no ß, no-space or CJK
  // script, combining mark or emoji, so only lower-casing changes it).
  if (ASCII.test(text)) return text.toLowerCase();
  return searchTextSlow(text);
}

/** {@link searchText} without the ASCII fast path (exported for the test that they agree). */
export function searchTextSlow(text: string): string {
  let s = text.normalize('NFKC').toLowerCase().replace(/ß/g, 'ss').replace(PRIVATE_USE, ' ');
  // the segmenter is built only for a text that needs it: building one loads ICU's word dictionaries
  // (~0.1 s), and a curly quote or an accent is enough to leave the ASCII fast path
  const seg = HAS_NO_SPACE_SCRIPT.test(s) ? wordSegmenter() : null;
  if (seg) {
    s = s.replace(NO_SPACE_SCRIPTS, (run) =>
      ` ${Array.from(seg.segment(run), (x) => x.segment).join(' ')} `,
    );
  }
  s = s.replace(CJK_RUN, expandCjk);
  s = s.normalize('NFD').replace(/\p{Mn}/gu, '').normalize('NFC');
  s = s.replace(EMOJI, (e) => ` emj${e.codePointAt(0)!.toString(16)} `);
  return s;
}

/** Every word of a text after {@link searchText}, with repeats (what BM25 counts). */
export function docTokens(text: string): string[] {
  // ASCII fast path (same result: for ASCII, searchText is just lower-casing).
  if (ASCII.test(text)) return text.toLowerCase().match(ASCII_TOKEN) ?? [];
  return searchText(text).match(TOKEN) ?? [];
}
const ASCII = /^[\x00-\x7f]*$/;
const ASCII_TOKEN = /[a-z0-9]+/g;

/** The words of a text after {@link searchText}, de-duplicated, in order. */
export function searchTokens(text: string, max = 64): string[] {
  const seen = new Set<string>();
  for (const m of searchText(text).matchAll(TOKEN)) {
    seen.add(m[0]);
    if (seen.size >= max) break;
  }
  return [...seen];
}

/**
 * Turn free user text into a safe FTS5 MATCH expression: every word double-quoted (so `AND`,
 * `NEAR(`, `*`, `-`, `"` and column filters are plain words) and OR-ed, so BM25 ranks documents by
 * how many query words they contain. Returns null when the query has no words. Ours.
 */
export function ftsMatchQuery(query: string, maxTokens = 64): string | null {
  const tokens = searchTokens(query, maxTokens);
  if (tokens.length === 0) return null;
  return tokens.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
}

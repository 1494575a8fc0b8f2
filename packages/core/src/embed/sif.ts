/**
 * Pieces of the SIF sentence embedding (Arora, Liang & Ma 2017, "A Simple but Tough-to-Beat
 * Baseline for Sentence Embeddings", ICLR) and the word-level tokenizer it runs on.
 */
import { mulberry32 } from '../random.js';

/** Euler–Mascheroni constant. */
const EULER_GAMMA = 0.5772156649015329;

/**
 * Harmonic number H_N ≈ ln N + γ + 1/(2N) (the Zipf normaliser for exponent 1).
 */
export function harmonicNumber(n: number): number {
  return Math.log(n) + EULER_GAMMA + 1 / (2 * n);
}

/**
 * Unigram probability estimated from the frequency rank by Zipf's law with exponent 1:
 * `p(w) = 1 / ((rank + 1) · H_N)` for rank 0..N−1 (ours: GloVe vocabularies are sorted by corpus
 * frequency, but the wink package ships no counts; Zipf gives p(the) ≈ 0.075, p(rank 1000) ≈ 7.5e-5).
 */
export function zipfProbability(rank: number, vocabularySize: number): number {
  return 1 / ((rank + 1) * harmonicNumber(vocabularySize));
}

/**
 * SIF word weight `a / (a + p(w))` (Arora et al. 2017, §3, Algorithm 1), a = 1e-3 by default.
 */
export function sifWeight(probability: number, a = 1e-3): number {
  return a / (a + probability);
}

const SMALL_NUMBERS = [
  'zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten',
  'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty',
];

const CONTRACTIONS: Record<string, string | null> = {
  "n't": 'not', "'s": null, "'re": 'are', "'ll": 'will', "'ve": 'have', "'m": 'am', "'d": 'would',
};
const SPECIAL: Record<string, string[]> = {
  "can't": ['can', 'not'], "won't": ['will', 'not'], "shan't": ['shall', 'not'], "ain't": ['is', 'not'],
  "i'm": ['i', 'am'],
};

// Letters/marks/digits, optionally joined by hyphens or apostrophes; or one pictographic symbol.
const TOKEN_RE = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:[-'’][\p{L}\p{N}][\p{L}\p{M}\p{N}]*)*|\p{Extended_Pictographic}/gu;

const INVISIBLE = /[\u00AD\u200B\u2060\uFEFF]/g;

/**
 * Lower-cased surface tokens of `text` (ours): Unicode letter/digit runs, keeping internal
 * hyphens and apostrophes (’ → '), plus single emoji; soft hyphens, zero-width spaces, word joiners
 * and BOMs are removed first ("Pa\u200Bris" → paris). CJK runs stay one token (the OOV fallback
 * splits them into character n-grams).
 */
export function surfaceTokens(text: string): string[] {
  const out: string[] = [];
  // invisible characters that are not spaces (soft hyphen, zero-width space, word joiner, BOM) would split words
  const lower = text.replace(INVISIBLE, '').normalize('NFKC').toLowerCase();
  for (const m of lower.matchAll(TOKEN_RE)) out.push(m[0].replace(/’/g, "'"));
  return out;
}

/**
 * Expand one surface token into lookup candidates for a GloVe-style vocabulary (ours): the token
 * itself if known; otherwise hyphen parts, contractions ("don't" → do not, "'s" dropped), and small
 * numerals as words ("3" → three). `known` tells whether a word is in the vocabulary.
 */
export function expandToken(tok: string, known: (w: string) => boolean): string[] {
  if (known(tok)) return [tok];
  if (SPECIAL[tok]) return SPECIAL[tok];
  if (tok.includes('-')) return tok.split('-').flatMap((p) => (p ? expandToken(p, known) : []));
  const ap = tok.indexOf("'");
  if (ap > 0) {
    const head = tok.slice(0, ap);
    let tail = tok.slice(ap);
    let h = head;
    if (tail === "'t" && head.endsWith('n')) { h = head.slice(0, -1); tail = "n't"; }
    const rest = tail in CONTRACTIONS ? CONTRACTIONS[tail] : null;
    const parts = expandToken(h, known);
    if (rest) parts.push(rest);
    return parts;
  }
  if (/[^\x00-\x7f]/.test(tok)) {
    const folded = tok.normalize('NFKD').replace(/\p{M}+/gu, '');
    if (folded !== tok && folded.length > 0 && known(folded)) return [folded];
  }
  if (/^\d+$/.test(tok)) {
    const n = Number(tok);
    if (n <= 20 && tok.length <= 2) return [SMALL_NUMBERS[n]];
  }
  return [tok];
}


function fnv1aString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * Deterministic fallback vector for an out-of-vocabulary token (ours, in the spirit of fastText's
 * subword n-grams, Bojanowski et al. 2017, but with random instead of trained n-gram vectors): the
 * unit-normalised sum of pseudo-random Gaussian vectors seeded by the hash of each character
 * n-gram (n = 3..5) of `<token>` plus the whole token. Identical unknown words (names, numbers,
 * CJK runs) get identical vectors; spellings sharing n-grams get correlated ones; unrelated
 * tokens are nearly orthogonal. Returns a unit vector.
 */
export function hashedTokenVector(token: string, dims: number): Float64Array {
  const v = new Float64Array(dims);
  const chars = Array.from(`<${token}>`);
  const grams: string[] = [`<${token}>`];
  for (let n = 3; n <= 5; n++) {
    for (let i = 0; i + n <= chars.length; i++) {
      const g = chars.slice(i, i + n).join('');
      if (g !== grams[0]) grams.push(g);
    }
  }
  for (const g of grams) {
    const rnd = mulberry32(fnv1aString(g));
    for (let d = 0; d < dims; d += 2) {
      // Box–Muller
      const u1 = Math.max(rnd(), 1e-12);
      const u2 = rnd();
      const r = Math.sqrt(-2 * Math.log(u1));
      v[d] += r * Math.cos(2 * Math.PI * u2);
      if (d + 1 < dims) v[d + 1] += r * Math.sin(2 * Math.PI * u2);
    }
  }
  let ss = 0;
  for (let d = 0; d < dims; d++) ss += v[d] * v[d];
  const inv = ss > 0 ? 1 / Math.sqrt(ss) : 0;
  for (let d = 0; d < dims; d++) v[d] *= inv;
  return v;
}

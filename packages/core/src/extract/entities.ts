/**
 * Entity extraction (ours, on wink-nlp's POS tags and named entities).
 */
import { commonWordLexicon, parseText, type ParsedToken, type WinkLexicon } from './nlp.js';

const TITLES = new Set(['mr', 'mrs', 'ms', 'miss', 'dr', 'prof', 'sir', 'madam', 'mx', 'rev', 'fr', 'sr', 'jr', 'st', 'aunt', 'uncle']);
const CALENDAR = new Set([
  'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday',
  'january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december',
  'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec',
  'mon', 'tue', 'tues', 'wed', 'thu', 'thur', 'thurs', 'fri', 'sat', 'sun',
  'today', 'yesterday', 'tomorrow', 'christmas', 'easter', 'halloween', 'thanksgiving',
]);
// Words wink sometimes tags PROPN that are not names (interjections, pronoun contractions, chat filler).
const NOT_NAMES = new Set([
  "i'm", 'i’m', 'i', 'im', "i've", "i'd", "i'll", "how've", 'hey', 'hi', 'hello', 'ok', 'okay', 'yes', 'yeah', 'yep', 'yup', 'nope', 'no',
  'oh', 'ooh', 'ooo', 'wow', 'woah', 'whoa', 'lol', 'lmao', 'omg', 'thanks', 'thank', 'thx', 'haha', 'hahaha', 'btw', 'idk', 'imo',
  'tbh', 'ttyl', 'brb', 'np', 'gonna', 'gotta', 'wanna', 'gotcha', 'oof', 'ugh', 'yay', 'aw', 'aww', 'awww', 'hmm', 'mmm', 'mm', 'um',
]);
const ENTITY_TYPES = new Set(['MENTION', 'EMAIL', 'URL']);

/**
 * Normalise an entity name so exact comparison works: NFKC, lowercase, trimmed, inner whitespace
 * collapsed, surrounding punctuation and a trailing possessive `'s` / `’s` / `s'` removed, a leading
 * `@` dropped (ours). `normalizeEntity("Melanie's ") === normalizeEntity('melanie') === 'melanie'`.
 */
export function normalizeEntity(name: string): string {
  let s = name.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
  s = s.replace(/^[^\p{L}\p{N}@#]+|[^\p{L}\p{N}]+$/gu, '');
  s = s.replace(/['’]s$/u, '').replace(/(s)['’]$/u, '$1');
  s = s.replace(/^@/, '');
  return s.replace(/[^\p{L}\p{N}]+$/gu, '').trim();
}

/** Append `normalizeEntity(raw)` to `out` unless empty or already seen. */
function pushEntity(out: string[], seen: Set<string>, raw: string): void {
  const n = normalizeEntity(raw);
  if (n.length === 0 || seen.has(n)) return;
  seen.add(n);
  out.push(n);
}

/** A capitalised word that is a common English word the lexicon never tags as a proper noun. */
function isCommonWord(lex: WinkLexicon | null, t: ParsedToken): boolean {
  if (!lex) return false;
  const w = t.lower.replace(/['’]s$/, '');
  return !lex.isOOV(w) && !lex.hasSamePOS(w, 'PROPN');
}

function isNameToken(t: ParsedToken): boolean {
  return t.pos === 'PROPN' && !NOT_NAMES.has(t.lower) && /\p{L}/u.test(t.value);
}

/**
 * Named things mentioned in `text`, normalised with `normalizeEntity`, deduplicated, in order of
 * first mention: maximal runs of proper nouns (wink-nlp POS `PROPN`, joined across glued hyphens
 * as in "Coca-Cola"; leading titles such as "Dr." dropped; weekday, month and holiday names
 * excluded) plus wink's MENTION / EMAIL / URL entities. Pure and synchronous; ~0.1 ms for a
 * 20-word sentence after the model's one-time load. Sentence-initial capitals are weak evidence:
 * a word there that wink's lexicon knows as a common word, never a proper noun ("Glad", "Nice")
 * counts only before a verb or possessive or if capitalised elsewhere in the text. English only;
 * lower-cased names ("berlin") are missed; "Caroline, hi!" misses caroline (a common word in the
 * lexicon); "Pets are great" yields pets.
 */
export function extractEntities(text: string): string[] {
  if (typeof text !== 'string' || text.trim() === '') return [];
  const { tokens, entities } = parseText(text);
  const out: string[] = [];
  const seen = new Set<string>();
  const inTypedEntity = new Uint8Array(tokens.length);
  for (const e of entities) {
    if (e.type === 'DATE' || e.type === 'TIME' || e.type === 'DURATION') for (let i = e.start; i <= e.end; i++) inTypedEntity[i] = 1;
  }
  const lex = commonWordLexicon();
  // Capitalised mid-sentence somewhere in the text: strong evidence of a name.
  const capitalisedInside = new Set<string>();
  for (const t of tokens) if (!t.sentenceStart && isNameToken(t)) capitalisedInside.add(t.lower);
  let i = 0;
  while (i < tokens.length) {
    if (!isNameToken(tokens[i]) || inTypedEntity[i]) {
      i++;
      continue;
    }
    let j = i;
    const parts: string[] = [tokens[i].value];
    for (;;) {
      const next = tokens[j + 1];
      if (next && next.sentence === tokens[i].sentence && isNameToken(next) && !inTypedEntity[j + 1]) {
        parts.push(next.space ? ' ' : '', next.value);
        j++;
        continue;
      }
      // glued hyphen/ampersand between two proper nouns: "Coca-Cola", "AT&T"
      const after = tokens[j + 2];
      if (next && after && /^[-&]$/.test(next.value) && next.space === '' && after.space === '' && isNameToken(after)) {
        parts.push(next.value, after.value);
        j += 2;
        continue;
      }
      break;
    }
    // drop leading titles ("Dr. Jane Doe" -> "jane doe") and calendar words
    const words = parts.join('').split(' ');
    while (words.length > 1 && TITLES.has(words[0].toLowerCase().replace(/\.$/, ''))) words.shift();
    if (tokens[i].sentenceStart && isCommonWord(lex, tokens[i]) && !capitalisedInside.has(tokens[i].lower)) {
      // Sentence-initial capitals are weak evidence (wink tags every capitalised word PROPN): a
      // common word there ("Glad", "Congrats", "Nice") is dropped from the front of a run, and kept
      // alone only before a verb or a possessive ("Caroline went", "Max's") (ours).
      if (j > i && words.length > 1 && words[0].toLowerCase() === tokens[i].lower) words.shift();
      else if (j === i) {
        const next = tokens[i + 1];
        if (!next || (next.pos !== 'VERB' && next.pos !== 'AUX' && !/^['’]s$/.test(next.value))) {
          i = j + 1;
          continue;
        }
      }
    }
    const name = words.join(' ');
    const norm = normalizeEntity(name);
    if (!(words.length === 1 && (CALENDAR.has(norm) || TITLES.has(norm.replace(/\.$/, ''))))) pushEntity(out, seen, name);
    i = j + 1;
  }
  for (const e of entities) if (ENTITY_TYPES.has(e.type)) pushEntity(out, seen, e.value);
  return out;
}

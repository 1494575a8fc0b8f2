/**
 * The write path's pair-relation model (ours, issue 17): how a NEWER statement relates to an OLDER
 * one — `contradiction` (incompatible claims), `update` (a later state of the same thing: the older
 * one is outdated, superseded), `same` (the same fact), `related` (compatible, same topic) or
 * `unrelated` (similar words, different thing). A softmax model in the shared `mem.learned/1`
 * format (`../learned`), trained by `scripts/train-relation.ts` on our own labelled pairs
 * (`test/relation-pairs.json`) and BEAM dev pairs, with temperature calibration; its weights ship in
 * `relation.weights.json`. It answers the offline backend's `consolidation.contradiction`,
 * `consolidation.obsolete` and `consolidation.redundant` questions instead of cue words.
 *
 * Features (all from the two texts, no embedder, so the model is the same under every embedder):
 * word-set overlap (Jaccard, containment, the share of words only one side has, whether BOTH sides
 * have words of their own — a substitution), negation on one side only, numbers on both sides that
 * differ or agree, names that differ, a small sentiment-sign flip, length ratio, a few products with
 * the overlap (a linear model cannot form them), and the words only the newer text has and only the
 * older text has, each hashed into `RELATION_HASH_BUCKETS` buckets (the model learns which of them
 * signal a change; nothing here lists such words).
 */
import { SystemOneError } from '../errors.js';
import { parseLearnedModel, predictProbabilities, type LearnedModel } from '../learned/index.js';
import weights from './relation.weights.json';
import { LruMap } from './lru-map.js';
import { CUES, antonymConflict, cueTest, features, intersectionSize, MAX_TEXTS, stem, type TextFeatures } from './text.js';

/** The labels of the training pairs. */
export const RELATION_LABELS = ['contradiction', 'update', 'same', 'related', 'unrelated'] as const;
export type RelationLabel = (typeof RELATION_LABELS)[number];
/** The model's classes, in its order: `other` = related or unrelated (no edge of the check). */
export const RELATION_CLASSES = ['contradiction', 'update', 'same', 'other'] as const;
export type RelationClass = (typeof RELATION_CLASSES)[number];
/** The class of a training label. */
export function classOfLabel(label: RelationLabel): RelationClass {
  return label === 'related' || label === 'unrelated' ? 'other' : label;
}

/** Buckets per hashed word bag (newer-only words, older-only words). */
export const RELATION_HASH_BUCKETS = 48;

const DENSE = [
  'jaccard',
  'containment',
  'newer_only_share',
  'older_only_share',
  'substitution',
  'negation_newer_only',
  'negation_older_only',
  'numbers_differ',
  'numbers_agree',
  'names_differ',
  'names_shared',
  'sentiment_flip',
  'length_ratio',
  'overlap_x_negation',
  'overlap_x_numbers_differ',
  'overlap_x_substitution',
  'overlap_x_sentiment_flip',
  'no_overlap',
  // v2 (h17): structure of the pair — who the statement is about, what kind of statement, which side changed
  'subject_differs',
  'subject_shared',
  'change_marker_newer',
  'change_marker_older',
  'recency_newer',
  'antonym_pair',
  'events_both',
  'event_older_only',
  'event_newer_only',
  'question_any',
  'numbers_only_differ',
  'content_jaccard_no_numbers',
  'one_for_one_swap',
  'newer_only_log',
  'older_only_log',
  'never_one_side',
  'habit_newer',
  'overlap_x_change_marker',
  'overlap_x_subject_differs',
  'overlap_x_swap',
  'change_x_swap',
  'negation_x_subject_shared',
  'id_numbers_differ',
] as const;

/** Feature names in model order: the dense features, then `new_h0…`, then `old_h0…`. */
export const RELATION_FEATURES: readonly string[] = [
  ...DENSE,
  ...Array.from({ length: RELATION_HASH_BUCKETS }, (_, i) => `new_h${i}`),
  ...Array.from({ length: RELATION_HASH_BUCKETS }, (_, i) => `old_h${i}`),
];

// A small sentiment lexicon (general English polarity, not a memory-decision cue list): its only use
// is the sign-flip feature, whose weight is learned.
const POSITIVE = new Set(['love', 'like', 'enjoy', 'adore', 'prefer', 'favorite', 'great', 'happy', 'good', 'best', 'fond', 'fan']);
const NEGATIVE = new Set(['hate', 'dislike', 'detest', 'boring', 'bad', 'worst', 'awful', 'annoy', 'sad', 'stand', 'least', 'afraid', 'fear']);

function polarity(tokens: readonly string[]): number {
  let s = 0;
  for (const t of tokens) {
    const w = stem(t);
    if (POSITIVE.has(w) || POSITIVE.has(t)) s++;
    else if (NEGATIVE.has(w) || NEGATIVE.has(t)) s--;
  }
  return s;
}

/** Content words without contractions ("i'm", "i'v" are not a topic), memoised per text. */
function contentOf(f: TextFeatures): Set<string> {
  let v = f.memo.relContent as Set<string> | undefined;
  if (v === undefined) f.memo.relContent = v = new Set([...f.content].filter((w) => !w.includes("'")));
  return v;
}

/** FNV-1a 32-bit hash of a string. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Stems of every token (stop words included: "not", "now" and "no" matter here). */
function stemsOf(tokens: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const t of tokens) {
    const base = t.endsWith("n't") ? 'not' : t;
    out.add(stem(base));
  }
  return out;
}


// Who a statement is about (ours): the speaker ("I", "my favourite …"), a relative of the speaker
// ("my brother …"), or a named person at the start. A small general-English list of relational nouns
// (kin, friends, co-workers), used only by the `subject_*` features, whose weights are learned.
const SELF = new Set(['i', "i'm", "i've", "i'd", "i'll", 'me', 'my', 'mine', 'we', "we're", "we've", 'our', 'us']);
const RELATIONAL = new Set(
  ('brother sister mother father mom mum dad parent parents son daughter kid kids child children wife husband partner ' +
    'boyfriend girlfriend fiance fiancee cousin aunt uncle niece nephew grandma grandpa grandmother grandfather friend ' +
    'friends roommate flatmate neighbour neighbor colleague coworker boss manager teacher coach doctor team family ' +
    'cat dog landlord classmate').split(' '),
);
const THIRD = new Set(['he', 'she', 'they', "he's", "she's", "they're", 'his', 'her', 'their']);

/** The subject key of a text: `self`, `my <relative>`, a leading name, a third-person pronoun (`other`), or null. */
function subjectOf(f: TextFeatures): string | null {
  const t = f.tokens;
  if (!t.length) return null;
  const w0 = t[0]!;
  if (SELF.has(w0)) {
    if ((w0 === 'my' || w0 === 'our') && t.length > 1) {
      for (let i = 1; i < Math.min(t.length, 4); i++) if (RELATIONAL.has(t[i]!)) return `my ${stem(t[i]!)}`;
    }
    return 'self';
  }
  if (THIRD.has(w0)) return 'other';
  for (const e of f.entities) if (w0 === e.split(' ')[0]) return `name ${e}`;
  return null;
}

const NEVER = /\bnever\b/;
// General-English aspect markers of a changed state ("now", "no longer", "used to", "switched"): one
// feature whose weight is learned. Narrower than `CUES.change` on purpose: event verbs ("sold",
// "started", "left") and "new" mark events, not a changed state, and fired on unrelated notes.
export const CHANGE = /\b(now|nowadays|these days|currently|anymore|any more|no longer|used to|switched|changed|instead|became|become|moved|quit|stopped|gave up|replaced)\b/;
// a number that names something ("note 17", "room 12.", "order #311)") rather than counting it ("12 minutes")
const ID_NUMBER = /\b[a-z]+\.?\s+#?(\d+)(?![\d.,:/]*\s*[a-z%])/g;
function idNumbers(f: TextFeatures): Set<string> {
  let v = f.memo.relIdNumbers as Set<string> | undefined;
  if (v === undefined) f.memo.relIdNumbers = v = new Set([...f.lower.matchAll(ID_NUMBER)].map((m) => m[1]!));
  return v;
}

/**
 * The feature vector of a pair (`older`, `newer`), in `RELATION_FEATURES` order (length
 * `DENSE.length` + 2 × `RELATION_HASH_BUCKETS`). Pure and deterministic; texts may carry a `Speaker:` prefix.
 */
export function relationFeatures(older: string, newer: string): number[] {
  const fo = features(older);
  const fn = features(newer);
  const co = contentOf(fo);
  const cn = contentOf(fn);
  const inter = intersectionSize(co, cn);
  const union = co.size + cn.size - inter;
  const jaccard = union ? inter / union : 0;
  const containment = Math.min(co.size, cn.size) ? inter / Math.min(co.size, cn.size) : 0;
  const newerOnly = cn.size ? (cn.size - inter) / cn.size : 0;
  const olderOnly = co.size ? (co.size - inter) / co.size : 0;
  const substitution = cn.size - inter > 0 && co.size - inter > 0 ? 1 : 0;
  const negNew = fn.negated && !fo.negated ? 1 : 0;
  const negOld = fo.negated && !fn.negated ? 1 : 0;
  const no = new Set(fo.numbers);
  const nn = new Set(fn.numbers);
  const numShared = intersectionSize(no, nn);
  const numbersDiffer = no.size && nn.size && (numShared < no.size || numShared < nn.size) ? 1 : 0;
  const numbersAgree = no.size && nn.size && numShared === no.size && numShared === nn.size ? 1 : 0;
  const namesShared = intersectionSize(fo.entities, fn.entities);
  const namesDiffer = fo.entities.size > namesShared && fn.entities.size > namesShared ? 1 : 0;
  const po = polarity(fo.tokens);
  const pn = polarity(fn.tokens);
  const flip = po * pn < 0 || (po !== 0 && pn === 0 && fn.negated !== fo.negated) || (pn !== 0 && po === 0 && fn.negated !== fo.negated) ? 1 : 0;
  const lo = fo.tokens.length;
  const ln = fn.tokens.length;
  const lengthRatio = Math.max(lo, ln) ? Math.min(lo, ln) / Math.max(lo, ln) : 0;
  const negAny = negNew || negOld ? 1 : 0;
  // a conflict needs a shared topic: the one-sided signals count only when the texts share a content word
  const topic = inter > 0 ? 1 : 0;
  const dense = [
    jaccard,
    containment,
    newerOnly,
    olderOnly,
    substitution,
    negNew * topic,
    negOld * topic,
    numbersDiffer * topic,
    numbersAgree,
    namesDiffer,
    namesShared > 0 ? 1 : 0,
    flip * topic,
    lengthRatio,
    containment * negAny,
    containment * numbersDiffer,
    containment * substitution,
    containment * flip,
    inter === 0 ? 1 : 0,
    ...structureFeatures(fo, fn, containment),
  ];
  const so = stemsOf(fo.tokens);
  const sn = stemsOf(fn.tokens);
  const hNew = new Array<number>(RELATION_HASH_BUCKETS).fill(0);
  const hOld = new Array<number>(RELATION_HASH_BUCKETS).fill(0);
  for (const w of sn) if (!so.has(w)) hNew[fnv1a(w) % RELATION_HASH_BUCKETS] += 1;
  for (const w of so) if (!sn.has(w)) hOld[fnv1a(w) % RELATION_HASH_BUCKETS] += 1;
  // bag counts scaled so a long text does not dominate (√ of the count of distinct words)
  // …and by the pair's word overlap (containment): a changed word only says something about a pair
  // on one topic (two statements on different things do not update each other, whatever words they use)
  const kn = containment / Math.sqrt(Math.max(1, sn.size));
  const ko = containment / Math.sqrt(Math.max(1, so.size));
  return [...dense, ...hNew.map((v) => v * kn), ...hOld.map((v) => v * ko)];
}

/** The v2 dense features (see `DENSE`, from `subject_differs` on) of a pair of texts. */
function structureFeatures(fo: TextFeatures, fn: TextFeatures, containment: number): number[] {
  const so = subjectOf(fo);
  const sn = subjectOf(fn);
  const subjectDiffers = so !== null && sn !== null && so !== sn ? 1 : 0;
  const subjectShared = so !== null && so === sn ? 1 : 0;
  const chNew = cueTest(fn, CHANGE) && !cueTest(fo, CHANGE) ? 1 : 0;
  const chOld = cueTest(fo, CHANGE) && !cueTest(fn, CHANGE) ? 1 : 0;
  const recNew = cueTest(fn, CUES.recency) && !cueTest(fo, CUES.recency) ? 1 : 0;
  const antonym = antonymConflict(fo.lower, fn.lower) || antonymConflict(fn.lower, fo.lower) ? 1 : 0;
  const evO = cueTest(fo, CUES.pastEvent) && cueTest(fo, CUES.timeExpr);
  const evN = cueTest(fn, CUES.pastEvent) && cueTest(fn, CUES.timeExpr);
  const question = cueTest(fo, CUES.question) || cueTest(fn, CUES.question) ? 1 : 0;
  const wo = new Set([...contentOf(fo)].filter((w) => !/^\d/.test(w)));
  const wn = new Set([...contentOf(fn)].filter((w) => !/^\d/.test(w)));
  const i2 = intersectionSize(wo, wn);
  const u2 = wo.size + wn.size - i2;
  const jac2 = u2 ? i2 / u2 : 0;
  const no = new Set(fo.numbers);
  const numbersDiffer = fo.numbers.length > 0 && fn.numbers.length > 0 && fn.numbers.some((x) => !no.has(x));
  const numbersOnly = numbersDiffer && i2 === wo.size && i2 === wn.size ? 1 : 0;
  const onlyNew = wn.size - i2;
  const onlyOld = wo.size - i2;
  const swap = onlyNew >= 1 && onlyNew <= 2 && onlyOld >= 1 && onlyOld <= 2 ? 1 : 0;
  const never = NEVER.test(fo.lower) !== NEVER.test(fn.lower) ? 1 : 0;
  const habitNew = cueTest(fn, CUES.habitual) ? 1 : 0;
  const change = chNew || recNew ? 1 : 0;
  const idO = idNumbers(fo);
  const idN = idNumbers(fn);
  const topic = intersectionSize(contentOf(fo), contentOf(fn)) > 0 ? 1 : 0;
  return [
    subjectDiffers,
    subjectShared,
    chNew * (containment > 0 ? 1 : 0),
    chOld * (containment > 0 ? 1 : 0),
    recNew * (containment > 0 ? 1 : 0),
    antonym * topic,
    evO && evN ? 1 : 0,
    evO && !evN ? 1 : 0,
    evN && !evO ? 1 : 0,
    question,
    numbersOnly,
    jac2,
    swap,
    Math.log1p(onlyNew),
    Math.log1p(onlyOld),
    never * topic,
    habitNew,
    containment * change,
    containment * subjectDiffers,
    containment * swap,
    change * swap,
    (fo.negated !== fn.negated ? 1 : 0) * subjectShared,
    idO.size && idN.size && [...idN].some((x) => !idO.has(x)) ? 1 : 0,
  ];
}

let shipped: LearnedModel | null = null;

/** The shipped relation model (`relation.weights.json`), validated once. Throws `INVALID_MODEL` if the file does not fit `RELATION_FEATURES`. */
export function relationModel(): LearnedModel {
  if (shipped) return shipped;
  const m = parseLearnedModel(weights);
  if (m.features.length !== RELATION_FEATURES.length || m.features.some((f, i) => f !== RELATION_FEATURES[i])) {
    throw new SystemOneError('INVALID_MODEL', `relation model ${m.name}: its features are not RELATION_FEATURES (retrain with scripts/train-relation.ts)`);
  }
  shipped = m;
  return m;
}

/** Keyed by both texts; least recently used first, bounded (issue 33: a long-running server's RSS). */
const probCache = new LruMap<string, Record<RelationClass, number>>(MAX_TEXTS);

/**
 * Calibrated probabilities of each relation class for (`older`, `newer`) (sum 1), from `model`
 * (default: the shipped one). Memoised per text pair for the shipped model.
 */
export function relationProbabilities(older: string, newer: string, model?: LearnedModel): Record<RelationClass, number> {
  const m = model ?? relationModel();
  const key = model ? null : `${older}\u0000${newer}`;
  if (key) {
    const hit = probCache.get(key);
    if (hit) return hit;
  }
  const p = predictProbabilities(m, relationFeatures(older, newer));
  const out = Object.fromEntries(m.classes.map((c, i) => [c, p[i]])) as Record<RelationClass, number>;
  if (key) probCache.set(key, out);
  return out;
}

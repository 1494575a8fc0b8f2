/**
 * The offline answer of the write path's state question (`state.change`, issue 37; ours): how a
 * NEWER statement relates to an EARLIER one about the same subject — `same`, `update` (the value
 * changed), `contradiction`, `compatible` (both stay true) or `unrelated`. Two small trained models
 * in the shared `mem.learned/1` format, shipped together in `models/state.json` (a list of the two):
 *
 * 1. **subject kind** (`STATE_KINDS`): which attribute a statement is about — residence, job,
 *    relationship, preference, habit, possession, plan, or other. Softmax regression over the
 *    statement's word stems and word pairs hashed into `KIND_HASH_BUCKETS` buckets (no word list).
 * 2. **state**: softmax regression over the pair's text features (`relationFeatures`: overlap,
 *    substitution, negation, numbers, names, change / recency aspect, tense of events, hashed
 *    newer-only / older-only words) plus the two statements' kind probabilities, the probability that
 *    both are about the same kind of attribute, and its products with the change signals. Its
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
import { CUES, cueTest, features, MAX_TEXTS, parseTime, stem } from './text.js';
import { feat, intervalOf, pair, type Item } from './inputs.js';
import { CHANGE, RELATION_FEATURES, relationFeatures } from './relation-model.js';
import weights from './models/state.json';

/** The subject kinds the kind model tells apart (`other` = none of the seven). */
export const STATE_KINDS = ['residence', 'job', 'relationship', 'preference', 'habit', 'possession', 'plan', 'other'] as const;
export type StateKind = (typeof STATE_KINDS)[number];

/** Buckets of the kind model's hashed word bag (stems and adjacent stem pairs). */
export const KIND_HASH_BUCKETS = 384;
/** Feature names of the kind model. */
export const KIND_FEATURES: readonly string[] = Array.from({ length: KIND_HASH_BUCKETS }, (_, i) => `k${i}`);

/** Feature names of the state model: `RELATION_FEATURES`, then the kind features. */
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
];
const SK_BUCKETS = 32;

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The kind model's input: stems of all tokens and adjacent stem pairs, hashed, scaled by 1/√count. */
export function kindFeatures(text: string): number[] {
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

let shipped: { kind: LearnedModel; state: LearnedModel } | null = null;

/**
 * The shipped models (`models/state.json`), validated once.
 * @throws SystemOneError('INVALID_MODEL') when the file's features or classes do not fit this code.
 */
export function stateModels(): { kind: LearnedModel; state: LearnedModel } {
  if (shipped) return shipped;
  shipped = parseStateWeights(weights);
  return shipped;
}

/**
 * Parse and check a state weights file: a JSON list of two `mem.learned/1` models named
 * `write.state_kind` and `write.state`. @throws SystemOneError('INVALID_MODEL').
 */
export function parseStateWeights(json: unknown): { kind: LearnedModel; state: LearnedModel } {
  if (!Array.isArray(json) || json.length !== 2) throw new SystemOneError('INVALID_MODEL', 'state weights: expected a list of two mem.learned/1 models');
  const kind = parseLearnedModel(json[0]);
  const state = parseLearnedModel(json[1]);
  if (kind.name !== 'write.state_kind' || state.name !== 'write.state') throw new SystemOneError('INVALID_MODEL', 'state weights: expected the models write.state_kind, then write.state');
  const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  if (!same(kind.features, KIND_FEATURES) || !same(kind.classes, STATE_KINDS)) {
    throw new SystemOneError('INVALID_MODEL', `state weights: the kind model does not fit KIND_FEATURES / STATE_KINDS (retrain with scripts/train-state.ts)`);
  }
  if (!same(state.features, STATE_FEATURES) || !same(state.classes, STATE_LABELS)) {
    throw new SystemOneError('INVALID_MODEL', `state weights: the state model does not fit STATE_FEATURES / STATE_LABELS (retrain with scripts/train-state.ts)`);
  }
  return { kind, state };
}

const kindCache = new LruMap<string, number[]>(MAX_TEXTS);
/** p(kind) of a statement, in `STATE_KINDS` order (memoised per text for the shipped model). */
export function kindProbabilities(text: string, model?: LearnedModel): number[] {
  if (model) return predictProbabilities(model, kindFeatures(text));
  let p = kindCache.get(text);
  if (!p) kindCache.set(text, (p = predictProbabilities(stateModels().kind, kindFeatures(text))));
  return p;
}

/** The most probable subject kind of a statement. */
export function kindOf(text: string, model?: LearnedModel): StateKind {
  const p = kindProbabilities(text, model);
  return STATE_KINDS[p.indexOf(Math.max(...p))]!;
}

const IDX = (name: string) => RELATION_FEATURES.indexOf(name);
const I_SUBST = IDX('substitution');
const I_CHANGE = IDX('change_marker_newer');
const I_NEG_NEW = IDX('negation_newer_only');
const I_NEG_OLD = IDX('negation_older_only');
const I_CONT = IDX('containment');
const I_NO_OVERLAP = IDX('no_overlap');

/** The state model's feature vector of (`older`, `newer`), in `STATE_FEATURES` order. `kind` = the kind model to use (default: shipped). */
export function stateFeatures(older: string, newer: string, kind?: LearnedModel): number[] {
  const rel = relationFeatures(older, newer);
  const ko = kindProbabilities(older, kind);
  const kn = kindProbabilities(newer, kind);
  let sameKind = 0;
  for (let i = 0; i < ko.length; i++) sameKind += ko[i]! * kn[i]!;
  const other = STATE_KINDS.length - 1;
  const sameNotOther = sameKind - ko[other]! * kn[other]!;
  const fo = features(older);
  const fn = features(newer);
  const changeAny = cueTest(fn, CHANGE) && !cueTest(fo, CHANGE) ? 1 : 0;
  const namesShared = [...fo.entities].filter((e) => fn.entities.has(e)).length;
  const namesDiffer = fo.entities.size > namesShared && fn.entities.size > namesShared ? 1 : 0;
  const noOverlap = rel[I_NO_OVERLAP]!;
  const pastNew = cueTest(fn, CUES.pastEvent) && !cueTest(fn, CHANGE) ? 1 : 0;
  const so = new Set(fo.content);
  const sn = new Set(fn.content);
  const hNew = new Array<number>(SK_BUCKETS).fill(0);
  const hOld = new Array<number>(SK_BUCKETS).fill(0);
  for (const w of sn) if (!so.has(w)) hNew[fnv1a(w) % SK_BUCKETS] += 1;
  for (const w of so) if (!sn.has(w)) hOld[fnv1a(w) % SK_BUCKETS] += 1;
  const kN = sameNotOther / Math.sqrt(Math.max(1, sn.size));
  const kO = sameNotOther / Math.sqrt(Math.max(1, so.size));
  return [
    ...rel,
    ...ko,
    ...kn,
    sameKind,
    sameNotOther,
    sameNotOther * rel[I_SUBST]!,
    sameNotOther * rel[I_CHANGE]!,
    sameNotOther * Math.max(rel[I_NEG_NEW]!, rel[I_NEG_OLD]!),
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
}

/** Keyed by both texts; least recently used evicted first (was 20,000 cleared when full; issue 33: a long-running server's RSS). */
const probCache = new LruMap<string, Record<StateLabel, number>>(MAX_TEXTS);

/** Calibrated p of each state label for (`older`, `newer`) (sum 1), from the shipped models or the given ones. */
export function stateProbabilities(older: string, newer: string, models?: { kind: LearnedModel; state: LearnedModel }): Record<StateLabel, number> {
  const key = models ? null : `${older}\u0000${newer}`;
  if (key) {
    const hit = probCache.get(key);
    if (hit) return hit;
  }
  const m = models ?? stateModels();
  const p = predictProbabilities(m.state, stateFeatures(older, newer, m.kind));
  const out = Object.fromEntries(STATE_LABELS.map((l, i) => [l, p[i]!])) as Record<StateLabel, number>;
  if (key) probCache.set(key, out);
  return out;
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
 * on either side, or two different known speakers, moves the change mass (update + contradiction) to
 * `unrelated`; a new memory whose time lies wholly before the candidate's moves it to `compatible` —
 * except a statement of a change (a `CHANGE` word: "moved", "quit", "now" …) said at or after the
 * candidate's time: the state it reports holds from its event until it was said ("I live in Oslo",
 * then the same day "I moved to Bergen last month" is a change, not an older event).
 */
export function stateChange(refs: ResolvedRef[]): Record<StateLabel, number> {
  const [a, b] = pair(refs);
  const p = { ...stateProbabilities(b.text, a.text) };
  const change = p.update + p.contradiction;
  const question = cueTest(feat(a), CUES.question) || cueTest(feat(b), CUES.question);
  if (question || otherSpeaker(a, b)) return { ...p, update: 0, contradiction: 0, unrelated: p.unrelated + change };
  const ia = intervalOf(a);
  const ib = intervalOf(b);
  // a statement of a change ("I moved to Bergen last month") describes a state that holds from its event
  // until it was said: it ends at the new memory's own time, not at the event's
  const said = parseTime(a.time);
  const end = ia && cueTest(feat(a), CHANGE) && Number.isFinite(said) ? Math.max(ia.end, said) : ia?.end;
  if (ia && ib && end! < ib.start) return { ...p, update: 0, contradiction: 0, compatible: p.compatible + change };
  return p;
}

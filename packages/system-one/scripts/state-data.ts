/**
 * Labelled pairs of the state question (issue 37), shared by `scripts/train-state.ts` and the state
 * bench (`apps/demo-agent bench:state`):
 * - ours, `test/state-pairs.json`: 84 scenarios over seven subject kinds, each (older, same / update /
 *   contradiction / compatible / unrelated); scenarios with index % 4 == 3 are HELD OUT;
 * - ours, `test/state-pairs-more.json`: 56 more scenarios (the same columns plus `side`, a statement
 *   that stays true after the change: (side, update) and (side, contradiction) are `compatible`), single
 *   statements per subject kind (kind model only) and single labelled pairs; index % 4 == 3 HELD OUT in
 *   every list; its `noOverlap` pairs (updates and hard negatives whose newer statement shares no
 *   content word with the older one but the subject's name) are training only;
 * - the relation fixtures of issue 17 (`relation-pairs.json`, same split; `relation-pairs-extra.json`
 *   and the templated hard negatives: training only), `related` read as `compatible`;
 * - BEAM dev pairs (`relation-data.ts` `beamPairs`, read at run time, never copied): conversations
 *   1–7 train, 8–10 HELD OUT.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { STATE_LABELS, type StateLabel } from '../src/catalogue.js';
import { STATE_KINDS, type StateKind } from '../src/offline/state-model.js';
import { beamPairs, extraPairs, ourPairs, templatePairs, type LabelledPair } from './relation-data.js';

export interface StatePair {
  older: string;
  newer: string;
  label: StateLabel;
  /** Gold subject kind for our state pairs; null where the source has none. */
  kind: StateKind | null;
  /** `state:<i>`, `rel:<source>`, `beam:<conv>:…`. */
  source: string;
  heldOut: boolean;
}

export const STATE_BEAM_TRAIN = [1, 2, 3, 4, 5, 6, 7];
export const STATE_BEAM_HELD_OUT = [8, 9, 10];

const FIXTURE = resolve(import.meta.dirname, '../test/state-pairs.json');
const MORE = resolve(import.meta.dirname, '../test/state-pairs-more.json');
interface StateFixture {
  columns: string[];
  scenarios: string[][];
  other: string[];
}
interface MoreFixture {
  columns: string[];
  scenarios: string[][];
  statements: Record<string, string[]>;
  pairs: [string, string, string][];
  /** Training only (none held out): the newer statement shares no content word with the older. */
  noOverlap?: [string, string, string][];
}
function fixture(): StateFixture {
  return JSON.parse(readFileSync(FIXTURE, 'utf8')) as StateFixture;
}
function more(): MoreFixture {
  return JSON.parse(readFileSync(MORE, 'utf8')) as MoreFixture;
}
const heldOutIndex = (i: number) => i % 4 === 3;

/** Every scenario of ours, both files: `[kind, older, same, update, contradiction, compatible, unrelated, side?]`, with its source id. */
function allScenarios(): { s: string[]; source: string; i: number }[] {
  return [
    ...fixture().scenarios.map((s, i) => ({ s, source: `state:${i}`, i })),
    ...more().scenarios.map((s, i) => ({ s, source: `state2:${i}`, i })),
  ];
}

/** Our state pairs (`test/state-pairs.json`). */
export function statePairs(): StatePair[] {
  const doc = fixture();
  const cols = doc.columns.slice(2) as StateLabel[];
  for (const c of cols) if (!STATE_LABELS.includes(c)) throw new Error(`state-pairs.json: unknown column ${c}`);
  const out: StatePair[] = [];
  for (const { s, source, i } of allScenarios()) {
    const kind = s[0] as StateKind;
    if (!STATE_KINDS.includes(kind)) throw new Error(`${source}: unknown kind ${kind}`);
    const heldOut = heldOutIndex(i);
    cols.forEach((label, k) => out.push({ older: s[1]!, newer: s[k + 2]!, label, kind, source, heldOut }));
    // the side statement stays true after the change: (side, update) and (side, contradiction) are compatible
    const side = s[7];
    if (side) for (const k of [3, 4]) out.push({ older: side, newer: s[k]!, label: 'compatible', kind, source: `${source}:side`, heldOut });
  }
  more().pairs.forEach(([label, older, newer], i) => {
    if (!STATE_LABELS.includes(label as StateLabel)) throw new Error(`state-pairs-more.json pairs[${i}]: unknown label ${label}`);
    out.push({ older, newer, label: label as StateLabel, kind: null, source: `state3:${i}`, heldOut: heldOutIndex(i) });
  });
  (more().noOverlap ?? []).forEach(([label, older, newer], i) => {
    if (!STATE_LABELS.includes(label as StateLabel)) throw new Error(`state-pairs-more.json noOverlap[${i}]: unknown label ${label}`);
    out.push({ older, newer, label: label as StateLabel, kind: null, source: `state4:${i}`, heldOut: false });
  });
  return out;
}

const SLOTS = resolve(import.meta.dirname, '../test/state-slots.json');
interface SlotFixture {
  slots: {
    kind: string;
    slot: string;
    older: string[];
    change: string[];
    other: string[];
    compatible: string[];
    /** `same[i]`: restatements of `older[i]` (label `same`; state6). */
    same?: string[][];
    /** `detail[i]`: later statements about `older[i]`'s value that stay true beside it (label `compatible`; state6). */
    detail?: string[][];
    /** Past events of the slot: every earlier one with every later one is `compatible` (state6). */
    events?: string[];
  }[];
}

/**
 * Slot pairs (ours, `test/state-slots.json`): per attribute slot, every first-person older statement
 * with every change of its value that shares no content word with it (`update`), every change by
 * ANOTHER person (`unrelated`: a different subject), every detail of the same kind that stays true
 * (`compatible`), and two other slots' changes by another person (`unrelated`: another subject and
 * another attribute — "Lena moved to Lisbon" after "I run every morning"). HELD OUT when either
 * statement has index % 4 == 3 in its list (so training never sees a held-out statement).
 * Hard negatives (state6): each older statement with its restatements (`same`, label `same`: "I still
 * live in X") and with later statements about the same value that stay true (`detail`, `compatible`:
 * "Our X flat has a balcony"), held out with their older statement; and every earlier past event of
 * the slot with every later one (`events`, `compatible`) and with every change of the slot's value
 * (`compatible`: the event stays true), held out when either has index % 4 == 3.
 */
export function slotPairs(): StatePair[] {
  const doc = JSON.parse(readFileSync(SLOTS, 'utf8')) as SlotFixture;
  const out: StatePair[] = [];
  doc.slots.forEach((x, si) => {
    if (!STATE_KINDS.includes(x.kind as StateKind)) throw new Error(`state-slots.json ${x.slot}: unknown kind ${x.kind}`);
    const kind = x.kind as StateKind;
    x.older.forEach((older, i) => {
      const cols: [StateLabel, string[], string][] = [['update', x.change, 'change'], ['unrelated', x.other, 'other'], ['compatible', x.compatible, 'compatible']];
      for (const [label, list, col] of cols) {
        list.forEach((newer, j) => out.push({ older, newer, label, kind, source: `slot:${si}:${x.slot}:${col}`, heldOut: heldOutIndex(i) || heldOutIndex(j) }));
      }
      for (const [label, lists, col] of [['same', x.same, 'same'], ['compatible', x.detail, 'detail']] as const) {
        for (const newer of lists?.[i] ?? []) out.push({ older, newer, label, kind, source: `slot:${si}:${x.slot}:${col}`, heldOut: heldOutIndex(i) });
      }
      for (let step = 1; step <= 2; step++) {
        const o = doc.slots[(si + step * 5) % doc.slots.length]!;
        if (o.kind === x.kind) continue;
        const j = (i + step) % o.other.length;
        out.push({ older, newer: o.other[j]!, label: 'unrelated', kind, source: `slot:${si}:${x.slot}:cross`, heldOut: heldOutIndex(i) || heldOutIndex(j) });
      }
    });
    const events = x.events ?? [];
    events.forEach((older, i) =>
      events.slice(i + 1).forEach((newer, d) => {
        const j = i + 1 + d;
        out.push({ older, newer, label: 'compatible', kind, source: `slot:${si}:${x.slot}:events`, heldOut: heldOutIndex(i) || heldOutIndex(j) });
      }),
    );
    // a past event of the slot stays true after a change of the slot's value ("Last year we went camping in
    // Wales" → "I moved to Aarhus last month"): the change statement next to an unaffected event
    events.forEach((older, i) =>
      x.change.forEach((newer, j) => out.push({ older, newer, label: 'compatible', kind, source: `slot:${si}:${x.slot}:event-change`, heldOut: heldOutIndex(i) || heldOutIndex(j) })),
    );
  });
  return out;
}

/**
 * Cross-kind hard negatives (ours, TRAINING ONLY): the older statement of a training scenario with the
 * update or contradiction statement of a training scenario of ANOTHER subject kind, `per` of each per
 * scenario (deterministic) — a change marker ("now", "used to", "moved", "quit") about another
 * attribute does not change this one (label `unrelated`).
 */
export function crossKindPairs(per = 2): StatePair[] {
  const train = allScenarios().filter((x) => !heldOutIndex(x.i));
  const out: StatePair[] = [];
  train.forEach(({ s, source }, t) => {
    let made = 0;
    for (let step = 1; made < per && step < train.length; step++) {
      const o = train[(t + step * 7) % train.length]!;
      if (o.s[0] === s[0]) continue;
      const col = made % 2 === 0 ? 3 : 4; // update, contradiction
      out.push({ older: s[1]!, newer: o.s[col]!, label: 'unrelated', kind: null, source: `state-cross:${source}-${o.source}`, heldOut: false });
      made++;
    }
  });
  return out;
}

/** Sentences with their subject kind, for the kind model: each scenario's first five statements, the `other` list and the single statements. */
export function kindSentences(): { text: string; kind: StateKind; heldOut: boolean }[] {
  const out: { text: string; kind: StateKind; heldOut: boolean }[] = [];
  for (const { s, i } of allScenarios()) {
    for (const t of s.slice(1, 6)) out.push({ text: t, kind: s[0] as StateKind, heldOut: heldOutIndex(i) });
  }
  fixture().other.forEach((t, i) => out.push({ text: t, kind: 'other', heldOut: heldOutIndex(i) }));
  // the slot statements (not the details: their kind is loose), held out as their pairs are
  for (const x of (JSON.parse(readFileSync(SLOTS, 'utf8')) as SlotFixture).slots) {
    for (const list of [x.older, x.change, x.other]) list.forEach((t, i) => out.push({ text: t, kind: x.kind as StateKind, heldOut: heldOutIndex(i) }));
  }
  for (const [kind, list] of Object.entries(more().statements)) {
    if (!STATE_KINDS.includes(kind as StateKind)) throw new Error(`state-pairs-more.json statements: unknown kind ${kind}`);
    list.forEach((t, i) => out.push({ text: t, kind: kind as StateKind, heldOut: heldOutIndex(i) }));
  }
  return out;
}

const fromRelation = (p: LabelledPair, prefix: string): StatePair => ({
  older: p.older,
  newer: p.newer,
  label: p.label === 'related' ? 'compatible' : p.label,
  kind: null,
  source: `${prefix}:${p.source}`,
  heldOut: p.heldOut,
});

/** The issue-17 relation pairs as state pairs (their own split; extra and templated pairs are training only). */
export function relationStatePairs(): StatePair[] {
  return [...ourPairs().map((p) => fromRelation(p, 'rel')), ...extraPairs().map((p) => fromRelation(p, 'rel')), ...templatePairs().map((p) => fromRelation(p, 'rel'))];
}

/** BEAM dev state pairs of `convs` (held out iff in `STATE_BEAM_HELD_OUT`). */
export function beamStatePairs(dir: string, convs: readonly number[]): StatePair[] {
  return beamPairs(dir, convs).pairs.map((p) => {
    const conv = Number(/^beam:(\d+):/.exec(p.source)?.[1]);
    return { ...fromRelation(p, 'beam'), source: p.source, heldOut: STATE_BEAM_HELD_OUT.includes(conv) };
  });
}

/** θ_rel: a change edge is written when p(update) + p(contradiction) ≥ this (core `write/questions` `stateEdge`). */
export const STATE_THETA = 0.6;

/** The edge the write path's rule gives a pair from its probabilities (mirrors core `stateEdge`; the bench checks it against the real rule). */
export function edgeLabel(p: Record<StateLabel, number>, theta = STATE_THETA): 'update' | 'contradiction' | 'same' | null {
  if (p.update + p.contradiction >= theta) return p.contradiction >= p.update ? 'contradiction' : 'update';
  if (p.same >= theta) return 'same';
  return null;
}

export interface LabelMetrics {
  support: number;
  /** Of the edge decision (`edgeLabel`). */
  precision: number;
  recall: number;
  /** Expected calibration error of p(label) one-vs-rest, 10 equal-width bins. */
  ece: number;
}

export interface StateMetrics {
  n: number;
  update: LabelMetrics;
  contradiction: LabelMetrics;
  /** Either change label, as one class (the memory is superseded either way). */
  change: LabelMetrics;
  /** Compatible pairs given a CONTRADICTS / OBSOLETES edge, and their count. */
  falseOnCompatible: { n: number; edges: number; rate: number };
  falseOnUnrelated: { n: number; edges: number; rate: number };
}

function ece(ps: number[], ys: boolean[], bins = 10): number {
  const sum = new Array(bins).fill(0);
  const hit = new Array(bins).fill(0);
  const cnt = new Array(bins).fill(0);
  ps.forEach((p, i) => {
    const b = Math.min(bins - 1, Math.floor(p * bins));
    sum[b] += p;
    hit[b] += ys[i] ? 1 : 0;
    cnt[b]++;
  });
  let e = 0;
  for (let b = 0; b < bins; b++) if (cnt[b]) e += (cnt[b] / ps.length) * Math.abs(sum[b] / cnt[b] - hit[b] / cnt[b]);
  return e;
}

/** Precision / recall of the edge decision, ECE per label, and false change edges, over labelled pairs with their probabilities. */
export function stateMetrics(pairs: readonly StatePair[], probs: readonly Record<StateLabel, number>[], theta = STATE_THETA): StateMetrics {
  const edges = probs.map((p) => edgeLabel(p, theta));
  const isChange = (l: string | null) => l === 'update' || l === 'contradiction';
  const one = (match: (l: string | null) => boolean, pOf: (p: Record<StateLabel, number>) => number): LabelMetrics => {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    pairs.forEach((x, i) => {
      const pred = match(edges[i]!);
      const gold = match(x.label);
      if (pred && gold) tp++;
      else if (pred) fp++;
      else if (gold) fn++;
    });
    return {
      support: pairs.filter((x) => match(x.label)).length,
      precision: tp + fp ? tp / (tp + fp) : 1,
      recall: tp + fn ? tp / (tp + fn) : 1,
      ece: ece(probs.map(pOf), pairs.map((x) => match(x.label))),
    };
  };
  const falseOn = (label: StateLabel) => {
    const idx = pairs.map((x, i) => (x.label === label ? i : -1)).filter((i) => i >= 0);
    const e = idx.filter((i) => isChange(edges[i]!)).length;
    return { n: idx.length, edges: e, rate: idx.length ? e / idx.length : 0 };
  };
  return {
    n: pairs.length,
    update: one((l) => l === 'update', (p) => p.update),
    contradiction: one((l) => l === 'contradiction', (p) => p.contradiction),
    change: one(isChange, (p) => Math.min(1, p.update + p.contradiction)),
    falseOnCompatible: falseOn('compatible'),
    falseOnUnrelated: falseOn('unrelated'),
  };
}

/** One table row per group: `group  n  update P R ECE  contradiction P R ECE  change P R ECE  false edges on compatible`. */
export function printStateTable(title: string, groups: [string, StateMetrics][]): void {
  const f = (x: number) => x.toFixed(2);
  console.log(`\n${title}`);
  console.log('| group | pairs | update P | R | ECE | contradiction P | R | ECE | change P | R | ECE | compatible → edge | unrelated → edge |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [g, m] of groups) {
    const c = (l: LabelMetrics) => (l.support ? `${f(l.precision)} | ${f(l.recall)} | ${f(l.ece)}` : `– | – | ${f(l.ece)}`);
    console.log(
      `| ${g} | ${m.n} | ${c(m.update)} | ${c(m.contradiction)} | ${c(m.change)} | ${m.falseOnCompatible.edges}/${m.falseOnCompatible.n} | ${m.falseOnUnrelated.edges}/${m.falseOnUnrelated.n} |`,
    );
  }
}

/**
 * Labelled statement pairs for the write path's relation model (issue 17), shared by the training
 * script (`scripts/train-relation.ts`) and the memory-state bench:
 * - our own pairs, `test/relation-pairs.json` (scenario index % 4 == 3 held out);
 * - BEAM dev pairs read at run time from `<beam>/<conv>/probing_questions.json` + `chat.json`
 *   (never copied into the repository): `contradiction_resolution` (`source_chat_ids.first_statement`
 *   / `second_statement`: the two user turns; the sentence pair with the largest word overlap is
 *   used) and `knowledge_update` (`conversation_references`: the original and the updated statement,
 *   without their label prefixes). Conversations 1–5 train, 6–10 are held out.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CUES, cueTest, features, intersectionSize } from '../src/offline/text.js';
import { RELATION_LABELS, type RelationLabel } from '../src/offline/relation-model.js';

export interface LabelledPair {
  older: string;
  newer: string;
  label: RelationLabel;
  /** Where it comes from: `ours:<scenario>`, `ours-cross:<i>-<j>`, `beam:<conv>:<kind>:<n>`. */
  source: string;
  heldOut: boolean;
}

const FIXTURE = resolve(import.meta.dirname, '../test/relation-pairs.json');

/** Scenario index → held out (the fixture's fixed split). */
export const isHeldOutScenario = (i: number): boolean => i % 4 === 3;

/**
 * Our pairs: (older, each other column) with the column's label, plus `crossPerScenario` pairs of
 * statements from two different scenarios of the same split (label `unrelated`, deterministic).
 */
export function ourPairs(crossPerScenario = 1): LabelledPair[] {
  const doc = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { columns: string[]; scenarios: string[][] };
  const cols = doc.columns.slice(1) as RelationLabel[];
  for (const c of cols) if (!RELATION_LABELS.includes(c)) throw new Error(`relation-pairs.json: unknown column ${c}`);
  const out: LabelledPair[] = [];
  doc.scenarios.forEach((s, i) => {
    cols.forEach((label, k) => out.push({ older: s[0]!, newer: s[k + 1]!, label, source: `ours:${i}`, heldOut: isHeldOutScenario(i) }));
  });
  const n = doc.scenarios.length;
  for (let i = 0; i < n; i++) {
    for (let r = 1; r <= crossPerScenario; r++) {
      // the next scenario of the same split, r steps on (wraps)
      let j = i;
      let steps = 0;
      while (steps < r) {
        j = (j + 1) % n;
        if (isHeldOutScenario(j) === isHeldOutScenario(i)) steps++;
      }
      const newer = doc.scenarios[j]![(i + r) % 6]!;
      out.push({ older: doc.scenarios[i]![0]!, newer, label: 'unrelated', source: `ours-cross:${i}-${j}`, heldOut: isHeldOutScenario(i) });
    }
  }
  return out;
}

const EXTRA = resolve(import.meta.dirname, '../test/relation-pairs-extra.json');

/** More of our pairs (`test/relation-pairs-extra.json`, same columns), TRAINING ONLY: every scenario's older statement with each other column. */
export function extraPairs(): LabelledPair[] {
  const doc = JSON.parse(readFileSync(EXTRA, 'utf8')) as { columns: string[]; scenarios: string[][] };
  const cols = doc.columns.slice(1) as RelationLabel[];
  const out: LabelledPair[] = [];
  doc.scenarios.forEach((s, i) => cols.forEach((label, k) => out.push({ older: s[0]!, newer: s[k + 1]!, label, source: `ours-extra:${i}`, heldOut: false })));
  return out;
}

/**
 * Templated hard negatives (ours, TRAINING ONLY, never in the held-out report): pairs of templated
 * statements that differ in their numbers, objects, places or times but do NOT contradict or
 * supersede each other — two events of one person ("Aiko packed a crate at the depot yesterday
 * (ticket 41)." / "Aiko weighed a kettle at the pier last Friday (ticket 97).": `unrelated`), the same
 * event noted twice under another number (`related`), and facts about two different numbered
 * things ("Room 12 has 4 chairs." / "Room 15 has 6 chairs.": `unrelated`). Own vocabulary, not the
 * synthetic-stream generator of the core benches. Deterministic; `n` pairs per kind.
 */
export function templatePairs(n = 30): LabelledPair[] {
  const names = ['Aiko', 'Bruno', 'Carla', 'Dmitri', 'Elif', 'Farid', 'Gwen', 'Hugo', 'Isla', 'Jonah', 'Kofi', 'Lotte'];
  const verbs = ['packed', 'washed', 'weighed', 'carried', 'measured', 'polished', 'delivered', 'tested', 'inspected', 'labelled', 'unloaded', 'sorted'];
  const objects = ['crate', 'jacket', 'printer', 'ladder', 'kettle', 'basket', 'mirror', 'suitcase', 'helmet', 'rug', 'stool', 'parcel', 'fan'];
  const places = ['depot', 'pier', 'studio', 'clinic', 'warehouse', 'office', 'yard', 'hall', 'shop', 'attic'];
  const whens = ['yesterday', 'last Friday', 'three days ago', 'this afternoon', 'last winter', 'on Tuesday', 'before dinner', 'last week'];
  const tags = ['ticket', 'ref', 'item', 'batch', 'entry', 'log'];
  const things = ['Room', 'Locker', 'Flight', 'Order', 'Bus', 'Table', 'Desk', 'Cabin'];
  const facts = ['has {a} chairs', 'is {a} metres long', 'weighs {a} kilograms', 'seats {a} people', 'holds {a} boxes', 'leaves at {a} pm'];
  let seed = 12345;
  const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const num = () => 2 + Math.floor(rnd() * 900);
  const out: LabelledPair[] = [];
  for (let i = 0; i < n; i++) {
    const who = pick(names);
    const tag = pick(tags);
    const a = `${who} ${pick(verbs)} the ${pick(objects)} at the ${pick(places)} ${pick(whens)} (${tag} ${num()}).`;
    let b = `${who} ${pick(verbs)} the ${pick(objects)} at the ${pick(places)} ${pick(whens)} (${tag} ${num()}).`;
    if (b === a) b = b.replace(/\(/, '(second ');
    out.push({ older: a, newer: b, label: 'unrelated', source: `ours-template:${i}:events`, heldOut: false });
    const again = a.replace(/\d+\)/, `${num()})`).replace(/ (yesterday|last Friday|three days ago|this afternoon|last winter|on Tuesday|before dinner|last week) \(/, ` ${pick(whens)} (`);
    out.push({ older: a, newer: again, label: 'related', source: `ours-template:${i}:again`, heldOut: false });
    const t = pick(things);
    const f = pick(facts);
    const x = num();
    let y = num();
    if (y === x) y++;
    out.push({ older: `${t} ${x} ${f.replace('{a}', String(1 + (x % 9)))}.`, newer: `${t} ${y} ${f.replace('{a}', String(1 + (y % 7)))}.`, label: 'unrelated', source: `ours-template:${i}:things`, heldOut: false });
  }
  return out;
}

/** Default BEAM folder: `../shared/data/beam/500K` next to the repository, or `$MEM_BEAM_DIR`. */
export function defaultBeamDir(): string {
  return process.env.MEM_BEAM_DIR ?? resolve(import.meta.dirname, '../../../../shared/data/beam/500K');
}

export const BEAM_TRAIN = [1, 2, 3, 4, 5];
export const BEAM_HELD_OUT = [6, 7, 8, 9, 10];

interface Turn {
  id: number;
  role: string;
  content: string;
}

function turnsOf(dir: string): Map<number, Turn> {
  const chat = JSON.parse(readFileSync(resolve(dir, 'chat.json'), 'utf8')) as { turns: Turn[][] }[];
  const m = new Map<number, Turn>();
  for (const b of chat) for (const t of b.turns) for (const x of t) m.set(x.id, x);
  return m;
}

const words = (s: string) => s.split(/\s+/).length;

/**
 * Sentences of a chat turn without code blocks, of 4–60 words; a sentence of more than 25 words also
 * gives its clauses (split at commas and "but" / "so"), of 4–60 words (chat turns often hold one
 * long sentence with the claim in a clause).
 */
export function sentencesOf(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.replace(/```[\s\S]*?```/g, ' ').split(/(?<=[.!?])\s+|\n+/)) {
    const s = raw.trim();
    const w = words(s);
    if (w >= 4 && w <= 60) out.push(s);
    if (w > 25) {
      for (const c of s.split(/,\s+|\s+(?:but|so)\s+/)) {
        const cw = words(c.trim());
        if (cw >= 4 && cw <= 60 && c.trim() !== s) out.push(c.trim());
      }
    }
  }
  return out;
}

/**
 * The sentence pair (one from each text) with the largest Jaccard overlap of content words; with
 * `negationBonus` > 0, pairs where exactly one sentence is negated get that much added (BEAM marks
 * its `never_statement_violation` items: the contradiction is a "never" sentence).
 */
/** For a "never" item: `bonus` when exactly one sentence is negated, minus `bonus` when either is a question (a question states nothing). */
function pairBonus(x: string, y: string, bonus: number): number {
  const fx = features(x);
  const fy = features(y);
  return (fx.negated !== fy.negated ? bonus : 0) - (cueTest(fx, CUES.question) || cueTest(fy, CUES.question) ? bonus : 0);
}

export function closestSentences(a: string, b: string, negationBonus = 0): [string, string] | null {
  const sa = sentencesOf(a).slice(0, 30);
  const sb = sentencesOf(b).slice(0, 30);
  let best: [string, string] | null = null;
  let bestJ = -1;
  for (const x of sa) {
    const fx = features(x).content;
    for (const y of sb) {
      const fy = features(y).content;
      const i = intersectionSize(fx, fy);
      const j = i / (fx.size + fy.size - i || 1) + (negationBonus ? pairBonus(x, y, negationBonus) : 0);
      if (j > bestJ) {
        bestJ = j;
        best = [x, y];
      }
    }
  }
  return best;
}

/** "Performance & Optimization Labels:Memory Management: …", "Information Update: …" → the statement. */
export function stripBeamLabel(s: string): string {
  return s
    .replace(/^[•\-\s]+/, '')
    .replace(/^.*?Labels:\s*[^:]{0,60}:\s*/, '')
    .replace(/^Information Update:\s*/i, '')
    .trim();
}

export interface BeamPairs {
  pairs: LabelledPair[];
  /** knowledge_update questions with their turn ids (original, updated), for the read-path target. */
  updates: { conv: number; question: string; original: number[]; updated: number[] }[];
  /** contradiction_resolution items with the two turns' ids. */
  contradictions: { conv: number; first: number[]; second: number[] }[];
}

/** BEAM dev pairs of the given conversations (see the module comment). Throws when the folder is missing. */
export function beamPairs(dir: string, convs: readonly number[]): BeamPairs {
  if (!existsSync(dir)) throw new Error(`BEAM data not found at ${dir} (pass --beam <dir> or set MEM_BEAM_DIR)`);
  const out: BeamPairs = { pairs: [], updates: [], contradictions: [] };
  for (const conv of convs) {
    const d = resolve(dir, String(conv));
    const q = JSON.parse(readFileSync(resolve(d, 'probing_questions.json'), 'utf8')) as Record<string, any[]>;
    const turns = turnsOf(d);
    const heldOut = BEAM_HELD_OUT.includes(conv);
    (q.contradiction_resolution ?? []).forEach((c, n) => {
      const first: number[] = c.source_chat_ids?.first_statement ?? [];
      const second: number[] = c.source_chat_ids?.second_statement ?? [];
      out.contradictions.push({ conv, first, second });
      const a = first.map((id) => turns.get(id)?.content ?? '').join('\n');
      // the second statement that overlaps the first most (some lists hold follow-up turns too)
      let best: [string, string] | null = null;
      let bestJ = -1;
      for (const id of second) {
        const bonus = /never/.test(String(c.contradiction_type ?? '')) ? 0.3 : 0;
        const p = closestSentences(a, turns.get(id)?.content ?? '', bonus);
        if (!p) continue;
        const fa = features(p[0]).content;
        const fb = features(p[1]).content;
        const i = intersectionSize(fa, fb);
        const j = i / (fa.size + fb.size - i || 1) + (bonus ? pairBonus(p[0], p[1], bonus) : 0);
        if (j > bestJ) {
          bestJ = j;
          best = p;
        }
      }
      // "first" / "second" are not the order of the turns: the older turn is the one said first
      const firstIsOlder = Math.min(...first) <= Math.min(...second);
      if (best) {
        const [older, newer] = firstIsOlder ? best : [best[1], best[0]];
        out.pairs.push({ older, newer, label: 'contradiction', source: `beam:${conv}:contradiction:${n}`, heldOut });
      }
    });
    (q.knowledge_update ?? []).forEach((u, n) => {
      const refs: string[] = u.conversation_references ?? [];
      const ids = u.source_chat_ids ?? {};
      out.updates.push({ conv, question: u.question, original: ids.original_info ?? [], updated: ids.updated_info ?? [] });
      if (refs.length >= 2) {
        out.pairs.push({ older: stripBeamLabel(refs[0]!), newer: stripBeamLabel(refs[refs.length - 1]!), label: 'update', source: `beam:${conv}:update:${n}`, heldOut });
      }
    });
  }
  return out;
}

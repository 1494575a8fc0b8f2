/**
 * Train the offline model of the routing Nouls `routing.past_state` and `routing.present_state` (one
 * three-class softmax: other / present / past; src/offline/past-state.ts; ours, issue 37) and print its
 * quality on data it was not fitted on.
 *
 *   npx tsx scripts/train-past-state.ts [--beam ../../../shared/data/beam/500K] [--locomo …/locomo10-dev.json] [--write]
 *
 * Data: bench/past-state.ts (our labelled questions over eight attribute kinds; held out: one template
 * in four and two of the ten people) and BEAM 500K knowledge_update questions (present-state
 * questions, class present: conversations 1–5 train, 6–10 held out). Temperature from 5-fold out-of-fold
 * logits of the training rows, folds by question template. Also printed: the share of LoCoMo dev questions (no labels: mostly
 * past-tense EVENT questions) the model calls past-state.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pastStateCases } from '../bench/past-state.js';
import { expectedCalibrationError, rocAuc } from '../src/learned/metrics.js';
import { fitTemperature, trainLearnedModel } from '../src/learned/train.js';
import { modelLogits, predictProbability, withTemperature, type LearnedModel } from '../src/learned/model.js';
import { pastStateFeatureRecord } from '../src/offline/past-state.js';

const { values } = parseArgs({
  options: {
    beam: { type: 'string', default: resolve(import.meta.dirname, '../../../../shared/data/beam/500K') },
    locomo: { type: 'string', default: resolve(import.meta.dirname, '../../../../shared/data/locomo/locomo10-dev.json') },
    write: { type: 'boolean', default: false },
  },
});

const CLASSES = ['other', 'present', 'past'] as const;
interface Ex {
  query: string;
  /** 1 = past (the binary view printed below). */
  label: number;
  cls: number;
  source: string;
  group: string;
  held: boolean;
}
const ex: Ex[] = pastStateCases().map((c) => ({ query: c.query, label: c.label, cls: CLASSES.indexOf(c.time), source: 'ours', group: `${c.kind}/${c.family}`, held: c.heldOut }));
for (let n = 1; n <= 10; n++) {
  const f = resolve(values.beam!, String(n), 'probing_questions.json');
  if (!existsSync(f)) continue;
  const p = JSON.parse(readFileSync(f, 'utf8')) as Record<string, { question: string }[]>;
  for (const q of p.knowledge_update ?? []) ex.push({ query: String(q.question), label: 0, cls: 1, source: 'beam', group: 'beam/knowledge_update', held: n > 5 });
}
const train = ex.filter((e) => !e.held);
const held = ex.filter((e) => e.held);

const count = new Map<string, number>();
for (const e of train) for (const k of pastStateFeatureRecord(e.query).keys()) if (k.includes(':')) count.set(k, (count.get(k) ?? 0) + 1);
const features = ['year', 'len', ...[...count].filter(([, n]) => n >= 3).map(([k]) => k).sort()];
const vec = (q: string) => {
  const r = pastStateFeatureRecord(q);
  return features.map((n) => r.get(n) ?? 0);
};
// each source weighs the same in total (our cases outnumber BEAM's)
const per = new Map<string, number>();
for (const e of train) per.set(e.source, (per.get(e.source) ?? 0) + 1);
const weightOf = (rows: Ex[]) => rows.map((e) => rows.length / (per.size * per.get(e.source)!));
const fit = (rows: Ex[]) =>
  trainLearnedModel(
    rows.map((e) => vec(e.query)),
    rows.map((e) => e.cls),
    { name: 'routing.state_time', kind: 'softmax', features, classes: [...CLASSES], l2: 0.01, epochs: 300, sampleWeights: weightOf(rows) },
  );
// folds by question template (the name replaced), so a template's other instances are never in the
// fold that calibrates it
const templateOf = (q: string) => q.replace(/\b(Jonas|Maya|Priya|Tomas|Lena|Omar|Sofia|Kenji|Ana|Dmitri)\b/g, 'X');
const foldOf = (e: Ex) => {
  let h = 0;
  for (const ch of templateOf(e.query)) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return h % 5;
};
const logits: number[][] = [];
const labels: number[] = [];
for (let f = 0; f < 5; f++) {
  const m = fit(train.filter((e) => foldOf(e) !== f));
  for (const e of train.filter((e) => foldOf(e) === f)) {
    logits.push(modelLogits(m, vec(e.query)));
    labels.push(e.cls);
  }
}
const T = fitTemperature(logits, labels);
const model: LearnedModel = withTemperature(fit(train), T);
const p = (q: string) => predictProbability(model, vec(q), 'past');
const pPresent = (q: string) => predictProbability(model, vec(q), 'present');

const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '–');
console.log(`train ${train.length} questions, held out ${held.length}; ${features.length} features; temperature ${T.toFixed(3)}`);
const ps = held.map((e) => p(e.query));
const ys = held.map((e) => e.label);
const acc = ps.filter((x, i) => (x >= 0.5 ? 1 : 0) === ys[i]).length / ps.length;
console.log(`\nheld out, past vs the rest: AUC ${f3(rocAuc(ps, ys))} · ECE ${f3(expectedCalibrationError(ps, ys))} · accuracy at 0.5 ${f3(acc)}`);
const pr = held.map((e) => pPresent(e.query));
const yr = held.map((e) => (e.cls === 1 ? 1 : 0));
console.log(`held out, present vs the rest: AUC ${f3(rocAuc(pr, yr))} · ECE ${f3(expectedCalibrationError(pr, yr))} · accuracy at 0.5 ${f3(pr.filter((x, i) => (x >= 0.5 ? 1 : 0) === yr[i]).length / pr.length)}`);
console.log('\n| group (held out) | n | called past (p ≥ 0.5) | called present (p ≥ 0.5) |');
console.log('|---|---:|---:|---:|');
const groups = [...new Set(held.map((e) => e.group))].sort();
for (const g of groups) {
  const rows = held.filter((e) => e.group === g);
  console.log(`| ${g} | ${rows.length} | ${f3(rows.filter((e) => p(e.query) >= 0.5).length / rows.length)} | ${f3(rows.filter((e) => pPresent(e.query) >= 0.5).length / rows.length)} |`);
}
const wrong = held.filter((e) => (p(e.query) >= 0.5 ? 1 : 0) !== e.label);
console.log(`\nheld-out errors (${wrong.length}):`);
for (const e of wrong.slice(0, 25)) console.log(`  ${e.label ? 'past ' : 'other'} p=${p(e.query).toFixed(2)} ${e.query}`);
if (existsSync(values.locomo!)) {
  const data = JSON.parse(readFileSync(values.locomo!, 'utf8')) as { qa: { question: string }[] }[];
  const qs = data.flatMap((c) => c.qa.map((q) => String(q.question)));
  const past = qs.filter((q) => p(q) >= 0.5);
  const present = qs.filter((q) => pPresent(q) >= 0.5);
  console.log(`\nLoCoMo dev questions called past-state: ${past.length}/${qs.length}; e.g. ${past.slice(0, 5).map((q) => JSON.stringify(q)).join(', ')}`);
  console.log(`LoCoMo dev questions called present-state: ${present.length}/${qs.length}; e.g. ${present.slice(0, 5).map((q) => JSON.stringify(q)).join(', ')}`);
}
for (const q of ['What kind of food does Jonas like?', 'What kind of food does Jonas like now?', 'What did Jonas think of spicy food then?', 'What food did Jonas like in 2023?', 'Where did Jonas live before he moved to Bergen?'])
  console.log(`  p(past) ${p(q).toFixed(2)} p(present) ${pPresent(q).toFixed(2)}  ${q}`);

if (values.write) {
  const round = (x: number) => Math.round(x * 1e5) / 1e5;
  const out = {
    ...model,
    weights: model.weights.map((row) => row.map(round)),
    bias: model.bias.map(round),
    temperature: round(model.temperature),
    training: {
      script: 'packages/system-one/scripts/train-past-state.ts',
      data: 'bench/past-state.ts (train split) and BEAM 500K 1-5 knowledge_update questions (class present)',
      n: train.length,
      held_out: { n: held.length, auc: round(rocAuc(ps, ys)), ece: round(expectedCalibrationError(ps, ys)), accuracy: round(acc) },
    },
  };
  const file = resolve(import.meta.dirname, '../src/offline/models/past-state.json');
  writeFileSync(file, JSON.stringify(out) + '\n');
  console.log(`written ${file}`);
}

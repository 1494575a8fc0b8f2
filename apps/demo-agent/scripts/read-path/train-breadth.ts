/**
 * Train the breadth model (ours, issue 38 point 2; packages/retrieval/src/breadth.ts): p(the question
 * needs many memories), label = at least MANY_EVIDENCE evidence items, from the questions of the TRAIN
 * split (LoCoMo dev 0–3, BEAM 1–5; a question of dataset d weighs 1/n_d). The vocabulary is the words
 * of at least 3 train questions. The temperature is fitted on LoCoMo 3 and BEAM 5 left out of a first fit.
 * Reads only the questions (no memories).
 *
 *   npx tsx --conditions=@mem/source apps/demo-agent/scripts/read-path/train-breadth.ts \
 *     --locomo ../shared/data/locomo/locomo10-dev.json --beam ../shared/data/beam/500K [--write [--out file]]
 *
 * Printed: AUC, ECE and the share of questions called "many" per dataset × split, and per type.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { expectedCalibrationError, fitTemperature, modelLogits, predictProbability, rocAuc, trainLearnedModel, withTemperature, type LearnedModel } from '@mem/system-one';
import { MANY_EVIDENCE, breadthFeatureRecord } from '@mem/retrieval';
import { loadCorpus, questionType } from './corpus.js';
import { roundedMetrics, roundedModel, splitRecord, writeModelFile } from './model-file.js';
import { f3 } from './table.js';

const { values } = parseArgs({ options: { locomo: { type: 'string' }, beam: { type: 'string' }, write: { type: 'boolean', default: false }, out: { type: 'string' }, l2: { type: 'string', default: '0.01' }, epochs: { type: 'string', default: '300' } } });
const corpus = loadCorpus({ locomo: values.locomo, beam: values.beam });
interface Q { dataset: string; conversation: number; split: string; type: string; query: string; label: number; rec: Map<string, number> }
const qs: Q[] = corpus.flatMap((c) =>
  c.questions
    .filter((q) => q.evidence.length > 0)
    .map((q) => ({ dataset: c.dataset, conversation: c.index, split: c.split, type: questionType(c, q), query: q.question, label: new Set(q.evidence).size >= MANY_EVIDENCE ? 1 : 0, rec: breadthFeatureRecord(q.question) })),
);
const train = qs.filter((q) => q.split === 'train');
const df = new Map<string, number>();
for (const q of train) for (const k of q.rec.keys()) df.set(k, (df.get(k) ?? 0) + 1);
const features = [...df.entries()].filter(([k, n]) => !k.startsWith('w:') && !k.startsWith('first:') ? true : n >= 3).map(([k]) => k).sort();
const CAL: Record<string, number> = { locomo: 3, beam: 5 };

function fit(rows: Q[]): LearnedModel {
  const per = new Map<string, number>();
  for (const q of rows) per.set(q.dataset, (per.get(q.dataset) ?? 0) + 1);
  return trainLearnedModel(
    rows.map((q) => features.map((f) => q.rec.get(f) ?? 0)),
    rows.map((q) => q.label),
    { name: 'retrieval.breadth', kind: 'logistic', features, classes: ['few', 'many'], l2: Number(values.l2), epochs: Number(values.epochs), learningRate: 0.05, sampleWeights: rows.map((q) => 100 / per.get(q.dataset)!), seed: 1 },
  );
}
const first = fit(train.filter((q) => CAL[q.dataset] !== q.conversation));
const cal = train.filter((q) => CAL[q.dataset] === q.conversation);
const model = withTemperature(fit(train), fitTemperature(cal.map((q) => modelLogits(first, features.map((f) => q.rec.get(f) ?? 0))[0]), cal.map((q) => q.label)));
const p = (q: Q) => predictProbability(model, features.map((f) => q.rec.get(f) ?? 0));
console.log(`\n## Breadth: p(the question needs ≥ ${MANY_EVIDENCE} memories) (${features.length} features; temperature ${model.temperature.toFixed(3)})\n`);
console.log('| rows | questions | share needing many | AUC | ECE | called many (p ≥ 0.5) | recall of "many" | precision |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
const metrics: Record<string, Record<string, number>> = {};
for (const d of ['locomo', 'beam']) for (const s of ['train', 'held']) {
  const sub = qs.filter((q) => q.dataset === d && q.split === s);
  if (!sub.length) continue;
  const ps = sub.map(p);
  const y = sub.map((q) => q.label);
  const called = ps.map((x) => x >= 0.5);
  const tp = called.filter((c, i) => c && y[i]).length;
  const m = { questions: sub.length, many: y.filter(Boolean).length / sub.length, auc: rocAuc(ps, y), ece: expectedCalibrationError(ps, y), called: called.filter(Boolean).length / sub.length, recall: tp / Math.max(1, y.filter(Boolean).length), precision: tp / Math.max(1, called.filter(Boolean).length) };
  metrics[`${d}_${s}`] = m;
  console.log(`| ${d} ${s} | ${m.questions} | ${f3(m.many)} | ${f3(m.auc)} | ${f3(m.ece)} | ${f3(m.called)} | ${f3(m.recall)} | ${f3(m.precision)} |`);
}
console.log('\nheld-out share called many, per type:');
for (const d of ['locomo', 'beam']) {
  const held = qs.filter((q) => q.dataset === d && q.split === 'held');
  console.log(`${d}: ${[...new Set(held.map((q) => q.type))].sort().map((t) => { const sub = held.filter((q) => q.type === t); return `${t} ${f3(sub.filter((q) => p(q) >= 0.5).length / sub.length)}`; }).join(', ')}`);
}
if (values.write) {
  const out: LearnedModel = { ...roundedModel(model), training: { script: 'apps/demo-agent/scripts/read-path/train-breadth.ts', label: `at least ${MANY_EVIDENCE} evidence items`, ...splitRecord(), temperature_fitted_on: CAL, l2: Number(values.l2), epochs: Number(values.epochs), metrics: roundedMetrics(metrics) } };
  writeModelFile(out, { out: values.out, scriptDir: path.dirname(fileURLToPath(import.meta.url)), defaultName: 'breadth.json', target: 'retrieval/src/models/breadth.json' });
}

/**
 * Train the read path's candidate-relevance model (ours) from dump.ts output and write it to
 * packages/retrieval/src/models/relevance.json (`mem.learned/1`).
 *
 *   npx tsx --conditions=@mem/source apps/demo-agent/scripts/read-path/train.ts \
 *     --data /tmp/mem-read-path/locomo.jsonl,/tmp/mem-read-path/beam.jsonl [--write [--out file] [--embedder name]]
 *
 * - Training rows: every visited candidate of the TRAIN split's questions with evidence (LoCoMo 0–3,
 *   BEAM 1–5; corpus.ts), label = the candidate is one of the question's evidence turns. The held-out
 *   split (LoCoMo 4–7, BEAM 6–10) is never used to fit anything; it is only reported.
 * - L2 logistic regression (`trainLearnedModel` of @mem/system-one); the temperature is fitted on one
 *   train conversation per dataset (LoCoMo 3, BEAM 5) left out of a first fit, then the model is refitted
 *   on all train rows with that temperature.
 * - Printed: AUC, ECE, accuracy and log loss of p(evidence) per dataset × split; evidence recall@10
 *   of the visited candidates re-ranked by the model vs jev's hand-weighted order vs a perfect order,
 *   per dataset × split, per question type and per conversation; and the two cross-dataset numbers
 *   (trained on all LoCoMo dev → BEAM, and on all BEAM → LoCoMo).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  expectedCalibrationError,
  fitTemperature,
  modelLogits,
  predictProbability,
  fitPlatt,
  rocAuc,
  trainLearnedModel,
  trainRankingModel,
  withPlatt,
  withTemperature,
  type LearnedModel,
  type RankObjective,
} from '@mem/system-one';
import { RELEVANCE_FEATURES, RELEVANCE_MODEL_FEATURES, candidateSetStats, relativeFeatures } from '@mem/retrieval';
import { recallAt as recallAtK } from './recall.js';
import { roundedMetrics, roundedModel, splitRecord, writeModelFile } from './model-file.js';
import { f3, mean, type DumpedQuestion } from './table.js';

interface Row extends DumpedQuestion {
  question: string;
  routing?: { recencyImportance?: number };
  candidates: { sourceId: string; label: number; features: Record<string, number> }[];
}

const { values } = parseArgs({ options: { data: { type: 'string' }, write: { type: 'boolean', default: false }, k: { type: 'string', default: '10' }, l2: { type: 'string', default: '0.001' }, epochs: { type: 'string', default: '300' }, balance: { type: 'string', default: 'dataset' }, hidden: { type: 'string', default: '0' }, seed: { type: 'string', default: '1' }, ensemble: { type: 'string', default: '1' }, features: { type: 'string', default: 'relative' }, cv: { type: 'boolean', default: false }, objective: { type: 'string', default: 'bce' }, mix: { type: 'string', default: '0' }, batch: { type: 'string', default: '8' }, lr: { type: 'string', default: '0.003' }, out: { type: 'string' }, embedder: { type: 'string' }, 'swap-splits': { type: 'boolean', default: false } } });
// --objective bce (default: the pointwise fit of trainLearnedModel, rows in mini-batches, temperature
// calibration) | pointwise | softmax | lambdarank (trainRankingModel of @mem/system-one: mini-batches of
// --batch questions, each question's candidates one group; --mix μ adds μ × the pointwise loss to a
// listwise one; Platt calibration, since a listwise logit has no fixed offset).
const OBJECTIVE = values.objective as 'bce' | RankObjective;
if (!['bce', 'pointwise', 'softmax', 'lambdarank'].includes(OBJECTIVE)) throw new Error(`--objective bce|pointwise|softmax|lambdarank, got ${OBJECTIVE}`);
const HIDDEN = Number(values.hidden);
const ALPHA = values.balance === 'dataset' ? 1 : Number(values.balance);
const rows: Row[] = values
  .data!.split(',')
  .flatMap((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Row))
  .filter((r) => r.evidence.length > 0);
// --swap-splits: the reverse fold of a 2-fold cross-fit. The model is fitted on the HELD-OUT conversations
// (LoCoMo 4–7, BEAM 6–10) and reported on the train ones (LoCoMo 0–3, BEAM 1–5), so that every dev
// conversation has a relevance model that never saw it (write it with --out, never over the shipped file;
// eval-cache.ts --relevance-model reads it). The temperature conversations become LoCoMo 7 and BEAM 10.
const SWAP = values['swap-splits'] === true;
if (SWAP) {
  if (values.write && !values.out) throw new Error('--swap-splits --write needs --out: the shipped model is trained on the train split');
  for (const r of rows) r.split = r.split === 'train' ? 'held' : 'train';
}
const K = Number(values.k);
// --features relative (default): the per-candidate features plus the ones relative to the question's
// other candidates (relevance.ts RELATIVE_FEATURES, computed here exactly as jev computes them over its
// visited set); --features base: the per-candidate ones only (the model before this change).
const features: string[] = values.features === 'base' ? [...RELEVANCE_FEATURES] : [...RELEVANCE_MODEL_FEATURES];
if (values.features !== 'base') {
  for (const r of rows) {
    const set = candidateSetStats(r.candidates.map((c) => c.features as any));
    for (const c of r.candidates) Object.assign(c.features, relativeFeatures(c.features as any, set, r.routing?.recencyImportance ?? 0));
  }
}
const CAL: Record<string, number> = SWAP ? { locomo: 7, beam: 10 } : { locomo: 3, beam: 5 };

/**
 * `--ensemble N` (with --hidden): N perceptrons fitted with seeds seed … seed + N − 1, merged into one
 * model whose logit is their mean (hidden units side by side, output weights / N): one file, less
 * dependence on one initialisation.
 */
function fit(train: Row[], name = 'retrieval.relevance'): LearnedModel {
  const n = HIDDEN > 0 ? Number(values.ensemble) : 1;
  const models = Array.from({ length: n }, (_, i) => fitOne(train, name, Number(values.seed) + i));
  if (n === 1) return models[0];
  return {
    ...models[0],
    weights: [models.flatMap((m) => m.weights[0].map((w) => w / n))],
    bias: [models.reduce((s, m) => s + m.bias[0], 0) / n],
    hidden: { weights: models.flatMap((m) => m.hidden!.weights), bias: models.flatMap((m) => m.hidden!.bias) },
  };
}

function fitOne(train: Row[], name: string, seed: number): LearnedModel {
  if (OBJECTIVE !== 'bce') return fitRanker(train, name, seed);
  const X: number[][] = [];
  const y: number[] = [];
  const w: number[] = [];
  // --balance α ∈ [0, 1] (default 1 = 'dataset'): a question of dataset d weighs 1 / n_d^α (n_d = its
  // train questions), so α = 1 gives every dataset the same weight (LoCoMo has 8× BEAM's questions) and
  // α = 0 every question; within a question its candidates share the question's weight (a question with
  // 100 candidates is not 2× one with 50). --balance none: every candidate row weighs 1.
  const perDataset = new Map<string, number>();
  for (const r of train) perDataset.set(r.dataset, (perDataset.get(r.dataset) ?? 0) + 1);
  for (const r of train) for (const c of r.candidates) {
    X.push(features.map((f) => c.features[f]));
    y.push(c.label);
    w.push(values.balance === 'none' ? 1 : 1000 / (perDataset.get(r.dataset)! ** ALPHA * r.candidates.length));
  }
  return trainLearnedModel(X, y, { name, kind: 'logistic', features, classes: ['other', 'evidence'], l2: Number(values.l2), epochs: Number(values.epochs), learningRate: HIDDEN > 0 ? 0.003 : 0.05, sampleWeights: w, hidden: HIDDEN, seed });
}

/** `--objective pointwise|softmax|lambdarank`: one group per question; a question of dataset d weighs 1 / n_d^α as in fitOne. */
function fitRanker(train: Row[], name: string, seed: number): LearnedModel {
  const X: number[][] = [];
  const y: number[] = [];
  const groups: number[] = [];
  const perDataset = new Map<string, number>();
  for (const r of train) perDataset.set(r.dataset, (perDataset.get(r.dataset) ?? 0) + 1);
  train.forEach((r, q) => {
    for (const c of r.candidates) {
      X.push(features.map((f) => c.features[f]));
      y.push(c.label);
      groups.push(q);
    }
  });
  const groupWeights = train.filter((r) => r.candidates.length).map((r) => (values.balance === 'none' ? 1 : 1 / perDataset.get(r.dataset)! ** ALPHA));
  return trainRankingModel(X, y, groups, { name, features, classes: ['other', 'evidence'], objective: OBJECTIVE as RankObjective, pointwiseMix: Number(values.mix), groupWeights, hidden: HIDDEN, l2: Number(values.l2), epochs: Number(values.epochs), learningRate: Number(values.lr), batchGroups: Number(values.batch), seed });
}

function calibrated(train: Row[]): LearnedModel {
  const first = fit(train.filter((r) => CAL[r.dataset] !== r.conversation));
  const cal = train.filter((r) => CAL[r.dataset] === r.conversation);
  const logits: number[] = [];
  const labels: number[] = [];
  for (const r of cal) for (const c of r.candidates) {
    logits.push(modelLogits(first, c.features)[0]);
    labels.push(c.label);
  }
  // validation inside the train split (for choosing --hidden / --l2 / --balance without the held-out split)
  for (const d of [...new Set(cal.map((r) => r.dataset))]) {
    const sub = cal.filter((r) => r.dataset === d);
    console.log(`validation (${d} ${CAL[d]}, fitted without it): recall@${K} ${f3(mean(sub.map((r) => recallAt(r, (c) => predictProbability(first, c.features)))))}`);
  }
  // bce: temperature scaling (as before); ranking objectives: Platt scaling σ(a z + b), both fitted on the calibration conversations
  return OBJECTIVE === 'bce' ? withTemperature(fit(train), fitTemperature(logits, labels)) : withPlatt(fit(train), fitPlatt(logits, labels));
}

const recallAt = (r: Row, score: ((c: Row['candidates'][number], i: number) => number) | null) => recallAtK(r, score, K);
const oracle = (r: Row) => Math.min(K, new Set(r.candidates.filter((c) => c.label).map((c) => c.sourceId)).size) / new Set(r.evidence).size;


function report(model: LearnedModel, subset: Row[], label: string): Record<string, number> {
  const p: number[] = [];
  const y: number[] = [];
  for (const r of subset) for (const c of r.candidates) {
    p.push(predictProbability(model, c.features));
    y.push(c.label);
  }
  const acc = mean(p.map((x, i) => ((x >= 0.5 ? 1 : 0) === y[i] ? 1 : 0)));
  const base = mean(y.map((v) => (v === 0 ? 1 : 0)));
  const ll = -mean(p.map((x, i) => Math.log(Math.max(1e-12, y[i] ? x : 1 - x))));
  const learned = mean(subset.map((r) => recallAt(r, (c) => predictProbability(model, c.features))));
  const hand = mean(subset.map((r) => recallAt(r, null)));
  const out = { questions: subset.length, candidates: p.length, auc: rocAuc(p, y), ece: expectedCalibrationError(p, y), accuracy: acc, majority: base, log_loss: ll, recall_learned: learned, recall_hand: hand, recall_oracle: mean(subset.map(oracle)) };
  console.log(`| ${label} | ${out.questions} | ${out.candidates} | ${f3(out.auc)} | ${f3(out.ece)} | ${f3(out.accuracy)} (${f3(out.majority)}) | ${f3(out.log_loss)} | ${f3(out.recall_hand)} | ${f3(out.recall_learned)} | ${f3(out.recall_oracle)} |`);
  return out;
}

const header = () => {
  console.log(`| rows | questions | candidates | AUC | ECE | accuracy (majority) | log loss | recall@${K} hand order | recall@${K} learned | recall@${K} perfect order |`);
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
};

const train = rows.filter((r) => r.split === 'train');

if (values.cv) {
  // --cv: choose settings on the TRAIN split only. Fold f (1–5) holds out BEAM train conversation f and
  // LoCoMo train conversation f − 1 (none for f = 5), fits on the other train conversations, and
  // predicts the held-out fold; every train question is predicted once, out of fold. Prints the
  // out-of-fold recall@K per dataset, per BEAM type and per fold. The held-out split is not read.
  const oof = new Map<Row, number>();
  for (let f = 1; f <= 5; f++) {
    const out = (r: Row) => (r.dataset === 'beam' ? r.conversation === f : r.conversation === f - 1);
    const m = fit(train.filter((r) => !out(r)));
    for (const r of train.filter(out)) oof.set(r, recallAt(r, (c) => predictProbability(m, c.features)));
    process.stderr.write(`fold ${f} done\n`);
  }
  console.log(`\n## Cross-validation on the train split (out-of-fold recall@${K}; objective ${OBJECTIVE}${OBJECTIVE === 'bce' ? '' : ` mix ${values.mix} batch ${values.batch} lr ${values.lr}`}, features ${values.features}, hidden ${HIDDEN}, ensemble ${values.ensemble}, balance ${values.balance}, l2 ${values.l2}, epochs ${values.epochs})\n`);
  for (const d of [...new Set(train.map((r) => r.dataset))]) {
    const sub = train.filter((r) => r.dataset === d);
    console.log(`${d}: out-of-fold ${f3(mean(sub.map((r) => oof.get(r)!)))}, hand order ${f3(mean(sub.map((r) => recallAt(r, null))))} (${sub.length} questions)`);
    const types = [...new Set(sub.map((r) => r.type))].sort();
    if (d === 'beam') console.log(types.map((t) => `${t} ${f3(mean(sub.filter((r) => r.type === t).map((r) => oof.get(r)!)))}`).join(', '));
    const convs = [...new Set(sub.map((r) => r.conversation))].sort((a, b) => a - b);
    console.log(convs.map((c) => `${d} ${c} ${f3(mean(sub.filter((r) => r.conversation === c).map((r) => oof.get(r)!)))}`).join(', '));
  }
  process.exit(0);
}

const model = calibrated(train);
const datasets = [...new Set(rows.map((r) => r.dataset))];
console.log(`\n## Candidate relevance (trained on the train split: ${datasets.map((d) => `${d} ${[...new Set(train.filter((r) => r.dataset === d).map((r) => r.conversation))].join(',')}`).join('; ')}; temperature ${model.temperature.toFixed(3)})\n`);
header();
const metrics: Record<string, Record<string, number>> = {};
for (const d of datasets) for (const s of ['train', 'held'] as const) metrics[`${d}_${s}`] = report(model, rows.filter((r) => r.dataset === d && r.split === s), `${d} ${s}`);

console.log(`\n### Recall@${K} per question type (held-out split): hand order → learned\n`);
for (const d of datasets) {
  const held = rows.filter((r) => r.dataset === d && r.split === 'held');
  const types = [...new Set(held.map((r) => r.type))].sort();
  console.log(`| ${d} type | n | hand | learned | Δ |`);
  console.log('|---|---:|---:|---:|---:|');
  for (const t of types) {
    const sub = held.filter((r) => r.type === t);
    const h = mean(sub.map((r) => recallAt(r, null)));
    const l = mean(sub.map((r) => recallAt(r, (c) => predictProbability(model, c.features))));
    console.log(`| ${t} | ${sub.length} | ${f3(h)} | ${f3(l)} | ${f3(l - h)} |`);
  }
  console.log('');
}

console.log(`### Recall@${K} per conversation: hand order → learned\n`);
console.log('| dataset | conv | split | n | hand | learned |');
console.log('|---|---:|---|---:|---:|---:|');
for (const d of datasets) {
  for (const c of [...new Set(rows.filter((r) => r.dataset === d).map((r) => r.conversation))].sort((a, b) => a - b)) {
    const sub = rows.filter((r) => r.dataset === d && r.conversation === c);
    console.log(`| ${d} | ${c} | ${sub[0].split} | ${sub.length} | ${f3(mean(sub.map((r) => recallAt(r, null))))} | ${f3(mean(sub.map((r) => recallAt(r, (x) => predictProbability(model, x.features)))))} |`);
  }
}

if (datasets.length > 1) {
  console.log(`\n### Cross-dataset: trained on ALL of one dataset's dev conversations, evaluated on the other\n`);
  header();
  for (const from of datasets) for (const to of datasets) {
    if (from === to) continue;
    const m = fit(rows.filter((r) => r.dataset === from));
    metrics[`cross_${from}_to_${to}`] = report(m, rows.filter((r) => r.dataset === to), `${from} → ${to}`);
  }
}

if (!model.hidden) {
  const weights = model.weights[0].map((w, i) => [features[i], w] as const).sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]));
  console.log(`\nweights (raw feature scale, largest first): ${weights.map(([f, w]) => `${f} ${w.toFixed(2)}`).join(', ')}; bias ${model.bias[0].toFixed(2)}`);
} else console.log(`\n${features.length} features → ${model.hidden.weights.length} hidden ReLU units → 1 logit`);

if (values.write) {
  const out: LearnedModel = {
    ...roundedModel(model),
    training: {
      script: 'apps/demo-agent/scripts/read-path/train.ts',
      ...(values.embedder ? { embedder: values.embedder } : {}),
      data: 'visited jev candidates (hand-weighted order) of LoCoMo dev and BEAM 500K questions with evidence',
      ...splitRecord(SWAP),
      temperature_fitted_on: CAL,
      l2: Number(values.l2),
      epochs: Number(values.epochs),
      balance: values.balance,
      hidden: HIDDEN,
      seed: Number(values.seed),
      ensemble: Number(values.ensemble),
      objective: OBJECTIVE,
      ...(OBJECTIVE === 'bce' ? {} : { pointwise_mix: Number(values.mix), batch_questions: Number(values.batch), learning_rate: Number(values.lr), calibration: 'platt' }),
      feature_set: values.features,
      metrics: roundedMetrics(metrics),
    },
  };
  // --out: where to write (default out/relevance.json beside this script). `pnpm models:install <file>
  // retrieval/src/models/relevance.json` (or relevance.minilm.json, the model for one embedder; relevance.ts
  // relevanceModelFor) ships it. --embedder: the dumps' embedder (metadata).
  writeModelFile(out, { out: values.out, scriptDir: path.dirname(fileURLToPath(import.meta.url)), defaultName: 'relevance.json', target: 'retrieval/src/models/relevance.json', indent: 1 });
}

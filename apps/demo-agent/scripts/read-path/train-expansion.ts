/**
 * Train the learned expansion model (ours, issue 38 point 1) from dump-expansion.ts output, as the
 * relevance model is trained (train.ts): fitted on the TRAIN split (LoCoMo dev 0–3, BEAM 1–5), a
 * question of dataset d weighing 1/n_d (its edges share that weight), L2 logistic regression
 * (`trainLearnedModel` of @mem/system-one), the temperature fitted on one train conversation per
 * dataset (LoCoMo 3, BEAM 5) left out of a first fit. `--swap-splits`: the reverse fold of the 2-fold
 * cross-fit (fitted on the held-out split, reported on the train one; write it with --out).
 *
 *   npx tsx --conditions=@mem/source apps/demo-agent/scripts/read-path/train-expansion.ts \
 *     --data /tmp/mem-read-path/expansion.jsonl [--cv] [--write [--out file]]
 *
 * Printed: AUC and ECE of p(neighbour is evidence) per dataset × split; and the recall@10 of a replay
 * of the dumped searches (the visited candidates by their evidence value; a neighbour admitted when its
 * best path's p ≥ cost; with the path score, a memory's value = max(its p(evidence), its path score)),
 * per dataset × split and question type, against the same searches without the model.
 * `--cv`: out-of-fold replay recall on the TRAIN split only (fold f holds out BEAM f and LoCoMo f − 1),
 * for each cost in --costs, with and without the path score: what the settings are chosen on.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { expectedCalibrationError, fitTemperature, modelLogits, predictProbability, rocAuc, trainLearnedModel, withTemperature, type LearnedModel } from '@mem/system-one';
import { EXPANSION_FEATURES } from '@mem/retrieval';
import { roundedMetrics, roundedModel, splitRecord, writeModelFile } from './model-file.js';
import { f3, mean, type DumpedQuestion } from './table.js';

interface Row extends DumpedQuestion {
  candidates: [sourceId: string, final: number, label: number, depth: number][];
  features: string[];
  edges: [depth: number, sourceId: string, visited: number, label: number, x: number[]][];
}

const { values } = parseArgs({ options: { data: { type: 'string' }, write: { type: 'boolean', default: false }, out: { type: 'string' }, cv: { type: 'boolean', default: false }, k: { type: 'string', default: '10' }, l2: { type: 'string', default: '0.001' }, epochs: { type: 'string', default: '150' }, hidden: { type: 'string', default: '0' }, costs: { type: 'string', default: '0.01,0.02,0.05,0.1,0.2' }, negatives: { type: 'string', default: '10' }, cost: { type: 'string', default: '0.02' }, 'swap-splits': { type: 'boolean', default: false } } });
const K = Number(values.k);
const FEATURES = [...EXPANSION_FEATURES] as string[];
const rows: Row[] = values.data!.split(',').flatMap((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Row));
for (const r of rows) if (r.features.join() !== FEATURES.join()) throw new Error('the dump was written with other expansion features: dump again');
const SWAP = values['swap-splits'] === true;
if (SWAP) {
  if (values.write && !values.out) throw new Error('--swap-splits --write needs --out');
  for (const r of rows) r.split = r.split === 'train' ? 'held' : 'train';
}
const CAL: Record<string, number> = SWAP ? { locomo: 7, beam: 10 } : { locomo: 3, beam: 5 };

function fit(train: Row[]): LearnedModel {
  const X: number[][] = [];
  const y: number[] = [];
  const w: number[] = [];
  const perDataset = new Map<string, number>();
  for (const r of train) perDataset.set(r.dataset, (perDataset.get(r.dataset) ?? 0) + 1);
  // every positive edge, and a fixed 1-in-`--negatives` sample of the negative ones weighted up by the
  // same factor (the same expected loss; the trainer's full-batch epochs cost time per row)
  const keep = Number(values.negatives);
  let i = 0;
  for (const r of train) for (const e of r.edges) {
    const neg = e[3] === 0;
    if (neg && i++ % keep !== 0) continue;
    X.push(e[4]);
    y.push(e[3]);
    w.push((1000 / (perDataset.get(r.dataset)! * r.edges.length)) * (neg ? keep : 1));
  }
  const hidden = Number(values.hidden);
  return trainLearnedModel(X, y, { name: 'retrieval.expansion', kind: 'logistic', features: FEATURES, classes: ['other', 'evidence'], l2: Number(values.l2), epochs: Number(values.epochs), learningRate: hidden > 0 ? 0.003 : 0.05, sampleWeights: w, hidden, seed: 1 });
}

function calibrated(train: Row[]): LearnedModel {
  const first = fit(train.filter((r) => CAL[r.dataset] !== r.conversation));
  const logits: number[] = [];
  const labels: number[] = [];
  for (const r of train.filter((x) => CAL[x.dataset] === x.conversation)) for (const e of r.edges) {
    logits.push(modelLogits(first, e[4])[0]);
    labels.push(e[3]);
  }
  return withTemperature(fit(train), fitTemperature(logits, labels));
}

/**
 * Recall@K of one dumped search replayed with `model` (null = as dumped): visited candidates by their
 * value, plus the neighbours whose best path p ≥ cost; with `pathScore`, value = max(p(evidence), path p).
 */
function replay(r: Row, model: LearnedModel | null, cost: number, pathScore: boolean): number {
  const value = new Map<string, number>();
  for (const [s, f] of r.candidates) value.set(s, Math.max(value.get(s) ?? -Infinity, f));
  if (model) {
    const best = new Map<string, { p: number; rel: number }>();
    for (const e of r.edges) {
      const p = predictProbability(model, e[4]);
      const b = best.get(e[1]);
      if (!b || p > b.p) best.set(e[1], { p, rel: e[4][0] });
    }
    for (const [s, b] of best) {
      const v = value.get(s);
      if (v !== undefined) {
        if (pathScore) value.set(s, Math.max(v, b.p));
      } else if (b.p >= cost) value.set(s, pathScore ? Math.max(b.rel, b.p) : b.rel);
    }
  }
  const top = [...value.entries()].sort((a, b) => b[1] - a[1]).slice(0, K).map(([s]) => s);
  const gold = new Set(r.evidence);
  return top.filter((s) => gold.has(s)).length / gold.size;
}

const train = rows.filter((r) => r.split === 'train');
const costs = values.costs!.split(',').map(Number);
if (values.cv) {
  const oof = new Map<Row, LearnedModel>();
  for (let f = 1; f <= 5; f++) {
    const out = (r: Row) => (r.dataset === 'beam' ? r.conversation === f : r.conversation === f - 1);
    const m = fit(train.filter((r) => !out(r)));
    for (const r of train.filter(out)) oof.set(r, m);
    process.stderr.write(`fold ${f} done\n`);
  }
  console.log(`\n## Learned expansion: out-of-fold replay recall@${K} on the train split (hidden ${values.hidden}, l2 ${values.l2})\n`);
  console.log(`| dataset | n | as dumped | ${costs.map((c) => `cost ${c} | cost ${c}, no path score`).join(' | ')} |`);
  console.log(`|---|---:|---:|${costs.map(() => '---:|---:').join('|')}|`);
  for (const d of [...new Set(train.map((r) => r.dataset))]) {
    const sub = train.filter((r) => r.dataset === d);
    const cells = costs.flatMap((c) => [f3(mean(sub.map((r) => replay(r, oof.get(r)!, c, true)))), f3(mean(sub.map((r) => replay(r, oof.get(r)!, c, false))))]);
    console.log(`| ${d} | ${sub.length} | ${f3(mean(sub.map((r) => replay(r, null, 0, false))))} | ${cells.join(' | ')} |`);
  }
  process.exit(0);
}

const model = calibrated(train);
const cost = Number(values.cost);
console.log(`\n## Learned expansion (trained on the ${SWAP ? 'held-out' : 'train'} split; temperature ${model.temperature.toFixed(3)}; replay with cost ${cost} and the path score)\n`);
console.log(`| rows | questions | edges | AUC | AUC of rel_p alone | ECE | replay recall@${K} as dumped | with the model |`);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
const metrics: Record<string, Record<string, number>> = {};
for (const d of [...new Set(rows.map((r) => r.dataset))]) for (const s of ['train', 'held'] as const) {
  const sub = rows.filter((r) => r.dataset === d && r.split === s);
  const p: number[] = [];
  const y: number[] = [];
  for (const r of sub) for (const e of r.edges) {
    p.push(predictProbability(model, e[4]));
    y.push(e[3]);
  }
  const m = { questions: sub.length, edges: p.length, auc: rocAuc(p, y), auc_rel: rocAuc(sub.flatMap((r) => r.edges.map((e) => e[4][0])), y), ece: expectedCalibrationError(p, y), recall_dumped: mean(sub.map((r) => replay(r, null, 0, false))), recall_model: mean(sub.map((r) => replay(r, model, cost, true))) };
  metrics[`${d}_${s}`] = m;
  console.log(`| ${d} ${s} | ${m.questions} | ${m.edges} | ${f3(m.auc)} | ${f3(m.auc_rel)} | ${f3(m.ece)} | ${f3(m.recall_dumped)} | ${f3(m.recall_model)} |`);
}
console.log(`\n### Replay recall@${K} per type (${SWAP ? 'train' : 'held-out'} split reported): as dumped → with the model\n`);
for (const d of [...new Set(rows.map((r) => r.dataset))]) {
  const held = rows.filter((r) => r.dataset === d && r.split === 'held');
  console.log(`${d}: ${[...new Set(held.map((r) => r.type))].sort().map((t) => { const sub = held.filter((r) => r.type === t); return `${t} ${f3(mean(sub.map((r) => replay(r, null, 0, false))))} → ${f3(mean(sub.map((r) => replay(r, model, cost, true))))}`; }).join(', ')}`);
}
if (!model.hidden) {
  const w = model.weights[0].map((x, i) => [FEATURES[i], x] as const).sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]));
  console.log(`\nweights (largest first): ${w.map(([f, x]) => `${f} ${x.toFixed(2)}`).join(', ')}; bias ${model.bias[0].toFixed(2)}`);
}
if (values.write) {
  const out: LearnedModel = {
    ...roundedModel(model),
    training: {
      script: 'apps/demo-agent/scripts/read-path/train-expansion.ts',
      data: 'edges asked about by jev learned rounds (collectExpansion) on LoCoMo dev and BEAM 500K questions with evidence',
      ...splitRecord(SWAP),
      temperature_fitted_on: CAL,
      l2: Number(values.l2),
      epochs: Number(values.epochs),
      hidden: Number(values.hidden),
      metrics: roundedMetrics(metrics),
    },
  };
  writeModelFile(out, { out: values.out, scriptDir: path.dirname(fileURLToPath(import.meta.url)), defaultName: 'expansion.json', target: 'retrieval/src/models/expansion.json', indent: 1 });
}

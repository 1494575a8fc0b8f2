/**
 * Train the read path's learned stopping models (ours, issue 16) from dump-stopping.ts output and
 * write them to packages/system-one/src/offline/models/stopping.json (a list of `mem.learned/1`).
 *
 *   npx tsx --conditions=@mem/source apps/demo-agent/scripts/read-path/train-stopping.ts \
 *     --data /tmp/mem-read-path/stopping.jsonl [--write]
 *
 * - Rows: every stopping state (question × round d, d = 0 the anchors) of the TRAIN split (LoCoMo 0–3,
 *   BEAM 1–5); features = `stoppingFeatureRecord` of @mem/system-one on the state the read path asked
 *   with (the sufficiency model without the features that need the depth, which its catalogue
 *   question does not reference: STOPPING_DEPTH_FEATURES).
 * - Labels: `continue_useful` = the final top 10 holds more evidence than the top 10 after round d;
 *   `evidence_sufficient` = the top 10 after round d holds all of it.
 * - L2 logistic regression (`trainLearnedModel`); a question of dataset d weighs 1/√n_d, shared by its
 *   rounds; the temperature is fitted on one train conversation per dataset (LoCoMo 3, BEAM 5) left out
 *   of a first fit, then the model is refitted on all train rows with it.
 * - Printed per head and dataset × split: AUC, ECE, accuracy (majority), the positive rate; then the
 *   stopping rule of seed 000 §4 (stop when s ≥ 0.95 ∧ m < 0.15, or u < 0.15; the contradiction Noul
 *   taken as 0) replayed on the dumped rounds, asked from depth 1 (the default) or from depth 0 (jev's
 *   `stopBeforeRounds`): recall@10 and the stopping states passed, against never stopping early. The
 *   held-out split is only reported.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  STOPPING_DEPTH_FEATURES as DEPTH_FEATURES,
  STOPPING_FEATURES,
  expectedCalibrationError,
  fitTemperature,
  modelLogits,
  predictProbability,
  rocAuc,
  stoppingFeatureRecord,
  trainLearnedModel,
  withTemperature,
  type LearnedModel,
  type StoppingHead,
} from '@mem/system-one';
import { roundedMetrics, roundedModel, splitRecord, writeModelFile } from './model-file.js';
import { f3, mean } from './table.js';

interface Round {
  depth: number;
  evidence: { relevance: number; round: number }[];
  recall: number;
}
interface Row {
  dataset: string;
  conversation: number;
  split: 'train' | 'held';
  type: string;
  question: string;
  finalRecall: number;
  rounds: Round[];
}

const { values } = parseArgs({ options: { data: { type: 'string' }, write: { type: 'boolean', default: false }, l2: { type: 'string', default: '0.01' }, epochs: { type: 'string', default: '400' } } });
const rows: Row[] = values.data!.split(',').flatMap((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Row));
const features = [...STOPPING_FEATURES];
const CAL: Record<string, number> = { locomo: 3, beam: 5 };
const EPS = 1e-9;

const labelOf = (head: StoppingHead, r: Row, d: Round) => (head === 'continue_useful' ? (r.finalRecall > d.recall + EPS ? 1 : 0) : d.recall >= 1 - EPS ? 1 : 0);
const featureNames: Record<StoppingHead, string[]> = { continue_useful: features, evidence_sufficient: features.filter((f) => !(DEPTH_FEATURES as readonly string[]).includes(f)) };
const records = new Map<Round, Record<string, number>>();
for (const r of rows) for (const d of r.rounds) records.set(d, stoppingFeatureRecord(r.question, d.evidence.map((e) => ({ text: '', ...e })), d.depth));
const xOf = (head: StoppingHead, d: Round) => featureNames[head].map((n) => records.get(d)![n]);

function fit(head: StoppingHead, train: Row[]): LearnedModel {
  const perDataset = new Map<string, number>();
  for (const r of train) perDataset.set(r.dataset, (perDataset.get(r.dataset) ?? 0) + 1);
  const Xs: number[][] = [];
  const y: number[] = [];
  const w: number[] = [];
  for (const r of train) for (const d of r.rounds) {
    Xs.push(xOf(head, d));
    y.push(labelOf(head, r, d));
    w.push(100 / (Math.sqrt(perDataset.get(r.dataset)!) * r.rounds.length));
  }
  return trainLearnedModel(Xs, y, { name: `stopping.${head}`, kind: 'logistic', features: featureNames[head], classes: ['no', 'yes'], l2: Number(values.l2), epochs: Number(values.epochs), sampleWeights: w });
}

function calibrated(head: StoppingHead, train: Row[]): LearnedModel {
  const first = fit(head, train.filter((r) => CAL[r.dataset] !== r.conversation));
  const logits: number[] = [];
  const labels: number[] = [];
  for (const r of train.filter((x) => CAL[x.dataset] === x.conversation)) for (const d of r.rounds) {
    logits.push(modelLogits(first, xOf(head, d))[0]);
    labels.push(labelOf(head, r, d));
  }
  return withTemperature(fit(head, train), fitTemperature(logits, labels));
}

const train = rows.filter((r) => r.split === 'train');
const models = {} as Record<StoppingHead, LearnedModel>;
const metrics: Record<string, Record<string, number>> = {};
for (const head of ['continue_useful', 'evidence_sufficient'] as const) {
  models[head] = calibrated(head, train);
  console.log(`\n## stopping.${head} (temperature ${models[head].temperature.toFixed(3)})\n`);
  console.log('| rows | questions | states | positive rate | AUC | ECE | accuracy (majority) |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const ds of [...new Set(rows.map((r) => r.dataset))]) for (const s of ['train', 'held'] as const) {
    const sub = rows.filter((r) => r.dataset === ds && r.split === s);
    const p: number[] = [];
    const y: number[] = [];
    for (const r of sub) for (const d of r.rounds) {
      p.push(predictProbability(models[head], xOf(head, d)));
      y.push(labelOf(head, r, d));
    }
    const pos = mean(y);
    const acc = mean(p.map((x, i) => ((x >= 0.5 ? 1 : 0) === y[i] ? 1 : 0)));
    const m = { questions: sub.length, states: p.length, positive_rate: pos, auc: rocAuc(p, y), ece: expectedCalibrationError(p, y), accuracy: acc, majority: Math.max(pos, 1 - pos) };
    metrics[`${head}.${ds}_${s}`] = m;
    console.log(`| ${ds} ${s} | ${m.questions} | ${m.states} | ${f3(pos)} | ${f3(m.auc)} | ${f3(m.ece)} | ${f3(acc)} (${f3(m.majority)}) |`);
  }
}

// The stopping rule replayed on the dumped rounds (seed 000 §4 thresholds; contradiction taken as 0):
// from depth 0 (jev option stopBeforeRounds) and from depth 1 (the default read path: no stopping
// question before the first round).
console.log('\n## The stopping rule replayed on the dumped rounds (recall@10; stopping states passed before the stop)\n');
console.log('| rows | questions | never stop early | learned, from depth 1 (default) | learned, from depth 0 | states passed: never | from 1 | from 0 |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const ds of [...new Set(rows.map((r) => r.dataset))]) for (const s of ['train', 'held'] as const) {
  const sub = rows.filter((r) => r.dataset === ds && r.split === s);
  const replay = (from: number) =>
    sub.map((r) => {
      let passed = 0;
      for (const d of r.rounds) {
        if (d.depth < from) continue;
        const u = predictProbability(models.continue_useful, xOf('continue_useful', d));
        const suff = predictProbability(models.evidence_sufficient, xOf('evidence_sufficient', d));
        if ((suff >= 0.95 && 1 - suff < 0.15) || u < 0.15) return { recall: d.recall, passed };
        passed++;
      }
      return { recall: r.finalRecall, passed };
    });
  const r1 = replay(1);
  const r0 = replay(0);
  const m = {
    never: mean(sub.map((r) => r.finalRecall)),
    from1: mean(r1.map((x) => x.recall)),
    from0: mean(r0.map((x) => x.recall)),
    passed_never: mean(sub.map((r) => r.rounds.length)),
    passed_from1: mean(r1.map((x) => x.passed)),
    passed_from0: mean(r0.map((x) => x.passed)),
  };
  metrics[`replay.${ds}_${s}`] = m;
  console.log(`| ${ds} ${s} | ${sub.length} | ${f3(m.never)} | ${f3(m.from1)} | ${f3(m.from0)} | ${f3(m.passed_never)} | ${f3(m.passed_from1)} | ${f3(m.passed_from0)} |`);
}

for (const head of ['continue_useful', 'evidence_sufficient'] as const) {
  const m = models[head];
  const ws = m.weights[0].map((w, i) => [m.features[i], w] as const).sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]));
  console.log(`\n${head} weights (largest first): ${ws.map(([f, w]) => `${f} ${w.toFixed(2)}`).join(', ')}; bias ${m.bias[0].toFixed(2)}`);
}

if (values.write) {
  const list = (['continue_useful', 'evidence_sufficient'] as const).map((head) => ({
    ...roundedModel(models[head]),
    training: {
      script: 'apps/demo-agent/scripts/read-path/train-stopping.ts',
      data: 'jev stopping states (shipped relevance model, never stopped early) of LoCoMo dev and BEAM 500K questions with evidence',
      label: head === 'continue_useful' ? 'final top 10 holds more evidence than the top 10 after this round' : 'the top 10 after this round holds all the evidence',
      ...splitRecord(),
      temperature_fitted_on: CAL,
      l2: Number(values.l2),
      epochs: Number(values.epochs),
      metrics: roundedMetrics(Object.fromEntries(Object.entries(metrics).filter(([k]) => k.startsWith(`${head}.`) || k.startsWith('replay.')))),
    },
  }));
  // Written beside this script; a script never writes into a package's src/ (issue 35). Ship it with the
  // explicit step printed below.
  writeModelFile(list, { scriptDir: path.dirname(fileURLToPath(import.meta.url)), defaultName: 'stopping.json', target: 'system-one/src/offline/models/stopping.json' });
}

/**
 * Train the write path's pair-relation model (issue 17; `src/offline/relation-model.ts`) and write
 * `src/offline/relation.weights.json`.
 *
 *   pnpm --filter @mem/system-one train:relation [--beam <dir>] [--check]
 *
 * Data (`scripts/relation-data.ts`): our labelled pairs (`test/relation-pairs.json`, scenarios with
 * index % 4 == 3 HELD OUT; `test/relation-pairs-extra.json` and the templated hard negatives of
 * `templatePairs()`, training only) and BEAM dev pairs of conversations 1–5 (6–10 held out), read at run
 * time from `--beam` (default `../shared/data/beam/500K` next to the repository, or $MEM_BEAM_DIR).
 * Softmax regression (`trainLearnedModel`, class-balanced), temperature fitted on out-of-fold
 * logits of the training pairs (3 folds by scenario / conversation), so the held-out part is never
 * used for anything but the report; the L2 penalty was chosen by out-of-fold log loss as well. Also
 * prints the near-duplicate check's decisions (CONTRADICTS / OBSOLETES at θ_rel = 0.6, as core's
 * `nearDuplicateEdges`) out-of-fold and on the held-out pairs; `--errors` lists the out-of-fold mistakes. Prints held-out accuracy, log loss, ECE, and per class
 * precision / recall at p ≥ 0.6 (θ_rel) and p ≥ 0.85 (consolidation). `--check` trains and reports
 * without writing the weights.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { accuracy, expectedCalibrationError, fitTemperature, logLoss, modelLogits, predictProbabilities, trainLearnedModel, withTemperature, type LearnedModel } from '../src/learned/index.js';
import { RELATION_CLASSES, RELATION_FEATURES, classOfLabel, relationFeatures } from '../src/offline/relation-model.js';
import { BEAM_HELD_OUT, BEAM_TRAIN, beamPairs, defaultBeamDir, extraPairs, ourPairs, templatePairs, type LabelledPair } from './relation-data.js';

export const WEIGHTS_PATH = resolve(import.meta.dirname, '../src/offline/relation.weights.json');
let TRAIN_OPTIONS = { l2: 0.3, epochs: 600, learningRate: 0.05 }; // l2 chosen by out-of-fold log loss over {0.03, 0.1, 0.3, 1}

/** Fold of a training pair (by scenario or conversation, so a fold never splits one). */
function foldOf(p: LabelledPair): number {
  const m = /^(?:ours|ours-cross|ours-template|ours-extra):(\d+)|^beam:(\d+):/.exec(p.source);
  return Number(m?.[1] ?? m?.[2] ?? 0) % 3;
}

function classBalancedWeights(y: number[]): number[] {
  const counts = new Array(RELATION_CLASSES.length).fill(0);
  for (const c of y) counts[c]++;
  return y.map((c) => y.length / (RELATION_CLASSES.length * counts[c]));
}

function fit(pairs: LabelledPair[], training: Record<string, unknown>): LearnedModel {
  const X = pairs.map((p) => relationFeatures(p.older, p.newer));
  const y = pairs.map((p) => RELATION_CLASSES.indexOf(classOfLabel(p.label)));
  return trainLearnedModel(X, y, {
    name: 'write.relation',
    kind: 'softmax',
    features: [...RELATION_FEATURES],
    classes: [...RELATION_CLASSES],
    sampleWeights: classBalancedWeights(y),
    training,
    ...TRAIN_OPTIONS,
  });
}

export interface Report {
  n: number;
  accuracy: number;
  logLoss: number;
  /** ECE of the top-class confidence (10 bins). */
  ece: number;
  perClass: Record<string, { support: number; at060: { precision: number; recall: number }; at085: { precision: number; recall: number } }>;
}

/** Metrics of `model` on labelled pairs. */
export function evaluate(model: LearnedModel, pairs: LabelledPair[]): Report {
  const probs = pairs.map((p) => predictProbabilities(model, relationFeatures(p.older, p.newer)));
  const y = pairs.map((p) => RELATION_CLASSES.indexOf(classOfLabel(p.label)));
  const conf = probs.map((p) => Math.max(...p));
  const hit = probs.map((p, i) => (p.indexOf(Math.max(...p)) === y[i] ? 1 : 0));
  const perClass: Report['perClass'] = {};
  RELATION_CLASSES.forEach((c, k) => {
    const pr = (th: number) => {
      let tp = 0;
      let fp = 0;
      let fn = 0;
      probs.forEach((p, i) => {
        const pos = p[k]! >= th;
        if (pos && y[i] === k) tp++;
        else if (pos) fp++;
        else if (y[i] === k) fn++;
      });
      return { precision: tp + fp ? tp / (tp + fp) : 1, recall: tp + fn ? tp / (tp + fn) : 1 };
    };
    perClass[c] = { support: y.filter((v) => v === k).length, at060: pr(0.6), at085: pr(0.85) };
  });
  return { n: pairs.length, accuracy: accuracy(probs, y), logLoss: logLoss(probs, y), ece: expectedCalibrationError(conf, hit), perClass };
}

/** θ_rel of the near-duplicate check (core `nearDuplicateEdges`): change = p(contradiction) + p(update) ≥ θ, edge = the larger. */
export const THETA_REL = 0.6;

/** The near-duplicate check's decisions on labelled pairs: CONTRADICTS / OBSOLETES precision and recall, and the share of unrelated pairs given either edge. */
export function decisions(model: LearnedModel, pairs: LabelledPair[]) {
  return decisionsOf(pairs.map((p) => predictProbabilities(model, relationFeatures(p.older, p.newer))), pairs);
}

/** `decisions` from given probabilities (rows in RELATION_CLASSES order), over the pairs `keep` accepts. */
export function decisionsOf(probs: number[][], pairs: LabelledPair[], keep: (p: LabelledPair) => boolean = () => true) {
  let ctp = 0, cfp = 0, cfn = 0, otp = 0, ofp = 0, ofn = 0, un = 0, unHit = 0;
  for (let i = 0; i < pairs.length; i++) {
    const p = pairs[i]!;
    if (!keep(p)) continue;
    const [c, u] = probs[i]!;
    const change = c! + u! >= THETA_REL;
    const con = change && c! >= u!;
    const obs = change && u! > c!;
    if (con && p.label === 'contradiction') ctp++;
    else if (con) cfp++;
    else if (p.label === 'contradiction') cfn++;
    if (obs && p.label === 'update') otp++;
    else if (obs) ofp++;
    else if (p.label === 'update') ofn++;
    if (p.label === 'unrelated') {
      un++;
      if (change) unHit++;
    }
  }
  const pr = (tp: number, fp: number, fn: number) => ({ precision: tp + fp ? tp / (tp + fp) : 1, recall: tp + fn ? tp / (tp + fn) : 1 });
  return { contradicts: pr(ctp, cfp, cfn), obsoletes: pr(otp, ofp, ofn), unrelatedChanged: un ? unHit / un : 0 };
}

export function printDecisions(title: string, d: ReturnType<typeof decisions>): void {
  console.log(`  ${title}: CONTRADICTS P ${d.contradicts.precision.toFixed(2)} R ${d.contradicts.recall.toFixed(2)} · OBSOLETES P ${d.obsoletes.precision.toFixed(2)} R ${d.obsoletes.recall.toFixed(2)} · unrelated given an edge ${(100 * d.unrelatedChanged).toFixed(1)}%`);
}

export function printReport(title: string, r: Report): void {
  console.log(`\n${title}: n=${r.n}  accuracy=${r.accuracy.toFixed(3)}  logLoss=${r.logLoss.toFixed(3)}  ECE=${r.ece.toFixed(3)}`);
  console.log('  class           support   P@0.60  R@0.60   P@0.85  R@0.85');
  for (const [c, v] of Object.entries(r.perClass)) {
    console.log(`  ${c.padEnd(15)} ${String(v.support).padStart(7)}   ${v.at060.precision.toFixed(2)}    ${v.at060.recall.toFixed(2)}     ${v.at085.precision.toFixed(2)}    ${v.at085.recall.toFixed(2)}`);
  }
}

async function main() {
  const { values } = parseArgs({ options: { beam: { type: 'string' }, check: { type: 'boolean', default: false }, l2: { type: 'string' }, errors: { type: 'boolean', default: false } } });
  if (values.l2) TRAIN_OPTIONS = { ...TRAIN_OPTIONS, l2: Number(values.l2) };
  const beamDir = values.beam ?? defaultBeamDir();
  const ours = ourPairs();
  const beamTrain = beamPairs(beamDir, BEAM_TRAIN).pairs;
  const beamHeld = beamPairs(beamDir, BEAM_HELD_OUT).pairs;
  const base = [...ours.filter((p) => !p.heldOut), ...extraPairs(), ...templatePairs()];
  const train = [...base, ...beamTrain];
  const heldOurs = ours.filter((p) => p.heldOut);
  console.log(`training pairs: ${train.length} (ours ${train.length - beamTrain.length}, BEAM conv ${BEAM_TRAIN.join(',')} ${beamTrain.length}); held out: ours ${heldOurs.length}, BEAM conv ${BEAM_HELD_OUT.join(',')} ${beamHeld.length}`);

  // temperature from out-of-fold logits (3 folds by scenario / conversation)
  const oofLogits: number[][] = [];
  const oofLabels: number[] = [];
  const oofPairs: LabelledPair[] = [];
  for (let f = 0; f < 3; f++) {
    const m = fit(
      train.filter((p) => foldOf(p) !== f),
      {},
    );
    for (const p of train.filter((q) => foldOf(q) === f)) {
      oofLogits.push(modelLogits(m, relationFeatures(p.older, p.newer)));
      oofLabels.push(RELATION_CLASSES.indexOf(classOfLabel(p.label)));
      oofPairs.push(p);
    }
  }
  const temperature = fitTemperature(oofLogits, oofLabels);
  {
    const { softmax } = await import('../src/learned/index.js');
    const oofProbs = oofLogits.map((z) => softmax(z, temperature));
    console.log(`out-of-fold (training pairs only): l2=${TRAIN_OPTIONS.l2} accuracy=${accuracy(oofProbs, oofLabels).toFixed(3)} logLoss=${logLoss(oofProbs, oofLabels).toFixed(3)}`);
    printDecisions('out-of-fold near-duplicate decisions (our pairs)', decisionsOf(oofProbs, oofPairs, (p) => p.source.startsWith('ours')));
    if (values.errors) {
      oofProbs.forEach((pr, i) => {
        const p = oofPairs[i]!;
        const change = pr[0]! + pr[1]! >= THETA_REL;
        const gold = p.label === 'contradiction' || p.label === 'update';
        const edge = change ? (pr[0]! >= pr[1]! ? 'contradiction' : 'update') : null;
        if ((edge ?? (gold ? 'x' : null)) !== (gold ? p.label : null)) console.log(`  OOF ${p.label} → ${edge ?? 'none'} [${pr.map((x) => x.toFixed(2)).join(' ')}] "${p.older.slice(0, 80)}" → "${p.newer.slice(0, 80)}"`);
      });
    }
  }
  const counts = Object.fromEntries(RELATION_CLASSES.map((c) => [c, train.filter((p) => classOfLabel(p.label) === c).length]));
  let model = fit(train, {
    script: 'packages/system-one/scripts/train-relation.ts',
    data: `test/relation-pairs.json scenarios with index % 4 != 3 (+1 cross-scenario unrelated pair each), test/relation-pairs-extra.json (training only), templatePairs() hard negatives (training only) and BEAM 500K dev conversations ${BEAM_TRAIN.join(',')} (contradiction_resolution sentence / clause pairs, knowledge_update references)`,
    heldOut: `relation-pairs.json scenarios with index % 4 == 3; BEAM conversations ${BEAM_HELD_OUT.join(',')}`,
    n: train.length,
    perClass: counts,
    options: TRAIN_OPTIONS,
    temperatureFrom: 'out-of-fold logits, 3 folds by scenario / conversation',
  });
  model = withTemperature(model, temperature);
  const heldReport = evaluate(model, heldOurs);
  const beamReport = evaluate(model, beamHeld);
  model.training = {
    ...model.training,
    metrics: {
      temperature,
      heldOutOurs: { n: heldReport.n, accuracy: heldReport.accuracy, logLoss: heldReport.logLoss, ece: heldReport.ece },
      heldOutBeam: { n: beamReport.n, accuracy: beamReport.accuracy },
    },
  };
  console.log(`temperature T = ${temperature.toFixed(3)}`);
  printReport('train (in-sample)', evaluate(model, train));
  printReport('HELD OUT, our pairs', heldReport);
  printDecisions('held-out near-duplicate decisions (θ_rel 0.6)', decisions(model, heldOurs.filter((p) => p.source.startsWith('ours:'))));
  printReport(`HELD OUT, BEAM conv ${BEAM_HELD_OUT.join(',')}`, beamReport);
  if (!values.check) {
    const round = (x: number) => Math.round(x * 1e6) / 1e6;
    const out = { ...model, weights: model.weights.map((r) => r.map(round)), bias: model.bias.map(round), temperature: round(model.temperature) };
    writeFileSync(WEIGHTS_PATH, JSON.stringify(out) + '\n');
    console.log(`\nwrote ${WEIGHTS_PATH}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}

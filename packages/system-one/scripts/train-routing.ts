/**
 * Train the offline routing models (src/offline/routing-learned.ts) and print their quality beside the
 * hand-written cue scorer they replace (ours).
 *
 *   npx tsx scripts/train-routing.ts [--locomo ../../../shared/data/locomo/locomo10-dev.json] \
 *     [--beam ../../../shared/data/beam/500K] [--write]
 *
 * Labelled queries (a head is trained only on queries that carry a label for it):
 * - every head: the hand-labelled routing cases of bench/dataset.ts and bench/routing-extra.ts (written
 *   for this project), and the cue scorer's own answer as a feature (`cue`: the model learns how far to trust it);
 * - temporal: LoCoMo category 2 = 1, other categories 0; BEAM temporal_reasoning / event_ordering = 1,
 *   information_extraction / preference_following / instruction_following = 0;
 * - multi_hop_need: LoCoMo category 1 = 1, category 4 = 0; BEAM multi_session_reasoning /
 *   summarization / event_ordering = 1, information_extraction = 0;
 * - recency_importance: BEAM knowledge_update = 1, information_extraction = 0.
 * TRAIN split only: LoCoMo conversations 0–3, BEAM 1–5. Reported on the held-out data that was never
 * fitted: bench/holdout.ts (hand-labelled) and LoCoMo 4–7 / BEAM 6–10. The temperature of each head is
 * fitted on a 5-fold split of its own training rows (out-of-fold logits).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { dataset } from '../bench/dataset.js';
import { holdout } from '../bench/holdout.js';
import { routingExtra } from '../bench/routing-extra.js';
import { expectedCalibrationError, rocAuc } from '../src/learned/metrics.js';
import { fitTemperature, trainLearnedModel } from '../src/learned/train.js';
import { modelLogits, predictProbability, withTemperature, type LearnedModel } from '../src/learned/model.js';
import { ROUTING_HEADS, learnedRoute, routingFeatureRecord, routingFeatureVector, type RoutingHead } from '../src/offline/routing-learned.js';
import { routeFeatures } from '../src/offline/routing.js';

const { values } = parseArgs({
  options: {
    locomo: { type: 'string', default: resolve(import.meta.dirname, '../../../../shared/data/locomo/locomo10-dev.json') },
    beam: { type: 'string', default: resolve(import.meta.dirname, '../../../../shared/data/beam/500K') },
    write: { type: 'boolean', default: false },
  },
});

interface Ex {
  query: string;
  labels: Partial<Record<RoutingHead, number>>;
  source: string;
  split: 'train' | 'held';
}
const examples: Ex[] = [];
const fromCases = (cases: typeof dataset, split: 'train' | 'held', source: string) => {
  const by = new Map<string, Ex>();
  for (const c of cases) {
    if (!c.kind.startsWith('routing.')) continue;
    const q = String((c.state as { query: string }).query);
    const e = by.get(q) ?? { query: q, labels: {}, source, split };
    e.labels[c.kind.slice('routing.'.length) as RoutingHead] = Number(c.label);
    by.set(q, e);
  }
  examples.push(...by.values());
};
fromCases(dataset, 'train', 'hand-labelled');
fromCases(routingExtra, 'train', 'hand-labelled');
fromCases(holdout, 'held', 'hand-labelled');

if (existsSync(values.locomo!)) {
  const data = JSON.parse(readFileSync(values.locomo!, 'utf8')) as { qa: { question: string; category: number }[] }[];
  data.forEach((conv, c) => {
    for (const qa of conv.qa) {
      const labels: Partial<Record<RoutingHead, number>> = { temporal: qa.category === 2 ? 1 : 0 };
      if (qa.category === 1) labels.multi_hop_need = 1;
      if (qa.category === 4) labels.multi_hop_need = 0;
      examples.push({ query: String(qa.question), labels, source: 'locomo', split: c <= 3 ? 'train' : 'held' });
    }
  });
}
for (let n = 1; n <= 10; n++) {
  const f = resolve(values.beam!, String(n), 'probing_questions.json');
  if (!existsSync(f)) continue;
  const p = JSON.parse(readFileSync(f, 'utf8')) as Record<string, { question: string }[]>;
  for (const [type, list] of Object.entries(p)) {
    const labels: Partial<Record<RoutingHead, number>> = {};
    if (['temporal_reasoning', 'event_ordering'].includes(type)) labels.temporal = 1;
    if (['information_extraction', 'preference_following', 'instruction_following'].includes(type)) labels.temporal = 0;
    if (['multi_session_reasoning', 'summarization', 'event_ordering'].includes(type)) labels.multi_hop_need = 1;
    if (type === 'information_extraction') labels.multi_hop_need = 0;
    if (type === 'knowledge_update') labels.recency_importance = 1;
    if (type === 'information_extraction') labels.recency_importance = 0;
    if (!Object.keys(labels).length) continue;
    for (const q of list) examples.push({ query: String(q.question), labels, source: 'beam', split: n <= 5 ? 'train' : 'held' });
  }
}

const train = examples.filter((e) => e.split === 'train');
const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '–');

function fitHead(head: RoutingHead, rows: Ex[]): LearnedModel {
  // vocabulary: words / first words seen at least twice in this head's training queries
  const count = new Map<string, number>();
  for (const e of rows) for (const k of routingFeatureRecord(e.query, head).keys()) if (k.includes(':')) count.set(k, (count.get(k) ?? 0) + 1);
  const features = ['cue', 'len', 'caps', 'digits', 'fp', 'qmark', ...[...count].filter(([, n]) => n >= 2).map(([k]) => k).sort()];
  // each source weighs the same in total, so the small hand-labelled set is not drowned by LoCoMo
  const per = new Map<string, number>();
  for (const e of rows) per.set(e.source, (per.get(e.source) ?? 0) + 1);
  const sw = rows.map((e) => rows.length / (per.size * per.get(e.source)!));
  const model = (sub: Ex[], w: number[]) =>
    trainLearnedModel(
      sub.map((e) => routingFeatureVector({ features } as LearnedModel, routingFeatureRecord(e.query, head))),
      sub.map((e) => e.labels[head]!),
      { name: `routing.${head}`, kind: 'logistic', features, classes: ['no', 'yes'], l2: 0.01, epochs: 300, sampleWeights: w },
    );
  // temperature from out-of-fold logits (5 folds)
  const logits: number[] = [];
  const labels: number[] = [];
  for (let f = 0; f < 5; f++) {
    const tr = rows.filter((_, i) => i % 5 !== f);
    const te = rows.filter((_, i) => i % 5 === f);
    const m = model(tr, sw.filter((_, i) => i % 5 !== f));
    for (const e of te) {
      logits.push(modelLogits(m, routingFeatureVector(m, routingFeatureRecord(e.query, head)))[0]);
      labels.push(e.labels[head]!);
    }
  }
  const T = fitTemperature(logits, labels);
  return withTemperature(model(rows, sw), T);
}

const models = {} as Record<RoutingHead, LearnedModel>;
for (const head of ROUTING_HEADS) models[head] = fitHead(head, train.filter((e) => e.labels[head] !== undefined));

console.log('\n## Routing: learned models vs the cue scorer they replace (held-out data only)\n');
console.log('| head | held-out set | n | positives | AUC cue → learned | ECE cue → learned | accuracy cue → learned |');
console.log('|---|---|---:|---:|---|---|---|');
const metrics: Record<string, Record<string, number>> = {};
for (const head of ROUTING_HEADS) {
  for (const src of ['hand-labelled', 'locomo', 'beam']) {
    const rows = examples.filter((e) => e.split === 'held' && e.source === src && e.labels[head] !== undefined);
    if (!rows.length) continue;
    const y = rows.map((e) => e.labels[head]!);
    const cue = rows.map((e) => routeFeatures(e.query)[head]);
    const learned = rows.map((e) => predictProbability(models[head], routingFeatureVector(models[head], routingFeatureRecord(e.query, head))));
    const acc = (p: number[]) => p.filter((x, i) => (x >= 0.5 ? 1 : 0) === y[i]).length / p.length;
    const m = { n: rows.length, auc_cue: rocAuc(cue, y), auc: rocAuc(learned, y), ece_cue: expectedCalibrationError(cue, y), ece: expectedCalibrationError(learned, y), acc_cue: acc(cue), acc: acc(learned) };
    metrics[`${head}_${src}`] = m;
    console.log(`| ${head} | ${src} | ${rows.length} | ${y.filter(Boolean).length} | ${f3(m.auc_cue)} → ${f3(m.auc)} | ${f3(m.ece_cue)} → ${f3(m.ece)} | ${f3(m.acc_cue)} → ${f3(m.acc)} |`);
  }
}
const example = 'When did Mira buy a new bicycle, and why?';
const r = learnedRoute(example, models);
console.log(`\nThe paper's running example "${example}": ${ROUTING_HEADS.map((h) => `${h} ${r[h].toFixed(2)}`).join(', ')} (cue scorer: causal ${routeFeatures(example).causal.toFixed(2)})`);

if (values.write) {
  const round = (x: number) => Math.round(x * 1e5) / 1e5;
  const out = ROUTING_HEADS.map((h) => ({
    ...models[h],
    weights: models[h].weights.map((row) => row.map(round)),
    bias: models[h].bias.map(round),
    temperature: round(models[h].temperature),
    training: {
      script: 'packages/system-one/scripts/train-routing.ts',
      data: 'bench/dataset.ts routing cases; LoCoMo dev 0-3 and BEAM 500K 1-5 questions labelled by type (see the script)',
      n: train.filter((e) => e.labels[h] !== undefined).length,
      held_out: Object.fromEntries(Object.entries(metrics).filter(([k]) => k.startsWith(`${h}_`)).map(([k, v]) => [k, Object.fromEntries(Object.entries(v).map(([a, b]) => [a, round(b)]))])),
    },
  }));
  const file = resolve(import.meta.dirname, '../src/offline/models/routing.json');
  writeFileSync(file, JSON.stringify(out) + '\n');
  console.log(`written ${file}`);
}

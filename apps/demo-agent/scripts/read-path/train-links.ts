/**
 * Train the link model (issue 38 point 1; `packages/retrieval/src/links.ts`): p(a memory is evidence
 * | its own p(evidence), the edges that join it to the top memories of the evidence order).
 *
 * 1. Dump (or read `--dump` when it exists): jev with `collectLinks` (the link stage runs without a
 *    model: the top memories bring in their neighbours, every candidate's features are recorded) on
 *    every question with evidence of the corpus, both splits, labelled by the evidence.
 * 2. Fit an L2 logistic model on the TRAIN split only (LoCoMo 0–3, BEAM 1–5; a question of dataset d
 *    weighs 1/n_d, its candidates share that weight). Cross-fitting: each train conversation is
 *    replayed with a model fitted on the other train conversations (out-of-fold), and the temperature
 *    is fitted on those out-of-fold logits.
 * 3. Print replay recall@k (the dumped candidates re-ranked by the model) against the own-p order:
 *    out-of-fold on the train split, and on the held-out split with the model fitted on all of train.
 *    The held-out rows are printed, never used to fit or choose anything.
 *
 *   nice -n 10 npx tsx --conditions=@mem/source apps/demo-agent/scripts/read-path/train-links.ts \
 *     --locomo ../shared/data/locomo/locomo10-dev.json --beam ../shared/data/beam/500K --cache /tmp/mem-read-path \
 *     --dump /tmp/mem-read-path/links.jsonl [--write --out /tmp/mem-read-path/links.json]
 *
 * then `pnpm models:install /tmp/mem-read-path/links.json retrieval/src/models/links.json`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createJevRetriever, createSnapshotCache, LINK_FEATURES, type RetrievalTrace } from '@mem/retrieval';
import { expectedCalibrationError, fitTemperature, modelLogits, predictProbability, rocAuc, trainLearnedModel, withTemperature, type LearnedModel } from '@mem/system-one';
import { createEmbedderFor, resolveEmbedderKind } from '../../src/embedder.js';
import { createEvalSystemOne } from '../../src/eval/systems/mem.js';
import { recallAtK } from '../../src/eval/metrics.js';
import { CORPUS_OPTIONS, loadCorpus, memoryOf, type Dataset } from './corpus.js';

const { values } = parseArgs({
  options: {
    ...CORPUS_OPTIONS,
    datasets: { type: 'string' },
    dump: { type: 'string' },
    k: { type: 'string', default: '10' },
    l2: { type: 'string', default: '0.001' },
    epochs: { type: 'string', default: '300' },
    seeds: { type: 'string', default: '5' },
    top: { type: 'string', default: '1000' },
    gate: { type: 'string', default: '0' },
    write: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
if (!values.dump) throw new Error('--dump is required');
const K = Number(values.k);
const FEATURES = [...LINK_FEATURES] as string[];

interface Row {
  dataset: string;
  conversation: number;
  split: 'train' | 'held';
  type: string;
  evidence: string[];
  features: string[];
  /** Candidates in own-p order: [sourceId, label, x]. */
  candidates: [string, number, number[]][];
}

async function dump(file: string): Promise<void> {
  if (!values.cache) throw new Error('--cache is required to dump');
  const embedder = createEmbedderFor(resolveEmbedderKind(values.embedder));
  const corpus = loadCorpus({ locomo: values.locomo, beam: values.beam, datasets: values.datasets?.split(',') as Dataset[] | undefined });
  const lines: string[] = [];
  const snaps = createSnapshotCache();
  for (const conv of corpus) {
    const systemOne = createEvalSystemOne(embedder);
    const m = await memoryOf(conv, values.cache, embedder, systemOne);
    const snap = (await snaps(m.store, m.scope))!;
    const src = new Map(snap.nodes.map((n) => [n.id, n.provenance.sourceId ?? n.id]));
    const jev = createJevRetriever({ store: m.store, systemOne, embedder, linkModel: null, collectLinks: true, links: { seeds: Number(values.seeds) } });
    for (const q of conv.questions) {
      if (!q.evidence.length) continue;
      const res = await jev.search({ scope: m.scope, query: q.question, k: K, now: m.now });
      const tr = res.trace as RetrievalTrace;
      const gold = new Set(q.evidence);
      const candidates = (tr.links?.rows ?? []).map((r) => [src.get(r.id) ?? r.id, gold.has(src.get(r.id) ?? r.id) ? 1 : 0, r.x.map((v) => Number(v.toFixed(5)))] as [string, number, number[]]);
      const type = conv.dataset === 'locomo' ? (q.groups.filter((g) => g !== 'overall' && g !== 'overall_1_4')[0] ?? String(q.category)) : String(q.category);
      lines.push(JSON.stringify({ dataset: conv.dataset, conversation: conv.index, split: conv.split, type, evidence: q.evidence, features: FEATURES, candidates } satisfies Row));
    }
    process.stderr.write(`${conv.dataset} ${conv.index}: ${lines.length} questions dumped\n`);
    await m.close();
  }
  writeFileSync(file, lines.join('\n') + '\n');
}

if (!existsSync(values.dump)) await dump(values.dump);
const rows: Row[] = readFileSync(values.dump, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Row);
// --top N: the model is fitted on, and re-ranks, only the first N candidates of the own-p order (the rest keep their place below)
const TOP = Number(values.top);
// --gate g: only questions whose routing multi-hop need is at least g are fitted on and re-ranked (the others keep the own-p order)
const GATE = Number(values.gate);
const MH = FEATURES.indexOf('multi_hop');
const gated = (r: Row) => (r.candidates[0]?.[2][MH] ?? 0) >= GATE;
const head = (r: Row) => (gated(r) ? r.candidates.slice(0, TOP) : []);
for (const r of rows) if (r.features.join() !== FEATURES.join()) throw new Error('the dump was written with other link features: dump again');

function fit(train: Row[]): LearnedModel {
  const X: number[][] = [];
  const y: number[] = [];
  const w: number[] = [];
  const perDataset = new Map<string, number>();
  for (const r of train) perDataset.set(r.dataset, (perDataset.get(r.dataset) ?? 0) + 1);
  for (const r of train.filter(gated)) for (const [, label, x] of head(r)) {
    X.push(x);
    y.push(label);
    w.push(1000 / (perDataset.get(r.dataset)! * head(r).length));
  }
  return trainLearnedModel(X, y, { name: 'retrieval.links', kind: 'logistic', features: FEATURES, classes: ['other', 'evidence'], l2: Number(values.l2), epochs: Number(values.epochs), learningRate: 0.05, sampleWeights: w, seed: 1 });
}

/** Recall@K of one dumped search, candidates ordered by `score` (own p = the dump's order). */
function replay(r: Row, score: ((x: number[]) => number) | null): number {
  const order = r.candidates.map((c, i) => ({ s: c[0], v: score && gated(r) && i < TOP ? score(c[2]) : -i - (i < TOP ? 0 : 1e9) }));
  order.sort((a, b) => b.v - a.v);
  return recallAtK(r.evidence, order.map((o) => o.s), K) ?? 0;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '–');
const train = rows.filter((r) => r.split === 'train');
const held = rows.filter((r) => r.split === 'held');
const convKey = (r: Row) => `${r.dataset}:${r.conversation}`;

// cross-fitting on the train split: each conversation replayed with a model fitted on the others
const oof = new Map<Row, LearnedModel>();
for (const c of [...new Set(train.map(convKey))]) {
  const model = fit(train.filter((r) => convKey(r) !== c));
  for (const r of train.filter((x) => convKey(x) === c)) oof.set(r, model);
}
const oofLogits: number[] = [];
const oofLabels: number[] = [];
for (const r of train) for (const [, label, x] of head(r)) {
  oofLogits.push(modelLogits(oof.get(r)!, x)[0]);
  oofLabels.push(label);
}
const model = withTemperature(fit(train), fitTemperature(oofLogits, oofLabels));

console.log(`\n## Link model: replay recall@${K} (own p order vs the link model; train = out-of-fold, one model per left-out conversation; held = the model fitted on all of train)\n`);
console.log('| dataset | split | type | n | own p | link model | gain |');
console.log('|---|---|---|---:|---:|---:|---:|');
const metrics: Record<string, unknown> = {};
for (const d of [...new Set(rows.map((r) => r.dataset))]) {
  for (const [split, sub] of [['train', train], ['held', held]] as const) {
    const rs = sub.filter((r) => r.dataset === d);
    if (!rs.length) continue;
    const scorer = (r: Row) => (x: number[]) => predictProbability(split === 'train' ? oof.get(r)! : model, x);
    const types = ['all', ...[...new Set(rs.map((r) => r.type))].sort()];
    for (const t of types) {
      const tr = rs.filter((r) => t === 'all' || r.type === t);
      const own = mean(tr.map((r) => replay(r, null)));
      const lm = mean(tr.map((r) => replay(r, scorer(r))));
      console.log(`| ${d} | ${split} | ${t} | ${tr.length} | ${f3(own)} | ${f3(lm)} | ${lm - own >= 0 ? '+' : '−'}${Math.abs(lm - own).toFixed(3)} |`);
      if (t === 'all') {
        const ps: number[] = [];
        const ls: number[] = [];
        for (const r of tr) for (const [, label, x] of head(r)) {
          ps.push(scorer(r)(x));
          ls.push(label);
        }
        metrics[`${d}_${split}`] = { questions: tr.length, candidates: ps.length, auc: Number(rocAuc(ps, ls).toFixed(6)), ece: Number(expectedCalibrationError(ps, ls).toFixed(6)), recall_own: Number(own.toFixed(6)), recall_links: Number(lm.toFixed(6)) };
      }
    }
  }
}
console.log(`\nWeights (standardised scale is the trainer's; raw): ${FEATURES.map((f, i) => `${f} ${model.weights[0]![i]!.toFixed(2)}`).join(', ')}; bias ${model.bias[0]!.toFixed(2)}; temperature ${model.temperature?.toFixed(3)}`);
console.log(`Metrics: ${JSON.stringify(metrics)}`);
if (values.write) {
  const file = path.resolve(process.env.INIT_CWD ?? process.cwd(), values.out ?? 'links.json');
  const out = {
    ...model,
    training: {
      script: 'apps/demo-agent/scripts/read-path/train-links.ts',
      data: 'candidates of jev with the link stage collecting (collectLinks) on LoCoMo dev and BEAM 500K questions with evidence',
      train_split: { locomo: [0, 1, 2, 3], beam: [1, 2, 3, 4, 5] },
      held_out_split: { locomo: [4, 5, 6, 7], beam: [6, 7, 8, 9, 10] },
      temperature_fitted_on: 'out-of-fold logits of the train split (one model per left-out train conversation)',
      seeds: Number(values.seeds),
      l2: Number(values.l2),
      epochs: Number(values.epochs),
      metrics,
    },
  };
  writeFileSync(file, JSON.stringify(out, null, 1) + '\n');
  console.log(`wrote ${file}`);
}

/**
 * Score relevance models on dump.ts output without fitting anything (ours): evidence recall@k of the
 * visited candidates ordered by each model's p(evidence), per dump file × split and per conversation,
 * beside jev's hand-weighted order. For comparing weights files (e.g. the shipped model and one trained
 * on another embedder's dumps) on the same candidates.
 *
 *   npx tsx --conditions=@mem/source apps/demo-agent/scripts/read-path/score-dumps.ts \
 *     --data glove:/tmp/c/locomo.jsonl,minilm:/tmp/m/locomo.jsonl --models shipped,/tmp/other.json [--k 10]
 *
 * `--data label:file,…` (label optional, default the file name); `--models` files in `mem.learned/1`,
 * `shipped` = packages/retrieval's relevance.json (GloVe), `shipped-minilm` = relevance.minilm.json.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { predictProbability, type LearnedModel } from '@mem/system-one';
import { candidateSetStats, defaultRelevanceModel, relativeFeatures, relevanceModelFor } from '@mem/retrieval';
import { recallAt as recallAtK } from './recall.js';
import { f3, mean } from './table.js';

interface Row {
  dataset: string;
  conversation: number;
  split: 'train' | 'held';
  evidence: string[];
  routing?: { recencyImportance?: number };
  candidates: { sourceId: string; label: number; features: Record<string, number> }[];
}

const { values } = parseArgs({ options: { data: { type: 'string' }, models: { type: 'string', default: 'shipped' }, k: { type: 'string', default: '10' } } });
if (!values.data) throw new Error('--data label:file,… is required');
const K = Number(values.k);
const models = values.models!.split(',').map((f) => ({ name: f, model: f === 'shipped' ? defaultRelevanceModel() : f === 'shipped-minilm' ? relevanceModelFor('all-MiniLM-L6-v2') : (JSON.parse(readFileSync(f, 'utf8')) as LearnedModel) }));

const recallAt = (r: Row, score: ((c: Row['candidates'][number], i: number) => number) | null) => recallAtK(r, score, K);

console.log(`| data | split | questions | hand | ${models.map((m) => m.name).join(' | ')} | per conversation (${models.map((m) => m.name).join(' / ')}) |`);
console.log(`|---|---|---:|---:|${models.map(() => '---:|').join('')}---|`);
for (const spec of values.data.split(',')) {
  const [label, file] = spec.includes(':') ? spec.split(/:(.*)/s) : [spec, spec];
  const rows = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Row).filter((r) => r.evidence.length > 0);
  for (const r of rows) {
    const set = candidateSetStats(r.candidates.map((c) => c.features as any));
    for (const c of r.candidates) Object.assign(c.features, relativeFeatures(c.features as any, set, r.routing?.recencyImportance ?? 0));
  }
  for (const split of ['train', 'held', 'all'] as const) {
    const sub = rows.filter((r) => split === 'all' || r.split === split);
    const scores = models.map((m) => sub.map((r) => recallAt(r, (c) => predictProbability(m.model, c.features))));
    const convs = [...new Set(sub.map((r) => r.conversation))].sort((a, b) => a - b);
    const perConv = convs.map((c) => `${c}: ${scores.map((s) => f3(mean(s.filter((_, i) => sub[i].conversation === c)))).join('/')}`).join(', ');
    console.log(`| ${label} ${rows[0]?.dataset ?? ''} | ${split} | ${sub.length} | ${f3(mean(sub.map((r) => recallAt(r, null))))} | ${scores.map((s) => f3(mean(s))).join(' | ')} | ${split === 'all' ? '' : perConv} |`);
  }
}

/**
 * Recall@k of jev (and its variants) against the flat baselines on the CACHED memories of the
 * read-path corpus (corpus.ts), without rebuilding them (ours; the quick loop beside `mem eval`, which
 * builds every memory from scratch). Same metric as `mem eval`: evidence recall@k over questions with
 * evidence, ids = the memories' sourceIds; latency p50 per system in the same run.
 *
 *   npx tsx --conditions=@mem/source apps/demo-agent/scripts/read-path/eval-cache.ts \
 *     --locomo ../shared/data/locomo/locomo10-dev.json --beam ../shared/data/beam/500K \
 *     --cache /tmp/mem-read-path --split held --systems jev,bm25,dense,hybrid --k 10
 *
 * `--systems` takes any name of `mem eval`'s system list that reads the shared @mem memory (jev,
 * jev-no-*, bm25, dense, hybrid); `--jev '{…}'` adds options to every jev variant; `--split`
 * train | held | all; `--conversations beam:6,locomo:4` picks conversations; `--relevance-model file`
 * reads jev's candidate-relevance model from a `mem.learned/1` file instead of the shipped one (e.g. the
 * reverse fold of a cross-fit, `train.ts --swap-splits --write --out file`, read with `--split train`).
 * `--cross-fit file` (2-fold cross-fit, with `--split all`): the train split's conversations are read
 * with the model in `file` (fitted on the held-out split) and the held-out ones with the shipped model
 * (fitted on the train split), so every conversation is scored by a relevance model that never saw it.
 * `--expansion-model file` reads jev's learned expansion model (issue 38) from a file instead of the default.
 * `--ablation-table` (issue 38 point 4): adds jev and the variants of `ABLATION_TABLE` (traversal off,
 * routing off, learned expansion on, the link stage on and the sub-query anchors on — the last three are off by default) to `--systems` and prints one table per
 * dataset of what each mechanism is worth: recall@k with it minus recall@k without it, overall, per
 * conversation and per question type (positive = the mechanism helps), beside jev's own recall.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Retriever } from '@mem/core';
import { createBm25Retriever, createDenseRetriever, createHybridRetriever, createJevRetriever, type JevRetrieverOptions } from '@mem/retrieval';
import { parseLearnedModel } from '@mem/system-one';
import { createEmbedderFor, resolveEmbedderKind } from '../../src/embedder.js';
import { createEvalSystemOne } from '../../src/eval/systems/mem.js';
import { ABLATION_OPTIONS } from '../../src/eval/systems/index.js';
import { percentile, recallAtK } from '../../src/eval/metrics.js';
import { CORPUS_OPTIONS, forEachMemory, loadCorpus, questionType, selectConversations, type Dataset } from './corpus.js';
import { f3, mean } from './table.js';

const { values } = parseArgs({
  options: {
    ...CORPUS_OPTIONS,
    datasets: { type: 'string' },
    split: { type: 'string', default: 'held' },
    conversations: { type: 'string' },
    systems: { type: 'string', default: 'jev,bm25,dense,hybrid' },
    k: { type: 'string', default: '10' },
    jev: { type: 'string', default: '{}' },
    'per-conversation': { type: 'boolean', default: false },
    'relevance-model': { type: 'string' },
    'cross-fit': { type: 'string' },
    'ablation-table': { type: 'boolean', default: false },
    'expansion-model': { type: 'string' },
  },
});
if (!values.cache) throw new Error('--cache is required');
const K = Number(values.k);
const systems = values.systems!.split(',');
// the mechanisms of the ablation table (issue 38 point 4): the jev variant with the mechanism off, or, for a
// mechanism that is off by default (on = true), the variant with it on; the table shows on minus off either way
const ABLATION_TABLE: [mechanism: string, system: string, on: boolean][] = [
  ['traversal (hand rounds)', 'jev-no-traversal', false],
  ['routing', 'jev-no-routing', false],
  ['learned expansion (off by default: on − off)', 'jev-learned-expansion', true],
  ['link stage (off by default: on − off)', 'jev-links', true],
  ['sub-query anchors (off by default: on − off)', 'jev-subqueries', true],
];
if (values['ablation-table']) for (const s of ['jev', ...ABLATION_TABLE.map(([, s]) => s)]) if (!systems.includes(s)) systems.push(s);
const extra = JSON.parse(values.jev!) as Partial<JevRetrieverOptions>;
const readModel = (file: string) => parseLearnedModel(JSON.parse(readFileSync(file, 'utf8')));
if (values['relevance-model'] && values['cross-fit']) throw new Error('--relevance-model and --cross-fit exclude each other');
if (values['relevance-model']) extra.relevanceModel = readModel(values['relevance-model']);
// --expansion-model file: jev's learned expansion model (issue 38) from a `mem.learned/1` file instead of the default
if (values['expansion-model']) extra.expansionModel = readModel(values['expansion-model']);
const reverseModel = values['cross-fit'] ? readModel(values['cross-fit']) : null;
// --embedder glove|minilm|openai (else MEM_EMBEDDER, else glove; MEM_EMBED_CACHE_DIR caches vectors): the
// cache folder holds one embedder's memories (opening it with another embedder is refused).
const embedder = createEmbedderFor(resolveEmbedderKind(values.embedder));
const corpus = selectConversations(loadCorpus({ locomo: values.locomo, beam: values.beam, datasets: values.datasets?.split(',') as Dataset[] | undefined }), values.split, values.conversations);

interface Row {
  dataset: string;
  conversation: number;
  type: string;
  recall: Record<string, number>;
  ms: Record<string, number>;
}
const rows: Row[] = [];
await forEachMemory(corpus, { cache: values.cache, embedder, systemOne: () => createEvalSystemOne(embedder) }, async (conv, m, systemOne) => {
  const make = (name: string): Retriever => {
    if (name === 'bm25') return createBm25Retriever({ store: m.store });
    if (name === 'dense') return createDenseRetriever({ store: m.store, embedder });
    if (name === 'hybrid') return createHybridRetriever({ store: m.store, embedder });
    // the flat baselines before issue 38 (the question embedded with the speakers' names)
    if (name === 'dense-query-names') return createDenseRetriever({ store: m.store, embedder, stripQueryNames: false });
    if (name === 'hybrid-query-names') return createHybridRetriever({ store: m.store, embedder, stripQueryNames: false });
    const opts = ABLATION_OPTIONS[name];
    if (!opts) throw new Error(`unknown system ${name}`);
    // --cross-fit: a train-split conversation gets the reverse fold's model (ablations that switch the
    // learned order off keep it off)
    const fold = reverseModel && conv.split === 'train' && opts.relevanceModel === undefined ? { relevanceModel: reverseModel } : {};
    return createJevRetriever({ store: m.store, systemOne, embedder, ...extra, ...opts, ...fold });
  };
  const rs = systems.map((s) => [s, make(s)] as const);
  for (const q of conv.questions) {
    if (!q.evidence.length) continue;
    const row: Row = { dataset: conv.dataset, conversation: conv.index, type: questionType(conv, q), recall: {}, ms: {} };
    for (const [name, r] of rs) {
      const t0 = performance.now();
      const res = await r.search({ scope: m.scope, query: q.question, k: K, now: m.now });
      row.ms[name] = performance.now() - t0;
      row.recall[name] = recallAtK(q.evidence, res.evidence.map((e) => e.node.provenance.sourceId ?? e.node.id), K) ?? 0;
    }
    rows.push(row);
  }
});

for (const d of [...new Set(rows.map((r) => r.dataset))]) {
  const sub = rows.filter((r) => r.dataset === d);
  const convs = [...new Set(sub.map((r) => r.conversation))];
  const types = [...new Set(sub.map((r) => r.type))].sort();
  console.log(`\n## ${d} (conversations ${convs.join(',')}; ${sub.length} questions with evidence) recall@${K}${reverseModel ? `; cross-fit: train-split conversations read with ${values['cross-fit']}, held-out ones with the shipped model` : ''}\n`);
  console.log(`| system | overall | ${types.join(' | ')} | p50 ms |`);
  console.log(`|---|---:|${types.map(() => '---:').join('|')}|---:|`);
  for (const s of systems) {
    const byType = types.map((t) => f3(mean(sub.filter((r) => r.type === t).map((r) => r.recall[s]))));
    console.log(`| ${s} | ${f3(mean(sub.map((r) => r.recall[s])))} | ${byType.join(' | ')} | ${percentile(sub.map((r) => r.ms[s]), 0.5).toFixed(1)} |`);
  }
  if (values['per-conversation']) {
    console.log(`\n| system | ${convs.map((c) => `${d} ${c}`).join(' | ')} |`);
    console.log(`|---|${convs.map(() => '---:').join('|')}|`);
    for (const s of systems) console.log(`| ${s} | ${convs.map((c) => f3(mean(sub.filter((r) => r.conversation === c).map((r) => r.recall[s])))).join(' | ')} |`);
  }
}

if (values['ablation-table']) {
  for (const d of [...new Set(rows.map((r) => r.dataset))]) {
    const sub = rows.filter((r) => r.dataset === d);
    const convs = [...new Set(sub.map((r) => r.conversation))];
    const types = [...new Set(sub.map((r) => r.type))].sort();
    const cols: [string, Row[]][] = [['overall', sub], ...convs.map((c) => [`${d} ${c}`, sub.filter((r) => r.conversation === c)] as [string, Row[]]), ...types.map((t) => [t, sub.filter((r) => r.type === t)] as [string, Row[]])];
    const avg = (rs: Row[], s: string) => mean(rs.map((r) => r.recall[s]));
    const signed = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}` : '–');
    console.log(`\n## ${d}: what each mechanism is worth (recall@${K} with it minus without it; ${sub.length} questions; n per column in the last row)\n`);
    console.log(`| | ${cols.map(([c]) => c).join(' | ')} |`);
    console.log(`|---|${cols.map(() => '---:').join('|')}|`);
    console.log(`| jev recall@${K} | ${cols.map(([, rs]) => f3(avg(rs, 'jev'))).join(' | ')} |`);
    for (const [mech, s, on] of ABLATION_TABLE) console.log(`| ${mech} | ${cols.map(([, rs]) => signed(on ? avg(rs, s) - avg(rs, 'jev') : avg(rs, 'jev') - avg(rs, s))).join(' | ')} |`);
    console.log(`| questions | ${cols.map(([, rs]) => rs.length).join(' | ')} |`);
  }
}

/**
 * Questions that need many memories (ours, issue 38 point 2): evidence recall@10 and the evidence
 * recall inside a packed context of 1,000 and 2,000 tokens (`toContext`; an evidence item counts when
 * it is among the packed items, whole or as an excerpt), per dataset and question type, on the cached
 * memories (corpus.ts). Systems, all jev with the same ranking:
 *   - `jev` — today's read: k = 10 memories, packed whole, never widened (`breadth: null`);
 *   - `jev-k40` — 40 memories for every question, packed whole;
 *   - `jev-wide` — the breadth model decides: a question that needs many memories gets 40, packed as
 *     excerpts (the default read path);
 *   - `bm25`, `hybrid` — the flat baselines at k = 10, packed whole.
 *
 *   npx tsx --conditions=@mem/source apps/demo-agent/scripts/read-path/pack-eval.ts \
 *     --beam ../shared/data/beam/500K --datasets beam --cache /tmp/mem-read-path --split held
 *
 * `--wide-k N --excerpt-tokens T --extra-nodes M` set jev-wide's breadth options (chosen on the train split).
 */
import { parseArgs } from 'node:util';
import type { Retriever, SearchResult } from '@mem/core';
import { createBm25Retriever, createHybridRetriever, createJevRetriever, toContext } from '@mem/retrieval';
import { createEmbedderFor, resolveEmbedderKind } from '../../src/embedder.js';
import { createEvalSystemOne } from '../../src/eval/systems/mem.js';
import { recallAtK } from '../../src/eval/metrics.js';
import { CORPUS_OPTIONS, forEachMemory, loadCorpus, questionType, selectConversations, type Dataset } from './corpus.js';
import { f3, mean } from './table.js';

const { values } = parseArgs({ options: { ...CORPUS_OPTIONS, datasets: { type: 'string' }, split: { type: 'string', default: 'held' }, conversations: { type: 'string' }, systems: { type: 'string', default: 'jev,jev-k40,jev-wide,bm25,hybrid' }, budgets: { type: 'string', default: '1000,2000' }, 'wide-k': { type: 'string' }, 'excerpt-tokens': { type: 'string' }, 'extra-nodes': { type: 'string' } } });
// --wide-k / --excerpt-tokens: jev-wide's breadth settings (default: jev's defaults)
const breadth = { ...(values['wide-k'] ? { wideK: Number(values['wide-k']) } : {}), ...(values['excerpt-tokens'] ? { excerptTokens: Number(values['excerpt-tokens']) } : {}), ...(values['extra-nodes'] ? { extraNodes: Number(values['extra-nodes']) } : {}) };
if (!values.cache) throw new Error('--cache is required');
const K = 10;
const budgets = values.budgets!.split(',').map(Number);
const systems = values.systems!.split(',');
const embedder = createEmbedderFor(resolveEmbedderKind(values.embedder));
const corpus = selectConversations(loadCorpus({ locomo: values.locomo, beam: values.beam, datasets: values.datasets?.split(',') as Dataset[] | undefined }), values.split, values.conversations);
interface Row { dataset: string; type: string; r: Record<string, number[]>; wide: number }
const rows: Row[] = [];
const idOf = (e: SearchResult['evidence'][number]) => e.node.provenance.sourceId ?? e.node.id;
await forEachMemory(corpus, { cache: values.cache, embedder, systemOne: () => createEvalSystemOne(embedder) }, async (conv, m, systemOne) => {
  const make = (name: string): [Retriever, number] => {
    if (name === 'bm25') return [createBm25Retriever({ store: m.store }), K];
    if (name === 'hybrid') return [createHybridRetriever({ store: m.store, embedder }), K];
    if (name === 'jev') return [createJevRetriever({ store: m.store, systemOne, embedder, breadth: null }), K];
    if (name === 'jev-k40') return [createJevRetriever({ store: m.store, systemOne, embedder, breadth: null }), 40];
    if (name === 'jev-wide') return [createJevRetriever({ store: m.store, systemOne, embedder, breadth }), K];
    throw new Error(`unknown system ${name}`);
  };
  const rs = systems.map((s) => [s, ...make(s)] as const);
  for (const q of conv.questions) {
    if (!q.evidence.length) continue;
    const row: Row = { dataset: conv.dataset, type: questionType(conv, q), r: {}, wide: 0 };
    for (const [name, r, k] of rs) {
      const res = await r.search({ scope: m.scope, query: q.question, k, now: m.now });
      if (name === 'jev-wide' && (res as { wide?: unknown }).wide) row.wide = 1;
      const ids = res.evidence.map(idOf);
      row.r[name] = [recallAtK(q.evidence, ids, K) ?? 0, ...budgets.map((b) => recallAtK(q.evidence, toContext(res, { tokenBudget: b }).included.map(idOf), Infinity) ?? 0)];
    }
    rows.push(row);
  }
});
for (const d of [...new Set(rows.map((r) => r.dataset))]) {
  const sub = rows.filter((r) => r.dataset === d);
  const types = ['overall', ...[...new Set(sub.map((r) => r.type))].sort()];
  console.log(`\n## ${d} (${sub.length} questions with evidence): recall@${K} / inside ${budgets.map((b) => `${b}`).join(' / ')} packed tokens; "wide" = share of questions the breadth model widened\n`);
  console.log(`| type | n | wide | ${systems.join(' | ')} |`);
  console.log(`|---|---:|---:|${systems.map(() => '---').join('|')}|`);
  for (const t of types) {
    const s = sub.filter((r) => t === 'overall' || r.type === t);
    console.log(`| ${t} | ${s.length} | ${f3(mean(s.map((r) => r.wide)))} | ${systems.map((name) => [0, ...budgets.map((_, i) => i + 1)].map((j) => f3(mean(s.map((r) => r.r[name][j])))).join(' / ')).join(' | ')} |`);
  }
}

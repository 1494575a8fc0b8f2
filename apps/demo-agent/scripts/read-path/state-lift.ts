/**
 * What the state lift (`stateLift`, issue 37; packages/retrieval/src/state-order.ts) changes in the
 * order on real conversations (ours): jev with and without it on the cached memories of the read-path
 * corpus (corpus.ts; built on first use), per question with evidence: whether the top-1 memory changes,
 * evidence@1 (the top memory is an evidence turn) and MRR@k of each. Recall@k cannot change (the lift
 * only permutes the returned top k); eval-cache.ts prints it.
 *
 *   npx tsx --conditions=@mem/source apps/demo-agent/scripts/read-path/state-lift.ts \
 *     --locomo ../shared/data/locomo/locomo10-dev.json --cache /tmp/state-eval/cache [--split held] [--k 10]
 */
import { parseArgs } from 'node:util';
import { createJevRetriever } from '@mem/retrieval';
import { createEmbedderFor, resolveEmbedderKind } from '../../src/embedder.js';
import { createEvalSystemOne } from '../../src/eval/systems/mem.js';
import { loadCorpus, memoryOf } from './corpus.js';

const { values } = parseArgs({ options: { locomo: { type: 'string' }, cache: { type: 'string' }, split: { type: 'string', default: 'held' }, k: { type: 'string', default: '10' } } });
if (!values.locomo || !values.cache) throw new Error('state-lift: --locomo <file> and --cache <dir> are required');
const K = Number(values.k);
const embedder = createEmbedderFor(resolveEmbedderKind(undefined));
const corpus = loadCorpus({ locomo: values.locomo, datasets: ['locomo'] }).filter((c) => values.split === 'all' || c.split === values.split);
let n = 0;
let changed = 0;
const hit = { on: 0, off: 0 };
const mrr = { on: 0, off: 0 };
const rr = (ids: string[], ev: Set<string>) => {
  const i = ids.findIndex((x) => ev.has(x));
  return i < 0 ? 0 : 1 / (i + 1);
};
for (const conv of corpus) {
  const systemOne = createEvalSystemOne(embedder);
  const m = await memoryOf(conv, values.cache, embedder, systemOne);
  const on = createJevRetriever({ store: m.store, systemOne, embedder });
  const off = createJevRetriever({ store: m.store, systemOne, embedder, stateLift: false });
  for (const q of conv.questions) {
    if (!q.evidence.length) continue;
    n++;
    const ev = new Set(q.evidence.map(String));
    const ids = async (r: typeof on) => (await r.search({ scope: m.scope, query: q.question, k: K, now: m.now })).evidence.map((e) => String(e.node.provenance.sourceId));
    const a = await ids(on);
    const b = await ids(off);
    if (a[0] !== b[0]) changed++;
    if (ev.has(a[0]!)) hit.on++;
    if (ev.has(b[0]!)) hit.off++;
    mrr.on += rr(a, ev);
    mrr.off += rr(b, ev);
  }
  await m.close();
}
const f = (x: number) => (x / Math.max(1, n)).toFixed(3);
console.log(`LoCoMo ${values.split}: ${n} questions with evidence; top-1 changed by the lift: ${changed}`);
console.log(`evidence@1: with the lift ${f(hit.on)}, without ${f(hit.off)}; MRR@${K}: with ${f(mrr.on)}, without ${f(mrr.off)}`);

/**
 * Dump the read path's candidates with their relevance features and evidence labels (ours), for the
 * training script (train.ts). Each conversation's memory comes from the cache (corpus.ts; built on
 * first use); jev runs with the hand-weighted evidence order (`relevanceModel: null`) and
 * `collectFeatures`, so the features do not depend on a previously trained model.
 *
 *   npx tsx --conditions=@mem/source apps/demo-agent/scripts/read-path/dump.ts \
 *     --locomo ../shared/data/locomo/locomo10-dev.json --beam ../shared/data/beam/500K \
 *     --cache /tmp/mem-read-path --out /tmp/mem-read-path/candidates.jsonl
 *
 * One JSON line per question: { dataset, conversation, split, qa, type, question, evidence, routing,
 * candidates: [{ sourceId, label, features }] } (candidates in jev's hand-weighted order). `--jev '{…}'`
 * passes jev options (e.g. a larger anchor pool).
 */
import { createWriteStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { createJevRetriever, type RetrievalTrace } from '@mem/retrieval';
import { createEmbedderFor, resolveEmbedderKind } from '../../src/embedder.js';
import { createEvalSystemOne } from '../../src/eval/systems/mem.js';
import { dumpedQuestion, forEachMemory, loadCorpus, sourceIdsOf, type Dataset } from './corpus.js';

const { values } = parseArgs({
  options: { embedder: { type: 'string' }, locomo: { type: 'string' }, beam: { type: 'string' }, cache: { type: 'string' }, out: { type: 'string' }, datasets: { type: 'string' }, k: { type: 'string', default: '60' }, jev: { type: 'string', default: '{}' } },
});
if (!values.cache || !values.out) throw new Error('--cache and --out are required');
// --embedder glove|minilm|openai (else MEM_EMBEDDER, else glove; MEM_EMBED_CACHE_DIR caches vectors): the
// cache folder holds one embedder's memories (opening it with another embedder is refused).
const embedder = createEmbedderFor(resolveEmbedderKind(values.embedder));
const corpus = loadCorpus({ locomo: values.locomo, beam: values.beam, datasets: values.datasets?.split(',') as Dataset[] | undefined });
const out = createWriteStream(values.out);
await forEachMemory(corpus, { cache: values.cache, embedder, systemOne: () => createEvalSystemOne(embedder) }, async (conv, m, systemOne) => {
  const jev = createJevRetriever({ store: m.store, systemOne, embedder, ...JSON.parse(values.jev!), relevanceModel: null, collectFeatures: true });
  const src = await sourceIdsOf(m);
  for (const q of conv.questions) {
    const res = await jev.search({ scope: m.scope, query: q.question, k: Number(values.k), now: m.now });
    const trace = res.trace as RetrievalTrace;
    const gold = new Set(q.evidence);
    out.write(
      JSON.stringify({
        ...dumpedQuestion(conv, q, String(q.category)),
        question: q.question,
        routing: trace.routing,
        candidates: trace.candidates.map((c) => ({ sourceId: src.get(c.id), label: gold.has(src.get(c.id)!) ? 1 : 0, features: c.features })),
      }) + '\n',
    );
  }
});
await new Promise<void>((r) => out.end(r));

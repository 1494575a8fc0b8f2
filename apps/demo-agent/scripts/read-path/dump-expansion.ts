/**
 * Dump the learned expansion's training rows (ours, issue 38 point 1): every edge the learned rounds
 * ask about, with its features and whether the neighbour is evidence, and every visited candidate with
 * its evidence value. jev runs with `collectExpansion` (no expansion model: each neighbour's own
 * p(evidence) from the shipped relevance model stands in for admission), so the rows do not depend on a
 * previously trained expansion model. Memories come from the cache (corpus.ts).
 *
 *   npx tsx --conditions=@mem/source apps/demo-agent/scripts/read-path/dump-expansion.ts \
 *     --locomo ../shared/data/locomo/locomo10-dev.json --beam ../shared/data/beam/500K \
 *     --cache /tmp/mem-read-path --out /tmp/mem-read-path/expansion.jsonl
 *
 * One JSON line per question with evidence: { dataset, conversation, split, qa, type, evidence,
 * candidates: [[sourceId, final, label]] (jev's order), features: [names], edges: [[depth, sourceId,
 * visited 0|1, label, [features]]] }. `--jev '{…}'` passes jev options (default maxDepth 3).
 */
import { createWriteStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { EXPANSION_FEATURES, createJevRetriever, type RetrievalTrace } from '@mem/retrieval';
import { createEmbedderFor, resolveEmbedderKind } from '../../src/embedder.js';
import { createEvalSystemOne } from '../../src/eval/systems/mem.js';
import { CORPUS_OPTIONS, dumpedQuestion, forEachMemory, loadCorpus, questionType, selectConversations, sourceIdsOf, type Dataset } from './corpus.js';

const { values } = parseArgs({ options: { ...CORPUS_OPTIONS, out: { type: 'string' }, datasets: { type: 'string' }, conversations: { type: 'string' }, k: { type: 'string', default: '10' }, jev: { type: 'string', default: '{"maxDepth":3}' } } });
if (!values.cache || !values.out) throw new Error('--cache and --out are required');
const embedder = createEmbedderFor(resolveEmbedderKind(values.embedder));
const corpus = selectConversations(loadCorpus({ locomo: values.locomo, beam: values.beam, datasets: values.datasets?.split(',') as Dataset[] | undefined }), 'all', values.conversations);
const out = createWriteStream(values.out);
const r4 = (x: number) => Math.round(x * 1e4) / 1e4;
await forEachMemory(corpus, { cache: values.cache, embedder, systemOne: () => createEvalSystemOne(embedder) }, async (conv, m, systemOne) => {
  const jev = createJevRetriever({ store: m.store, systemOne, embedder, ...JSON.parse(values.jev!), expansionModel: null, collectExpansion: true });
  const src = await sourceIdsOf(m);
  let edges = 0;
  for (const q of conv.questions) {
    if (!q.evidence.length) continue;
    const res = await jev.search({ scope: m.scope, query: q.question, k: Number(values.k), now: m.now });
    const trace = res.trace as RetrievalTrace;
    const gold = new Set(q.evidence);
    const lab = (id: string) => (gold.has(src.get(id)!) ? 1 : 0);
    edges += trace.expansion?.length ?? 0;
    out.write(
      JSON.stringify({
        ...dumpedQuestion(conv, q, questionType(conv, q)),
        candidates: trace.candidates.map((c) => [src.get(c.id), r4(c.final), lab(c.id), c.depth]),
        features: EXPANSION_FEATURES,
        edges: (trace.expansion ?? []).map((e) => [e.depth, src.get(e.to), e.visited ? 1 : 0, lab(e.to), EXPANSION_FEATURES.map((f) => r4(e.features[f]!))]),
      }) + '\n',
    );
  }
  return `${edges} edges`;
});
await new Promise<void>((r) => out.end(r));

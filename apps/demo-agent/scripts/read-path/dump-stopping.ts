/**
 * Dump the read path's stopping states with their labels (ours, issue 16), for train-stopping.ts.
 * jev runs with its shipped relevance model on the cached memories (corpus.ts) and is never stopped
 * early: the stopping questions are answered "continue" by this script (the other System-One
 * questions by the eval's System One), so every round up to the depth cap runs and each stopping
 * state can be labelled with what the rounds after it brought.
 *
 *   npx tsx --conditions=@mem/source apps/demo-agent/scripts/read-path/dump-stopping.ts \
 *     --locomo ../shared/data/locomo/locomo10-dev.json --beam ../shared/data/beam/500K \
 *     --cache /tmp/mem-read-path --out /tmp/mem-read-path/stopping.jsonl
 *
 * One JSON line per question with evidence: { dataset, conversation, split, qa, type, question,
 * finalRecall, rounds: [{ depth, evidence: [{ relevance, round }], recall }] }, recall = evidence
 * recall@k (`--k`, default 10) of the top k after that round (depth 0: the anchors, before the first round); `evidence` = the stopping state's items
 * (best first) with only the fields the learned stopping models read.
 */
import { createWriteStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { createJevRetriever, type RetrievalTrace, type SystemOneLike } from '@mem/retrieval';
import { createEmbedderFor, resolveEmbedderKind } from '../../src/embedder.js';
import { createEvalSystemOne } from '../../src/eval/systems/mem.js';
import { recallAtK } from '../../src/eval/metrics.js';
import { loadCorpus, memoryOf, type Dataset } from './corpus.js';

const { values } = parseArgs({
  options: { embedder: { type: 'string' }, locomo: { type: 'string' }, beam: { type: 'string' }, cache: { type: 'string' }, out: { type: 'string' }, datasets: { type: 'string' }, k: { type: 'string', default: '10' }, jev: { type: 'string', default: '{}' } },
});
if (!values.cache || !values.out) throw new Error('--cache and --out are required');
const K = Number(values.k);
const embedder = createEmbedderFor(resolveEmbedderKind(values.embedder));
const corpus = loadCorpus({ locomo: values.locomo, beam: values.beam, datasets: values.datasets?.split(',') as Dataset[] | undefined });
const out = createWriteStream(values.out);
const CONTINUE: Record<string, number> = { evidence_sufficient: 0, continue_useful: 1, missing_evidence: 1, contradiction: 0 };

for (const conv of corpus) {
  const inner = createEvalSystemOne(embedder);
  let states: { depth: number; evidence: { relevance: number; round: number }[] }[] = [];
  const systemOne: SystemOneLike = {
    async ask(state, questions) {
      const kinds = Object.values(questions).map((q) => q.kind ?? '');
      if (!kinds.some((k) => k.startsWith('stopping.'))) return inner.ask(state, questions);
      const ev = (state.evidence as { relevance?: number; round?: number }[]).map((e) => ({ relevance: e.relevance ?? NaN, round: e.round ?? NaN }));
      states.push({ depth: state.depth as number, evidence: ev });
      return { answers: Object.fromEntries(Object.keys(questions).map((id) => [id, CONTINUE[id] ?? 0.5])) };
    },
  };
  const m = await memoryOf(conv, values.cache, embedder, inner);
  const jev = createJevRetriever({ store: m.store, systemOne, embedder, ...JSON.parse(values.jev!), collectFeatures: true });
  const nodes = await m.store.list(m.scope, { limit: 100_000 });
  const src = new Map(nodes.map((n) => [n.id, n.provenance.sourceId ?? n.id]));
  const recallOf = (ids: string[], gold: string[]) => recallAtK(gold, ids.map((id) => src.get(id) ?? id), K) ?? 0;
  const t0 = performance.now();
  for (const q of conv.questions) {
    if (!q.evidence.length) continue;
    states = [];
    const res = await jev.search({ scope: m.scope, query: q.question, k: K, now: m.now });
    const trace = res.trace as RetrievalTrace;
    const finalRecall = recallOf(res.evidence.map((e) => e.node.id), q.evidence);
    const rounds = states.map((s) => {
      const top = s.depth === 0 ? trace.anchorStopping?.top : trace.rounds.find((x) => x.depth === s.depth)?.top;
      if (!top) throw new Error(`no top ids recorded for depth ${s.depth}`);
      return { depth: s.depth, evidence: s.evidence, recall: recallOf(top, q.evidence) };
    });
    out.write(JSON.stringify({ dataset: conv.dataset, conversation: conv.index, split: conv.split, qa: q.qaIndex, type: String(q.category), question: q.question, finalRecall, rounds }) + '\n');
  }
  process.stderr.write(`${conv.dataset} ${conv.index}: ${conv.questions.length} questions in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  await m.close();
}
await new Promise<void>((r) => out.end(r));

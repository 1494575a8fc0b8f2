/**
 * Where the evidence jev misses is in the graph (ours, issue 38): per question, the share of evidence
 * in jev's top k, visited but ranked below k, not visited but one or two edges from the visited set,
 * or farther. Reads the cached memories (corpus.ts).
 *
 *   npx tsx --conditions=@mem/source apps/demo-agent/scripts/read-path/reach.ts \
 *     --locomo ../shared/data/locomo/locomo10-dev.json --cache /tmp/mem-read-path --datasets locomo --split held
 */
import { parseArgs } from 'node:util';
import { createJevRetriever, createSnapshotCache, type RetrievalTrace } from '@mem/retrieval';
import { createEmbedderFor, resolveEmbedderKind } from '../../src/embedder.js';
import { createEvalSystemOne } from '../../src/eval/systems/mem.js';
import { CORPUS_OPTIONS, loadCorpus, memoryOf, questionType, selectConversations, type Dataset } from './corpus.js';

const { values } = parseArgs({ options: { ...CORPUS_OPTIONS, datasets: { type: 'string' }, split: { type: 'string', default: 'held' }, conversations: { type: 'string' }, k: { type: 'string', default: '10' } } });
const K = Number(values.k);
const embedder = createEmbedderFor(resolveEmbedderKind(values.embedder));
const corpus = selectConversations(loadCorpus({ locomo: values.locomo, beam: values.beam, datasets: values.datasets?.split(',') as Dataset[] | undefined }), values.split, values.conversations);
const snaps = createSnapshotCache();
type Bucket = 'top' | 'visited' | 'hop1' | 'hop2' | 'far';
const rows: { dataset: string; type: string; share: Record<Bucket, number>; views: Record<string, number> }[] = [];
for (const conv of corpus) {
  const systemOne = createEvalSystemOne(embedder);
  const m = await memoryOf(conv, values.cache!, embedder, systemOne);
  const snap = (await snaps(m.store, m.scope))!;
  const bySource = new Map<string, string[]>();
  for (const n of snap.nodes) {
    const s = n.provenance.sourceId ?? n.id;
    bySource.set(s, [...(bySource.get(s) ?? []), n.id]);
  }
  const jev = createJevRetriever({ store: m.store, systemOne, embedder, breadth: null });
  for (const q of conv.questions) {
    if (!q.evidence.length) continue;
    const res = await jev.search({ scope: m.scope, query: q.question, k: K, now: m.now });
    const tr = res.trace as RetrievalTrace;
    const top = new Set(res.evidence.map((e) => e.node.id));
    const visited = new Set(tr.candidates.map((c) => c.id));
    const hop = (from: Set<string>) => {
      const out = new Map<string, string>();
      for (const id of from) for (const r of snap.adjacency.get(id) ?? []) {
        const o = r.from === id ? r.to : r.from;
        if (!from.has(o) && !out.has(o)) out.set(o, `${r.view}/${r.subtype}`);
      }
      return out;
    };
    const h1 = hop(visited);
    const h2 = hop(new Set([...visited, ...h1.keys()]));
    const share: Record<Bucket, number> = { top: 0, visited: 0, hop1: 0, hop2: 0, far: 0 };
    const views: Record<string, number> = {};
    for (const ev of q.evidence) {
      const ids = bySource.get(ev) ?? [];
      let b: Bucket = 'far';
      if (ids.some((i) => top.has(i))) b = 'top';
      else if (ids.some((i) => visited.has(i))) b = 'visited';
      else if (ids.some((i) => h1.has(i))) {
        b = 'hop1';
        const v = h1.get(ids.find((i) => h1.has(i))!)!;
        views[v] = (views[v] ?? 0) + 1 / q.evidence.length;
      } else if (ids.some((i) => h2.has(i))) b = 'hop2';
      share[b] += 1 / q.evidence.length;
    }
    rows.push({ dataset: conv.dataset, type: questionType(conv, q), share, views });
  }
  process.stderr.write(`${conv.dataset} ${conv.index}: visited ~${rows.length}\n`);
  await m.close();
}
const f3 = (x: number) => x.toFixed(3);
for (const d of [...new Set(rows.map((r) => r.dataset))]) {
  const sub = rows.filter((r) => r.dataset === d);
  console.log(`\n## ${d}: where the evidence is (share of evidence per question, mean over ${sub.length} questions; k = ${K})\n`);
  console.log('| type | n | in top k | visited, below k | 1 edge from visited | 2 edges | farther |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  const types = ['all', ...[...new Set(sub.map((r) => r.type))].sort()];
  for (const t of types) {
    const s = sub.filter((r) => t === 'all' || r.type === t);
    const mean = (b: Bucket) => f3(s.reduce((a, r) => a + r.share[b], 0) / s.length);
    console.log(`| ${t} | ${s.length} | ${mean('top')} | ${mean('visited')} | ${mean('hop1')} | ${mean('hop2')} | ${mean('far')} |`);
  }
  const v: Record<string, number> = {};
  for (const r of sub) for (const [k2, x] of Object.entries(r.views)) v[k2] = (v[k2] ?? 0) + x / sub.length;
  console.log(`\n1-edge evidence by the edge that reaches it: ${Object.entries(v).sort((a, b) => b[1] - a[1]).map(([k2, x]) => `${k2} ${f3(x)}`).join(', ')}`);
}

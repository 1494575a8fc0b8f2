/**
 * Why does traversal add so little? (issue 38 point 1; ours) For every evidence item jev misses at k
 * (default: LoCoMo held-out multi-hop questions), one cause:
 *
 * - `anchor, rank r`: an anchor (reached by no edge) that the evidence order ranks below k;
 * - `expanded via view/subtype, rank r`: admitted by expansion, ranked below k;
 * - `1 hop from the anchors / from expanded memories via view/subtype`: not visited, one edge away;
 * - `2 hops`: not visited, two edges from the visited set; `farther`: not within two edges.
 *
 * and, across causes, whether the missed item is one edge from an evidence item of the same question
 * that IS in the top k (and by which edge) — what a path score from found evidence could lift — and
 * whether it shares an entity with the question, or with a found evidence item (a bridge). Prints
 * counts per cause, per view and the p(evidence) gap to the k-th item.
 *
 *   nice -n 10 npx tsx --conditions=@mem/source apps/demo-agent/scripts/read-path/why-missed.ts \
 *     --locomo ../shared/data/locomo/locomo10-dev.json --cache /tmp/mem-read-path --split held --types multi-hop
 *
 * `--jev '{…}'` adds jev options (e.g. `{"linkScore":0}`); `--types all` every type.
 */
import { parseArgs } from 'node:util';
import { createJevRetriever, createSnapshotCache, type JevRetrieverOptions, type RetrievalTrace } from '@mem/retrieval';
import { createEmbedderFor, resolveEmbedderKind } from '../../src/embedder.js';
import { createEvalSystemOne } from '../../src/eval/systems/mem.js';
import { CORPUS_OPTIONS, loadCorpus, memoryOf, type Dataset } from './corpus.js';

const { values } = parseArgs({
  options: {
    ...CORPUS_OPTIONS,
    datasets: { type: 'string', default: 'locomo' },
    split: { type: 'string', default: 'held' },
    types: { type: 'string', default: 'multi-hop' },
    k: { type: 'string', default: '10' },
    jev: { type: 'string', default: '{}' },
  },
});
if (!values.cache) throw new Error('--cache is required');
const K = Number(values.k);
const wantTypes = values.types === 'all' ? null : new Set(values.types!.split(','));
const extra = JSON.parse(values.jev!) as Partial<JevRetrieverOptions>;
const embedder = createEmbedderFor(resolveEmbedderKind(values.embedder));
const corpus = loadCorpus({ locomo: values.locomo, beam: values.beam, datasets: values.datasets!.split(',') as Dataset[] }).filter((c) => values.split === 'all' || c.split === values.split);
const snaps = createSnapshotCache();

const count = new Map<string, number>();
const bump = (key: string, by = 1) => count.set(key, (count.get(key) ?? 0) + by);
const rankBucket = (r: number) => (r < 2 * K ? `${K + 1}–${2 * K}` : r < 5 * K ? `${2 * K + 1}–${5 * K}` : `> ${5 * K}`);
const words = (s: string) => new Set(s.toLowerCase().match(/[a-z0-9']+/g) ?? []);
let questions = 0;
let baseN = 0;
let baseLinked = 0;
let items = 0;
let found = 0;
const gaps: number[] = [];
for (const conv of corpus) {
  const systemOne = createEvalSystemOne(embedder);
  const m = await memoryOf(conv, values.cache, embedder, systemOne);
  const snap = (await snaps(m.store, m.scope))!;
  const bySource = new Map<string, string[]>();
  for (const n of snap.nodes) {
    const s = n.provenance.sourceId ?? n.id;
    bySource.set(s, [...(bySource.get(s) ?? []), n.id]);
  }
  const jev = createJevRetriever({ store: m.store, systemOne, embedder, ...extra });
  for (const q of conv.questions) {
    const type = conv.dataset === 'locomo' ? (q.groups.filter((g) => g !== 'overall' && g !== 'overall_1_4')[0] ?? String(q.category)) : String(q.category);
    if (!q.evidence.length || (wantTypes && !wantTypes.has(type))) continue;
    questions++;
    const res = await jev.search({ scope: m.scope, query: q.question, k: K, now: m.now });
    const tr = res.trace as RetrievalTrace;
    const top = new Set(res.evidence.slice(0, K).map((e) => e.node.id));
    const rank = new Map(tr.candidates.map((c, i) => [c.id, i]));
    const cand = new Map(tr.candidates.map((c) => [c.id, c]));
    const kth = tr.candidates[K - 1]?.final ?? 0;
    const anchors = new Set(tr.candidates.filter((c) => c.depth === 0).map((c) => c.id));
    const visited = new Set(tr.candidates.map((c) => c.id));
    const edgesOf = (id: string) => snap.adjacency.get(id) ?? [];
    const other = (r: { from: string; to: string }, id: string) => (r.from === id ? r.to : r.from);
    const hop1 = (from: Set<string>) => {
      const out = new Map<string, string>();
      for (const id of from) for (const r of edgesOf(id)) if (!visited.has(other(r, id)) && !out.has(other(r, id))) out.set(other(r, id), `${r.view}/${r.subtype}`);
      return out;
    };
    const fromAnchors = hop1(anchors);
    const fromExpanded = hop1(new Set([...visited].filter((id) => !anchors.has(id))));
    const oneHop = new Set([...fromAnchors.keys(), ...fromExpanded.keys()]);
    const twoHop = new Set<string>();
    for (const id of oneHop) for (const r of edgesOf(id)) twoHop.add(other(r, id));
    const evIds = q.evidence.map((e) => bySource.get(e) ?? []);
    const foundIds = new Set(evIds.flat().filter((id) => top.has(id)));
    const qWords = words(q.question);
    // the base rate: of the visited memories ranked k+1…5k that are NOT evidence, how many are one edge from found evidence
    const evAll = new Set(evIds.flat());
    if (foundIds.size) for (const c of tr.candidates.slice(K, 5 * K)) {
      if (evAll.has(c.id)) continue;
      baseN++;
      if (edgesOf(c.id).some((r) => foundIds.has(other(r, c.id)))) baseLinked++;
    }
    for (const ids of evIds) {
      items++;
      if (ids.some((i) => top.has(i))) {
        found++;
        continue;
      }
      const id = ids[0];
      if (!id) {
        bump('cause: evidence not in memory (gate skipped it)');
        continue;
      }
      let cause: string;
      if (visited.has(id)) {
        const c = cand.get(id)!;
        cause = anchors.has(id) ? `visited: anchor, rank ${rankBucket(rank.get(id)!)}` : `visited: expanded via ${c.view}, rank ${rankBucket(rank.get(id)!)}`;
        gaps.push(kth - c.final);
      } else if (fromAnchors.has(id)) cause = `not visited: 1 hop from an anchor via ${fromAnchors.get(id)}`;
      else if (fromExpanded.has(id)) cause = `not visited: 1 hop from an expanded memory via ${fromExpanded.get(id)}`;
      else if (twoHop.has(id)) cause = 'not visited: 2 hops';
      else cause = 'not visited: farther';
      bump(`cause: ${cause}`);
      // one edge from found evidence of the same question?
      const link = edgesOf(id).find((r) => foundIds.has(other(r, id)));
      bump(link ? `linked to found evidence: yes via ${link.view}/${link.subtype}` : foundIds.size ? 'linked to found evidence: no (some found)' : 'linked to found evidence: none found');
      const node = snap.byId.get(id)!;
      const ents = node.entities.map((e) => e.toLowerCase());
      const withQuery = ents.some((e) => e.split(/\s+/).every((w) => qWords.has(w)));
      const foundEnts = new Set([...foundIds].flatMap((f) => snap.byId.get(f)!.entities.map((e) => e.toLowerCase())));
      const withFound = ents.some((e) => foundEnts.has(e));
      bump(`entities: ${withQuery ? 'shares one with the question' : 'none with the question'}, ${withFound ? 'shares one with found evidence' : 'none with found evidence'}`);
      // same session as found evidence?
      const session = (n: typeof node) => n.provenance.metadata?.session;
      bump(`session: ${[...foundIds].some((f) => session(snap.byId.get(f)!) === session(node)) ? 'same as a found evidence item' : 'no found evidence in its session'}`);
    }
  }
  process.stderr.write(`${conv.dataset} ${conv.index}: ${questions} questions so far\n`);
  await m.close();
}
const missed = items - found;
console.log(`\n## Why jev misses evidence at k = ${K} (${values.datasets} ${values.split}, types ${values.types}; ${questions} questions, ${items} evidence items, ${found} in the top ${K}, ${missed} missed)\n`);
for (const group of ['cause', 'linked to found evidence', 'entities', 'session']) {
  console.log(`| ${group} | missed items | share |`);
  console.log('|---|---:|---:|');
  for (const [key, n] of [...count].filter(([key]) => key.startsWith(`${group}:`)).sort((a, b) => b[1] - a[1])) console.log(`| ${key.slice(group.length + 2)} | ${n} | ${(n / missed).toFixed(3)} |`);
  console.log('');
}
gaps.sort((a, b) => a - b);
console.log(`Base rate (questions with found evidence): ${baseLinked} of ${baseN} non-evidence memories ranked ${K + 1}–${5 * K} are one edge from found evidence (${(baseLinked / Math.max(1, baseN)).toFixed(3)})`);
const q = (p: number) => (gaps.length ? gaps[Math.min(gaps.length - 1, Math.floor(p * gaps.length))]!.toFixed(3) : '–');
console.log(`Visited but below k: p(evidence) of the k-th item minus the missed item's, quartiles ${q(0.25)} / ${q(0.5)} / ${q(0.75)} (${gaps.length} items)`);

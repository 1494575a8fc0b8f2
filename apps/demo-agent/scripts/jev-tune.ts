/**
 * Tuning / miss-analysis tool for jev on LoCoMo (ours). Builds each conversation's memory ONCE (the
 * same build as the eval's @mem systems), then runs every jev variant and the hybrid baseline over
 * it and prints evidence recall@k per variant: overall, per category, per conversation, and the
 * means over a tuning split and a held-out split, so over-fitting shows.
 *
 *   npx tsx --conditions=@mem/source apps/demo-agent/scripts/jev-tune.ts --data ../shared/data/locomo/locomo10-dev.json \
 *     [--conversations 0,1,2,3] [--tune 0,1,2,3] [--variants '{"name": {jev options}, ...}'] [--k 10] [--misses out.jsonl]
 *
 * It also prints, for the variant named by `--profile` (default jev), the recall@k lost to evidence that
 * was visited but ranked below k and to evidence never visited, and the recall@k a perfect order of
 * the visited candidates would give (per split).
 * `--misses` writes one line per missed evidence id of the default jev (rank in the candidates,
 * whether it was an anchor, whether a SAME_EPISODE neighbour of a top-k item, ...).
 * The numbers of the READMEs come from `locomo-eval.ts` (the eval), not from this tool.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createMemory, createSqliteStore, createWinkEmbedder, extractKeywords, resolveScope } from '@mem/core';
import type { MemoryNode } from '@mem/core';
import { createNoveltyGate } from '@mem/gate-vmf';
import {
  contextLemmaIndex,
  createHybridRetriever,
  createJevRetriever,
  createSnapshotCache,
  previousTurn,
  type JevRetrieverOptions,
  type RetrievalTrace,
} from '@mem/retrieval';
import { checkLocomo, conversationObservations, conversationQuestions } from '../src/eval/locomo.js';
import { CATEGORY_GROUPS, recallAtK } from '../src/eval/metrics.js';
import { createEvalSystemOne } from '../src/eval/systems/mem.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    conversations: { type: 'string' },
    tune: { type: 'string', default: '0,1,2,3' },
    variants: { type: 'string', default: '{}' },
    k: { type: 'string', default: '10' },
    misses: { type: 'string' },
    features: { type: 'string' },
    profile: { type: 'string', default: 'jev' },
    'no-hybrid': { type: 'boolean', default: false },
  },
});
const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean).map(Number);
const data = checkLocomo(JSON.parse(readFileSync(values.data!, 'utf8')));
const convs = values.conversations ? list(values.conversations) : data.map((_, i) => i);
const tune = new Set(list(values.tune!));
const k = Number(values.k);
const variants: Record<string, Partial<JevRetrieverOptions>> = { jev: {}, ...JSON.parse(values.variants!) };
const embedder = createWinkEmbedder();

type Acc = { sum: number; n: number };
const add = (m: Map<string, Acc>, key: string, r: number) => {
  const a = m.get(key) ?? { sum: 0, n: 0 };
  a.sum += r;
  a.n++;
  m.set(key, a);
};
const results = new Map<string, Map<string, Acc>>();
const latency = new Map<string, number[]>();
const misses: unknown[] = [];
const featureRows: unknown[] = [];
const profile = new Map<string, Acc>();

for (const c of convs) {
  const t0 = performance.now();
  const observations = conversationObservations(data[c], c);
  const questions = conversationQuestions(data[c], c);
  const systemOne = createEvalSystemOne(embedder);
  const memory = createMemory({ store: createSqliteStore({ path: ':memory:' }), embedder, systemOne: systemOne as any, gate: () => createNoveltyGate() as any });
  const scope = resolveScope({ userId: `locomo-${c}` });
  await memory.add(observations.map((o) => ({ text: o.text, speaker: o.speaker, observedAt: o.observedAt, sourceId: o.sourceId, scope, metadata: { session: o.session, turn: o.turn } })));
  const now = observations.reduce((m, o) => (o.observedAt > m ? o.observedAt : m), '1970-01-01T00:00:00.000Z');
  const nodes: MemoryNode[] = await memory.store.list(scope, { limit: 100_000 });
  const src = new Map(nodes.map((n) => [n.id, n.provenance.sourceId ?? n.id]));
  const snapCache = createSnapshotCache();
  const bySrc = new Map(nodes.map((n) => [n.provenance.sourceId ?? n.id, n]));
  process.stderr.write(`conv ${c}: built in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  const systems: [string, { search: (r: any) => Promise<any> }][] = Object.entries(variants).map(([name, opts]) => [
    name,
    createJevRetriever({ store: memory.store, systemOne, embedder, ...opts, name }),
  ]);
  if (!values['no-hybrid']) systems.push(['hybrid', createHybridRetriever({ store: memory.store, embedder })]);
  for (const [name, r] of systems) {
    const m = results.get(name) ?? new Map<string, Acc>();
    results.set(name, m);
    const lat = latency.get(name) ?? [];
    latency.set(name, lat);
    for (const q of questions) {
      const t1 = performance.now();
      const res = await r.search({ scope, query: q.question, k: 20, now });
      lat.push(performance.now() - t1);
      const ids: string[] = res.evidence.map((e: any) => e.node.provenance.sourceId ?? e.node.id);
      const rec = recallAtK(q.evidence, ids, k);
      if (rec === null) continue;
      add(m, 'overall', rec);
      add(m, CATEGORY_GROUPS[q.category] ?? `cat${q.category}`, rec);
      add(m, `conv${c}`, rec);
      add(m, tune.has(c) ? 'tune' : 'held', rec);
      if (name === values.profile && res.trace?.candidates) {
        // Where the recall@k of the profiled variant is lost: evidence visited but ranked below k, or never visited;
        // and the recall@k a perfect order of the visited candidates would give.
        const visitedSrc = new Set((res.trace as RetrievalTrace).candidates.map((x) => src.get(x.id)));
        const top = new Set(ids.slice(0, k));
        const gold = [...new Set(q.evidence)];
        const split = tune.has(c) ? 'tune' : 'held';
        add(profile, `${split}:visited-below-k`, gold.filter((e) => visitedSrc.has(e) && !top.has(e)).length / gold.length);
        add(profile, `${split}:never-visited`, gold.filter((e) => !visitedSrc.has(e)).length / gold.length);
        add(profile, `${split}:oracle-order`, Math.min(k, gold.filter((e) => visitedSrc.has(e)).length) / gold.length);
      }
      if (values.features && name === 'jev') {
        const trace = res.trace as RetrievalTrace;
        const snap = (await snapCache(memory.store, scope))!;
        const [qv] = await embedder.embed([q.question]);
        const [vec, lex] = await Promise.all([memory.store.vectorSearch(scope, qv, 200), memory.store.lexicalSearch(scope, q.question, 200)]);
        const rankings = [vec, lex, snap.lemma.search(q.question, 200), contextLemmaIndex(snap).search(q.question, 200)].map((h) => h.map((x: any) => x.node.id));
        const ev = new Set(q.evidence);
        const cands = trace.candidates.map((x, i) => {
          const n = snap.byId.get(x.id)!;
          const prev = previousTurn(snap, x.id);
          return { text: n.text, prevText: prev?.text ?? null, prevKw: prev?.keywords ?? [], prevSpeaker: prev?.speaker ?? null, sid: src.get(x.id), pos: i + 1, final: x.final, score: x.score, prior: x.prior, depth: x.depth, view: x.view, speaker: n.speaker, kw: n.keywords, ent: n.entities, t: n.observedAt, et: n.eventTime?.start ?? null, ranks: rankings.map((r) => r.indexOf(x.id) + 1), label: ev.has(src.get(x.id)!) ? 1 : 0 };
        });
        featureRows.push({ nodes: snap.nodes.length, conv: c, qa: q.qaIndex, cat: q.category, question: q.question, qkw: extractKeywords(q.question), evidence: q.evidence, routing: trace.routing, cands });
      }
      if (values.misses && name === 'jev') {
        const trace = res.trace as RetrievalTrace;
        const cand = trace.candidates.map((x) => src.get(x.id));
        const top = new Set(ids.slice(0, k));
        const anchors = new Set(trace.anchors.map((a) => src.get(a.id)));
        const snap = (await snapCache(memory.store, scope))!;
        const [qv] = await embedder.embed([q.question]);
        const rk = async () => {
          const [vec, lex] = await Promise.all([memory.store.vectorSearch(scope, qv, 200), memory.store.lexicalSearch(scope, q.question, 200)]);
          const lem = snap.lemma.search(q.question, 200);
          const ctx = contextLemmaIndex(snap).search(q.question, 200);
          return [vec, lex, lem, ctx].map((h) => h.map((x: any) => src.get(x.node.id)));
        };
        const rankings = await rk();
        for (const e of q.evidence) {
          if (top.has(e)) continue;
          const node = bySrc.get(e);
          const [s, t] = e.slice(1).split(':').map(Number);
          const adjTop = ids.slice(0, k).some((id) => {
            const [s2, t2] = id.slice(1).split(':').map(Number);
            return s2 === s && Math.abs(t2 - t) <= 2;
          });
          misses.push({
            conv: c, qa: q.qaIndex, cat: q.category, question: q.question, evidence: e, stored: !!node,
            rank: cand.indexOf(e) + 1, ranks: rankings.map((r) => r.indexOf(e) + 1), anchor: anchors.has(e), nearTop: adjTop,
            routing: trace.routing, active: trace.activeViews, top: ids.slice(0, k),
          });
        }
      }
    }
  }
  await memory.close();
}

const groups = ['overall', 'tune', 'held', 'multi-hop', 'temporal', 'open-domain', 'single-hop', 'adversarial', ...convs.map((c) => `conv${c}`)];
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
console.log(`recall@${k}; tune = conversations ${[...tune].join(',')}, held = the others`);
console.log(`| variant | ${groups.join(' | ')} | p50 ms |`);
for (const [name, m] of results) {
  console.log(`| ${name} | ${groups.map((g) => (m.get(g) ? (m.get(g)!.sum / m.get(g)!.n).toFixed(3) : '–')).join(' | ')} | ${p50(latency.get(name)!).toFixed(1)} |`);
}
console.log(`\nprofile of ${values.profile} (recall@${k} lost / reachable, mean over questions):`);
for (const [key, a] of [...profile].sort()) console.log(`- ${key}: ${(a.sum / a.n).toFixed(3)}`);
if (values.misses) writeFileSync(values.misses, misses.map((x) => JSON.stringify(x)).join('\n') + '\n');
if (values.features) writeFileSync(values.features, featureRows.map((x) => JSON.stringify(x)).join('\n') + '\n');

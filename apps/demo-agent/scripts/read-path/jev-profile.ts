/**
 * Where jev's query time goes (issue 33 point 2; ours): on the cached memories of the read-path
 * corpus (corpus.ts; built on first use), every question of the picked conversations is asked of jev
 * and hybrid, interleaved; prints per conversation the p50 of each stage of jev's trace
 * (`timings.stages`: snapshot, query embedding, rankings + fusion, System-One asks, relevance /
 * evidence order, expansion reads, and what no stage timer covers), jev and hybrid p50 and their
 * ratio in wall and in CPU time, and the top self-time
 * functions of a CPU profile of one more pass of jev alone.
 *
 *   nice -n 10 npx tsx --conditions=@mem/source apps/demo-agent/scripts/read-path/jev-profile.ts \
 *     --locomo ../shared/data/locomo/locomo10-dev.json --beam ../shared/data/beam/500K \
 *     --cache /tmp/mem-read-path --conversations locomo:0,beam:1 [--rounds 2] [--top 15]
 */
import { Session } from 'node:inspector/promises';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createHybridRetriever, createJevRetriever, type RetrievalTrace } from '@mem/retrieval';
import { createEmbedderFor, resolveEmbedderKind } from '../../src/embedder.js';
import { createEvalSystemOne } from '../../src/eval/systems/mem.js';
import { ABLATION_OPTIONS } from '../../src/eval/systems/index.js';
import { percentile } from '../../src/eval/metrics.js';
import { CORPUS_OPTIONS, loadCorpus, memoryOf, type Dataset } from './corpus.js';

const { values } = parseArgs({
  options: {
    ...CORPUS_OPTIONS,
    conversations: { type: 'string', default: 'locomo:0,beam:1' },
    rounds: { type: 'string', default: '2' },
    top: { type: 'string', default: '15' },
  },
});
if (!values.cache) throw new Error('--cache is required');
const pick = new Set(values.conversations!.split(','));
const datasets = [...new Set([...pick].map((p) => p.split(':')[0]))] as Dataset[];
const embedder = createEmbedderFor(resolveEmbedderKind(values.embedder));
const corpus = loadCorpus({ locomo: values.locomo, beam: values.beam, datasets }).filter((c) => pick.has(`${c.dataset}:${c.index}`));
const ROUNDS = Number(values.rounds);
const STAGES = ['snapshotMs', 'embedMs', 'rankingsMs', 'controllerMs', 'relevanceMs', 'expansionMs'] as const;

console.log(`jev profile: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} (shared machine: read the ratios)`);
const selfMs = new Map<string, number>();
let profiledMs = 0;
for (const conv of corpus) {
  const systemOne = createEvalSystemOne(embedder);
  const m = await memoryOf(conv, values.cache, embedder, systemOne);
  const jev = createJevRetriever({ store: m.store, systemOne, embedder, ...ABLATION_OPTIONS.jev });
  const hybrid = createHybridRetriever({ store: m.store, embedder });
  const qs = conv.questions.map((q) => q.question);
  for (const q of qs.slice(0, 10)) {
    await jev.search({ scope: m.scope, query: q, k: 10, now: m.now });
    await hybrid.search({ scope: m.scope, query: q, k: 10, now: m.now });
  }
  const stage: Record<string, number[]> = Object.fromEntries([...STAGES, 'routingMs', 'anchorsMs', 'roundsMs', 'totalMs'].map((s) => [s, []]));
  const jevMs: number[] = [];
  const hybridMs: number[] = [];
  // CPU ms of each search (process.cpuUsage): a loaded machine inflates a long search's wall time
  // (it waits for a core many times over) far more than a short one's
  const jevCpu: number[] = [];
  const hybridCpu: number[] = [];
  const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
  for (let r = 0; r < ROUNDS; r++) {
    for (const q of qs) {
      let c = process.cpuUsage();
      let t = performance.now();
      const res = await jev.search({ scope: m.scope, query: q, k: 10, now: m.now });
      jevMs.push(performance.now() - t);
      jevCpu.push(cpuMs(process.cpuUsage(c)));
      const tr = res.trace as RetrievalTrace;
      for (const s of ['routingMs', 'anchorsMs', 'roundsMs', 'totalMs'] as const) stage[s].push(tr.timings[s]);
      for (const s of STAGES) stage[s].push(tr.timings.stages?.[s] ?? 0);
      c = process.cpuUsage();
      t = performance.now();
      await hybrid.search({ scope: m.scope, query: q, k: 10, now: m.now });
      hybridMs.push(performance.now() - t);
      hybridCpu.push(cpuMs(process.cpuUsage(c)));
    }
  }
  // one more pass of jev alone under the CPU profiler (its self time by function). The inspector
  // session is connected only for this pass: connected, it slowed every search of the timed passes
  // above several times over (its message dispatch was the top "function" of the profile)
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  for (const q of qs) await jev.search({ scope: m.scope, query: q, k: 10, now: m.now });
  const { profile } = (await session.post('Profiler.stop')) as { profile: { nodes: { id: number; callFrame: { functionName: string; url: string } }[]; samples: number[]; timeDeltas: number[] } };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  profile.samples.forEach((id, i) => {
    const f = byId.get(id)!.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}`;
    selfMs.set(key, (selfMs.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
    profiledMs += (profile.timeDeltas[i] ?? 0) / 1000;
  });
  await session.post('Profiler.disable');
  session.disconnect();
  const p50 = (xs: number[]) => percentile(xs, 0.5);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  console.log(`\n## ${conv.dataset} ${conv.index}: ${await m.store.count(m.scope)} memories, ${qs.length} questions × ${ROUNDS}`);
  console.log('| stage | p50 ms | mean ms | share of jev mean |');
  console.log('|---|---:|---:|---:|');
  const total = mean(stage.totalMs);
  // what no stage timer covers: candidate bookkeeping, bring-ins, the controller's own scoring arithmetic, the result
  stage.otherMs = stage.totalMs.map((t, i) => t - STAGES.reduce((a, s) => a + stage[s][i]!, 0));
  for (const s of [...STAGES, 'otherMs', 'routingMs', 'anchorsMs', 'roundsMs', 'totalMs']) console.log(`| ${s} | ${p50(stage[s]).toFixed(2)} | ${mean(stage[s]).toFixed(2)} | ${((100 * mean(stage[s])) / total).toFixed(0)}% |`);
  console.log(`| jev p50 (search call) | ${p50(jevMs).toFixed(2)} | | |`);
  console.log(`| hybrid p50 (search call) | ${p50(hybridMs).toFixed(2)} | | |`);
  console.log(`| jev / hybrid p50 | ${(p50(jevMs) / p50(hybridMs)).toFixed(1)}× | | |`);
  console.log(`| jev CPU ms p50 | ${p50(jevCpu).toFixed(2)} | ${mean(jevCpu).toFixed(2)} | |`);
  console.log(`| hybrid CPU ms p50 | ${p50(hybridCpu).toFixed(2)} | ${mean(hybridCpu).toFixed(2)} | |`);
  console.log(`| jev / hybrid CPU p50 | ${(p50(jevCpu) / p50(hybridCpu)).toFixed(1)}× | | |`);
  console.log(`load average now ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  await m.close();
}
console.log(`\nTop self time in jev calls (CPU profile, ${profiledMs.toFixed(0)} ms sampled):`);
for (const [k, v] of [...selfMs].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) console.log(`  ${v.toFixed(0).padStart(6)} ms  ${((100 * v) / profiledMs).toFixed(1).padStart(5)}%  ${k}`);

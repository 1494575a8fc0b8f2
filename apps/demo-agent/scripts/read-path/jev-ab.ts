/**
 * jev of two checkouts side by side in ONE process (ours; issue 33 point 2): this checkout's
 * `@mem/retrieval` and offline System One against another checkout's (`--base`, e.g. a worktree at
 * the commit before a speed change), on the cached memories of the read-path corpus (corpus.ts).
 * Every question is asked of both (alternating which goes first) and of this checkout's hybrid; the
 * script prints per conversation the CPU milliseconds per search (process.cpuUsage; p50 and mean) of
 * each, their ratio, the wall p50s, and how many questions got a different top-20 (ids and scores):
 * a speed change meant to change nothing must print 0. Each side has its own System One (its answer
 * cache is not shared). Both sides run in the same process at the same moments, so the machine's
 * load inflates them alike.
 *
 *   nice -n 10 npx tsx --conditions=@mem/source apps/demo-agent/scripts/read-path/jev-ab.ts --base /path/to/other/checkout \
 *     --locomo ../shared/data/locomo/locomo10-dev.json --beam ../shared/data/beam/500K \
 *     --cache /tmp/mem-read-path --conversations locomo:0,beam:1 [--rounds 2]
 */
import { loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createHybridRetriever, createJevRetriever } from '@mem/retrieval';
import { createEmbedderFor, resolveEmbedderKind } from '../../src/embedder.js';
import { createEvalSystemOne } from '../../src/eval/systems/mem.js';
import { ABLATION_OPTIONS } from '../../src/eval/systems/index.js';
import { percentile } from '../../src/eval/metrics.js';
import { CORPUS_OPTIONS, loadCorpus, memoryOf, type Dataset } from './corpus.js';

const { values } = parseArgs({ options: { ...CORPUS_OPTIONS, base: { type: 'string' }, conversations: { type: 'string', default: 'locomo:0,beam:1' }, rounds: { type: 'string', default: '2' } } });
if (!values.cache || !values.base) throw new Error('--cache and --base are required');
const base = path.resolve(values.base);
// the other checkout's read path and eval System One, loaded from its sources
const baseRetrieval = (await import(path.join(base, 'packages/retrieval/src/index.ts'))) as { createJevRetriever: typeof createJevRetriever };
const baseSystems = (await import(path.join(base, 'apps/demo-agent/src/eval/systems/mem.ts'))) as { createEvalSystemOne: typeof createEvalSystemOne };
const pick = new Set(values.conversations!.split(','));
const datasets = [...new Set([...pick].map((p) => p.split(':')[0]))] as Dataset[];
const embedder = createEmbedderFor(resolveEmbedderKind(values.embedder));
const corpus = loadCorpus({ locomo: values.locomo, beam: values.beam, datasets }).filter((c) => pick.has(`${c.dataset}:${c.index}`));
const ROUNDS = Number(values.rounds);
const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
const p50 = (xs: number[]) => percentile(xs, 0.5);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

console.log(`jev A/B: this checkout vs ${base}; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
console.log('| conversation | questions × rounds | base jev CPU ms p50 / mean | this jev CPU ms p50 / mean | this / base (mean) | hybrid CPU ms p50 | jev / hybrid CPU p50 base → this | wall p50 base / this / hybrid | top-20 differences |');
console.log('|---|---:|---:|---:|---:|---:|---|---|---:|');
for (const conv of corpus) {
  const m = await memoryOf(conv, values.cache, embedder, createEvalSystemOne(embedder));
  const sides = {
    base: baseRetrieval.createJevRetriever({ store: m.store, systemOne: baseSystems.createEvalSystemOne(embedder), embedder, ...ABLATION_OPTIONS.jev }),
    this: createJevRetriever({ store: m.store, systemOne: createEvalSystemOne(embedder), embedder, ...ABLATION_OPTIONS.jev }),
  };
  const hybrid = createHybridRetriever({ store: m.store, embedder });
  const cpu: Record<'base' | 'this' | 'hybrid', number[]> = { base: [], this: [], hybrid: [] };
  const wall: Record<'base' | 'this' | 'hybrid', number[]> = { base: [], this: [], hybrid: [] };
  const qs = conv.questions.map((q) => q.question);
  let differ = 0;
  for (let r = 0; r < ROUNDS; r++) {
    for (const [i, q] of qs.entries()) {
      const top: Record<string, string> = {};
      const stop: Record<string, unknown> = {};
      for (const side of i % 2 ? (['base', 'this'] as const) : (['this', 'base'] as const)) {
        const c = process.cpuUsage();
        const t = performance.now();
        const res = await sides[side].search({ scope: m.scope, query: q, k: 20, now: m.now });
        wall[side].push(performance.now() - t);
        cpu[side].push(cpuMs(process.cpuUsage(c)));
        top[side] = res.evidence.map((e) => `${e.node.id}:${e.score}`).join(',');
        stop[side] = (res.trace as { stopReason?: unknown } | undefined)?.stopReason;
      }
      if (top.base !== top.this) {
        differ++;
        // what differs, and why a search may end differently: its stop reason (`time_cap` = the wall-clock cap, which a loaded machine can hit)
        console.error(`${conv.dataset} ${conv.index} round ${r + 1}: "${q}" differs; stop base ${String(stop.base)}, this ${String(stop.this)}\n  base ${top.base}\n  this ${top.this}`);
      }
      const c = process.cpuUsage();
      const t = performance.now();
      await hybrid.search({ scope: m.scope, query: q, k: 20, now: m.now });
      wall.hybrid.push(performance.now() - t);
      cpu.hybrid.push(cpuMs(process.cpuUsage(c)));
    }
  }
  const h = p50(cpu.hybrid);
  console.log(
    `| ${conv.dataset} ${conv.index} | ${qs.length} × ${ROUNDS} | ${p50(cpu.base).toFixed(2)} / ${mean(cpu.base).toFixed(2)} | ${p50(cpu.this).toFixed(2)} / ${mean(cpu.this).toFixed(2)} | ${(mean(cpu.this) / mean(cpu.base)).toFixed(3)} | ${h.toFixed(2)} | ${(p50(cpu.base) / h).toFixed(2)}× → ${(p50(cpu.this) / h).toFixed(2)}× | ${p50(wall.base).toFixed(1)} / ${p50(wall.this).toFixed(1)} / ${p50(wall.hybrid).toFixed(1)} | ${differ} |`,
  );
  await m.close();
}
console.log(`load average at the end ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);

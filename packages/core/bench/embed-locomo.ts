/**
 * Dense-retrieval check of the offline embedder on LoCoMo (a script, not a test):
 *   cd packages/core && npx tsx --conditions=@mem/source bench/embed-locomo.ts [path/to/locomo10-dev.json]
 *
 * For every conversation, embeds every dialogue turn and every question (categories 1–4), ranks
 * the turns by cosine and reports evidence recall@k (share of a question's evidence ids among the
 * top k), for the default wink embedder, its ablations and the unweighted-mean baseline, all in the
 * same run. The data is read at run time from ../shared/data/locomo (never copied into the repo).
 */

import { createWinkEmbedder, type WinkEmbedderOptions } from '../src/embed/wink.js';
import { locomoPath, readLocomoJsonOrExit } from './locomo.js';

const file = process.argv[2] ?? process.env.MEM_LOCOMO_PATH ?? process.env.LOCOMO_PATH ?? locomoPath();

interface Turn { speaker: string; dia_id: string; text: string }
interface Sample {
  conversation: Record<string, unknown>;
  qa: { question: string; evidence?: string[]; category: number }[];
}
const data = readLocomoJsonOrExit(file) as Sample[];

const KS = [5, 10, 25];
const variants: [string, WinkEmbedderOptions][] = [
  ['default (a=1e-3, 2 PCs, OOV hash)', {}],
  ['0 PCs', { removeComponents: 0 }],
  ['1 PC', { removeComponents: 1 }],
  ['4 PCs', { removeComponents: 4 }],
  ['OOV ignored', { oov: 'ignore' }],
  ['a=1e-4', { sifA: 1e-4 }],
  ['a=1e-2', { sifA: 1e-2 }],
  ['baseline: unweighted mean', { sifA: 1e3, removeComponents: 0 }],
];

console.log(`# LoCoMo dense retrieval with the wink embedder (${data.length} conversations, categories 1-4)\n`);
console.log(`| embedder | ${KS.map((k) => `R@${k}`).join(' | ')} | questions |`);
console.log(`|---|${KS.map(() => '---:').join('|')}|---:|`);
const results: { name: string; r: number[] }[] = [];
for (const [name, opts] of variants) {
  const e = createWinkEmbedder(opts);
  const sums = KS.map(() => 0);
  const sq = KS.map(() => 0);
  let n = 0;
  for (const s of data) {
    const turns: Turn[] = [];
    for (const [key, v] of Object.entries(s.conversation)) {
      if (/^session_\d+$/.test(key) && Array.isArray(v)) turns.push(...(v as Turn[]));
    }
    const tv = await e.embed(turns.map((t) => (t.text && t.text.trim() ? t.text : '(empty)')));
    const qs = s.qa.filter((q) => q.category >= 1 && q.category <= 4 && q.evidence && q.evidence.length > 0);
    const qv = await e.embed(qs.map((q) => q.question));
    qs.forEach((q, qi) => {
      const scores = tv.map((v, i) => {
        let d = 0;
        for (let j = 0; j < v.length; j++) d += v[j] * qv[qi][j];
        return [d, i] as const;
      });
      scores.sort((x, y) => y[0] - x[0]);
      const ev = new Set(q.evidence);
      KS.forEach((k, ki) => {
        let hit = 0;
        for (let r = 0; r < Math.min(k, scores.length); r++) if (ev.has(turns[scores[r][1]].dia_id)) hit++;
        sums[ki] += hit / ev.size;
        sq[ki] += (hit / ev.size) ** 2;
      });
      n++;
    });
  }
  const r = sums.map((x) => x / n);
  // standard error of the mean recall (per-question recalls as samples)
  const se = sq.map((x, i) => Math.sqrt(Math.max(0, x / n - r[i] ** 2) / n));
  results.push({ name, r });
  console.log(`| ${name} | ${r.map((x, i) => `${x.toFixed(3)} ± ${se[i].toFixed(3)}`).join(' | ')} | ${n} |`);
}
const base = results[results.length - 1];
console.log(`\nratio default/baseline: ${KS.map((k, i) => `R@${k} ${(results[0].r[i] / base.r[i]).toFixed(2)}x`).join(', ')}`);

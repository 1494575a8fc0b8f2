/**
 * Routing on LoCoMo questions (read at run time from the shared data folder, never copied): mean
 * routing probabilities per LoCoMo category and the share of temporal-category questions with
 * p_temporal >= 0.5. A sanity check on real questions, not a labelled accuracy. Skipped when the file
 * is absent. Path: env MEM_LOCOMO_PATH, default ../../../shared/data/locomo/locomo10-dev.json.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { routeFeatures } from '../src/offline/scorers.js';

const CATS: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop', 5: 'adversarial' };

export function locomoRouting(): void {
  const path = resolve(process.env.MEM_LOCOMO_PATH ?? resolve(import.meta.dirname, '../../../../shared/data/locomo/locomo10-dev.json'));
  if (!existsSync(path)) {
    console.log(`\n(LoCoMo routing check skipped: ${path} not found; set MEM_LOCOMO_PATH)`);
    return;
  }
  const data = JSON.parse(readFileSync(path, 'utf8')) as { qa: { question: string; category: number }[] }[];
  const by = new Map<number, { n: number; s: Record<string, number>; hi: Record<string, number> }>();
  const keys = ['semantic', 'temporal', 'causal', 'entity', 'multi_hop_need', 'recency_importance'] as const;
  for (const conv of data) {
    for (const qa of conv.qa) {
      if (typeof qa.question !== 'string') continue;
      const f = routeFeatures(qa.question);
      const e = by.get(qa.category) ?? { n: 0, s: Object.fromEntries(keys.map((k) => [k, 0])), hi: Object.fromEntries(keys.map((k) => [k, 0])) };
      e.n++;
      for (const k of keys) {
        e.s[k] += f[k];
        if (f[k] >= 0.5) e.hi[k]++;
      }
      by.set(qa.category, e);
    }
  }
  console.log(`\n## Routing on LoCoMo questions (${path.split('/').pop()}; read at run time)\n`);
  console.log('Share of questions with p >= 0.5 per routing question, by LoCoMo category:\n');
  console.log(`| category | n | ${keys.join(' | ')} |`);
  console.log(`|---|---:|${keys.map(() => '---:').join('|')}|`);
  for (const c of [...by.keys()].sort()) {
    const e = by.get(c)!;
    console.log(`| ${c} ${CATS[c] ?? ''} | ${e.n} | ${keys.map((k) => (e.hi[k] / e.n).toFixed(2)).join(' | ')} |`);
  }
}

/**
 * Offline LoCoMo metrics (docs/design.md "Evaluation protocol"; ours where the papers are silent).
 */
import type { EvalReport } from './engine.js';

/** Category number → group name (the mapping most memory papers use). */
export const CATEGORY_GROUPS: Record<number, string> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
  5: 'adversarial',
};

/** Every group of the report, in print order. */
export const GROUPS = ['overall', 'overall_1_4', 'multi-hop', 'temporal', 'open-domain', 'single-hop', 'adversarial'] as const;
export type Group = (typeof GROUPS)[number];

/** The groups a question of `category` counts in: `overall`, `overall_1_4` for 1–4, and its own. */
export function groupsOf(category: number): Group[] {
  const own = CATEGORY_GROUPS[category] as Group | undefined;
  const out: Group[] = ['overall'];
  if (category >= 1 && category <= 4) out.push('overall_1_4');
  if (own) out.push(own);
  return out;
}

/**
 * Evidence recall@k: |evidence ∩ top-k| / |evidence|, top-k = the first k DISTINCT retrieved ids (the
 * parts of a split message share one id and count once). Null when the
 * question has no evidence (such questions are left out of the recall means).
 */
export function recallAtK(evidence: readonly string[], retrieved: readonly string[], k: number): number | null {
  const gold = new Set(evidence);
  if (gold.size === 0) return null;
  // distinct ids in rank order: the parts of a split message share one id and count once (break-it)
  const top = new Set<string>();
  for (const id of retrieved) {
    if (top.size >= Math.max(0, k)) break;
    top.add(id);
  }
  let hit = 0;
  for (const g of gold) if (top.has(g)) hit++;
  return hit / gold.size;
}

const ARTICLES = new Set(['a', 'an', 'the', 'and']);

/**
 * Answer normalisation of the LoCoMo / SQuAD evaluation scripts: lower case, punctuation removed,
 * articles (a, an, the, and) removed, whitespace tokens.
 */
export function normalizeTokens(text: string): string[] {
  return String(text)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .split(/\s+/)
    .filter((t) => t && !ARTICLES.has(t));
}

/**
 * Answer-token recall (ours): the share of the gold answer's normalised tokens (as a set) present among
 * the context's normalised tokens. Null when the answer has no tokens.
 */
export function answerTokenRecall(answer: string, context: string): number | null {
  const gold = new Set(normalizeTokens(answer));
  if (gold.size === 0) return null;
  const ctx = new Set(normalizeTokens(context));
  let hit = 0;
  for (const t of gold) if (ctx.has(t)) hit++;
  return hit / gold.size;
}

/** Percentile by linear interpolation between closest ranks (q in [0, 1]); 0 for an empty list. */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  const pos = (s.length - 1) * Math.min(1, Math.max(0, q));
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

/** Running means per key (null values are skipped). */
export class MeanAccumulator {
  private sums = new Map<string, { sum: number; n: number }>();
  add(key: string, value: number | null): void {
    if (value === null || !Number.isFinite(value)) return;
    const e = this.sums.get(key) ?? { sum: 0, n: 0 };
    e.sum += value;
    e.n += 1;
    this.sums.set(key, e);
  }
  mean(key: string): number | null {
    const e = this.sums.get(key);
    return e && e.n > 0 ? e.sum / e.n : null;
  }
  count(key: string): number {
    return this.sums.get(key)?.n ?? 0;
  }
}

/** Round to 4 decimals (report numbers). */
export function r4(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

/** The cost rows of a report's markdown (build seconds, observations, latency, controller calls, gate actions), one per system. */
export function costTable(systems: EvalReport['systems'], names: string[]): string[] {
  const rows = ['| system | build s | observations | p50 ms | p95 ms | CPU ms / query p50 | controller calls / query | gate add / update / noop |', '|---|---:|---:|---:|---:|---:|---:|---|'];
  for (const n of names) {
    const s = systems[n];
    const cpu = s.query_cpu_ms ? s.query_cpu_ms.p50.toFixed(1) : '–';
    rows.push(`| ${n} | ${s.build_seconds.toFixed(1)} | ${s.observations} | ${s.query_latency_ms.p50.toFixed(1)} | ${s.query_latency_ms.p95.toFixed(1)} | ${cpu} | ${s.controller_calls_per_query.toFixed(2)} | ${s.gate.add} / ${s.gate.update} / ${s.gate.noop} |`);
  }
  const ratios = latencyRatios(systems, names);
  if (ratios.length) {
    rows.push('', ...ratios.map((r) => `${r.system} p50 / ${r.baseline} p50 = ${r.p50.toFixed(2)}× (p95 ${r.p95.toFixed(2)}×; same run)${r.cpuP50 !== undefined ? `; CPU time per query p50 ${r.cpuP50.toFixed(2)}×` : ''}`));
  }
  return rows;
}

/** One system's query latency against a flat baseline of the same run (ours; issue 33: jev ≤ 3× hybrid). */
export interface LatencyRatio {
  system: string;
  baseline: string;
  /** system p50 / baseline p50 (ms / ms). */
  p50: number;
  /** system p95 / baseline p95. */
  p95: number;
  /** system / baseline p50 of the CPU time per query (`query_cpu_ms`), when both report it. */
  cpuP50?: number;
}

/**
 * Every `jev…` system's p50 and p95 over `hybrid`'s, measured in the same run (ours): on a shared
 * machine absolute latencies move with the load, the ratio much less. A `jev…@store` system is
 * compared with `hybrid@store`. [] without a hybrid in the run, or when its p50 is 0.
 */
export function latencyRatios(systems: EvalReport['systems'], names: string[]): LatencyRatio[] {
  const out: LatencyRatio[] = [];
  for (const n of names) {
    if (!n.startsWith('jev')) continue;
    const at = n.indexOf('@');
    const baseline = at >= 0 ? `hybrid${n.slice(at)}` : 'hybrid';
    const b = systems[baseline];
    const s = systems[n];
    if (!b || !s || !(b.query_latency_ms.p50 > 0)) continue;
    const cpu = s.query_cpu_ms && b.query_cpu_ms && b.query_cpu_ms.p50 > 0 ? { cpuP50: s.query_cpu_ms.p50 / b.query_cpu_ms.p50 } : {};
    out.push({ system: n, baseline, p50: s.query_latency_ms.p50 / b.query_latency_ms.p50, p95: b.query_latency_ms.p95 > 0 ? s.query_latency_ms.p95 / b.query_latency_ms.p95 : NaN, ...cpu });
  }
  return out;
}

/** `load average (1 / 5 / 15 min): start …, end …` of a report, or [] when the report has none (ours). */
export function loadAverageLines(config: { load_average?: { start: number[]; end: number[] } }): string[] {
  const l = config.load_average;
  if (!l) return [];
  return [`Machine load average (1 / 5 / 15 min): ${l.start.map((x) => x.toFixed(2)).join(' / ')} at the start, ${l.end.map((x) => x.toFixed(2)).join(' / ')} at the end of the run.`];
}

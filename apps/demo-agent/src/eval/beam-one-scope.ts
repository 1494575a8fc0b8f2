/**
 * `mem eval beam --one-scope` (issue 33 point 3; ours): every given BEAM conversation in ONE memory
 * scope, each conversation's questions asked against the whole of it (its evidence ids stay its own,
 * the other conversations are distractors), compared in the same run with the usual one memory per
 * conversation: recall@k per question type (all conversations, and the held-out ones apart: the
 * learned models were fitted on BEAM 500K 1–5), ingest throughput, query p50 / p95.
 */
import { BEAM_GROUPS, runBeamEval, type BeamReport, type RunBeamEvalOptions } from './beam.js';
import type { DumpRow } from './engine.js';
import { latencyRatios, loadAverageLines, r4, recallAtK } from './metrics.js';

/** BEAM 500K dev conversations the shipped learned models were NOT fitted on (their TRAIN split is 1–5; docs/benchmarks.md). */
export const BEAM_HELD_OUT: readonly number[] = [6, 7, 8, 9, 10];

/** One mode of the comparison: its report and its dump rows. */
export interface BeamRun {
  report: BeamReport;
  rows: DumpRow[];
}

/** What `runBeamOneScope` returns: the one-scope run and, unless skipped, the per-conversation run of the same process. */
export interface BeamOneScopeResult {
  oneScope: BeamRun;
  perConversation: BeamRun | null;
}

/**
 * Run the per-conversation evaluation (unless `perConversation` is false), then the one-scope one,
 * with the same options and systems. Throws what `runBeamEval` throws (MemValidationError on bad data
 * or options before anything is built).
 */
export async function runBeamOneScope(options: Omit<RunBeamEvalOptions, 'oneScope' | 'dump'> & { perConversation?: boolean }): Promise<BeamOneScopeResult> {
  const { perConversation = true, ...rest } = options;
  const run = async (oneScope: boolean): Promise<BeamRun> => {
    const rows: DumpRow[] = [];
    const report = await runBeamEval({ ...rest, oneScope, dump: (r) => void rows.push(r) });
    return { report, rows };
  };
  const per = perConversation ? await run(false) : null;
  return { perConversation: per, oneScope: await run(true) };
}

/**
 * Mean recall@k per group (`overall` and the question's type) over the rows of the conversations in
 * `only` (all when absent), per system: questions without evidence are left out (ours).
 */
export function recallByGroup(rows: readonly DumpRow[], k: number, only?: ReadonlySet<number>): Map<string, Record<string, number>> {
  const acc = new Map<string, Map<string, { s: number; n: number }>>();
  for (const r of rows) {
    if (only && !only.has(r.conversation)) continue;
    const v = recallAtK(r.evidence, r.retrieved, k);
    if (v === null) continue;
    const by = acc.get(r.system) ?? new Map<string, { s: number; n: number }>();
    acc.set(r.system, by);
    for (const g of ['overall', String(r.category)]) {
      const e = by.get(g) ?? { s: 0, n: 0 };
      e.s += v;
      e.n++;
      by.set(g, e);
    }
  }
  return new Map([...acc].map(([s, m]) => [s, Object.fromEntries([...m].map(([g, e]) => [g, r4(e.s / e.n)]))]));
}

const FLAT = ['bm25', 'dense', 'hybrid'];
const f3 = (x: number | undefined) => (x === undefined ? '–' : x.toFixed(3));
const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(3)}`;

/** Targets of issue 33 point 3 for one set of conversations: jev one-scope vs per-conversation, and vs the best flat baseline (ours). */
export interface OneScopeVerdict {
  conversations: number[];
  jevOneScope: number;
  jevPerConversation: number | null;
  /** one scope − per conversation (target ≥ −0.05). */
  delta: number | null;
  bestFlat: { system: string; recall: number } | null;
  /** jev one scope − best flat one scope (target ≥ +0.05). */
  lead: number | null;
}

/** The targets' numbers for the rows of `convs` (null fields when a system or mode is missing). */
export function oneScopeVerdict(result: BeamOneScopeResult, convs: readonly number[], k: number): OneScopeVerdict | null {
  const only = new Set(convs);
  const one = recallByGroup(result.oneScope.rows, k, only);
  const per = result.perConversation ? recallByGroup(result.perConversation.rows, k, only) : null;
  const jev = one.get('jev')?.overall;
  if (jev === undefined) return null;
  const jevPer = per?.get('jev')?.overall ?? null;
  let best: { system: string; recall: number } | null = null;
  for (const f of FLAT) {
    const v = one.get(f)?.overall;
    if (v !== undefined && (!best || v > best.recall)) best = { system: f, recall: v };
  }
  return {
    conversations: [...convs],
    jevOneScope: jev,
    jevPerConversation: jevPer,
    delta: jevPer === null ? null : r4(jev - jevPer),
    bestFlat: best,
    lead: best ? r4(jev - best.recall) : null,
  };
}

/**
 * Markdown of the comparison (ours): recall@k per type for every system in both modes with the
 * difference, for all conversations and for the held-out ones present; then ingest (seconds,
 * observations / s, words / s) and query p50 / p95 of each mode with jev / hybrid; then the targets.
 */
export function formatOneScopeComparison(result: BeamOneScopeResult, k: number, heldOut: readonly number[] = BEAM_HELD_OUT): string {
  const { oneScope, perConversation } = result;
  const convs = oneScope.report.config.conversations;
  const held = convs.filter((c) => heldOut.includes(c));
  const sets: { label: string; convs: number[] }[] = [{ label: `all ${convs.length} conversations (${convs.join(', ')})`, convs }];
  if (held.length && held.length < convs.length) {
    sets.push({ label: `held out (${held.join(', ')}): the learned models never saw them`, convs: held });
    const seen = convs.filter((c) => !heldOut.includes(c));
    sets.push({ label: `seen in training (${seen.join(', ')})`, convs: seen });
  }
  const out: string[] = [];
  const c = oneScope.report.config;
  out.push(
    `BEAM ${c.data}, ONE scope holding conversations ${convs.join(', ')}: ${oneScope.report.systems[Object.keys(oneScope.report.systems)[0]]?.observations ?? 0} observations, ${c.observation_words ?? 0} words; each conversation's questions asked against the whole scope`,
  );
  const systems = Object.keys(oneScope.report.systems);
  for (const set of sets) {
    const only = new Set(set.convs);
    const one = recallByGroup(oneScope.rows, k, only);
    const per = perConversation ? recallByGroup(perConversation.rows, k, only) : null;
    const groups = BEAM_GROUPS.filter((g) => systems.some((s) => one.get(s)?.[g] !== undefined));
    out.push('', `Evidence recall@${k}, ${set.label}`, '', `| system | run | ${groups.map((g) => g.replaceAll('_', ' ')).join(' | ')} |`, `|---|---|${groups.map(() => '---:').join('|')}|`);
    for (const s of systems) {
      if (per) out.push(`| ${s} | per conversation | ${groups.map((g) => f3(per.get(s)?.[g])).join(' | ')} |`);
      out.push(`| ${s} | one scope | ${groups.map((g) => f3(one.get(s)?.[g])).join(' | ')} |`);
      if (per) {
        out.push(
          `| ${s} | Δ | ${groups
            .map((g) => {
              const a = one.get(s)?.[g];
              const b = per.get(s)?.[g];
              return a === undefined || b === undefined ? '–' : signed(a - b);
            })
            .join(' | ')} |`,
        );
      }
    }
  }
  out.push('', 'Ingest and query cost (build = the full write path; one build is shared by every system of a run)', '', '| run | system | ingest s | ingest CPU s | observations | observations / s | words / s | words / CPU s | p50 ms | p95 ms | CPU ms / query p50 |', '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const runs: [string, BeamRun | null][] = [['per conversation', perConversation], ['one scope', oneScope]];
  for (const [label, run] of runs) {
    if (!run) continue;
    const words = run.report.config.observation_words ?? 0;
    for (const s of systems) {
      const r = run.report.systems[s];
      if (!r) continue;
      const secs = r.build_seconds;
      const cpu = r.build_cpu_seconds;
      out.push(
        `| ${label} | ${s} | ${secs.toFixed(1)} | ${cpu === undefined ? '–' : cpu.toFixed(1)} | ${r.observations} | ${secs > 0 ? (r.observations / secs).toFixed(1) : '–'} | ${secs > 0 ? Math.round(words / secs) : '–'} | ${cpu ? Math.round(words / cpu) : '–'} | ${r.query_latency_ms.p50.toFixed(1)} | ${r.query_latency_ms.p95.toFixed(1)} | ${r.query_cpu_ms ? r.query_cpu_ms.p50.toFixed(1) : '–'} |`,
      );
    }
    for (const x of latencyRatios(run.report.systems, systems)) out.push(`| ${label} | ${x.system} / ${x.baseline} | | | | | | | ${x.p50.toFixed(2)}× | ${x.p95.toFixed(2)}× | ${x.cpuP50 !== undefined ? `${x.cpuP50.toFixed(2)}×` : '–'} |`);
  }
  out.push('', ...(perConversation ? loadAverageLines(perConversation.report.config).map((l) => `Per-conversation run: ${l}`) : []), ...loadAverageLines(oneScope.report.config).map((l) => `One-scope run: ${l}`));
  out.push('', 'Targets (issue 33): jev one scope within 0.05 of the per-conversation run, and ≥ the best flat baseline + 0.05:');
  for (const set of sets) {
    const v = oneScopeVerdict(result, set.convs, k);
    if (!v) continue;
    const within = v.delta === null ? 'no per-conversation run' : `${signed(v.delta)} (${v.delta >= -0.05 ? 'met' : 'not met'})`;
    const lead = v.bestFlat && v.lead !== null ? `${signed(v.lead)} over ${v.bestFlat.system} ${f3(v.bestFlat.recall)} (${v.lead >= 0.05 ? 'met' : 'not met'})` : 'no flat baseline in the run';
    out.push(`- ${set.label}: jev one scope ${f3(v.jevOneScope)} vs per conversation ${f3(v.jevPerConversation ?? undefined)}: ${within}; lead ${lead}`);
  }
  return out.join('\n');
}

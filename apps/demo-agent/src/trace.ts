/**
 * A display-ready view of a retrieval trace (ours). Works with @mem/retrieval's RetrievalTrace
 * (Jev) and with the flat baselines' smaller trace; missing parts become null / empty.
 */
export interface TraceView {
  retriever: string | null;
  routing: Record<string, number> | null;
  activeViews: string[];
  /** True when the temporal view is inactive and its budget only follows SAME_EPISODE edges (Jev). */
  episodeContext: boolean;
  depth: number | null;
  budgets: { given: Record<string, number>; spent: Record<string, number> } | null;
  rounds: { depth: number; frontier: number; admitted: Record<string, number>; edgesExamined: number; stopping: Record<string, number> | null; reason: string | null; ms: number }[];
  stopReason: string | null;
  controllerCalls: number | null;
  nodesVisited: number | null;
  edgesExamined: number | null;
  totalMs: number | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export function normalizeTrace(trace: unknown): TraceView {
  const t = (trace && typeof trace === 'object' ? trace : {}) as Record<string, any>;
  const routing = t.routing && typeof t.routing === 'object' ? (t.routing as Record<string, number>) : null;
  const budgets = t.budgets && typeof t.budgets === 'object' && t.budgets.given ? { given: t.budgets.given ?? {}, spent: t.budgets.spent ?? {} } : null;
  const rounds = Array.isArray(t.rounds)
    ? t.rounds.map((r: any) => ({
        depth: num(r?.depth) ?? 0,
        frontier: Array.isArray(r?.frontier) ? r.frontier.length : (num(r?.frontier) ?? 0),
        admitted: r?.admitted && typeof r.admitted === 'object' ? r.admitted : {},
        edgesExamined: num(r?.edgesExamined) ?? 0,
        stopping: r?.stopping && typeof r.stopping === 'object' ? r.stopping : null,
        reason: typeof r?.reason === 'string' ? r.reason : null,
        ms: num(r?.ms) ?? 0,
      }))
    : [];
  return {
    retriever: typeof t.retriever === 'string' ? t.retriever : null,
    routing,
    activeViews: Array.isArray(t.activeViews) ? t.activeViews : [],
    episodeContext: t.episodeContext === true,
    depth: num(t.depth),
    budgets,
    rounds,
    stopReason: typeof t.stopReason === 'string' ? t.stopReason : null,
    controllerCalls: num(t.controllerCalls),
    nodesVisited: num(t.nodesVisited),
    edgesExamined: num(t.edgesExamined),
    totalMs: num(t.timings?.totalMs),
  };
}

/** One-line text summary of routing probabilities, e.g. `semantic .82 · temporal .40 · …`. */
export function formatRouting(routing: Record<string, number> | null): string {
  if (!routing) return '(no routing: flat retriever)';
  const short = (v: number) => v.toFixed(2).replace(/^0\./, '.');
  return Object.entries(routing)
    .map(([k, v]) => `${k} ${short(v)}`)
    .join(' · ');
}

/**
 * Per-view budgets as `spent/given`, e.g. `semantic 3/67 · entity 0/13 · temporal 1/10 (view
 * inactive: episode context only) · inactive: causal`. Views not in `activeViews` are marked
 * inactive (consistent with the trace); with no `activeViews` every budget is shown as given.
 */
export function formatBudgets(b: TraceView['budgets'], activeViews?: string[], episodeContext = false): string {
  if (!b) return '(none)';
  const views = Object.keys(b.given);
  if (!activeViews) return views.map((v) => `${v} ${b.spent[v] ?? 0}/${b.given[v]}`).join(' · ');
  const parts = views.filter((v) => activeViews.includes(v)).map((v) => `${v} ${b.spent[v] ?? 0}/${b.given[v]}`);
  const idle: string[] = [];
  for (const v of views) {
    if (activeViews.includes(v)) continue;
    if ((b.given[v] ?? 0) > 0) parts.push(`${v} ${b.spent[v] ?? 0}/${b.given[v]} (view inactive${episodeContext && v === 'temporal' ? ': episode context only' : ''})`);
    else idle.push(v);
  }
  if (idle.length) parts.push(`inactive: ${idle.join(', ')}`);
  return parts.join(' · ') || '(none)';
}

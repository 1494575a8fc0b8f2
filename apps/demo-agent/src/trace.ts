/**
 * A display-ready view of a retrieval trace (ours). Works with @mem/retrieval's RetrievalTrace
 * (Jev) and with the flat baselines' smaller trace; missing parts become null / empty.
 */
export interface TraceView {
  retriever: string | null;
  routing: Record<string, number> | null;
  activeViews: string[];
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

export function formatBudgets(b: TraceView['budgets']): string {
  if (!b) return '(none)';
  return Object.keys(b.given)
    .map((v) => `${v} ${b.spent[v] ?? 0}/${b.given[v]}`)
    .join(' · ');
}

/**
 * Measure the SAGE gate as a drop-in write filter on LoCoMo (issue 7; seed 001 §3.4–3.5, §4.3):
 * the turns of each conversation are the fact stream of one scope, embedded with core's offline
 * wink embedder, and routed in order by
 *   - the fixed-τ_noop pre-filter (Noop iff s_vMF > τ_noop, 0.572 in the paper, §3.5), and
 *   - the adaptive gate (Noop iff ν < τ_t, §3.4; an Update counts as written),
 * with SAGE's drop semantics: a skipped turn is neither committed to the gate nor stored. Then the
 * same retrievers (systems of the eval engine) are built on all turns and on the kept turns only,
 * and evidence recall@10 is computed against the FULL gold evidence: evidence in a dropped turn
 * still counts, so dropping can only lose recall (or leave it unchanged, up to ranking effects).
 *
 *   npx tsx --conditions=@mem/source apps/demo-agent/scripts/gate-measure.ts \
 *     [--data /work/shared/data/locomo/locomo10-dev.json] [--systems hybrid,dense,bm25] \
 *     [--conversations 0,1] [--tau-noop 0.572] [--k 10] [--json out.json]
 */
import { createWinkEmbedder, type Embedder } from '@mem/core';
import { createNoopFilter, createNoveltyGate, SAGE_DEFAULTS } from '@mem/gate-vmf';
import { type EvalObservation } from '../eval/locomo.js';
import type { EvalSystem, EvalSystemContext, EvalSystemFactory } from '../eval/types.js';
import { appFile } from '../app-root.js';

export type Policy = 'all' | 'noop-filter' | 'noop-calibrated' | 'adaptive';
export const POLICIES: readonly Policy[] = ['all', 'noop-filter', 'noop-calibrated', 'adaptive'];

/** Sample conversation written for the demo (not LoCoMo): the calibration stream for τ_noop. */
export const CALIBRATION_FILE = appFile('data', 'sample-conversation.json');

/**
 * τ_noop calibrated as in seed 001 App. G: the `quantile` (0.8) of s_vMF over a calibration stream,
 * each item scored against all items before it (all committed). Ours: the stream is the demo's
 * sample conversation, embedded with the same embedder, so no LoCoMo text is used to calibrate.
 */
export function calibrateTauNoop(vectors: readonly Float32Array[], quantile = 0.8): number {
  const g = createNoveltyGate({ normalize: true });
  const scores: number[] = [];
  vectors.forEach((v, i) => {
    if (i > 0) scores.push(g.route('calibration', v).score);
    g.commit('calibration', String(i), v);
  });
  if (scores.length === 0) throw new Error('calibration stream needs at least two items');
  scores.sort((a, b) => a - b);
  const pos = quantile * (scores.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return scores[lo] + (scores[hi] - scores[lo]) * (pos - lo);
}

export interface TurnDecision {
  sourceId: string;
  skipped: boolean;
  action: 'add' | 'update' | 'noop' | 'pass';
  score: number;
}

/**
 * Route one conversation's turns in order through a policy (SAGE drop semantics). Pure given the
 * vectors: `vectors[i]` is the unit embedding of `turns[i]`.
 */
export function routeTurns(policy: Policy, turns: readonly EvalObservation[], vectors: readonly Float32Array[], tauNoop: number = SAGE_DEFAULTS.tauNoop): TurnDecision[] {
  const scope = 'conversation';
  if (policy === 'all') return turns.map((t) => ({ sourceId: t.sourceId, skipped: false, action: 'pass', score: Number.NaN }));
  if (policy === 'noop-filter' || policy === 'noop-calibrated') {
    const f = createNoopFilter({ tauNoop, normalize: true });
    return turns.map((t, i) => {
      const d = f.check(scope, vectors[i]);
      if (!d.noop) f.commit(scope, String(i), vectors[i]);
      return { sourceId: t.sourceId, skipped: d.noop, action: d.noop ? 'noop' : 'pass', score: d.score };
    });
  }
  const g = createNoveltyGate({ normalize: true });
  return turns.map((t, i) => {
    const d = g.route(scope, vectors[i]);
    const skipped = d.action === 'noop';
    if (!skipped) g.commit(scope, String(i), vectors[i]);
    return { sourceId: t.sourceId, skipped, action: d.action, score: d.score };
  });
}

function sharedWink(ctx: EvalSystemContext): Embedder {
  let e = ctx.runShared.get('wink') as Embedder | undefined;
  if (!e) {
    e = createWinkEmbedder();
    ctx.runShared.set('wink', e);
  }
  return e;
}

/** Per (policy, conversation): the decisions, for the skip table. */
export const decisionsLog = new Map<string, TurnDecision[]>();

/**
 * Wrap an engine system so it is built on the turns `policy` keeps. Systems of one policy share
 * their own `shared` map (so e.g. the @mem retrievers read one memory per policy and conversation).
 */
export function gatedSystem(policy: Policy, base: EvalSystemFactory, tauNoop: number): EvalSystemFactory {
  return async (ctx) => {
    const key = `gate:${policy}`;
    let policyShared = ctx.shared.get(key) as Map<string, unknown> | undefined;
    if (!policyShared) {
      policyShared = new Map();
      ctx.shared.set(key, policyShared);
    }
    const inner: EvalSystem = await base({ ...ctx, shared: policyShared });
    return {
      name: ctx.name,
      async build(observations) {
        const logKey = `${policy}|${ctx.conversation}`;
        let decisions = decisionsLog.get(logKey);
        if (!decisions) {
          const vectors = policy === 'all' ? [] : await sharedWink(ctx).embed(observations.map((o) => o.text));
          decisions = routeTurns(policy, observations, vectors, tauNoop);
          decisionsLog.set(logKey, decisions);
        }
        const skipped = new Set(decisions.filter((d) => d.skipped).map((d) => d.sourceId));
        return inner.build(observations.filter((o) => !skipped.has(o.sourceId)));
      },
      search: (q, k, o) => inner.search(q, k, o),
      close: () => inner.close(),
    };
  };
}

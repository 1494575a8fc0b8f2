/**
 * The offline backend (ours): no weights, no network, deterministic. Catalogue kinds are answered by
 * the scorers in `./scorers`; questions without a known kind (free-form Nouls / Choices) by an
 * embedding zero-shot score — the text of the referenced state fields against each criterion — which
 * is the weak path (lexical overlap when no embedder is injected).
 */
import type { BackendRequest, SystemOneBackend } from '../backend.js';
import { SystemOneError } from '../errors.js';
import { renderValue, setOwn, type Question, type ResolvedRef } from '../schema.js';
import { SCORERS, textsOf, type ScoreContext, withCallCache } from './scorers.js';
import { depthOf, evidenceOf, queryOf } from './inputs.js';
import { clamp01, features, logistic, setCosine, soft } from './text.js';
import { ROUTING_HEADS, learnedRoute, type RoutingHead } from './routing-learned.js';
import { learnedStopping, learnedStoppingApplies } from './stopping-learned.js';
import { learnedStateTime } from './past-state.js';

export interface OfflineBackendOptions {
  /**
   * Optional sentence embedder, called once per batch with the distinct texts that lack a precomputed
   * `cosine` (vectors need not be unit length). Without it, similarity is lexical.
   */
  embed?: (texts: string[]) => Promise<ArrayLike<number>[]>;
  /**
   * Cosines at or below `low` count as unrelated (0), at or above `high` as the same (1), linear in
   * between. Defaults `{ low: 0.2, high: 0.8 }` (ours) suit sentence-transformer models; averaged word
   * vectors (e.g. 100-d GloVe) run higher: use about `{ low: 0.55, high: 0.95 }`.
   */
  cosineRange?: { low: number; high: number };
  /** Max vectors kept between calls (LRU by text). Default 4096. */
  embeddingCacheSize?: number;
}

/** Answer one question offline; `embedCosine` supplies embedding cosines (or undefined). Exported for the bench's plain loop. */
export function scoreQuestion(q: Question, refs: ResolvedRef[], ctx: ScoreContext): number | { probabilities: Record<string, number> } {
  // routing: the learned models (routing.ts)
  if (q.type === 'noul' && q.kind?.startsWith('routing.') && (ROUTING_HEADS as readonly string[]).includes(q.kind.slice(8))) {
    return learnedRoute(queryOf(refs))[q.kind.slice(8) as RoutingHead];
  }
  // past / present state (issue 37): one learned model (past-state.ts)
  if (q.type === 'noul' && q.kind === 'routing.past_state') return learnedStateTime(queryOf(refs)).past;
  if (q.type === 'noul' && q.kind === 'routing.present_state') return learnedStateTime(queryOf(refs)).present;
  // stopping: the learned models (stopping-learned.ts) when the evidence carries the read path's
  // relevance and round; else the cue scorers
  if (q.type === 'noul' && (q.kind === 'stopping.continue_useful' || q.kind === 'stopping.evidence_sufficient' || q.kind === 'stopping.missing_evidence')) {
    const ev = evidenceOf(refs);
    const depth = depthOf(refs);
    if (learnedStoppingApplies(ev, depth)) {
      const query = queryOf(refs);
      if (q.kind === 'stopping.continue_useful') return learnedStopping('continue_useful', query, ev, depth);
      const s = learnedStopping('evidence_sufficient', query, ev, depth);
      return q.kind === 'stopping.evidence_sufficient' ? s : 1 - s;
    }
  }
  const scorer = q.kind ? SCORERS[q.kind] : undefined;
  if (scorer) {
    const r = scorer(refs, ctx);
    if (typeof r === 'number') return q.type === 'noul' ? r : zeroShot(q, refs, ctx);
    if (q.type === 'choice') {
      const labels = Object.keys(q.criteria);
      if (labels.every((l) => l in r)) return { probabilities: Object.fromEntries(labels.map((l) => [l, r[l]])) };
    }
  }
  return zeroShot(q, refs, ctx);
}

/** The weak path: similarity of the referenced state text to each criterion (softmax / logistic of the difference). */
function zeroShot(q: Question, refs: ResolvedRef[], ctx: ScoreContext): number | { probabilities: Record<string, number> } {
  const text = refs.length ? refs.map((r) => renderValue(r.value)).join('\n') : q.instructions;
  const premise = `${q.instructions.replace(/\{\{[^}]*\}\}/g, ' ')} ${text}`;
  const sim = (crit: string) => {
    const c = ctx.embedCosine(premise, crit);
    return c !== undefined ? c : setCosine(features(premise).content, features(crit).content);
  };
  const temp = 12;
  if (q.type === 'noul') return soft(logistic(temp * (sim(q.criteria.true) - sim(q.criteria.false))), 0.05, 0.95);
  const labels = Object.keys(q.criteria);
  const s = labels.map((l) => sim(`${l.replace(/_/g, ' ')}: ${q.criteria[l]}`));
  const mx = Math.max(...s);
  const e = s.map((x) => Math.exp(temp * (x - mx)));
  const z = e.reduce((a, b) => a + b, 0);
  return { probabilities: Object.fromEntries(labels.map((l, i) => [l, e[i] / z])) };
}

function isUsableVector(v: unknown, dim: number | undefined): v is ArrayLike<number> {
  if (!v || typeof (v as ArrayLike<number>).length !== 'number') return false;
  const a = v as ArrayLike<number>;
  if (!a.length || a.length !== dim) return false;
  let nz = false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) return false;
    if (x !== 0) nz = true;
  }
  return nz;
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    d += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na > 0 && nb > 0 ? d / Math.sqrt(na * nb) : 0;
}

/** Score every question of a request (a question that throws gets its Error as answer). */
function scoreBatch(req: BackendRequest, ctx: ScoreContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const id of Object.keys(req.questions)) {
    try {
      setOwn(out, id, scoreQuestion(req.questions[id], req.refs[id], ctx));
    } catch (e) {
      setOwn(out, id, e instanceof Error ? e : new Error(String(e)));
    }
  }
  return out;
}

/** A scoring context without embeddings (lexical similarity and precomputed cosines only). */
export function lexicalContext(range = { low: 0.2, high: 0.8 }): ScoreContext {
  return { embedCosine: () => undefined, scaleCosine: (c) => clamp01((c - range.low) / (range.high - range.low)) };
}

/**
 * Create the offline backend (the controller's default backend and default fallback).
 * @throws SystemOneError('INVALID_QUESTION') never — unknown kinds use the zero-shot path.
 */
export function createOfflineBackend(options: OfflineBackendOptions = {}): SystemOneBackend {
  const range = options.cosineRange ?? { low: 0.2, high: 0.8 };
  if (!(range.high > range.low)) throw new SystemOneError('INVALID_OPTION', 'cosineRange.high must exceed cosineRange.low');
  const cacheSize = options.embeddingCacheSize ?? 4096;
  if (!(Number.isInteger(cacheSize) && cacheSize >= 0)) {
    throw new SystemOneError('INVALID_OPTION', `embeddingCacheSize must be an integer >= 0, got ${String(cacheSize)}`);
  }
  const vectors = new Map<string, ArrayLike<number>>();
  const base = lexicalContext(range);

  const scoreAll = (req: BackendRequest, ctx: ScoreContext): Record<string, unknown> => withCallCache(scoreBatch, req, ctx);

  /** The vectors of a request's texts that the cache holds, and the texts it lacks. */
  const vectorsOf = (req: BackendRequest) => {
    // the vectors of this request (kept here, so a small embeddingCacheSize cannot evict them mid-request)
    const local = new Map<string, ArrayLike<number>>();
    const need = new Set<string>();
    const want = (t: string) => {
      const v = vectors.get(t);
      if (v) local.set(t, v);
      else need.add(t);
    };
    for (const id of Object.keys(req.questions)) {
      const q = req.questions[id];
      for (const t of textsOf(req.refs[id])) want(t);
      if (!q.kind || !SCORERS[q.kind]) {
        for (const c of Object.values(q.criteria)) want(c);
      }
    }
    return { local, need };
  };
  /**
   * The scoring context of one request over its vectors: cosines computed once per pair of texts.
   * `need` (texts of the request without a vector yet): a cosine that needs one calls `onMissing`
   * and answers undefined (the answers are then discarded and the texts embedded).
   */
  const embeddedContext = (local: Map<string, ArrayLike<number>>, need?: Set<string>, onMissing?: () => void): ScoreContext => {
    const pairCache = new Map<string, number>();
    return {
      scaleCosine: base.scaleCosine,
      embedCosine: (a, b) => {
        const va = local.get(a);
        const vb = local.get(b);
        if (!va || !vb) {
          if (need && (need.has(a) || need.has(b))) onMissing!();
          return undefined;
        }
        const k = a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;
        let c = pairCache.get(k);
        if (c === undefined) pairCache.set(k, (c = cosine(va, vb)));
        return c;
      },
    };
  };

  return {
    name: 'offline',
    ...(options.embed
      ? {
          // The same answers as `answer`, without waiting, when no cosine the scorers ask for needs a
          // text without a cached vector (issue 33 point 2): scorers are pure, and every cosine they
          // read here is the one `answer` computes after embedding the missing texts. Most catalogue
          // kinds read no embedding at all when the items carry their `cosine` (the read path's).
          answerWhenReady(req: BackendRequest) {
            const { local, need } = vectorsOf(req);
            if (!need.size) return scoreAll(req, embeddedContext(local));
            let missing = false;
            const out = scoreAll(req, embeddedContext(local, need, () => (missing = true)));
            return missing ? undefined : out;
          },
        }
      : { answerSync: (req: BackendRequest) => scoreAll(req, base) }),
    async answer(req: BackendRequest) {
      let ctx = base;
      if (options.embed) {
        const { local, need } = vectorsOf(req);
        if (need.size) {
          const texts = [...need];
          const vs = await options.embed(texts);
          if (!Array.isArray(vs) || vs.length !== texts.length) {
            throw new SystemOneError('BACKEND_ERROR', `embed returned ${Array.isArray(vs) ? vs.length : typeof vs} vectors for ${texts.length} texts`);
          }
          const dim = local.size ? local.values().next().value!.length : vs[0]?.length;
          vs.forEach((v, i) => {
            // a NaN, zero or wrong-length vector would give a silent cosine of 0 (or a wrong one)
            if (!isUsableVector(v, dim)) throw new SystemOneError('BACKEND_ERROR', `embed returned a bad vector for text ${i} (expected ${dim} finite components, not all 0)`);
          });
          texts.forEach((t, i) => {
            local.set(t, vs[i]);
            vectors.delete(t);
            vectors.set(t, vs[i]);
          });
          while (vectors.size > cacheSize) vectors.delete(vectors.keys().next().value!);
        }
        ctx = embeddedContext(local);
      }
      return scoreAll(req, ctx);
    },
  };
}

export { routeFeatures, aliasScore, jaroWinkler } from './scorers.js';

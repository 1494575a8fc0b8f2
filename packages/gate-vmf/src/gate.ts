/**
 * `createNoveltyGate` — the SAGE gate of seed 001 §3 over named scopes (factory and state: ours).
 */
import { GateError } from './errors.js';
import {
  density,
  emaThreshold,
  estimateKappa,
  novelty,
  routeByNovelty,
  targetThreshold,
  vmfScoreFromShiftedSum,
  clampUnit,
  type GateAction,
} from './math.js';
import { resolveGateOptions, type GateOptions, type ResolvedGateOptions } from './options.js';
import { ScopeState } from './scope.js';
import { restoreScopes, snapshotScope, type GateSnapshot, type VectorSource } from './snapshot.js';
import { IvfIndex } from './ivf.js';
import { SketchIndex, sketchSupported } from './sketch.js';

export type { GateAction };

/** One routing decision (seed 001 §3.3–3.4). All numbers are JSON-safe finite numbers. */
export interface GateDecision {
  /** Add (ν ≥ τ + δ), Update (τ ≤ ν < τ + δ) or Noop (ν < τ); Add when the scope is empty. */
  action: GateAction;
  /** ν = (1 − s_vMF)/2 ∈ [0, 1]; 1 when N = 0. */
  novelty: number;
  /** s_vMF ∈ [−1, 1] (cosine scale); −1 when N = 0 (no score is computed). */
  score: number;
  /** τ_t used for this decision (the value a commit of this vector stores as the EMA state). */
  threshold: number;
  /** κ used (κ̂ from R̄, clipped; or the fixed κ). */
  kappa: number;
  /** ρ_t = N/V_t (App. D); 0 when N = 0, N when N < 2. */
  density: number;
  /** The stored memory with the largest cosine to the candidate, null when N = 0. */
  nearest: { id: string; cosine: number } | null;
  /**
   * Whether `nearest` is certified to be the exact nearest: always true, except with
   * fastCertify 'decision' and fastNearest 'update-noop', where an Add may report the best memory
   * among those it scored (ours).
   */
  nearestExact: boolean;
  /** N of the scope at decision time (ours). */
  n: number;
  /** 'exact' (every memory scanned) or 'fast' (cluster index or sketch with a certificate) (ours). */
  mode: 'exact' | 'fast';
  /**
   * Upper bound of |score − exact score|: 0 in exact mode, ≤ fastMaxError in fast mode with
   * fastCertify 'score'; with fastCertify 'decision' the half-width of the certified score interval
   * (any size: `action` and `nearest` are exact mode's) (ours).
   */
  scoreError: number;
}

export interface ScopeStats {
  n: number;
  dimension: number;
  commits: number;
  tau: number | null;
  kappa: number;
  density: number;
  logVolume: number;
  pcaComponents: number;
  refits: number;
  /** Current multiplier of the scheduled refit interval (1 … refitMaxScale) (ours). */
  refitScale: number;
  index: { clusters: number; builtAt: number } | null;
  /** The sketch of fastCertify 'decision' (ours): its dimension r and the N it was built at. */
  sketch: { dims: number; builtAt: number } | null;
}

export interface NoveltyGate {
  /**
   * Route a candidate (sync, read-only). N = 0 → Add without scoring. `options.mode` overrides the
   * gate's mode for this call ('fast' needs a gate created with mode 'fast', which keeps the index;
   * otherwise the call is exact and says so in `mode`). @throws GateError on bad scope/vector
   */
  route(scope: string, vector: ArrayLike<number>, options?: { mode?: 'exact' | 'fast' }): GateDecision;
  /**
   * Bulk-load memories that already exist (e.g. from the store a wrapper sits on) (ours): validates
   * every item first (all-or-nothing), appends them, refits the density once, and moves the τ EMA by
   * one step (τ ← EMA(τ, τ*(ρ)) — τ*(ρ) itself when the scope had no τ yet). Cheaper than N commits;
   * not the same state as N commits (those move the EMA N times).
   * @throws GateError as commit (DUPLICATE_ID also for duplicates inside `items`)
   */
  seed(scope: string, items: Iterable<{ id: string; vector: ArrayLike<number> }>): void;
  /** Store a memory vector and advance the τ EMA. @throws GateError (DUPLICATE_ID, vector errors); state unchanged on error */
  commit(scope: string, id: string, vector: ArrayLike<number>): void;
  /** Remove a memory; false when the id is not in the scope. The τ EMA does not move. */
  remove(scope: string, id: string): boolean;
  /** Replace the vector of a stored memory (after an Update merge is re-embedded). @throws GateError UNKNOWN_ID */
  replace(scope: string, id: string, vector: ArrayLike<number>): void;
  size(scope: string): number;
  has(scope: string, id: string): boolean;
  /** Ids of a scope in storage order. */
  ids(scope: string): string[];
  /** Every scope that has had a commit (also ones that are empty again), sorted. */
  scopes(): string[];
  /** Forget a scope entirely (memories and τ state); false if unknown. */
  dropScope(scope: string): boolean;
  stats(scope: string): ScopeStats | null;
  /**
   * JSON-safe snapshot; `createNoveltyGate({ state })` restores it exactly (same decisions, bit for bit).
   * `scopes` limits it to those scopes (unknown names are skipped); `vectors: false` leaves the N × d
   * vectors out (`vectors: null`, about 4·N·d bytes less) for a caller that can supply them again on
   * restore (`createNoveltyGate({ state, vectors })`). Ours. @throws GateError BAD_OPTIONS when `scopes`
   * is not an array of strings or `vectors` not a boolean
   */
  serialize(options?: { scopes?: readonly string[]; vectors?: boolean }): GateSnapshot;
  /** The resolved options. */
  readonly options: Readonly<ResolvedGateOptions>;
}

function checkScope(scope: unknown): asserts scope is string {
  if (typeof scope !== 'string') throw new GateError('BAD_SCOPE', `scope must be a string, got ${typeof scope}`);
}

function checkId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || id.length === 0) throw new GateError('BAD_ID', 'id must be a non-empty string');
}

/**
 * Validate a vector and return it as a unit Float64Array.
 * @throws GateError DIMENSION_MISMATCH | NON_FINITE | ZERO_VECTOR | NOT_NORMALIZED
 */
export function toUnitVector(
  vector: ArrayLike<number>,
  dimension: number | undefined,
  normalize: boolean,
  normTolerance: number,
): Float64Array {
  if (vector === null || typeof vector !== 'object' || typeof (vector as any).length !== 'number') {
    throw new GateError('DIMENSION_MISMATCH', 'vector must be an array or typed array of numbers');
  }
  const d = vector.length;
  if (d === 0) throw new GateError('DIMENSION_MISMATCH', 'vector is empty');
  if (dimension !== undefined && d !== dimension) {
    throw new GateError('DIMENSION_MISMATCH', `vector has dimension ${d}, expected ${dimension}`, { details: { got: d, expected: dimension } });
  }
  const out = new Float64Array(d);
  let s = 0;
  if (ArrayBuffer.isView(vector)) {
    // typed arrays hold numbers only: copy first (monomorphic), then check finiteness
    out.set(vector as unknown as ArrayLike<number>);
    for (let j = 0; j < d; j++) {
      const x = out[j];
      if (!Number.isFinite(x)) throw new GateError('NON_FINITE', `vector[${j}] is ${String(x)}`, { details: { index: j } });
      s += x * x;
    }
  } else {
    for (let j = 0; j < d; j++) {
      const x = vector[j];
      if (typeof x !== 'number' || !Number.isFinite(x)) {
        throw new GateError('NON_FINITE', `vector[${j}] is ${String(x)}`, { details: { index: j } });
      }
      out[j] = x;
      s += x * x;
    }
  }
  const norm = Math.sqrt(s);
  if (!(norm > 0) || !Number.isFinite(norm)) throw new GateError('ZERO_VECTOR', 'vector has zero (or unrepresentable) length');
  if (!normalize && Math.abs(norm - 1) > normTolerance) {
    throw new GateError('NOT_NORMALIZED', `vector has norm ${norm}; pass unit vectors or set normalize: true`, { details: { norm } });
  }
  for (let j = 0; j < d; j++) out[j] /= norm;
  return out;
}

/**
 * Create a gate, empty or restored from a `serialize()` snapshot (`state`). `vectors` supplies the
 * rows of a snapshot taken with `serialize({ vectors: false })` (e.g. from the store that already
 * holds every embedding): called once per such scope with its ids in storage order; the vectors are
 * normalised exactly as `commit` does, so the restored gate decides bit for bit like the serialized one.
 * @throws GateError BAD_OPTIONS | BAD_SNAPSHOT (also when vectors are missing, miscounted or invalid)
 */
export function createNoveltyGate(options: GateOptions & { state?: GateSnapshot; vectors?: VectorSource } = {}): NoveltyGate {
  const { state, vectors, ...rest } = options ?? {};
  let opt: ResolvedGateOptions;
  const scopes = new Map<string, ScopeState>();
  const indexes = new Map<string, IvfIndex>();
  const sketches = new Map<string, SketchIndex>();
  if (state !== undefined) {
    const restored = restoreScopes(state, rest, vectors, (v, d, o) => toUnitVector(v, d, o.normalize, o.normTolerance));
    opt = restored.options;
    for (const [k, v] of restored.scopes) scopes.set(k, v);
    for (const [k, v] of restored.indexes) indexes.set(k, v);
    for (const [k, v] of restored.sketches) sketches.set(k, v);
  } else {
    opt = resolveGateOptions(rest);
  }
  const densityOpt = {
    pcaDims: opt.pcaDims,
    rangeFloor: opt.rangeFloor,
    densityRefit: opt.densityRefit,
    refitFraction: opt.refitFraction,
    refitMin: opt.refitMin,
    lambda: opt.lambda,
    tau0: opt.tau0,
    tauMin: opt.tauMin,
    refitMaxScale: opt.refitMaxScale,
  };
  const clips = { rBarMax: opt.rBarMax, kappaMin: opt.kappaMin, kappaMax: opt.kappaMax };
  const fixedKappa = opt.kappa === 'auto' ? null : opt.kappa;
  const thr = { tau0: opt.tau0, tauMin: opt.tauMin, lambda: opt.lambda };

  const unit = (v: ArrayLike<number>, s: ScopeState | undefined) =>
    toUnitVector(v, s ? s.d : opt.dimension, opt.normalize, opt.normTolerance);

  /** τ_t for the scope as it is now: EMA of the stored τ and τ*(ρ_now) (§3.4). */
  const thresholdNow = (s: ScopeState | undefined): { tau: number; rho: number } => {
    const n = s ? s.n : 0;
    const rho = n === 0 ? 0 : density(n, s!.logVolume);
    return { tau: emaThreshold(s ? s.tau : null, targetThreshold(rho, thr), opt.alpha), rho };
  };

  const decisionMode = opt.fastCertify === 'decision';
  const maintainIndex = (scope: string, s: ScopeState) => {
    if (opt.mode !== 'fast') return;
    if (decisionMode) {
      const sk = sketches.get(scope);
      if (s.n >= opt.fastMinN && (!sk || sk.needsRebuild(s.n)) && sketchSupported()) sketches.set(scope, SketchIndex.build(s, opt.sketchDims));
      else if (sk && s.n < opt.fastMinN / 2) sketches.delete(scope);
      return;
    }
    const idx = indexes.get(scope);
    if (s.n >= opt.fastMinN && (!idx || idx.needsRebuild(s.n))) indexes.set(scope, IvfIndex.build(s));
    else if (idx && s.n < opt.fastMinN / 2) indexes.delete(scope);
  };
  // A snapshot taken in exact mode and restored in fast mode gets its indexes now (deterministic).
  if (opt.mode === 'fast') for (const [name, s] of scopes) if (!indexes.has(name) && !sketches.has(name)) maintainIndex(name, s);

  const g: GateCore = { opt, scopes, indexes, sketches, densityOpt, clips, fixedKappa, unit, thresholdNow, maintainIndex };
  const gate: NoveltyGate = {
    options: opt,
    route: (scope, vector, callOptions) => routeVector(g, scope, vector, callOptions),
    commit: (scope, id, vector) => commitVector(g, scope, id, vector),
    seed: (scope, items) => seedVectors(g, scope, items),
    remove(scope, id) {
      checkScope(scope);
      checkId(id);
      const s = scopes.get(scope);
      const r = s?.index.get(id);
      if (!s || r === undefined) return false;
      const idx = indexes.get(scope);
      const moved = s.removeRow(r);
      idx?.onRemove(r, moved);
      sketches.get(scope)?.onRemove(r, moved);
      s.afterChange();
      maintainIndex(scope, s);
      return true;
    },

    replace(scope, id, vector) {
      checkScope(scope);
      checkId(id);
      const s = scopes.get(scope);
      const r = s?.index.get(id);
      if (!s || r === undefined) throw new GateError('UNKNOWN_ID', `id ${JSON.stringify(id)} is not in scope ${JSON.stringify(scope)}`);
      const v = unit(vector, s);
      s.overwrite(r, v);
      s.afterChange();
      indexes.get(scope)?.onReplace(s, r);
      sketches.get(scope)?.project(s, r);
    },

    size(scope) {
      checkScope(scope);
      return scopes.get(scope)?.n ?? 0;
    },

    has(scope, id) {
      checkScope(scope);
      return scopes.get(scope)?.index.has(id) ?? false;
    },

    ids(scope) {
      checkScope(scope);
      return scopes.get(scope)?.ids.slice() ?? [];
    },

    scopes() {
      return [...scopes.keys()].sort();
    },

    dropScope(scope) {
      checkScope(scope);
      indexes.delete(scope);
      sketches.delete(scope);
      return scopes.delete(scope);
    },

    stats: (scope) => scopeStats(g, scope),
    serialize: (so) => serializeGate(g, so),
  };
  return gate;
}

/** A gate's state (ours): resolved options, per-scope rows and fast-mode indexes, and the helpers its operations share. */
interface GateCore {
  opt: ResolvedGateOptions;
  scopes: Map<string, ScopeState>;
  indexes: Map<string, IvfIndex>;
  sketches: Map<string, SketchIndex>;
  densityOpt: ConstructorParameters<typeof ScopeState>[1];
  clips: { rBarMax: number; kappaMin: number; kappaMax: number };
  /** κ when fixed by the options; null = estimated (`kappa: 'auto'`). */
  fixedKappa: number | null;
  /** A vector as a unit Float64Array of the scope's dimension (GateError otherwise). */
  unit(v: ArrayLike<number>, s: ScopeState | undefined): Float64Array;
  /** τ_t for the scope as it is now, and ρ. */
  thresholdNow(s: ScopeState | undefined): { tau: number; rho: number };
  /** Build, rebuild or drop the scope's fast-mode index after a change. */
  maintainIndex(scope: string, s: ScopeState): void;
}

/**
 * `route`: s_vMF of the vector against the scope's memories (exact pass, or a certified fast-mode
 * search), ν, τ_t and the Add / Update / Noop routing (SAGE §3.3–3.4). Read-only.
 */
function routeVector(g: GateCore, scope: string, vector: ArrayLike<number>, callOptions: Parameters<NoveltyGate['route']>[2]): ReturnType<NoveltyGate['route']> {
  checkScope(scope);
  const s = g.scopes.get(scope);
  const q = g.unit(vector, s);
  const { tau, rho } = g.thresholdNow(s);
  if (!s || s.n === 0) {
    const kappa = g.fixedKappa ?? estimateKappa(0, q.length, g.clips);
    return { action: 'add', novelty: 1, score: -1, threshold: tau, kappa, density: 0, nearest: null, nearestExact: true, n: 0, mode: 'exact', scoreError: 0 };
  }
  const kappa = s.kappa(g.fixedKappa, g.clips);
  const wantFast = (callOptions?.mode ?? g.opt.mode) === 'fast';
  const idx = wantFast ? g.indexes.get(scope) : undefined;
  const sk = wantFast ? g.sketches.get(scope) : undefined;
  let max: number;
  let arg: number;
  let scoreError = 0;
  let mode: 'exact' | 'fast' = 'exact';
  let score: number;
  let nearestExact = true;
  const fast = sk
    ? sk.search(s, q, kappa, { actionOf: (sc) => routeByNovelty(novelty(sc), tau, g.opt.delta) }, g.opt.fastScanBudget, g.opt.fastNearest === 'always')
    : idx
      ? idx.search(s, q, kappa, g.opt.fastMaxError, g.opt.fastScanBudget)
      : null;
  if (fast) {
    ({ max, arg } = fast);
    score = fast.score;
    scoreError = fast.error;
    mode = 'fast';
    nearestExact = fast.nearestExact;
  } else {
    let shifted: number;
    ({ max, arg, shifted } = s.exactPass(q, kappa));
    score = vmfScoreFromShiftedSum(max, shifted, s.n, kappa);
  }
  const nu = novelty(score);
  return {
    action: routeByNovelty(nu, tau, g.opt.delta),
    novelty: nu,
    score,
    threshold: tau,
    kappa,
    density: rho,
    nearest: { id: s.ids[arg], cosine: clampUnit(max) },
    nearestExact,
    n: s.n,
    mode,
    scoreError,
  };
}

/** `commit`: append the vector to the scope (τ_t stored first; density refit and fast-mode index kept current). */
function commitVector(g: GateCore, scope: string, id: string, vector: ArrayLike<number>): void {
  checkScope(scope);
  checkId(id);
  let s = g.scopes.get(scope);
  const v = g.unit(vector, s);
  if (s?.index.has(id)) throw new GateError('DUPLICATE_ID', `id ${JSON.stringify(id)} is already in scope ${JSON.stringify(scope)}`);
  const { tau } = g.thresholdNow(s);
  if (!s) {
    s = new ScopeState(v.length, g.densityOpt);
    g.scopes.set(scope, s);
  }
  s.tau = tau;
  s.commits++;
  const r = s.append(id, v);
  s.afterChange();
  const idx = g.indexes.get(scope);
  // always keep the index complete: it may stay in use while N sits between fastMinN/2 and builtAt/2
  if (idx) idx.insert(s, r);
  // always keep the sketch complete (its bound holds for any basis; a rebuild may follow)
  g.sketches.get(scope)?.project(s, r);
  g.maintainIndex(scope, s);
}

/** `seed`: append many vectors at once (one density refit; the same state as committing them in order up to τ). */
function seedVectors(g: GateCore, scope: string, items: Parameters<NoveltyGate['seed']>[1]): void {
  checkScope(scope);
  let s = g.scopes.get(scope);
  const list: { id: string; v: Float64Array }[] = [];
  const seen = new Set<string>();
  let dim = s ? s.d : g.opt.dimension;
  for (const it of items) {
    checkId(it?.id);
    if (seen.has(it.id) || s?.index.has(it.id)) throw new GateError('DUPLICATE_ID', `id ${JSON.stringify(it.id)} is already in scope ${JSON.stringify(scope)}`);
    seen.add(it.id);
    const v = toUnitVector(it.vector, dim, g.opt.normalize, g.opt.normTolerance);
    dim = v.length;
    list.push({ id: it.id, v });
  }
  if (list.length === 0) return;
  if (!s) {
    s = new ScopeState(list[0].v.length, g.densityOpt, list.length);
    g.scopes.set(scope, s);
  }
  s.appendBulk(list);
  const { tau } = g.thresholdNow(s);
  s.tau = tau;
  s.commits += list.length;
  const idx = g.indexes.get(scope);
  if (idx) for (let r = s.n - list.length; r < s.n; r++) idx.insert(s, r);
  const sk = g.sketches.get(scope);
  if (sk) for (let r = s.n - list.length; r < s.n; r++) sk.project(s, r);
  g.maintainIndex(scope, s);
}

/** `stats`: the scope's size, τ, κ, density and index state (null for an unknown scope). */
function scopeStats(g: GateCore, scope: string): ReturnType<NoveltyGate['stats']> {
  checkScope(scope);
  const s = g.scopes.get(scope);
  if (!s) return null;
  const idx = g.indexes.get(scope);
  const sk = g.sketches.get(scope);
  return {
    n: s.n,
    dimension: s.d,
    commits: s.commits,
    tau: s.tau,
    kappa: s.kappa(g.fixedKappa, g.clips),
    density: s.n === 0 ? 0 : density(s.n, s.logVolume),
    logVolume: s.logVolume,
    pcaComponents: s.kEff,
    refits: s.refits,
    refitScale: s.refitScale,
    index: idx ? { clusters: idx.clusters, builtAt: idx.builtAt } : null,
    sketch: sk ? { dims: sk.r, builtAt: sk.builtAt } : null,
  };
}

/** `serialize`: a snapshot of the chosen scopes (with or without their vectors). */
function serializeGate(g: GateCore, so: Parameters<NoveltyGate['serialize']>[0]): GateSnapshot {
  // a string for `scopes` would be read as its characters, `vectors: 'false'` as true: refused
  if (so?.scopes !== undefined && (!Array.isArray(so.scopes) || !so.scopes.every((x) => typeof x === 'string'))) {
    throw new GateError('BAD_OPTIONS', 'serialize: scopes must be an array of scope names');
  }
  if (so?.vectors !== undefined && typeof so.vectors !== 'boolean') throw new GateError('BAD_OPTIONS', 'serialize: vectors must be a boolean');
  const out: GateSnapshot = { format: '@mem/gate-vmf', version: 1, options: { ...g.opt }, scopes: [] };
  const only = so?.scopes ? new Set(so.scopes) : null;
  const withVectors = so?.vectors !== false;
  for (const name of [...g.scopes.keys()].sort()) {
    if (only && !only.has(name)) continue;
    out.scopes.push(snapshotScope(name, g.scopes.get(name)!, g.indexes.get(name) ?? null, g.sketches.get(name) ?? null, withVectors));
  }
  return out;
}

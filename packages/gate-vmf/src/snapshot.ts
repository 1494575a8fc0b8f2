/**
 * JSON snapshots of the gate (ours): every number that decides a route is stored exactly — vectors
 * as Float32 bytes, running sums, scatter and PCA basis as Float64 bytes (base64) — so a restored
 * gate decides bit for bit like the one that was serialized.
 */
import { z } from 'zod';
import { GateError } from './errors.js';
import { decodeF32, decodeF64, decodeI32, encodeF32, encodeF64, encodeI32 } from './codec.js';
import { gateOptionsSchema, resolveGateOptions, type ResolvedGateOptions } from './options.js';
import { ScopeState } from './scope.js';
import { IvfIndex } from './ivf.js';
import { SketchIndex } from './sketch.js';

export interface IvfSnapshot {
  builtAt: number;
  top: string;
  childStart: string;
  centroids: string;
  cosRadius: string;
  /** member rows of all clusters, concatenated (Int32) */
  members: string;
  /** member count per cluster (Int32) */
  counts: string;
}

export interface ScopeSnapshot {
  scope: string;
  dimension: number;
  ids: string[];
  /**
   * N × d Float32, base64; null in a snapshot taken with `serialize({ vectors: false })`, whose
   * vectors the restoring caller supplies (`createNoveltyGate({ state, vectors })`).
   */
  vectors: string | null;
  /** Σ mᵢ, Float64 base64 */
  sum: string;
  /** upper triangle of Σ mᵢmᵢᵀ row by row, Float64 base64; null while not kept */
  scatter: string | null;
  /** principal basis kEff × d, Float64 base64 */
  basis: string | null;
  pcaComponents: number;
  changesSinceFit: number;
  /** Multiplier of the scheduled refit interval (ours); absent in older snapshots (= 1). */
  refitScale?: number;
  refits: number;
  tau: number | null;
  commits: number;
  index: IvfSnapshot | null;
  /** The sketch basis of fastCertify 'decision' (r × d Float64, base64) and the N it was built at; absent in older snapshots. */
  sketch?: { builtAt: number; dims: number; basis: string } | null;
}

export interface GateSnapshot {
  format: '@mem/gate-vmf';
  version: 1;
  options: ResolvedGateOptions;
  scopes: ScopeSnapshot[];
}

const ivfSchema = z.object({
  builtAt: z.number().int().nonnegative(),
  top: z.string(),
  childStart: z.string(),
  centroids: z.string(),
  cosRadius: z.string(),
  members: z.string(),
  counts: z.string(),
});

const scopeSchema = z.object({
  scope: z.string(),
  dimension: z.number().int().positive(),
  ids: z.array(z.string().min(1)),
  vectors: z.string().nullable(),
  sum: z.string(),
  scatter: z.string().nullable(),
  basis: z.string().nullable(),
  pcaComponents: z.number().int().nonnegative(),
  changesSinceFit: z.number().int().nonnegative(),
  refitScale: z.number().int().min(1).optional(),
  refits: z.number().int().nonnegative(),
  tau: z.number().finite().nullable(),
  commits: z.number().int().nonnegative(),
  index: ivfSchema.nullable(),
  sketch: z.object({ builtAt: z.number().int().nonnegative(), dims: z.number().int().positive(), basis: z.string() }).nullable().optional(),
});

const snapshotSchema = z.object({
  format: z.literal('@mem/gate-vmf'),
  version: z.literal(1),
  options: z.record(z.string(), z.unknown()),
  scopes: z.array(scopeSchema),
});

function bad(msg: string): never {
  throw new GateError('BAD_SNAPSHOT', msg);
}

/** Refuse a decoded array holding NaN or ±Infinity (base64 can carry any bit pattern). */
function finite(a: Float64Array, scope: string, what: string): Float64Array {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) bad(`scope ${scope}: non-finite ${what} entry`);
  return a;
}

/**
 * Supplies the vectors of a scope restored from a snapshot taken without them (ours): one vector per
 * id, in the order of `ids`, as they were committed (they are normalised again exactly as `commit`
 * does, so the rows are bit-identical).
 */
export type VectorSource = (scope: string, ids: readonly string[]) => ArrayLike<ArrayLike<number>>;

export function snapshotScope(
  name: string,
  s: ScopeState,
  idx: IvfIndex | null,
  sketch: SketchIndex | null = null,
  withVectors = true,
): ScopeSnapshot {
  const d = s.d;
  let scatter: string | null = null;
  if (s.scatter) {
    const up = new Float64Array((d * (d + 1)) / 2);
    let o = 0;
    for (let i = 0; i < d; i++) for (let j = i; j < d; j++) up[o++] = s.scatter[i * d + j];
    scatter = encodeF64(up);
  }
  let index: IvfSnapshot | null = null;
  if (idx) {
    const p = idx.toParts();
    const counts = Int32Array.from(p.members.map((m) => m.length));
    const all = new Int32Array(counts.reduce((a, b) => a + b, 0));
    let o = 0;
    for (const m of p.members) {
      all.set(m, o);
      o += m.length;
    }
    index = {
      builtAt: p.builtAt,
      top: encodeF64(p.top),
      childStart: encodeI32(p.childStart),
      centroids: encodeF64(p.centroids),
      cosRadius: encodeF64(p.cosRadius),
      members: encodeI32(all),
      counts: encodeI32(counts),
    };
  }
  return {
    scope: name,
    dimension: d,
    ids: s.ids.slice(),
    vectors: withVectors ? encodeF32(s.data.subarray(0, s.n * d)) : null,
    sum: encodeF64(s.sum),
    scatter,
    basis: s.basis ? encodeF64(s.basis) : null,
    pcaComponents: s.kEff,
    changesSinceFit: s.changesSinceFit,
    refitScale: s.refitScale,
    refits: s.refits,
    tau: s.tau,
    commits: s.commits,
    index,
    sketch: sketch ? { builtAt: sketch.builtAt, dims: sketch.r, basis: encodeF64(sketch.basis) } : null,
  };
}

/** The rows of a scope snapshot taken without vectors, from the caller's source (ours). */
function suppliedVectors(
  sc: { scope: string; ids: string[] },
  d: number,
  source: VectorSource | undefined,
  unit: (v: ArrayLike<number>, d: number) => Float64Array,
): Float32Array {
  if (!source) bad(`scope ${sc.scope}: the snapshot holds no vectors; pass \`vectors\` to supply them`);
  let rows: ArrayLike<ArrayLike<number>>;
  try {
    rows = source(sc.scope, sc.ids);
  } catch (e) {
    throw new GateError('BAD_SNAPSHOT', `scope ${sc.scope}: the vector source failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  if (!rows || typeof rows.length !== 'number' || rows.length !== sc.ids.length) {
    bad(`scope ${sc.scope}: the vector source returned ${rows?.length ?? 'no'} vectors for ${sc.ids.length} ids`);
  }
  const out = new Float32Array(sc.ids.length * d);
  for (let r = 0; r < sc.ids.length; r++) {
    let u: Float64Array;
    try {
      u = unit(rows[r]!, d);
    } catch (e) {
      throw new GateError('BAD_SNAPSHOT', `scope ${sc.scope}: supplied vector of ${JSON.stringify(sc.ids[r])}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    out.set(u, r * d); // rounds to Float32, as ScopeState.append does
  }
  return out;
}

/**
 * Validate and rebuild the scopes of a snapshot. `overrides` are options passed next to `state`;
 * they may change routing parameters but not the ones the stored state was built with. `source`
 * supplies the vectors of scopes serialized without them; `unit` is the gate's commit-time
 * normalisation (`toUnitVector` with the restored options).
 * @throws GateError BAD_SNAPSHOT | BAD_OPTIONS
 */
export function restoreScopes(
  state: unknown,
  overrides: Record<string, unknown>,
  source?: VectorSource,
  unit?: (v: ArrayLike<number>, d: number, options: ResolvedGateOptions) => Float64Array,
): { options: ResolvedGateOptions; scopes: Map<string, ScopeState>; indexes: Map<string, IvfIndex>; sketches: Map<string, SketchIndex> } {
  const parsed = snapshotSchema.safeParse(state);
  if (!parsed.success) bad(`Invalid gate snapshot: ${z.prettifyError(parsed.error)}`);
  const snap = parsed.data;
  const base = gateOptionsSchema.safeParse(snap.options);
  if (!base.success) bad(`Invalid options in gate snapshot: ${z.prettifyError(base.error)}`);
  const options = resolveGateOptions({ ...base.data, ...overrides });
  for (const key of ['pcaDims', 'dimension'] as const) {
    if (options[key] !== base.data[key]) throw new GateError('BAD_OPTIONS', `option ${key} cannot differ from the snapshot's`);
  }
  const densityOpt = {
    pcaDims: options.pcaDims,
    rangeFloor: options.rangeFloor,
    densityRefit: options.densityRefit,
    refitFraction: options.refitFraction,
    refitMin: options.refitMin,
    lambda: options.lambda,
    tau0: options.tau0,
    tauMin: options.tauMin,
    refitMaxScale: options.refitMaxScale,
  };
  const scopes = new Map<string, ScopeState>();
  const indexes = new Map<string, IvfIndex>();
  const sketches = new Map<string, SketchIndex>();
  for (const sc of snap.scopes) {
    if (scopes.has(sc.scope)) bad(`duplicate scope ${JSON.stringify(sc.scope)}`);
    const d = sc.dimension;
    if (options.dimension !== undefined && d !== options.dimension) bad(`scope ${sc.scope}: dimension ${d} ≠ ${options.dimension}`);
    const n = sc.ids.length;
    // the sum (d floats) first: it bounds d before N × d floats are allocated for the rows
    const sum = decodeF64(sc.sum);
    if (!sum || sum.length !== d) bad(`scope ${sc.scope}: sum has the wrong length`);
    finite(sum, sc.scope, 'sum');
    const vec =
      sc.vectors === null ? suppliedVectors(sc, d, source, (v, dim) => unit!(v, dim, options)) : decodeF32(sc.vectors);
    if (!vec || vec.length !== n * d) bad(`scope ${sc.scope}: vectors do not hold ${n} × ${d} floats`);
    for (let i = 0; i < vec.length; i++) if (!Number.isFinite(vec[i])) bad(`scope ${sc.scope}: non-finite vector entry`);
    const s = new ScopeState(d, densityOpt, Math.max(16, n));
    s.data.set(vec);
    s.n = n;
    s.ids = sc.ids.slice();
    sc.ids.forEach((id, r) => {
      if (s.index.has(id)) bad(`scope ${sc.scope}: duplicate id ${JSON.stringify(id)}`);
      s.index.set(id, r);
    });
    s.sum.set(sum);
    if (sc.scatter !== null) {
      const up = decodeF64(sc.scatter);
      if (!up || up.length !== (d * (d + 1)) / 2) bad(`scope ${sc.scope}: scatter has the wrong length`);
      finite(up, sc.scope, 'scatter');
      s.scatter = new Float64Array(d * d);
      let o = 0;
      for (let i = 0; i < d; i++) for (let j = i; j < d; j++) s.scatter[i * d + j] = up[o++];
    }
    if (sc.basis !== null) {
      const b = decodeF64(sc.basis);
      if (!b || b.length !== sc.pcaComponents * d || sc.pcaComponents > options.pcaDims) bad(`scope ${sc.scope}: basis has the wrong shape`);
      finite(b, sc.scope, 'basis');
      s.basis = b.slice();
      s.kEff = sc.pcaComponents;
    } else if (n >= 2) bad(`scope ${sc.scope}: basis missing for N ≥ 2`);
    s.changesSinceFit = sc.changesSinceFit;
    s.refitScale = sc.refitScale ?? 1;
    s.refits = sc.refits;
    s.tau = sc.tau;
    s.commits = sc.commits;
    s.reproject();
    scopes.set(sc.scope, s);
    if (sc.sketch && options.mode === 'fast' && options.fastCertify === 'decision') {
      const b = decodeF64(sc.sketch.basis);
      if (!b || b.length !== sc.sketch.dims * d) bad(`scope ${sc.scope}: sketch basis has the wrong shape`);
      finite(b, sc.scope, 'sketch basis');
      sketches.set(sc.scope, new SketchIndex(s, { r: sc.sketch.dims, builtAt: sc.sketch.builtAt, basis: b.slice() }));
    }
    if (sc.index) {
      const ix = sc.index;
      const top = decodeF64(ix.top);
      const childStart = decodeI32(ix.childStart);
      const centroids = decodeF64(ix.centroids);
      const cosRadius = decodeF64(ix.cosRadius);
      const all = decodeI32(ix.members);
      const counts = decodeI32(ix.counts);
      if (!top || !childStart || !centroids || !cosRadius || !all || !counts) bad(`scope ${sc.scope}: index arrays are malformed`);
      finite(top, sc.scope, 'index');
      finite(centroids, sc.scope, 'index');
      finite(cosRadius, sc.scope, 'index');
      const nl = cosRadius.length;
      if (counts.length !== nl || centroids.length !== nl * d || top.length !== (childStart.length - 1) * d || childStart[childStart.length - 1] !== nl) {
        bad(`scope ${sc.scope}: index shapes do not match`);
      }
      // the clusters under each top centre are the ranges childStart[g] .. childStart[g + 1]: from 0, non-decreasing
      // (a corrupted entry would send a scan over billions of clusters)
      for (let g = 0; g < childStart.length; g++) {
        if (childStart[g] < (g === 0 ? 0 : childStart[g - 1]) || (g === 0 && childStart[0] !== 0)) bad(`scope ${sc.scope}: index ranges are not ordered`);
      }
      const members: Int32Array[] = [];
      let o = 0;
      const seen = new Uint8Array(n);
      for (let c = 0; c < nl; c++) {
        const m = all.slice(o, o + counts[c]);
        o += counts[c];
        for (const r of m) {
          if (r < 0 || r >= n || seen[r]) bad(`scope ${sc.scope}: index members are not a partition of the rows`);
          seen[r] = 1;
        }
        members.push(m);
      }
      if (o !== n || all.length !== n) bad(`scope ${sc.scope}: index does not cover every row`);
      indexes.set(sc.scope, new IvfIndex({ d, builtAt: ix.builtAt, top: top.slice(), childStart: childStart.slice(), centroids: centroids.slice(), cosRadius: cosRadius.slice(), members }, s.capacity));
    }
  }
  return { options, scopes, indexes, sketches };
}

/**
 * Fast mode (ours): a two-level spherical k-means cluster index (k-means++ seeding, ≈ 4√N clusters) over the rows of one scope, used to
 * compute s_vMF with a certified error instead of scanning all N memories.
 *
 * The bound. Every cluster j has a unit centre μⱼ and a radius θⱼ = max over members of ∠(m, μⱼ)
 * (kept as cos θⱼ, only ever loosened on removals, tightened by rebuilds). For a candidate c with
 * φⱼ = ∠(c, μⱼ), the triangle inequality of the angle metric on the sphere gives for each member
 *   mᵀc ≤ bⱼ := cos(max(0, φⱼ − θⱼ)).
 * Clusters are scanned exactly in decreasing bⱼ. With m the largest scanned cosine, the scanned
 * shifted sum S = Σ_scanned exp(κ(cᵢ − m)) ≥ 1 and U = Σ_unscanned nⱼ exp(κ(bⱼ − m)) bounds the rest,
 * so the exact score lies in [m + log(S/N)/κ, m + log((S+U)/N)/κ]. The midpoint is returned, with
 * error ≤ (1/2κ)·log(1 + U/S) (see `fastModeErrorBound`). Scanning stops once that error is
 * ≤ fastMaxError and no unscanned cluster can hold a cosine above m (so `nearest` is exact too).
 * If the scan passes fastScanBudget · N rows first, the caller runs the exact pass instead.
 * It is the bound "(N−k)·exp(κ c_k)" of a top-k search, with per-cluster cᵏ bounds that are rigorous
 * without an exact top-k.
 */
import { cosineUpperBound, fastModeErrorBound, clampUnit } from './math.js';
import { mulberry32 } from './pca.js';
import type { ScopeState } from './scope.js';

function kmeans(
  s: ScopeState,
  rows: Int32Array,
  k: number,
  iters: number,
  seed: number,
): Float64Array {
  const d = s.d;
  const x = s.data;
  const C = new Float64Array(k * d);
  // k-means++ seeding on the sphere (D² sampling with distance 1 − cos), deterministic PRNG.
  const rnd = mulberry32(seed);
  const dist = new Float64Array(rows.length).fill(Infinity);
  let pick = rows[Math.floor(rnd() * rows.length)];
  for (let c = 0; c < k; c++) {
    for (let j = 0; j < d; j++) C[c * d + j] = x[pick * d + j];
    if (c === k - 1) break;
    let total = 0;
    for (let i = 0; i < rows.length; i++) {
      const base = rows[i] * d;
      let dot = 0;
      for (let j = 0; j < d; j++) dot += C[c * d + j] * x[base + j];
      const dd = Math.max(0, 1 - dot);
      if (dd * dd < dist[i]) dist[i] = dd * dd;
      total += dist[i];
    }
    if (!(total > 0)) {
      pick = rows[(c + 1) % rows.length];
      continue;
    }
    let target = rnd() * total;
    let chosen = rows.length - 1;
    for (let i = 0; i < rows.length; i++) {
      target -= dist[i];
      if (target <= 0) {
        chosen = i;
        break;
      }
    }
    pick = rows[chosen];
  }
  const acc = new Float64Array(k * d);
  const cnt = new Int32Array(k);
  for (let it = 0; it < iters; it++) {
    acc.fill(0);
    cnt.fill(0);
    for (let i = 0; i < rows.length; i++) {
      const base = rows[i] * d;
      const best = argmaxDot(C, 0, k, x, base, d).c;
      cnt[best]++;
      const ao = best * d;
      for (let j = 0; j < d; j++) acc[ao + j] += x[base + j];
    }
    for (let c = 0; c < k; c++) {
      if (cnt[c] === 0) continue;
      let nrm = 0;
      for (let j = 0; j < d; j++) nrm += acc[c * d + j] ** 2;
      nrm = Math.sqrt(nrm);
      if (nrm === 0) continue;
      for (let j = 0; j < d; j++) C[c * d + j] = acc[c * d + j] / nrm;
    }
  }
  return C;
}

function argmaxDot(C: Float64Array, from: number, to: number, x: Float32Array | Float64Array, base: number, d: number): { c: number; dot: number } {
  let best = from;
  let bestDot = -Infinity;
  for (let c = from; c < to; c++) {
    let dot = 0;
    const co = c * d;
    for (let j = 0; j < d; j++) dot += C[co + j] * x[base + j];
    if (dot > bestDot) {
      bestDot = dot;
      best = c;
    }
  }
  return { c: best, dot: bestDot };
}

/** Top-level groups probed when assigning a row to a cluster. */
const PROBES = 3;

/** What a fast-mode search returns (the cluster index here, the sketch in sketch.ts). */
export interface FastSearchResult {
  /** Best cosine found and its row. */
  max: number;
  arg: number;
  /** s_vMF estimate and its certified half-width. */
  score: number;
  error: number;
  /** Rows re-scored exactly. */
  scanned: number;
  /** Whether `arg`/`max` is certified to be the exact nearest (the cluster index always certifies it before it stops). */
  nearestExact: boolean;
}

export interface IvfParts {
  d: number;
  builtAt: number;
  top: Float64Array;
  childStart: Int32Array;
  centroids: Float64Array;
  cosRadius: Float64Array;
  members: Int32Array[];
}

export class IvfIndex {
  readonly d: number;
  readonly builtAt: number;
  /** Level-1 centres (k1 × d) and the range of level-2 centres under each (childStart, length k1 + 1). */
  readonly top: Float64Array;
  readonly childStart: Int32Array;
  /** Level-2 centres = the clusters (nlist × d), unit vectors. */
  readonly centroids: Float64Array;
  /** cos θⱼ: smallest member cosine to its centre (1 when never non-empty). */
  readonly cosRadius: Float64Array;
  /** Member rows of each cluster (length = count). */
  readonly members: Int32Array[];
  readonly counts: Int32Array;
  assign: Int32Array;
  pos: Int32Array;
  private readonly groupDots: Float64Array;

  constructor(p: IvfParts, capacity: number) {
    this.d = p.d;
    this.builtAt = p.builtAt;
    this.top = p.top;
    this.childStart = p.childStart;
    this.centroids = p.centroids;
    this.cosRadius = p.cosRadius;
    this.groupDots = new Float64Array(p.childStart.length);
    const nl = p.cosRadius.length;
    this.members = [];
    this.counts = new Int32Array(nl);
    this.assign = new Int32Array(Math.max(16, capacity)).fill(-1);
    this.pos = new Int32Array(Math.max(16, capacity)).fill(-1);
    for (let c = 0; c < nl; c++) {
      const m = p.members[c];
      const arr = new Int32Array(Math.max(4, m.length));
      arr.set(m);
      this.members.push(arr);
      this.counts[c] = m.length;
      for (let i = 0; i < m.length; i++) {
        this.ensure(m[i] + 1);
        this.assign[m[i]] = c;
        this.pos[m[i]] = i;
      }
    }
  }

  get clusters(): number {
    return this.cosRadius.length;
  }

  needsRebuild(n: number): boolean {
    return n >= 2 * this.builtAt || n * 2 <= this.builtAt;
  }

  private ensure(n: number): void {
    if (n <= this.assign.length) return;
    let cap = this.assign.length;
    while (cap < n) cap *= 2;
    const a = new Int32Array(cap).fill(-1);
    a.set(this.assign);
    this.assign = a;
    const p = new Int32Array(cap).fill(-1);
    p.set(this.pos);
    this.pos = p;
  }

  /** Build deterministically from the scope's current rows. Cost O(N · (k1 + k2) · d). */
  static build(s: ScopeState): IvfIndex {
    const n = s.n;
    const d = s.d;
    const nlist = Math.max(16, Math.round(4 * Math.sqrt(n)));
    const k1 = Math.ceil(Math.sqrt(nlist));
    const sample = (size: number) => {
      const m = Math.min(n, size);
      const out = new Int32Array(m);
      for (let i = 0; i < m; i++) out[i] = Math.floor((i * n) / m);
      return out;
    };
    const top = kmeans(s, sample(64 * k1), k1, 6, 1);
    const s2 = sample(16 * nlist);
    const groups: number[][] = Array.from({ length: k1 }, () => []);
    for (let i = 0; i < s2.length; i++) groups[argmaxDot(top, 0, k1, s.data, s2[i] * d, d).c].push(s2[i]);
    const childStart = new Int32Array(k1 + 1);
    const parts: Float64Array[] = [];
    let total = 0;
    for (let g = 0; g < k1; g++) {
      childStart[g] = total;
      const rows = Int32Array.from(groups[g]);
      if (rows.length === 0) {
        parts.push(top.slice(g * d, g * d + d));
        total += 1;
        continue;
      }
      // children in proportion to the group's share of the sample
      const kk = Math.max(1, Math.min(rows.length, Math.round((nlist * rows.length) / s2.length)));
      parts.push(kmeans(s, rows, kk, 5, 2 + g));
      total += kk;
    }
    childStart[k1] = total;
    const centroids = new Float64Array(total * d);
    let off = 0;
    for (const p of parts) {
      centroids.set(p, off);
      off += p.length;
    }
    const idx = new IvfIndex(
      { d, builtAt: n, top, childStart, centroids, cosRadius: new Float64Array(total).fill(1), members: Array.from({ length: total }, () => new Int32Array(0)) },
      s.capacity,
    );
    for (let r = 0; r < n; r++) idx.insert(s, r);
    // Split clusters whose radius is far above the median (merged topics loosen every bound), twice.
    let cur = idx;
    for (let round = 0; round < 2; round++) cur = cur.splitWide(s, 1.3, 100 + round);
    return cur;
  }

  /** A new index where every cluster with θ > factor · median θ (and ≥ 8 members) is split by spherical 2-means. */
  private splitWide(s: ScopeState, factor: number, seed: number): IvfIndex {
    const d = this.d;
    const nl = this.cosRadius.length;
    const thetas: number[] = [];
    for (let c = 0; c < nl; c++) if (this.counts[c] > 0) thetas.push(Math.acos(clampUnit(this.cosRadius[c])));
    thetas.sort((a, b) => a - b);
    const thr = factor * (thetas[Math.floor(thetas.length / 2)] ?? 0);
    const k1 = this.childStart.length - 1;
    const centroids: Float64Array[] = [];
    const members: Int32Array[] = [];
    const radius: number[] = [];
    const childStart = new Int32Array(k1 + 1);
    let split = 0;
    for (let g = 0; g < k1; g++) {
      childStart[g] = centroids.length;
      for (let c = this.childStart[g]; c < this.childStart[g + 1]; c++) {
        const cnt = this.counts[c];
        const mem = this.members[c].slice(0, cnt);
        if (cnt < 8 || Math.acos(clampUnit(this.cosRadius[c])) <= thr) {
          centroids.push(this.centroids.slice(c * d, c * d + d));
          members.push(mem);
          radius.push(this.cosRadius[c]);
          continue;
        }
        split++;
        const C2 = kmeans(s, mem, 2, 5, seed + c);
        const parts: number[][] = [[], []];
        const rad = [1, 1];
        for (const r of mem) {
          const a = argmaxDot(C2, 0, 2, s.data, r * d, d);
          parts[a.c].push(r);
          if (a.dot < rad[a.c]) rad[a.c] = a.dot;
        }
        for (let h = 0; h < 2; h++) {
          if (parts[h].length === 0) continue;
          centroids.push(C2.slice(h * d, h * d + d));
          members.push(Int32Array.from(parts[h]));
          radius.push(rad[h]);
        }
      }
    }
    childStart[k1] = centroids.length;
    if (split === 0) return this;
    const flat = new Float64Array(centroids.length * d);
    centroids.forEach((c, i) => flat.set(c, i * d));
    return new IvfIndex({ d, builtAt: this.builtAt, top: this.top, childStart, centroids: flat, cosRadius: Float64Array.from(radius), members }, this.assign.length);
  }

  /** Assign row r (new or re-embedded) to its cluster. O((k1 + k2) · d). */
  insert(s: ScopeState, r: number): void {
    const d = this.d;
    this.ensure(r + 1);
    // multi-probe: the best child among the PROBES nearest top-level groups (a topic can straddle groups)
    const k1 = this.childStart.length - 1;
    const gd = this.groupDots;
    for (let g = 0; g < k1; g++) {
      let dot = 0;
      const go = g * d;
      for (let j = 0; j < d; j++) dot += this.top[go + j] * s.data[r * d + j];
      gd[g] = dot;
    }
    let c = -1;
    let dot = -Infinity;
    for (let p = 0; p < Math.min(PROBES, k1); p++) {
      let g = 0;
      for (let h = 1; h < k1; h++) if (gd[h] > gd[g]) g = h;
      gd[g] = -Infinity;
      const best = argmaxDot(this.centroids, this.childStart[g], this.childStart[g + 1], s.data, r * d, d);
      if (best.dot > dot) {
        dot = best.dot;
        c = best.c;
      }
    }
    if (this.counts[c] === this.members[c].length) {
      const grown = new Int32Array(this.members[c].length * 2);
      grown.set(this.members[c]);
      this.members[c] = grown;
    }
    this.members[c][this.counts[c]] = r;
    this.assign[r] = c;
    this.pos[r] = this.counts[c];
    this.counts[c]++;
    if (dot < this.cosRadius[c]) this.cosRadius[c] = dot;
  }

  private detach(r: number): void {
    const c = this.assign[r];
    const p = this.pos[r];
    const lastPos = this.counts[c] - 1;
    const lastRow = this.members[c][lastPos];
    this.members[c][p] = lastRow;
    this.pos[lastRow] = p;
    this.counts[c]--;
    this.assign[r] = -1;
    this.pos[r] = -1;
  }

  /** Row r was removed and row `moved` (or −1) now lives at r (swap-remove of ScopeState). */
  onRemove(r: number, moved: number): void {
    this.detach(r);
    if (moved >= 0) {
      const c = this.assign[moved];
      const p = this.pos[moved];
      this.members[c][p] = r;
      this.assign[r] = c;
      this.pos[r] = p;
      this.assign[moved] = -1;
      this.pos[moved] = -1;
    }
  }

  onReplace(s: ScopeState, r: number): void {
    this.detach(r);
    this.insert(s, r);
  }

  /**
   * Certified s_vMF (see the file comment). Returns null when the scan would exceed `budget · N`
   * rows (the caller then runs the exact pass).
   */
  search(s: ScopeState, q: Float64Array, kappa: number, maxError: number, budget: number): FastSearchResult | null {
    const d = this.d;
    const nl = this.cosRadius.length;
    const order: number[] = [];
    const bound = new Float64Array(nl);
    for (let c = 0; c < nl; c++) {
      if (this.counts[c] === 0) continue;
      let dot = 0;
      const co = c * d;
      for (let j = 0; j < d; j++) dot += this.centroids[co + j] * q[j];
      // 1e−6 rad of slack covers rounding in the cosines and acos.
      const theta = Math.acos(clampUnit(this.cosRadius[c])) + 1e-6;
      bound[c] = cosineUpperBound(dot, Math.cos(Math.min(Math.PI, theta)));
      order.push(c);
    }
    order.sort((a, b) => bound[b] - bound[a] || a - b);
    // logTail[i] = log Σ_{l ≥ i} count_l · exp(κ b_l)
    const L = order.length;
    const logTail = new Float64Array(L + 1);
    logTail[L] = -Infinity;
    for (let i = L - 1; i >= 0; i--) {
      const c = order[i];
      const t = Math.log(this.counts[c]) + kappa * bound[c];
      const a = logTail[i + 1];
      logTail[i] = a === -Infinity ? t : Math.max(a, t) + Math.log1p(Math.exp(-Math.abs(a - t)));
    }
    const limit = budget * s.n;
    let m = -Infinity;
    let S = 0;
    let arg = -1;
    let scanned = 0;
    for (let i = 0; i < L; i++) {
      const c = order[i];
      const mem = this.members[c];
      const cnt = this.counts[c];
      for (let t = 0; t < cnt; t++) {
        const r = mem[t];
        const x = s.dotRow(r, q);
        if (x > m) {
          S = S * Math.exp(kappa * (m - x)) + 1;
          m = x;
          arg = r;
        } else {
          S += Math.exp(kappa * (x - m));
        }
      }
      scanned += cnt;
      const ratio = i + 1 < L ? Math.exp(logTail[i + 1] - kappa * m) / S : 0;
      const err = fastModeErrorBound(S, ratio * S, kappa);
      if (err <= maxError && (i + 1 === L || bound[order[i + 1]] <= m)) {
        const score = clampUnit(m + (Math.log(S / s.n) + Math.log1p(ratio) / 2) / kappa);
        return { max: m, arg, score, error: err, scanned, nearestExact: true };
      }
      if (scanned > limit) return null;
    }
    return null;
  }

  toParts(): IvfParts {
    return {
      d: this.d,
      builtAt: this.builtAt,
      top: this.top,
      childStart: this.childStart,
      centroids: this.centroids,
      cosRadius: this.cosRadius,
      members: this.members.map((m, c) => m.slice(0, this.counts[c])),
    };
  }
}

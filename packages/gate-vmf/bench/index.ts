/**
 * Benchmark of @mem/gate-vmf (a script, not a test). Run: `pnpm bench` in packages/gate-vmf
 * (= `npx tsx --conditions=@mem/source bench/index.ts`). Prints one markdown table.
 *
 * Data (synthetic, seeded): a "clustered store" — N unit vectors in N/100 tight topics (cosine 0.97
 * to the topic centre) sharing a common direction (anisotropy 0.8, so κ̂ hits its cap of 50 as
 * the seed reports for d ≥ 100). Candidates: half near-duplicates (cosine 0.97 to a stored
 * memory), half novel (random directions).
 *
 * Columns:
 * - exact p50/p95: route() in exact mode (ms);
 * - scan p50: a tight Float32 dot-product scan over the same N × d (the floor), and exact/scan;
 * - fast p50 (dup / novel), fast/exact on near-duplicates, fast share (routes certified without
 *   fallback), max |fast − exact| score error and the largest reported bound;
 * - commit: amortized ms per commit over one full refit interval (scatter update, projection,
 *   box, refits); naive refit: the authors' per-change recompute (covariance from scratch +
 *   ml-matrix eigendecomposition + projection of every row), ms per commit;
 * - eig: our warm subspace iteration vs ml-matrix EigenvalueDecomposition on the same covariance.
 * - growth: exact p50 at this N / at N/10.
 */
import { EigenvalueDecomposition, Matrix } from 'ml-matrix';
import { createNoveltyGate } from '../src/index.js';
import { topEigen } from '../src/pca.js';
import { near, randomUnit, rng, topicMixture } from '../src/test-utils.js';
import { cBaseline, numpyBaseline, writeData } from './native.js';
import { splitTrial } from './worker-split.js';
import { cpus, loadavg } from 'node:os';

const SECTIONS = new Set((process.env.BENCH_SECTIONS ?? 'native,worker,table,decision,commit').split(','));
/** Rounds of the native comparison (each: all candidates through the gate, then through each baseline). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DECISION_N = (process.env.BENCH_DECISION_N ?? '10000,100000').split(',').map(Number);
const DIMS = (process.env.BENCH_DIMS ?? '100,384').split(',').map(Number);
const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);
const ROUTES = Number(process.env.BENCH_ROUTES ?? 40);
/** Fewer routes at N ≥ 100k keep the whole run short. */
const routesFor = (n: number) => (n >= 100_000 ? Math.ceil(ROUTES / 2) : ROUTES);

function pct(xs: number[], p: number): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}

/** Process CPU time (user + system) of fn in ms — unlike wall time, not inflated by other load on the machine. */
function time<T>(fn: () => T): [number, T] {
  const t = process.cpuUsage();
  const out = fn();
  const u = process.cpuUsage(t);
  return [(u.user + u.system) / 1000, out];
}

/** The floor: one tight pass of Float32 dot products (same unrolling as any good scalar loop). */
function dotScan(x: Float32Array, n: number, d: number, q: Float64Array, out: Float64Array): number {
  let best = -Infinity;
  for (let r = 0, base = 0; r < n; r++, base += d) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let j = 0;
    for (; j + 3 < d; j += 4) {
      s0 += x[base + j] * q[j];
      s1 += x[base + j + 1] * q[j + 1];
      s2 += x[base + j + 2] * q[j + 2];
      s3 += x[base + j + 3] * q[j + 3];
    }
    for (; j < d; j++) s0 += x[base + j] * q[j];
    const c = s0 + s1 + (s2 + s3);
    out[r] = c;
    if (c > best) best = c;
  }
  return best;
}

/**
 * The authors' recipe per change: covariance from scratch, full eigendecomposition (ml-matrix),
 * projection of every row, box. Returns CPU ms. The O(N·d²) covariance is timed on at most
 * `COV_ROWS` rows and scaled by N/rows (it is exactly linear in N); the rest is timed in full.
 */
const COV_ROWS = 10_000;
function naiveRefit(x: Float32Array, n: number, d: number, k: number): { ms: number; scaled: boolean } {
  const m = Math.min(n, COV_ROWS);
  const [covMs, C] = time(() => {
    const mu = new Float64Array(d);
    for (let r = 0; r < m; r++) for (let j = 0; j < d; j++) mu[j] += x[r * d + j];
    for (let j = 0; j < d; j++) mu[j] /= m;
    const C = new Float64Array(d * d);
    const xc = new Float64Array(d);
    for (let r = 0; r < m; r++) {
      for (let j = 0; j < d; j++) xc[j] = x[r * d + j] - mu[j];
      for (let a = 0; a < d; a++) {
        const v = xc[a];
        const off = a * d;
        for (let b = a; b < d; b++) C[off + b] += v * xc[b];
      }
    }
    return C;
  });
  const [restMs] = time(() => {
    const rows = Array.from({ length: d }, (_, a) => Array.from({ length: d }, (_, b) => (a <= b ? C[a * d + b] : C[b * d + a]) / m));
    const e = new EigenvalueDecomposition(new Matrix(rows), { assumeSymmetric: true });
    const order = e.realEigenvalues.map((v, i) => [v, i] as const).sort((a, b) => b[0] - a[0]).slice(0, k);
    const V = e.eigenvectorMatrix;
    const basis = new Float64Array(k * d);
    order.forEach(([, c], i) => {
      for (let j = 0; j < d; j++) basis[i * d + j] = V.get(j, c);
    });
    let logV = 0;
    for (let i = 0; i < k; i++) {
      let lo = Infinity;
      let hi = -Infinity;
      for (let r = 0; r < n; r++) {
        let p = 0;
        for (let j = 0; j < d; j++) p += x[r * d + j] * basis[i * d + j];
        if (p < lo) lo = p;
        if (p > hi) hi = p;
      }
      logV += Math.log(Math.max(hi - lo, 1e-3));
    }
    return logV;
  });
  return { ms: covMs * (n / m) + restMs, scaled: n > m };
}

function eigCompare(x: Float32Array, n: number, d: number): { mine: number; lib: number } {
  const m = Math.min(n, 5000);
  const mu = new Float64Array(d);
  for (let r = 0; r < m; r++) for (let j = 0; j < d; j++) mu[j] += x[r * d + j] / m;
  const C = new Float64Array(d * d);
  for (let r = 0; r < m; r++) for (let a = 0; a < d; a++) for (let b = a; b < d; b++) C[a * d + b] += ((x[r * d + a] - mu[a]) * (x[r * d + b] - mu[b])) / m;
  for (let a = 0; a < d; a++) for (let b = 0; b < a; b++) C[a * d + b] = C[b * d + a];
  const apply = (V: Float64Array, rows: number, out: Float64Array) => {
    out.fill(0, 0, rows * d);
    for (let a = 0; a < rows; a++)
      for (let t = 0; t < d; t++) {
        const v = V[a * d + t];
        for (let j = 0; j < d; j++) out[a * d + j] += v * C[t * d + j];
      }
  };
  const cold = topEigen(apply, d, 16);
  const [mine] = time(() => topEigen(apply, d, 16, { warm: cold.vectors, maxIter: 8 }));
  const rows = Array.from({ length: d }, (_, a) => Array.from(C.subarray(a * d, a * d + d)));
  const [lib] = time(() => new EigenvalueDecomposition(new Matrix(rows), { assumeSymmetric: true }));
  return { mine, lib };
}

const f = (x: number, digits = 2) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(digits));
const e = (x: number) => x.toExponential(1);

const t0 = performance.now();
const median = (xs: number[]) => pct(xs, 0.5);

// ---------------------------------------------------------------------------------------------
// The exact route against native single-thread scans of the same rows and candidates, same run,
// alternating per round: C (cc -O3 -march=native) and numpy (one BLAS thread) when available.
// ---------------------------------------------------------------------------------------------
if (SECTIONS.has('native')) {
  const baselines = [cBaseline(), numpyBaseline()];
  const lines: string[] = [];
  for (const d of DIMS) {
    for (const n of SIZES) {
      const { vectors } = topicMixture(n, d, Math.max(10, Math.round(n / 100)), 0.97, 3000 + d + n);
      const g = createNoveltyGate();
      g.seed('s', Array.from({ length: n }, (_, i) => ({ id: `m${i}`, vector: vectors.subarray(i * d, i * d + d) })));
      const r = rng(13 + n + d);
      const all: Float64Array[] = [];
      for (let t = 0; t < routesFor(n); t++) {
        const i = Math.floor(r.u() * n);
        all.push(near(vectors.subarray(i * d, i * d + d), 0.97, r), randomUnit(d, r));
      }
      const files = writeData(vectors, n, d, all);
      const first = g.route('s', all[0]);
      const kappa = first.kappa;
      const cos = new Float64Array(n);
      const before = (q: Float64Array) => {
        const m = dotScan(vectors, n, d, q, cos);
        let sum = 0;
        for (let i = 0; i < n; i++) sum += Math.exp(kappa * (cos[i] - m));
        return m + Math.log(sum / n) / kappa;
      };
      for (const q of all.slice(0, 6)) {
        g.route('s', q);
        before(q);
      }
      const ours: number[] = [];
      const old: number[] = [];
      const base: { p50: number; score: number }[][] = baselines.map(() => []);
      const ratio: number[][] = baselines.map(() => []);
      for (let round = 0; round < ROUNDS; round++) {
        const t = all.map((q) => time(() => g.route('s', q))[0]);
        ours.push(median(t));
        old.push(median(all.map((q) => time(() => before(q))[0])));
        baselines.forEach((b, k) => {
          if (b.missing) return;
          const res = b.run(files, kappa);
          base[k].push(res);
          ratio[k].push(median(t) / res.p50);
        });
      }
      // writes at this N: route + commit of novel memories (p50; a scheduled density refit is rare at
      // large N). Two untimed writes first: the first one grows the row block (seed left it full).
      const writes: number[] = [];
      for (let i = 0; i < 2; i++) g.commit('s', `warm${i}`, randomUnit(d, r));
      const commits: number[] = [];
      for (let i = 0; i < 21; i++) {
        const v = randomUnit(d, r);
        const [tr] = time(() => g.route('s', v));
        const [tc] = time(() => g.commit('s', `w${i}`, v));
        writes.push(tr + tc);
        commits.push(tc);
      }
      const cell = (k: number) =>
        baselines[k].missing ? '– | –' : `${f(median(base[k].map((x) => x.p50)))} | **${f(median(ratio[k]))}**`;
      const dScore = baselines[0].missing ? '–' : e(Math.abs(first.score - base[0][0].score));
      lines.push(
        `| ${d} | ${n.toLocaleString('en-US')} | ${f(median(ours))} | ${cell(0)} | ${cell(1)} | ${f(median(old))} | ${f(median(old) / median(ours))}× | ${f(median(writes))} (${f(median(commits))}) | ${dScore} |`,
      );
      process.stderr.write(`done native d=${d} N=${n} (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
    }
  }
  console.log(
    `\n### Exact route vs native single-thread scans (same rows and candidates, same run; ${ROUNDS} rounds of ${routesFor(SIZES[0]) * 2} candidates (${routesFor(1e5) * 2} at N ≥ 100k), half near-duplicates, half novel; p50 CPU ms per route, median over rounds; ratio = median of the per-round ratios)\n`,
  );
  for (const b of baselines) if (b.missing) console.log(`${b.missing}\n`);
  console.log(
    '| d | N | exact route p50 | C -O3 -march=native p50 | exact / C | numpy 1-thread p50 | exact / numpy | JS Float32 scan + Math.exp p50 | kernel speed-up | write p50: route + commit (commit alone) | \\|score − C score\\| |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const l of lines) console.log(l);
}

// ---------------------------------------------------------------------------------------------
// A second core: the same kernel over half the rows in a worker thread (shared memory), vs one thread.
// ---------------------------------------------------------------------------------------------
if (SECTIONS.has('worker')) {
  const lines: string[] = [];
  const load = loadavg()[0];
  for (const d of DIMS) {
    for (const n of SIZES.filter((x) => x >= 10_000)) {
      const { vectors } = topicMixture(n, d, Math.max(10, Math.round(n / 100)), 0.97, 4000 + d + n);
      const r = rng(17 + n + d);
      const cands = Array.from({ length: 2 * routesFor(n) }, (_, i) => {
        const row = (i * 7919) % n;
        return i % 2 ? randomUnit(d, r) : near(vectors.subarray(row * d, row * d + d), 0.97, r);
      });
      const t = await splitTrial(vectors, n, d, cands, 50);
      lines.push(`| ${d} | ${n.toLocaleString('en-US')} | ${f(t.wall1)} | ${f(t.wall2)} | ${f(t.wall2 / t.wall1)} | ${f(t.cpu1)} | ${f(t.cpu2)} | ${e(t.maxScoreDiff)} |`);
      process.stderr.write(`done worker d=${d} N=${n} (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
    }
  }
  console.log(
    `\n### A worker over half the rows (shared WebAssembly memory, Atomics) vs one thread: same kernel, same candidates, alternating; p50 per route, wall-clock and process CPU ms (1-min load average at the start: ${load.toFixed(1)} on ${cpus().length} cores)\n`,
  );
  console.log('| d | N | wall, 1 thread | wall, 2 threads | 2 / 1 | CPU, 1 thread | CPU, 2 threads (both) | max \\|Δscore\\| |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const l of lines) console.log(l);
}

const rowsOut: string[] = [];
for (const d of SECTIONS.has('table') ? DIMS : []) {
  let prevExact = 0;
  for (const n of SIZES) {
    const { vectors } = topicMixture(n, d, Math.max(10, Math.round(n / 100)), 0.97, 1000 + d + n);
    const g = createNoveltyGate({ mode: 'fast', fastMinN: 5000 });
    const items = Array.from({ length: n }, (_, i) => ({ id: `m${i}`, vector: vectors.subarray(i * d, i * d + d) }));
    g.seed('s', items);
    const r = rng(7 + n + d);
    const dups: Float64Array[] = [];
    const novel: Float64Array[] = [];
    for (let t = 0; t < routesFor(n); t++) {
      const i = Math.floor(r.u() * n);
      dups.push(near(vectors.subarray(i * d, i * d + d), 0.97, r));
      novel.push(randomUnit(d, r));
    }
    const all = dups.flatMap((q, i) => [q, novel[i]]);
    // warm-up, then exact route and the scan alternate per query so machine load hits both alike
    const scanOut = new Float64Array(n);
    for (const q of all.slice(0, 6)) {
      g.route('s', q, { mode: 'exact' });
      dotScan(vectors, n, d, q, scanOut);
    }
    const exactT: number[] = [];
    const scanT: number[] = [];
    const exactScore: number[] = [];
    for (const q of all) {
      const [t, dec] = time(() => g.route('s', q, { mode: 'exact' }));
      exactT.push(t);
      exactScore.push(dec.score);
      scanT.push(time(() => dotScan(vectors, n, d, q, scanOut))[0]);
    }
    let fastDupT: number[] = [];
    let fastNovelT: number[] = [];
    const exactDupT: number[] = [];
    let fastShare = 0;
    let maxErr = 0;
    let maxBound = 0;
    const hasIndex = g.stats('s')!.index !== null;
    if (hasIndex) {
      for (const q of all.slice(0, 6)) g.route('s', q);
      all.forEach((q, i) => {
        const [t, dec] = time(() => g.route('s', q));
        if (i % 2 === 0) {
          fastDupT.push(t);
          exactDupT.push(time(() => g.route('s', q, { mode: 'exact' }))[0]);
        } else fastNovelT.push(t);
        if (dec.mode === 'fast') fastShare++;
        maxErr = Math.max(maxErr, Math.abs(dec.score - exactScore[i]));
        maxBound = Math.max(maxBound, dec.scoreError);
      });
    } else {
      fastDupT = [NaN];
      fastNovelT = [NaN];
    }
    // density upkeep: commits over one full refit interval, on an exact-mode copy (no index upkeep)
    const ge = createNoveltyGate({ state: { ...g.serialize(), options: { ...g.options, mode: 'exact' } } });
    // smallest number of commits that is sure to contain one scheduled refit
    let interval = 1;
    while (interval < Math.max(ge.options.refitMin, Math.ceil(ge.options.refitFraction * (n + interval)))) interval++;
    const extra = topicMixture(interval, d, 50, 0.97, 77 + n);
    const refitsBefore = ge.stats('s')!.refits;
    const [commitMs] = time(() => {
      for (let i = 0; i < interval; i++) ge.commit('s', `x${i}`, extra.vectors.subarray(i * d, i * d + d));
    });
    const refits = ge.stats('s')!.refits - refitsBefore;
    const naive = naiveRefit(vectors, n, d, 16);
    const eig = n === SIZES[0] ? eigCompare(vectors, n, d) : null;
    if (process.env.BENCH_DEBUG) console.error({ refits, interval, commitMs });
    const ex50 = pct(exactT, 0.5);
    rowsOut.push(
      `| ${d} | ${n.toLocaleString('en-US')} | ${f(ex50)} | ${f(pct(exactT, 0.95))} | ${f(pct(scanT, 0.5))} | ${f(ex50 / pct(scanT, 0.5))} | ` +
        (hasIndex
          ? `${f(pct(fastDupT, 0.5), 3)} | ${f(pct(fastNovelT, 0.5))} | ${f(pct(fastDupT, 0.5) / pct(exactDupT, 0.5), 3)} | ${Math.round((100 * fastShare) / all.length)}% | ${e(maxErr)} / ${e(maxBound)} | `
          : `– | – | – | – | – | `) +
        `${f(commitMs / interval, 3)} (${refits} refit / ${interval}) | ${f(naive.ms)}${naive.scaled ? '¹' : ''} | ` +
        `${eig ? `${f(eig.mine)} vs ${f(eig.lib)}` : ''} | ${prevExact ? f(ex50 / prevExact) + '×' : '–'} |`,
    );
    prevExact = ex50;
    process.stderr.write(`done d=${d} N=${n} (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
  }
}

if (SECTIONS.has('table')) {
console.log(
  `\n@mem/gate-vmf bench — node ${process.version}; ${ROUTES * 2} routes per row (${ROUTES} at N ≥ 100k), half near-duplicates, half novel; times are process CPU ms (getrusage), so other load on the machine does not inflate them\n`,
);
console.log(
  '| d | N | exact p50 | exact p95 | dot scan p50 | exact / scan | fast p50 (dup) | fast p50 (novel) | fast / exact (dup) | fast share | max err / bound | commit, amortized | naive refit per commit | eig top-16: ours (warm) vs ml-matrix | growth per 10×N |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rowsOut) console.log(r);
console.log(`\n¹ covariance timed on ${COV_ROWS.toLocaleString('en-US')} rows and scaled by N/${COV_ROWS.toLocaleString('en-US')} (it is linear in N); eigendecomposition and projection timed in full.`);

}

// ---------------------------------------------------------------------------------------------
// fastCertify 'decision' (sketch bound + WebAssembly SIMD kernel) vs the exact JS pass, same gate,
// same candidates, alternating per candidate; d = 100.
// ---------------------------------------------------------------------------------------------
if (SECTIONS.has('decision')) {
  const d = 100;
  const lines: string[] = [];
  for (const n of DECISION_N) {
    const { vectors, centres } = topicMixture(n, d, Math.max(10, Math.round(n / 100)), 0.97, 2000 + n);
    const base = createNoveltyGate();
    base.seed('s', Array.from({ length: n }, (_, i) => ({ id: `m${i}`, vector: vectors.subarray(i * d, i * d + d) })));
    const snap = base.serialize();
    const r = rng(11 + n);
    const count = routesFor(n);
    const sets: Record<string, Float64Array[]> = { 'near-duplicate (cos 0.97)': [], 'same topic (cos 0.9 to a centre)': [], 'novel (random direction)': [] };
    for (let t = 0; t < count; t++) {
      const i = Math.floor(r.u() * n);
      sets['near-duplicate (cos 0.97)'].push(near(vectors.subarray(i * d, i * d + d), 0.97, r));
      sets['same topic (cos 0.9 to a centre)'].push(near(centres[Math.floor(r.u() * centres.length)], 0.9, r));
      sets['novel (random direction)'].push(randomUnit(d, r));
    }
    const gates = {
      always: createNoveltyGate({ state: snap, mode: 'fast', fastCertify: 'decision', fastMinN: 5000 }),
      updateNoop: createNoveltyGate({ state: snap, mode: 'fast', fastCertify: 'decision', fastMinN: 5000, fastNearest: 'update-noop' }),
    };
    for (const [name, qs] of Object.entries(sets)) {
      for (const q of qs.slice(0, 4)) {
        gates.always.route('s', q, { mode: 'exact' });
        gates.always.route('s', q);
        gates.updateNoop.route('s', q);
      }
      const ex: number[] = [];
      const al: number[] = [];
      const un: number[] = [];
      let certA = 0;
      let certU = 0;
      let actionDiffs = 0;
      let nearestDiffs = 0;
      let approxNearest = 0;
      const acts: Record<string, number> = {};
      for (const q of qs) {
        const [te, a] = time(() => gates.always.route('s', q, { mode: 'exact' }));
        const [ta, b] = time(() => gates.always.route('s', q));
        const [tu, c] = time(() => gates.updateNoop.route('s', q));
        ex.push(te);
        al.push(ta);
        un.push(tu);
        if (b.mode === 'fast') certA++;
        if (c.mode === 'fast') certU++;
        if (b.action !== a.action) actionDiffs++;
        if (c.action !== a.action) actionDiffs++;
        if (JSON.stringify(b.nearest) !== JSON.stringify(a.nearest)) nearestDiffs++;
        if (c.nearestExact && JSON.stringify(c.nearest) !== JSON.stringify(a.nearest)) nearestDiffs++;
        if (!c.nearestExact) approxNearest++;
        acts[a.action] = (acts[a.action] ?? 0) + 1;
      }
      const e50 = pct(ex, 0.5);
      lines.push(
        `| ${n.toLocaleString('en-US')} | ${name} | ${Object.entries(acts).map(([k, v]) => `${k} ${v}`).join(', ')} | ${f(e50)} | ${f(pct(al, 0.5))} | ${f(pct(al, 0.5) / e50, 3)} | ${certA}/${qs.length} | ${f(pct(un, 0.5))} | ${f(pct(un, 0.5) / e50, 3)} | ${certU}/${qs.length} (${approxNearest} Adds with nearestExact false) | ${actionDiffs} | ${nearestDiffs} |`,
      );
    }
    process.stderr.write(`done decision N=${n} (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
  }
  console.log(`\n### fastCertify 'decision' vs the exact pass (d = 100, synthetic clustered store, ${routesFor(DECISION_N[DECISION_N.length - 1])}–${routesFor(DECISION_N[0])} candidates per row, process CPU ms)\n`);
  console.log('| N | candidates | exact actions | exact p50 | decision p50 (fastNearest always) | ratio | certified | decision p50 (fastNearest update-noop) | ratio | certified | action diffs vs exact | nearest diffs (where certified) |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const l of lines) console.log(l);
}

// ---------------------------------------------------------------------------------------------
// Commit cost on small scopes (the LoCoMo size, ~600 memories): fixed refit schedule vs the
// adaptive interval (refitMaxScale 8, the default); route + commit streams, d = 100.
// ---------------------------------------------------------------------------------------------
if (SECTIONS.has('commit')) {
  const d = 100;
  const lines: string[] = [];
  for (const [label, spread, topics] of [
    ['topic stream (cos 0.9, 40 topics)', 0.9, 40],
    ['topic stream (cos 0.8, 10 topics)', 0.8, 10],
  ] as const) {
    const n = 600;
    const scopes = 3;
    const runs: Record<string, { ms: number; refits: number; trace: { a: string; tau: number; logV: number }[] }> = {};
    for (const rep of [0, 1]) {
      for (const scale of [1, 8]) {
        let ms = 0;
        let refits = 0;
        const trace: { a: string; tau: number; logV: number }[] = [];
        for (let sc = 0; sc < scopes; sc++) {
          const { vectors } = topicMixture(n, d, topics, spread, 500 + sc);
          const g = createNoveltyGate({ refitMaxScale: scale });
          for (let i = 0; i < n; i++) {
            const v = vectors.subarray(i * d, i * d + d);
            const dec = g.route('s', v);
            trace.push({ a: dec.action, tau: dec.threshold, logV: g.stats('s')?.logVolume ?? 0 });
            if (dec.action === 'noop') continue;
            ms += time(() => g.commit('s', `m${i}`, v))[0];
          }
          refits += g.stats('s')!.refits;
        }
        if (rep === 1) runs[scale] = { ms: ms / trace.filter((x) => x.a !== 'noop').length, refits, trace };
      }
    }
    const a = runs[1];
    const b = runs[8];
    let diffs = 0;
    let dTau = 0;
    let dLogV = 0;
    a.trace.forEach((x, i) => {
      if (x.a !== b.trace[i].a) diffs++;
      dTau = Math.max(dTau, Math.abs(x.tau - b.trace[i].tau));
      dLogV = Math.max(dLogV, Math.abs(x.logV - b.trace[i].logV));
    });
    const acts = a.trace.reduce<Record<string, number>>((m, x) => ((m[x.a] = (m[x.a] ?? 0) + 1), m), {});
    lines.push(
      `| ${label} | ${Object.entries(acts).map(([k, v]) => `${k} ${v}`).join(', ')} | ${f(a.ms, 3)} (${a.refits}) | ${f(b.ms, 3)} (${b.refits}) | ${f(a.ms / b.ms)}× | ${diffs} | ${dTau} | ${dLogV.toFixed(2)} |`,
    );
  }
  console.log(`\n### Commit cost on small scopes (3 scopes × 600 route+commit steps, d = 100; a Noop is not committed; process CPU ms per commit, second of two runs)\n`);
  console.log('| stream | actions | fixed schedule (refitMaxScale 1): ms/commit (refits) | adaptive (refitMaxScale 8): ms/commit (refits) | speed-up | action diffs | max |Δτ| | max |Δ log V| |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const l of lines) console.log(l);
}
console.log(`\ntotal ${((performance.now() - t0) / 1000).toFixed(0)} s wall, ${(process.cpuUsage().user / 1e6).toFixed(0)} s CPU`);

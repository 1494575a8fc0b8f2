/**
 * Does a second core help the exact pass at large N? (bench only, ours.) The rows live in a shared
 * WebAssembly memory; a worker thread runs the same kernel over the second half of the rows while
 * the main thread runs the first half, then the two (max, S) pairs are merged:
 * m = max(m₁, m₂), S = S₁·e^{κ(m₁−m)} + S₂·e^{κ(m₂−m)}. The main thread waits with Atomics.wait (the
 * gate's route is synchronous). Compared in the same run, alternating per candidate, with one thread
 * over all rows: wall-clock p50 (what a caller waits) and process CPU p50 (what the machine pays).
 */
import { Worker } from 'node:worker_threads';
import { EXACT_BLOCK, exactKernelBytes } from '../src/exact.js';

const PAGE = 65_536;
const CTRL = 0; // Int32: [0] generation, [1] done generation, [2] n0, [3] n
const Q = 64;

export interface SplitTrial {
  wall1: number;
  wall2: number;
  cpu1: number;
  cpu2: number;
  maxScoreDiff: number;
}

const workerCode = `
const { workerData } = require('node:worker_threads');
const { bytes, memory, xOff, outOff, q } = workerData;
const inst = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { mem: memory } });
const ctrl = new Int32Array(memory.buffer, 0, 8);
const f64 = new Float64Array(memory.buffer, 32, 1);
let seen = 0;
for (;;) {
  Atomics.wait(ctrl, 0, seen);
  seen = Atomics.load(ctrl, 0);
  if (seen < 0) break;
  inst.exports.pass(q, xOff + ctrl[2] * workerData.rowb, ctrl[3], f64[0], outOff);
  Atomics.store(ctrl, 1, seen);
  Atomics.notify(ctrl, 1);
}
`;

/** Rows (Float32, N × d) and unit candidates (Float64); κ fixed. */
export async function splitTrial(rows: Float32Array, n: number, d: number, cands: Float64Array[], kappa: number): Promise<SplitTrial> {
  const outA = Math.ceil((Q + 8 * d) / 64) * 64;
  const outB = outA + Math.ceil((16 + 8 * EXACT_BLOCK + 64) / 64) * 64;
  const xOff = outB + Math.ceil((16 + 8 * EXACT_BLOCK + 64) / 64) * 64;
  const pages = Math.ceil((xOff + 4 * n * d) / PAGE);
  const WA = (globalThis as unknown as { WebAssembly: any }).WebAssembly;
  const memory = new WA.Memory({ initial: pages, maximum: pages, shared: true });
  const bytes = exactKernelBytes(d, pages);
  const inst = new WA.Instance(new WA.Module(bytes), { env: { mem: memory } });
  new Float32Array(memory.buffer, xOff, n * d).set(rows.subarray(0, n * d));
  const ctrl = new Int32Array(memory.buffer, CTRL, 8);
  const kap = new Float64Array(memory.buffer, 32, 1);
  const qv = new Float64Array(memory.buffer, Q, d);
  const resA = new Float64Array(memory.buffer, outA, 2);
  const resB = new Float64Array(memory.buffer, outB, 2);
  const worker = new Worker(workerCode, { eval: true, workerData: { bytes, memory, xOff, outOff: outB, q: Q, rowb: 4 * d } });
  await new Promise((r) => setTimeout(r, 200)); // let the worker compile and park
  const e = (x: number) => Math.exp(Math.max(x, -700));
  const one = (q: Float64Array) => {
    qv.set(q);
    inst.exports.pass(Q, xOff, n, kappa, outA);
    return resA[0] + Math.log(resA[1] / n) / kappa;
  };
  const two = (q: Float64Array) => {
    qv.set(q);
    kap[0] = kappa;
    const half = n >> 1;
    ctrl[2] = half;
    ctrl[3] = n - half;
    const gen = ctrl[0] + 1;
    Atomics.store(ctrl, 0, gen);
    Atomics.notify(ctrl, 0);
    inst.exports.pass(Q, xOff, half, kappa, outA);
    while (Atomics.load(ctrl, 1) !== gen) Atomics.wait(ctrl, 1, Atomics.load(ctrl, 1));
    const m1 = resA[0];
    const m2 = resB[0];
    const m = Math.max(m1, m2);
    const S = resA[1] * e(kappa * (m1 - m)) + resB[1] * e(kappa * (m2 - m));
    return m + Math.log(S / n) / kappa;
  };
  const w1: number[] = [];
  const w2: number[] = [];
  const c1: number[] = [];
  const c2: number[] = [];
  let maxScoreDiff = 0;
  const timed = (fn: (q: Float64Array) => number, q: Float64Array, wall: number[], cpu: number[]) => {
    const c = process.cpuUsage();
    const t = performance.now();
    const s = fn(q);
    wall.push(performance.now() - t);
    const u = process.cpuUsage(c);
    cpu.push((u.user + u.system) / 1000);
    return s;
  };
  for (const q of cands.slice(0, 4)) {
    one(q);
    two(q);
  }
  for (const q of cands) {
    const a = timed(one, q, w1, c1);
    const b = timed(two, q, w2, c2);
    maxScoreDiff = Math.max(maxScoreDiff, Math.abs(a - b));
  }
  Atomics.store(ctrl, 0, -1);
  Atomics.notify(ctrl, 0);
  await worker.terminate();
  const p50 = (xs: number[]) => xs.slice().sort((x, y) => x - y)[xs.length >> 1];
  return { wall1: p50(w1), wall2: p50(w2), cpu1: p50(c1), cpu2: p50(c2), maxScoreDiff };
}

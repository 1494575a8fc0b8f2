/**
 * The sketch pass of fastCertify 'decision' as a WebAssembly SIMD kernel (ours), one module per row width rp (the row loop fully unrolled). The module is
 * assembled here from opcodes (no build step, no native addon), compiled once per process and
 * instantiated once per sketch (each with its own linear memory).
 *
 * Memory layout (bytes): [0, 1024) the candidate's sketch z_c (f32, padded to a multiple of 4);
 * [1024, 1024 + 4·HIST_CELLS) the upper-bound grid counts (i32); the lower-bound grid counts next;
 * then, at offsets chosen by the caller: zᵢ rows (f32, rp per row), εᵢ (f32), uᵢ (f32), lᵢ (f32).
 *
 * `pass(z, eps, ub, lb, n, rp, eq, slack, inv, last, hi, lo) → best row`, for every row i:
 *   t = zᵢᵀz_c (f32x4 multiply-adds, lanes summed as (l0 + l1) + (l2 + l3)),
 *   e = εᵢ·eq + slack, uᵢ = t + e, lᵢ = t − e (all f32),
 *   hi[clamp(trunc((uᵢ + 2)·inv), 0, last)] += 1, lo[clamp(trunc((lᵢ + 2)·inv), 0, last)] += 1,
 * and returns the row with the largest uᵢ (the first one on ties).
 * f32 rounding: each product/sum errs by ≤ 2⁻²⁴ relative, so |t − exact| ≤ rp·2⁻²⁴·‖zᵢ‖‖z_c‖ + the
 * f32 rounding of z_c, which `slack` (1e−5 for rp ≤ 64) covers with room to spare.
 */

/** Grid cells the kernel's histograms can hold (w ≥ 1/2048 over [−2, 2.5)). */
export const HIST_CELLS = 10_240;
export const Q_OFFSET = 0;
export const HI_OFFSET = 1024;
export const LO_OFFSET = HI_OFFSET + 4 * HIST_CELLS;
export const DATA_OFFSET = LO_OFFSET + 4 * HIST_CELLS;

import {
  BLOCK, BR, BR_IF, END, F32, F32_ADD, F32_CONST, F32_GT, F32_LOAD, F32_MAX, F32_MIN, F32_MUL, F32_STORE, F32_SUB,
  F32X4_ADD, F32X4_EXTRACT, F32X4_MUL, GET, I32, I32_ADD, I32_CONST, I32_GE_U, I32_LOAD, I32_SHL, I32_STORE,
  I32_TRUNC_SAT_F32_S, IF, leb, LOOP, MODULE_HEADER, name, section, SET, TEE, V128, V128_LOAD, compileModule, wasmApi,
  type WasmMemory,
} from './wasm.js';

// params
const Z = 0;
const EPS = 1;
const UB = 2;
const LB = 3;
const N = 4;
const RP = 5;
const EQ = 6;
const SLACK = 7;
const INV = 8;
const LAST = 9;
const HI = 10;
const LO = 11;
// locals
const I = 12;
const ZP = 14;
const ROWB = 15;
const BESTROW = 16;
const ACC = 17;
const T = 18;
const E = 19;
const U = 20;
const BEST = 21;
const ADDR = 22;

/** hist[clamp(trunc((x + 2)·inv), 0, last)] += 1, x on the stack top is taken from local `x`. */
function bump(x: number, histBase: number): number[] {
  return [
    GET, histBase,
    GET, x, ...F32_CONST(2), F32_ADD, GET, INV, F32_MUL,
    ...F32_CONST(0), F32_MAX, GET, LAST, F32_MIN,
    ...I32_TRUNC_SAT_F32_S, ...I32_CONST(2), I32_SHL, I32_ADD,
    TEE, ADDR,
    GET, ADDR, ...I32_LOAD, ...I32_CONST(1), I32_ADD,
    ...I32_STORE,
  ];
}

const Q0 = 23;
const v128LoadAt = (offset: number) => [0xfd, 0x00, 0x04, ...leb(offset)];

/**
 * The module bytes for rows of `rp` floats (a multiple of 4, ≤ 64; deterministic). The row loop is
 * fully unrolled: z_c is loaded once into rp/4 v128 locals, each row is rp/4 loads, multiplies and
 * adds (lane j of the accumulator sums the products of the coordinates ≡ j mod 4, in order).
 */
export function kernelBytes(rp = 24): Uint8Array {
  if (rp % 4 !== 0 || rp < 4 || rp > 64) throw new RangeError(`kernel: rp must be a multiple of 4 in [4, 64], got ${rp}`);
  const blocks = rp / 4;
  const loadQ: number[] = [];
  for (let k = 0; k < blocks; k++) loadQ.push(...I32_CONST(Q_OFFSET + 16 * k), ...V128_LOAD, SET, Q0 + k);
  const dot: number[] = [];
  for (let k = 0; k < blocks; k++) {
    dot.push(GET, ZP, ...v128LoadAt(16 * k), GET, Q0 + k, ...F32X4_MUL);
    if (k > 0) dot.push(...F32X4_ADD);
  }
  const body: number[] = [
    // locals: 5 × i32 (I, unused, ZP, ROWB, BESTROW), 1 × v128 (ACC), 4 × f32 (T, E, U, BEST), 1 × i32 (ADDR), rp/4 × v128 (Q…)
    5, 5, I32, 1, V128, 4, F32, 1, I32, ...leb(blocks), V128,
    GET, RP, ...I32_CONST(2), I32_SHL, SET, ROWB,
    ...F32_CONST(-Infinity), SET, BEST,
    GET, Z, SET, ZP,
    ...loadQ,
    BLOCK, 0x40,
    LOOP, 0x40,
    GET, I, GET, N, I32_GE_U, BR_IF, 1,
    ...dot, SET, ACC,
    // t = (l0 + l1) + (l2 + l3)
    GET, ACC, ...F32X4_EXTRACT(0), GET, ACC, ...F32X4_EXTRACT(1), F32_ADD,
    GET, ACC, ...F32X4_EXTRACT(2), GET, ACC, ...F32X4_EXTRACT(3), F32_ADD,
    F32_ADD, SET, T,
    // e = eps[i]·eq + slack
    GET, EPS, GET, I, ...I32_CONST(2), I32_SHL, I32_ADD, ...F32_LOAD, GET, EQ, F32_MUL, GET, SLACK, F32_ADD, SET, E,
    // u = t + e → ub[i]; l = t − e → lb[i] (kept in T)
    GET, T, GET, E, F32_ADD, SET, U,
    GET, T, GET, E, F32_SUB, SET, T,
    GET, UB, GET, I, ...I32_CONST(2), I32_SHL, I32_ADD, GET, U, ...F32_STORE,
    GET, LB, GET, I, ...I32_CONST(2), I32_SHL, I32_ADD, GET, T, ...F32_STORE,
    ...bump(U, HI),
    ...bump(T, LO),
    // best row
    GET, U, GET, BEST, F32_GT,
    IF, 0x40,
    GET, U, SET, BEST,
    GET, I, SET, BESTROW,
    END,
    GET, I, ...I32_CONST(1), I32_ADD, SET, I,
    GET, ZP, GET, ROWB, I32_ADD, SET, ZP,
    BR, 0,
    END,
    END,
    GET, BESTROW,
    END,
  ];
  const params = [I32, I32, I32, I32, I32, I32, F32, F32, F32, F32, I32, I32];
  const bytes = [
    ...MODULE_HEADER,
    ...section(1, [1, 0x60, ...leb(params.length), ...params, 1, I32]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0x00, ...leb(2)]),
    ...section(7, [2, ...name('mem'), 0x02, 0, ...name('pass'), 0x00, 0]),
    ...section(10, [1, ...leb(body.length), ...body]),
  ];
  return Uint8Array.from(bytes);
}

const compiled = new Map<number, object | null>();

/** The compiled kernel for rows of `rp` floats, or null where WebAssembly SIMD is unavailable (the gate then uses the exact pass). */
export function kernelModule(rp = 24): object | null {
  let mod = compiled.get(rp);
  if (mod === undefined) {
    mod = compileModule(() => kernelBytes(rp));
    compiled.set(rp, mod);
  }
  return mod;
}

export interface KernelInstance {
  memory: WasmMemory;
  pass: (z: number, eps: number, ub: number, lb: number, n: number, rp: number, eq: number, slack: number, inv: number, last: number, hi: number, lo: number) => number;
}

/** A fresh instance (own memory), or null where WebAssembly SIMD is unavailable. */
export function instantiateKernel(rp = 24): KernelInstance | null {
  const mod = kernelModule(rp);
  if (!mod || !wasmApi) return null;
  const inst = new wasmApi.Instance(mod, {});
  return { memory: inst.exports.mem as WasmMemory, pass: inst.exports.pass as KernelInstance['pass'] };
}

/**
 * The exact pass of the gate (seed 001 §3.3 score; kernel ours): every stored row's cosine with the
 * candidate and the shifted log-sum-exp S = Σᵢ exp(κ(cᵢ − m)), m = maxᵢ cᵢ, in one fused pass.
 *
 * Arithmetic (fixed, so the WebAssembly SIMD kernel and the plain-JS fallback return the same bits):
 * - cosine of a row: Float64 products of the Float32 row entries with the Float64 candidate, four
 *   partial sums over j ≡ 0, 1, 2, 3 (mod 4) in order, the tail (j ≥ d − d mod 4) added to the first,
 *   combined as (s₀ + s₁) + (s₂ + s₃) — the exact pass of earlier versions, bit for bit. The SIMD
 *   kernel keeps (s₀, s₁) and (s₂, s₃) as two f64x2 accumulators (f32 entries promoted to f64, no
 *   fused multiply-add), which is the same sequence of IEEE operations per lane.
 * - fused running log-sum-exp over blocks of {@link EXACT_BLOCK} rows: the block's cosines go to a
 *   small scratch buffer; if the block's largest cosine bm exceeds the running m, the two running
 *   lane sums are multiplied by e(κ(m − bm)) and m = bm; then every cosine of the block adds
 *   e(κ(c − m)) to lane (local index mod 2). S = lane₀ + lane₁. `arg` is the first row holding m.
 * - e(x) = {@link expBounded}: a polynomial exp with a proven relative error ≤ 1e−15 on [−700, 0]
 *   (below −700 it returns e^−700, i.e. an absolute error ≤ 1e−304 per term against S ≥ 1).
 *
 * So S is exact up to a relative error of 1e−15 plus the rounding of N positive additions (as any
 * float64 sum, the reference's included), and the score m + log(S/N)/κ differs from the float64
 * reference by that relative error divided by κ: ≤ 1e−12 + 1e−14/κ in the tests (κ from 1e−3 to 1e4,
 * against `vmfScore` over Math.exp), far below the 1e−6 the gate promises.
 */
import {
  BLOCK, BR, BR_IF, END, F32_LOAD_AT, F64, F64_ADD, F64_CONST, F64_GT, F64_LOAD_AT, F64_MUL, F64_PROMOTE_F32,
  F64_STORE_AT, F64_SUB, F64X2_ADD, F64X2_EXTRACT, F64X2_MUL, F64X2_PMAX, F64X2_PROMOTE_LOW_F32X4, F64X2_REPLACE,
  F64X2_SPLAT, F64X2_SUB, GET, I32, I32_ADD, I32_CONST, I32_GE_U, I32_GT_U, I32_LT_U, I32_SHL, I32_SUB, I64X2_ADD,
  I64X2_SHL, IF, leb, LOOP, MODULE_HEADER, name, section, SELECT, SET, TEE, V128, V128_CONST_F64, V128_CONST_I64,
  V128_LOAD_AT, V128_LOAD64_ZERO_AT, VOID, compileModule, WASM_PAGE, wasmApi, type WasmMemory,
} from './wasm.js';

/** Rows per block of the fused log-sum-exp (the block's cosines stay in L1). */
export const EXACT_BLOCK = 256;

// e(x) = p(r)·2ⁿ with n = round(x·log₂e), r = x − n·ln2 (Cody–Waite, ln2 = LN2_HI + LN2_LO, LN2_HI
// has 32 significant bits so n·LN2_HI is exact for |n| < 2²¹), p = the degree-13 Taylor polynomial.
const LOG2E = 1.4426950408889634;
/** 1.5·2⁵²: adding it rounds to an integer, which then sits in the low mantissa bits. */
const MAGIC = 6755399441055744;
const LN2_HI = 6.93147180369123816490e-1;
const LN2_LO = 1.90821492927058770002e-10;
/** Inputs below this are raised to it (e^−700 ≈ 9.9e−305 > 0, so 2ⁿ stays a normal number). */
export const EXP_FLOOR = -700;
const EXP_DEGREE = 13;
/** 1/k!, k = 0…13 (the same doubles in the kernel and in JS). */
const EXP_C: readonly number[] = (() => {
  const c = [1];
  for (let k = 1; k <= EXP_DEGREE; k++) c.push(c[k - 1] / k);
  return c;
})();
/** 2^−k, k = 0…1023, exact (repeated halving). */
const POW2_NEG: Float64Array = (() => {
  const p = new Float64Array(1024);
  let v = 1;
  for (let k = 0; k < 1024; k++, v /= 2) p[k] = v;
  return p;
})();

/**
 * e^x for x ≤ 0 in the kernel's arithmetic (ours): relative error ≤ 1e−15 for x ∈ [−700, 0] (the
 * Taylor remainder of degree 13 on |r| ≤ ln2/2 is < 5e−18 relative; range reduction and 13 Horner
 * steps add a few units of 2⁻⁵³; measured max 3.3e−16 against Math.exp, see exact.test.ts);
 * x < −700 → e^−700. Not for x > 0.
 */
export function expBounded(x: number): number {
  const y = x < EXP_FLOOR ? EXP_FLOOR : x;
  const t = y * LOG2E + MAGIC;
  const nf = t - MAGIC;
  const r = y - nf * LN2_HI - nf * LN2_LO;
  let p = EXP_C[EXP_DEGREE];
  for (let k = EXP_DEGREE - 1; k >= 0; k--) p = p * r + EXP_C[k];
  return p * POW2_NEG[-nf];
}

/** Cosine of the row at `base` with q in the exact pass's arithmetic (see the module doc). */
export function dotExact(x: Float32Array, base: number, d: number, q: Float64Array): number {
  const d4 = d - (d % 4);
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  for (; j < d4; j += 4) {
    s0 += x[base + j] * q[j];
    s1 += x[base + j + 1] * q[j + 1];
    s2 += x[base + j + 2] * q[j + 2];
    s3 += x[base + j + 3] * q[j + 3];
  }
  for (; j < d; j++) s0 += x[base + j] * q[j];
  return s0 + s1 + (s2 + s3);
}

/** Result of the exact pass: largest cosine, its (first) row, and S = Σ exp(κ(cᵢ − max)). */
export interface ExactPassResult {
  max: number;
  arg: number;
  shifted: number;
}

/**
 * The exact pass in plain JS (the fallback without WebAssembly SIMD, and for small scopes whose rows
 * live in a JS array), bit-identical to the kernel.
 * @param x rows, row-major, N × d (Float32)
 * @param q the unit candidate (Float64, length d)
 * @param kappa κ > 0
 * @param scratch ≥ EXACT_BLOCK doubles
 */
export function exactPassJs(x: Float32Array, n: number, d: number, q: Float64Array, kappa: number, scratch: Float64Array): ExactPassResult {
  let m = -Infinity;
  let arg = 0;
  let se = 0;
  let so = 0;
  for (let bs = 0; bs < n; bs += EXACT_BLOCK) {
    const len = Math.min(EXACT_BLOCK, n - bs);
    let bm = -Infinity;
    let ba = 0;
    for (let i = 0; i < len; i++) {
      const c = dotExact(x, (bs + i) * d, d, q);
      scratch[i] = c;
      if (c > bm) {
        bm = c;
        ba = i;
      }
    }
    if (bm > m) {
      const f = expBounded(kappa * (m - bm));
      se *= f;
      so *= f;
      m = bm;
      arg = bs + ba;
    }
    let i = 0;
    for (; i + 1 < len; i += 2) {
      se += expBounded(kappa * (scratch[i] - m));
      so += expBounded(kappa * (scratch[i + 1] - m));
    }
    if (i < len) se += expBounded(kappa * (scratch[i] - m));
  }
  return { max: m, arg, shifted: se + so };
}

// ---------------------------------------------------------------------------------------------
// The WebAssembly SIMD kernel: pass(q, x, n, d, kappa, out) → arg; writes m at out, S at out + 8,
// and uses out + 16 … out + 16 + 8·EXACT_BLOCK as the block's cosine scratch.

// params
const Q = 0;
const X = 1;
const N = 2;
const KAPPA = 3;
const OUT = 4;
// locals
const I32_LOCALS = ['BS', 'LEN', 'I', 'PX', 'P0', 'QP', 'CNT', 'ARG', 'BA', 'COS'] as const;
const F64_LOCALS = ['M', 'BM', 'C', 'S0'] as const;
const V128_LOCALS = [
  'A', 'B', 'QA', 'QB', 'ACC', 'KV', 'MV', 'EX', 'ET', 'ENF', 'ER',
  'KFLOOR', 'KLOG2E', 'KMAGIC', 'KLN2HI', 'KLN2LO', 'KBIAS',
  ...EXP_C.map((_, k) => `KC${k}`),
];
const loc: Record<string, number> = {};
[...I32_LOCALS, ...F64_LOCALS, ...V128_LOCALS].forEach((nm, i) => (loc[nm] = 5 + i));
const g = (nm: string) => [GET, loc[nm]];
const s = (nm: string) => [SET, loc[nm]];

/** e(EX) for both lanes, left on the stack (overwrites EX, ET, ENF, ER). */
function expCode(): number[] {
  const out: number[] = [
    ...g('EX'), ...g('KFLOOR'), ...F64X2_PMAX, ...s('EX'),
    ...g('EX'), ...g('KLOG2E'), ...F64X2_MUL, ...g('KMAGIC'), ...F64X2_ADD, ...s('ET'),
    ...g('ET'), ...g('KMAGIC'), ...F64X2_SUB, ...s('ENF'),
    ...g('EX'), ...g('ENF'), ...g('KLN2HI'), ...F64X2_MUL, ...F64X2_SUB, ...g('ENF'), ...g('KLN2LO'), ...F64X2_MUL, ...F64X2_SUB, ...s('ER'),
    ...g(`KC${EXP_DEGREE}`),
  ];
  for (let k = EXP_DEGREE - 1; k >= 0; k--) out.push(...g('ER'), ...F64X2_MUL, ...g(`KC${k}`), ...F64X2_ADD);
  // 2ⁿ: the low bits of t hold n; (bits(t) + 1023) << 52 is the exponent field of 2ⁿ
  out.push(...g('ET'), ...g('KBIAS'), ...I64X2_ADD, ...I32_CONST(52), ...I64X2_SHL, ...F64X2_MUL);
  return out;
}

/**
 * The cosine of the row at P0 into cos[I], and the block's running maximum (BM, first row BA). d is
 * a constant of the module, so the tail and the loop count are static; V8 emits one vcvtps2pd with a
 * memory operand, one vmulpd and one vaddpd per two floats. One row at a time, one chunk of 4 floats
 * per loop turn: scoring 2, 4 or 8 rows together (sharing the candidate's loads) and unrolling were
 * all slower under V8 at N = 100k (several interleaved row streams defeat the prefetcher; measured).
 */
function dotCode(d: number): number[] {
  const K = Math.floor(d / 4);
  const out: number[] = [...V128_CONST_F64(0), ...s('A'), ...V128_CONST_F64(0), ...s('B')];
  out.push(...g('P0'), ...s('PX'), GET, Q, ...s('QP'));
  if (K > 0) {
    out.push(...I32_CONST(K), ...s('CNT'), LOOP, VOID);
    out.push(...g('A'), ...g('PX'), ...V128_LOAD64_ZERO_AT(0), ...F64X2_PROMOTE_LOW_F32X4, ...g('QP'), ...V128_LOAD_AT(0), ...F64X2_MUL, ...F64X2_ADD, ...s('A'));
    out.push(...g('B'), ...g('PX'), ...V128_LOAD64_ZERO_AT(8), ...F64X2_PROMOTE_LOW_F32X4, ...g('QP'), ...V128_LOAD_AT(16), ...F64X2_MUL, ...F64X2_ADD, ...s('B'));
    out.push(...g('PX'), ...I32_CONST(16), I32_ADD, ...s('PX'), ...g('QP'), ...I32_CONST(32), I32_ADD, ...s('QP'));
    out.push(...g('CNT'), ...I32_CONST(1), I32_SUB, TEE, loc.CNT, BR_IF, 0, END);
  }
  // tail j ≥ d − d mod 4 into s0, then c = (s0 + s1) + (s2 + s3)
  out.push(...g('A'), ...F64X2_EXTRACT(0), ...s('S0'));
  for (let t = 0; t < d % 4; t++) {
    out.push(...g('S0'), ...g('PX'), ...F32_LOAD_AT(4 * t), F64_PROMOTE_F32, ...g('QP'), ...F64_LOAD_AT(8 * t), F64_MUL, F64_ADD, ...s('S0'));
  }
  out.push(...g('S0'), ...g('A'), ...F64X2_EXTRACT(1), F64_ADD, ...g('B'), ...F64X2_EXTRACT(0), ...g('B'), ...F64X2_EXTRACT(1), F64_ADD, F64_ADD, ...s('C'));
  out.push(...g('COS'), ...g('I'), ...I32_CONST(3), I32_SHL, I32_ADD, ...g('C'), ...F64_STORE_AT(0));
  out.push(...g('C'), ...g('BM'), F64_GT, IF, VOID, ...g('C'), ...s('BM'), ...g('I'), ...s('BA'), END);
  return out;
}

/** The kernel module's bytes for rows of d floats (deterministic); `sharedMaxPages` makes it import a shared memory. */
export function exactKernelBytes(d: number, sharedMaxPages?: number): Uint8Array {
  const rowb = 4 * d;
  const init: number[] = [];
  init.push(GET, OUT, ...I32_CONST(16), I32_ADD, ...s('COS'));
  init.push(...F64_CONST(-Infinity), ...s('M'), ...V128_CONST_F64(0), ...s('ACC'));
  init.push(GET, KAPPA, ...F64X2_SPLAT, ...s('KV'));
  init.push(...V128_CONST_F64(EXP_FLOOR), ...s('KFLOOR'), ...V128_CONST_F64(LOG2E), ...s('KLOG2E'), ...V128_CONST_F64(MAGIC), ...s('KMAGIC'));
  init.push(...V128_CONST_F64(LN2_HI), ...s('KLN2HI'), ...V128_CONST_F64(LN2_LO), ...s('KLN2LO'), ...V128_CONST_I64(1023), ...s('KBIAS'));
  EXP_C.forEach((c, k) => init.push(...V128_CONST_F64(c), ...s(`KC${k}`)));
  init.push(...I32_CONST(0), ...s('BS'), GET, X, ...s('P0'), ...I32_CONST(0), ...s('ARG'));

  const cosAt = (lane: string) => [...g('COS'), ...g(lane), ...I32_CONST(3), I32_SHL, I32_ADD];
  const blocks: number[] = [
    BLOCK, VOID, LOOP, VOID,
    ...g('BS'), GET, N, I32_GE_U, BR_IF, 1,
    // LEN = min(EXACT_BLOCK, N − BS)
    GET, N, ...g('BS'), I32_SUB, ...s('LEN'),
    ...I32_CONST(EXACT_BLOCK), ...g('LEN'), ...g('LEN'), ...I32_CONST(EXACT_BLOCK), I32_GT_U, SELECT, ...s('LEN'),
    ...I32_CONST(0), ...s('I'),
    // every row of the block: its cosine and the block's maximum (first occurrence)
    ...F64_CONST(-Infinity), ...s('BM'), ...I32_CONST(0), ...s('BA'),
    BLOCK, VOID, LOOP, VOID,
    ...g('I'), ...g('LEN'), I32_GE_U, BR_IF, 1,
    ...dotCode(d),
    ...g('I'), ...I32_CONST(1), I32_ADD, ...s('I'),
    ...g('P0'), ...I32_CONST(rowb), I32_ADD, ...s('P0'),
    BR, 0, END, END,
    // a new running max: rescale both lanes by e(κ(m − bm))
    ...g('BM'), ...g('M'), F64_GT,
    IF, VOID,
    ...g('KV'), ...g('M'), ...g('BM'), F64_SUB, ...F64X2_SPLAT, ...F64X2_MUL, ...s('EX'),
    ...expCode(), ...F64X2_EXTRACT(0), ...F64X2_SPLAT, ...g('ACC'), ...F64X2_MUL, ...s('ACC'),
    ...g('BM'), ...s('M'),
    ...g('BS'), ...g('BA'), I32_ADD, ...s('ARG'),
    END,
    ...g('M'), ...F64X2_SPLAT, ...s('MV'),
    ...I32_CONST(0), ...s('I'),
    BLOCK, VOID, LOOP, VOID,
    ...g('I'), ...I32_CONST(2), I32_ADD, ...g('LEN'), I32_GT_U, BR_IF, 1,
    ...g('KV'), ...cosAt('I'), ...V128_LOAD_AT(0), ...g('MV'), ...F64X2_SUB, ...F64X2_MUL, ...s('EX'),
    ...expCode(), ...g('ACC'), ...F64X2_ADD, ...s('ACC'),
    ...g('I'), ...I32_CONST(2), I32_ADD, ...s('I'),
    BR, 0, END, END,
    // odd last cosine of the block: lane 0 only
    ...g('I'), ...g('LEN'), I32_LT_U,
    IF, VOID,
    ...g('KV'), ...cosAt('I'), ...F64_LOAD_AT(0), ...F64X2_SPLAT, ...g('MV'), ...F64X2_SUB, ...F64X2_MUL, ...s('EX'),
    ...expCode(), ...F64_CONST(0), ...F64X2_REPLACE(1), ...g('ACC'), ...F64X2_ADD, ...s('ACC'),
    END,
    ...g('BS'), ...g('LEN'), I32_ADD, ...s('BS'),
    BR, 0, END, END,
  ];
  const finish: number[] = [
    GET, OUT, ...g('M'), ...F64_STORE_AT(0),
    GET, OUT, ...g('ACC'), ...F64X2_EXTRACT(0), ...g('ACC'), ...F64X2_EXTRACT(1), F64_ADD, ...F64_STORE_AT(8),
    ...g('ARG'),
    END,
  ];
  const body = [
    3, ...leb(I32_LOCALS.length), I32, ...leb(F64_LOCALS.length), F64, ...leb(V128_LOCALS.length), V128,
    ...init, ...blocks, ...finish,
  ];
  const params = [I32, I32, I32, F64, I32];
  return Uint8Array.from([
    ...MODULE_HEADER,
    ...section(1, [1, 0x60, ...leb(params.length), ...params, 1, I32]),
    // env.mem: min 1 page; a shared memory (flag 3, with its maximum) for the bench's two-thread trial
    ...section(2, [1, ...name('env'), ...name('mem'), 0x02, ...(sharedMaxPages ? [0x03, ...leb(1), ...leb(sharedMaxPages)] : [0x00, ...leb(1)])]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name('pass'), 0x00, 0]),
    ...section(10, [1, ...leb(body.length), ...body]),
  ]);
}

const compiled = new Map<number, object | null>();

/** The compiled exact kernel for rows of d floats (one module per d, compiled once), or null where WebAssembly SIMD is unavailable. */
export function exactKernelModule(d: number): object | null {
  let mod = compiled.get(d);
  if (mod === undefined) {
    mod = compileModule(() => exactKernelBytes(d));
    compiled.set(d, mod);
  }
  return mod;
}

/** Byte offset of the candidate (Float64, d entries) in a row store's memory. */
const Q_OFF = 0;

/**
 * The rows of one scope in their own WebAssembly memory (ours): [0, qBytes) the candidate (f64),
 * then m, S and the block scratch, then the N × d Float32 rows from a 64-byte-aligned offset; grown
 * geometrically by the caller (memory.grow keeps the contents, the views are rebuilt).
 */
export class WasmRowStore {
  readonly d: number;
  private readonly memory: WasmMemory;
  private readonly pass: (q: number, x: number, n: number, kappa: number, out: number) => number;
  private readonly outOff: number;
  private readonly dataOff: number;
  rows!: Float32Array;
  private q!: Float64Array;
  private out!: Float64Array;
  private cap = 0;

  private constructor(d: number, mod: object, cap: number) {
    this.d = d;
    this.outOff = Math.ceil((8 * d) / 64) * 64;
    this.dataOff = Math.ceil((this.outOff + 16 + 8 * EXACT_BLOCK) / 64) * 64;
    this.memory = new wasmApi!.Memory({ initial: Math.ceil((this.dataOff + 4 * cap * d) / WASM_PAGE) });
    const inst = new wasmApi!.Instance(mod, { env: { mem: this.memory } });
    this.pass = inst.exports.pass as WasmRowStore['pass'];
    this.cap = cap;
    this.views();
  }

  /** A store for `cap` rows of d floats, or null without WebAssembly SIMD or when the memory cannot be had. */
  static create(d: number, cap: number): WasmRowStore | null {
    const mod = exactKernelModule(d);
    if (!mod) return null;
    try {
      return new WasmRowStore(d, mod, cap);
    } catch {
      return null;
    }
  }

  private views(): void {
    const buf = this.memory.buffer;
    this.rows = new Float32Array(buf, this.dataOff, this.cap * this.d);
    this.q = new Float64Array(buf, Q_OFF, this.d);
    this.out = new Float64Array(buf, this.outOff, 2);
  }

  /** Room for `cap` rows (contents kept). @returns false when the memory cannot grow (the caller falls back to a JS array) */
  grow(cap: number): boolean {
    const need = this.dataOff + 4 * cap * this.d;
    const have = this.memory.buffer.byteLength;
    try {
      if (need > have) this.memory.grow(Math.ceil((need - have) / WASM_PAGE));
    } catch {
      return false;
    }
    this.cap = cap;
    this.views();
    return true;
  }

  /** The exact pass over the first n rows (n ≥ 1). */
  run(n: number, q: Float64Array, kappa: number): ExactPassResult {
    this.q.set(q);
    const arg = this.pass(Q_OFF, this.dataOff, n, kappa, this.outOff);
    return { max: this.out[0], arg, shifted: this.out[1] };
  }
}

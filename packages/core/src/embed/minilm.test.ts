/**
 * all-MiniLM-L6-v2 through Transformers.js gives the real model's vectors: cosine ≥ 0.9999 to the
 * vectors langchain4j's Java implementation (ONNX Runtime Java + DJL tokenizer) wrote for our own
 * sentences (tools/minilm-reference), fp32 and quantized.
 *
 * Gated: needs the model folder from `pnpm models:fetch` (MEM_MODELS_DIR / MEM_MINILM_PATH). Absent,
 * the tests are skipped with the reason printed, unless MEM_REQUIRE_MODELS=1 (the integration tier in
 * .ci/run), where absence fails.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createMiniLmEmbedder, defaultModelsDir, MINILM_FOLDER } from './minilm.js';
import { MemValidationError } from '../errors.js';
import { expectMemError } from '@mem/test-utils';
import { cosine } from '../testing/index.js';

const folder = process.env.MEM_MINILM_PATH ?? path.join(defaultModelsDir(), MINILM_FOLDER);
const available = existsSync(path.join(folder, 'onnx', 'model.onnx')) && existsSync(path.join(folder, 'onnx', 'model_quantized.onnx'));
const required = process.env.MEM_REQUIRE_MODELS === '1';
if (!available && !required) console.warn(`MiniLM reference test skipped: no model folder at ${folder} (run \`pnpm models:fetch\`)`);

const here = path.dirname(fileURLToPath(import.meta.url));
const ref = JSON.parse(readFileSync(path.join(here, 'fixtures', 'minilm-reference.json'), 'utf8')) as {
  sentences: string[];
  fp32: number[][];
  q8: number[][];
};


/** A file of tools/minilm-reference (the texts the fixtures were computed from). */
const referenceFile = (name: string) => readFileSync(path.join(here, '..', '..', '..', '..', 'tools', 'minilm-reference', name), 'utf8');
describe('MiniLM reference fixture', () => {
  it('covers at least 20 of our own sentences, 384-d, from tools/minilm-reference/sentences.txt', () => {
    const txt = referenceFile('sentences.txt');
    expect(ref.sentences).toEqual(txt.split('\n').filter((l) => l.trim()));
    expect(ref.sentences.length).toBeGreaterThanOrEqual(20);
    for (const v of [...ref.fp32, ...ref.q8]) expect(v).toHaveLength(384);
  });
});

describe.skipIf(!available && !required)('all-MiniLM-L6-v2 via Transformers.js vs langchain4j (Java)', () => {
  it.each([
    ['fp32', false, 32],
    ['fp32', false, 1],
    ['q8', true, undefined],
  ] as const)('%s (quantized=%s, batchSize=%s): cosine ≥ 0.9999 for every sentence', async (kind, quantized, batchSize) => {
    const e = createMiniLmEmbedder({ modelPath: folder, quantized, batchSize });
    expect(e.dimension).toBe(384);
    const vs = await e.embed(ref.sentences);
    const cos = vs.map((v, i) => cosine(v, ref[kind][i]));
    expect(Math.min(...cos)).toBeGreaterThanOrEqual(0.9999);
    // a different sentence is far from the reference: the check can fail
    expect(cosine(vs[0], ref[kind][4])).toBeLessThan(0.9);
  }, 120_000);

  it('threads (onnxruntime intra-op threads, default 1): 2 threads give the reference vectors too; a bad count is INVALID_INPUT', async () => {
    const vs = await createMiniLmEmbedder({ modelPath: folder, threads: 2, batchSize: 1 }).embed(ref.sentences.slice(0, 3));
    vs.forEach((v, i) => expect(cosine(v, ref.fp32[i])).toBeGreaterThanOrEqual(0.9999));
    await expectMemError(() => createMiniLmEmbedder({ modelPath: folder, threads: 0 }), MemValidationError, 'INVALID_INPUT');
    await expectMemError(() => createMiniLmEmbedder({ modelPath: folder, env: { MEM_MINILM_THREADS: 'two' } }), MemValidationError, 'INVALID_INPUT');
  }, 120_000);

  it('fp32 and quantized differ (two models checked, not one twice)', () => {
    const c = ref.fp32.map((v, i) => cosine(v, ref.q8[i]));
    expect(Math.min(...c)).toBeLessThan(0.9999);
    expect(Math.min(...c)).toBeGreaterThan(0.9);
  });

  it('a missing folder names `pnpm models:fetch`', () => {
    expect(() => createMiniLmEmbedder({ modelPath: path.join(folder, 'nope') })).toThrow(/pnpm models:fetch/);
  });
});

/**
 * Long inputs against the sentence-transformers recipe (truncate at 256 word pieces keeping [SEP],
 * masked mean pooling, L2 normalise), computed by tools/minilm-reference/st_reference.py with PyPI
 * onnxruntime + tokenizers on the same ONNX files, for our own texts of 97–552 word pieces. The
 * langchain4j vectors above cover short sentences only (and langchain4j splits texts over 510
 * tokens, so it is no reference for long ones).
 */
const st = JSON.parse(readFileSync(path.join(here, 'fixtures', 'minilm-st-reference.json'), 'utf8')) as {
  max_tokens: number;
  texts: string[];
  tokens: number[];
  fp32: number[][];
  q8: number[][];
};

describe('MiniLM long-text fixture', () => {
  it('is tools/minilm-reference/long-texts.txt; at least 3 texts over 256 word pieces and one over 512', () => {
    const txt = referenceFile('long-texts.txt');
    expect(st.texts).toEqual(txt.split('\n---\n').map((t) => t.replace(/\n+$/, '')).filter((t) => t.trim()));
    expect(st.max_tokens).toBe(256);
    expect(st.tokens.filter((n) => n > 256).length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...st.tokens)).toBeGreaterThan(512);
  });
});

describe.skipIf(!available && !required)('all-MiniLM-L6-v2 via Transformers.js vs the sentence-transformers recipe on long texts', () => {
  it.each([32, 1])('fp32 (%s texts per pass): cosine ≥ 0.9999 for every text, truncated ones included', async (batchSize) => {
    const vs = await createMiniLmEmbedder({ modelPath: folder, batchSize }).embed(st.texts);
    const cos = vs.map((v, i) => cosine(v, st.fp32[i]));
    expect(Math.min(...cos)).toBeGreaterThanOrEqual(0.9999);
  }, 120_000);

  it('q8: cosine ≥ 0.99 (int8 kernels differ between onnxruntime builds: Python onnxruntime vs the one Transformers.js runs)', async () => {
    const vs = await createMiniLmEmbedder({ modelPath: folder, quantized: true }).embed(st.texts);
    const cos = vs.map((v, i) => cosine(v, st.q8[i]));
    expect(Math.min(...cos)).toBeGreaterThanOrEqual(0.99);
  }, 120_000);

  it('the check can fail: the longest text read to 512 word pieces, or cut without its [SEP], is not the reference', async () => {
    const i = st.tokens.indexOf(Math.max(...st.tokens));
    const [v512] = await createMiniLmEmbedder({ modelPath: folder, maxTokens: 512 }).embed([st.texts[i]]);
    expect(cosine(v512, st.fp32[i])).toBeLessThan(0.99);
    // Transformers.js' own truncation (the pipeline before the fix) drops the final [SEP]
    const tf: any = await import('@huggingface/transformers');
    tf.env.allowRemoteModels = false;
    const pipe = await tf.pipeline('feature-extraction', folder, { local_files_only: true, dtype: 'fp32', device: 'cpu' });
    pipe.tokenizer.model_max_length = 256;
    const old = await pipe([st.texts[i]], { pooling: 'mean', normalize: true });
    expect(cosine(old.data as Float32Array, st.fp32[i])).toBeLessThan(0.9999);
  }, 120_000);
});

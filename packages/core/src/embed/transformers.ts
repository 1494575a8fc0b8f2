/**
 * Sentence embeddings with Transformers.js (`@huggingface/transformers`, optional peer) from a local
 * model folder, or — only when the caller names a model id — from the Hugging Face hub (or a mirror).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Embedder } from '../types.js';
import { MemValidationError } from '../errors.js';
import { assertTexts, chunk, EmbedderError, ModelNotFoundError, toUnitVector } from './util.js';

export interface TransformersEmbedderOptions {
  /**
   * Folder with `config.json`, `tokenizer.json`, `tokenizer_config.json` and `onnx/model.onnx`
   * (the layout of Hugging Face ONNX exports, e.g. Xenova/all-MiniLM-L6-v2; `pnpm models:fetch`
   * assembles one). Give this or `model`.
   */
  modelPath?: string;
  /**
   * A model id on the Hugging Face hub (e.g. `'Xenova/all-MiniLM-L6-v2'`), for users who can reach it:
   * Transformers.js downloads it on the first `embed` into its cache (`cacheDir`). Needs `dimension`.
   * Give this or `modelPath`; only this option ever lets the embedder use the network.
   */
  model?: string;
  /** With `model`: the hub (or a mirror) base URL, default Transformers.js' (`https://huggingface.co/`). */
  remoteHost?: string;
  /** With `model`: where downloaded files are cached. Default Transformers.js' own cache folder. */
  cacheDir?: string;
  /** How token vectors become one sentence vector: `'mean'` (masked mean, default) or `'cls'` (first token). */
  pooling?: 'mean' | 'cls';
  /** L2-normalise inside the pipeline. Default true. (Outputs are always re-normalised and validated.) */
  normalize?: boolean;
  /** Expected dimension. Default: `hidden_size` (or `d_model`, `dim`) of config.json; a mismatch → DIMENSION_MISMATCH at embed time. */
  dimension?: number;
  /**
   * Texts per forward pass. Default 32 for `'fp32'`/`'fp16'`; default 1 for the quantized variants,
   * whose ONNX graphs quantize activations with one scale per tensor (DynamicQuantizeLinear), so a
   * text's vector would otherwise depend on the other texts (and padding) in its batch (measured with
   * all-MiniLM-L6-v2 q8: cosine 0.95–0.99 to the same text embedded alone).
   */
  batchSize?: number;
  /**
   * Longest input in word pieces (with [CLS]/[SEP]); longer texts are truncated as Hugging Face
   * `tokenizers` does (the text is cut, the closing special tokens kept; `truncateWordPieces`). Default: the
   * tokenizer's `model_max_length` (512 for BERT exports). all-MiniLM-L6-v2 was trained on 128 and is
   * truncated at 256 by its reference implementation (sentence-transformers `max_seq_length`).
   */
  maxTokens?: number;
  /** ONNX weights variant: `'fp32'` (default, `onnx/model.onnx`), `'q8'` (`onnx/model_quantized.onnx`), … as Transformers.js names them. */
  dtype?: 'fp32' | 'fp16' | 'q8' | 'int8' | 'uint8' | 'q4' | 'bnb4' | 'q4f16';
  /** Stored as the embedder's `model`. Default `transformers:<folder name>:<pooling>`. */
  modelName?: string;
  /**
   * onnxruntime session options passed through Transformers.js (`session_options`), e.g.
   * `{ intraOpNumThreads: 1 }`. Default: onnxruntime's (one intra-op thread per core).
   */
  sessionOptions?: { intraOpNumThreads?: number; interOpNumThreads?: number; executionMode?: 'sequential' | 'parallel'; graphOptimizationLevel?: 'disabled' | 'basic' | 'extended' | 'all' };
}

function readDimension(modelPath: string): number | null {
  try {
    const cfg = JSON.parse(readFileSync(path.join(modelPath, 'config.json'), 'utf8')) as Record<string, unknown>;
    const d = cfg.hidden_size ?? cfg.d_model ?? cfg.dim ?? cfg.embedding_size;
    return typeof d === 'number' && Number.isInteger(d) && d > 0 ? d : null;
  } catch {
    return null;
  }
}

/**
 * `createTransformersEmbedder({ modelPath | model, pooling, normalize, dtype })` → Embedder running
 * the Transformers.js `feature-extraction` pipeline on CPU (onnxruntime-node). With `modelPath`,
 * `env.allowRemoteModels` is set to false and `local_files_only` is passed, so nothing is ever
 * downloaded; with `model` (a hub id) Transformers.js fetches the files on the first `embed`. The
 * package is imported lazily on the first `embed`, never at import time.
 *
 * Errors: MODEL_NOT_FOUND (synchronously) when the folder or its config.json is missing, naming the
 * path; MODEL_NOT_FOUND when `@huggingface/transformers` is not installed; EMBEDDER_ERROR when the
 * model fails to load or run; DIMENSION_MISMATCH / EMBEDDER_ERROR for wrong-length or non-finite
 * outputs; TEXT_EMPTY / INVALID_INPUT for bad texts.
 */
export function createTransformersEmbedder(options: TransformersEmbedderOptions): Embedder {
  if (options && typeof options.model === 'string' && options.model.length > 0 && options.modelPath === undefined) return createHubEmbedder(options);
  if (!options || typeof options.modelPath !== 'string' || options.modelPath.length === 0) {
    throw new MemValidationError('INVALID_INPUT', 'createTransformersEmbedder: pass `modelPath` (a local folder) or `model` (a hub model id)');
  }
  const modelPath = path.resolve(options.modelPath);
  let isDir = false;
  try {
    isDir = statSync(modelPath).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) {
    throw new ModelNotFoundError(`Transformers.js model folder not found: ${modelPath}`, { details: { path: modelPath } });
  }
  if (!existsSync(path.join(modelPath, 'config.json'))) {
    throw new ModelNotFoundError(`Transformers.js model folder has no config.json: ${modelPath}`, { details: { path: modelPath } });
  }
  const dimension = options.dimension ?? readDimension(modelPath);
  if (!dimension || !Number.isInteger(dimension) || dimension <= 0) {
    throw new MemValidationError('INVALID_INPUT', `cannot read hidden_size from ${path.join(modelPath, 'config.json')}; pass \`dimension\``, {
      details: { path: modelPath },
    });
  }
  const pooling = options.pooling ?? 'mean';
  const model = options.modelName ?? `transformers:${path.basename(modelPath)}:${pooling}`;
  return pipelineEmbedder(options, { source: modelPath, dimension, model, remote: null });
}

/** `model` given: a hub model id (or a mirror's), downloaded by Transformers.js on first use. */
function createHubEmbedder(options: TransformersEmbedderOptions): Embedder {
  const dimension = options.dimension;
  if (!dimension || !Number.isInteger(dimension) || dimension <= 0) {
    throw new MemValidationError('INVALID_INPUT', `createTransformersEmbedder({ model: '${options.model}' }) needs \`dimension\` (e.g. 384 for all-MiniLM-L6-v2)`);
  }
  const pooling = options.pooling ?? 'mean';
  const model = options.modelName ?? `transformers:${options.model}:${pooling}`;
  return pipelineEmbedder(options, { source: options.model!, dimension, model, remote: { host: options.remoteHost, cacheDir: options.cacheDir } });
}

interface PipelineSource {
  /** Local folder (absolute) or hub id. */
  source: string;
  dimension: number;
  model: string;
  /** null = local folder only (no network). */
  remote: { host?: string; cacheDir?: string } | null;
}

/** The loaded pipeline's parts we drive ourselves (tokenize → truncate → model → pool; `encodeBatch`). */
interface LoadedModel {
  tokenizer: { encode(text: string): number[]; model_max_length?: number; all_special_ids?: number[]; pad_token_id?: number };
  model: (inputs: Record<string, unknown>) => Promise<Record<string, { dims: number[]; data: ArrayLike<number> } | undefined>>;
  Tensor: new (type: string, data: BigInt64Array, dims: number[]) => unknown;
}

function pipelineEmbedder(options: TransformersEmbedderOptions, src: PipelineSource): Embedder {
  const { dimension, model } = src;
  const modelPath = src.source;
  const pooling = options.pooling ?? 'mean';
  if (pooling !== 'mean' && pooling !== 'cls') throw new MemValidationError('INVALID_INPUT', "pooling must be 'mean' or 'cls'");
  const normalize = options.normalize ?? true;
  const dtype = options.dtype ?? 'fp32';
  const batchSize = options.batchSize ?? (dtype === 'fp32' || dtype === 'fp16' ? 32 : 1);
  if (!Number.isInteger(batchSize) || batchSize <= 0) throw new MemValidationError('INVALID_INPUT', 'batchSize must be a positive integer');
  const maxTokens = options.maxTokens;
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 2)) throw new MemValidationError('INVALID_INPUT', 'maxTokens must be an integer ≥ 2');

  type Extractor = LoadedModel;
  let extractor: Promise<Extractor> | null = null;
  const load = (): Promise<Extractor> => {
    if (!extractor) {
      extractor = (async () => {
        let tf: any;
        try {
          tf = await import('@huggingface/transformers');
        } catch (cause) {
          throw new ModelNotFoundError(
            'createTransformersEmbedder needs the optional peer dependency "@huggingface/transformers" (npm install @huggingface/transformers)',
            { cause, details: { package: '@huggingface/transformers' } },
          );
        }
        // Transformers.js settings are process-wide: set them for this load only.
        tf.env.allowRemoteModels = src.remote !== null;
        tf.env.allowLocalModels = src.remote === null;
        if (src.remote?.host) tf.env.remoteHost = src.remote.host.endsWith('/') ? src.remote.host : `${src.remote.host}/`;
        if (src.remote?.cacheDir) tf.env.cacheDir = src.remote.cacheDir;
        try {
          const pipe = await tf.pipeline('feature-extraction', modelPath, {
            local_files_only: src.remote === null,
            dtype,
            device: 'cpu',
            ...(options.sessionOptions ? { session_options: { ...options.sessionOptions } } : {}),
          });
          // We tokenize, truncate and pool ourselves (`encodeBatch`): the pipeline's truncation cuts the
          // sequence AFTER the special tokens were added, so a long text lost its final [SEP].
          return { tokenizer: pipe.tokenizer, model: pipe.model, Tensor: tf.Tensor } as Extractor;
        } catch (cause) {
          throw new EmbedderError(`cannot load Transformers.js model ${src.remote ? `"${modelPath}"` : `from ${modelPath}`}: ${(cause as Error)?.message ?? cause}`, {
            cause,
            details: { path: modelPath },
          });
        }
      })();
      extractor.catch(() => {
        extractor = null;
      });
    }
    return extractor;
  };

  return {
    model,
    dimension,
    async embed(texts: string[]) {
      assertTexts(texts);
      texts.forEach((t, i) => {
        if (t.trim().length === 0) throw new MemValidationError('TEXT_EMPTY', `embed: texts[${i}] is empty or whitespace`, { details: { index: i } });
      });
      if (texts.length === 0) return [];
      const run = await load();
      // Batches of similar length: a batch is padded to its longest text, so batching texts in
      // length order (then putting the vectors back in input order) spends no compute on padding.
      // The vectors do not change (padding is masked out of mean pooling; fp32 batched = one by one).
      const order = texts.map((_, i) => i);
      if (batchSize > 1) order.sort((a, b) => texts[a]!.length - texts[b]!.length || a - b);
      const out: Float32Array[] = new Array(texts.length);
      for (const idx of chunk(order, batchSize)) {
        const batch = idx.map((i) => texts[i]!);
        let t: { dims: number[]; data: ArrayLike<number> };
        try {
          t = await encodeBatch(run, batch, { pooling, normalize, maxTokens });
        } catch (cause) {
          throw new EmbedderError(`Transformers.js inference failed: ${(cause as Error)?.message ?? cause}`, { cause });
        }
        const [rows, cols] = t.dims;
        if (t.dims.length !== 2 || rows !== batch.length) {
          throw new EmbedderError(`Transformers.js returned shape [${t.dims.join(', ')}] for ${batch.length} texts`);
        }
        for (let r = 0; r < rows; r++) {
          const row = Array.prototype.slice.call(t.data, r * cols, (r + 1) * cols) as number[];
          out[idx[r]!] = toUnitVector(row, dimension, `${model} (input ${idx[r]})`);
        }
      }
      return out;
    },
  };
}

/**
 * Word-piece ids of one text cut to `limit` tokens the way Hugging Face `tokenizers` (and so
 * sentence-transformers) truncates (ours): the text's pieces are cut, the special tokens the
 * tokenizer's template adds at the end are kept. For BERT, `[CLS] a b c … [SEP]` becomes
 * `[CLS] a b … [SEP]` with `limit` ids; a sequence without a trailing special token is cut plainly.
 * Transformers.js 3.8 cuts the finished sequence instead, dropping the final `[SEP]` of every text
 * over the limit (measured with all-MiniLM-L6-v2: cosine 0.9987–0.9994 to the sentence-transformers
 * recipe on our texts of 260–552 word pieces; 1.000000 after this fix, tools/minilm-reference).
 */
export function truncateWordPieces(ids: readonly number[], limit: number, special: ReadonlySet<number>): number[] {
  if (ids.length <= limit) return [...ids];
  let tail = 0;
  while (tail < ids.length && tail < limit - 1 && special.has(ids[ids.length - 1 - tail]!)) tail++;
  return [...ids.slice(0, limit - tail), ...ids.slice(ids.length - tail)];
}

/**
 * One forward pass (ours; the recipe of sentence-transformers): each text tokenized alone with its
 * special tokens, truncated by `truncateWordPieces` at min(tokenizer `model_max_length`, `maxTokens`),
 * the batch padded to its longest text with the attention mask 0 on padding; then masked mean
 * pooling (`'mean'`: Σ mask·h / Σ mask) or the first token (`'cls'`), then L2 normalisation.
 * Returns [texts, hidden] row-major.
 */
async function encodeBatch(
  x: LoadedModel,
  texts: string[],
  o: { pooling: 'mean' | 'cls'; normalize: boolean; maxTokens: number | undefined },
): Promise<{ dims: number[]; data: Float32Array }> {
  const tok = x.tokenizer;
  const limit = Math.min(tok.model_max_length ?? Infinity, o.maxTokens ?? Infinity);
  const special = new Set(tok.all_special_ids ?? []);
  const rows = texts.map((t) => truncateWordPieces(tok.encode(t), limit, special));
  const n = Math.max(1, ...rows.map((r) => r.length));
  const ids = new BigInt64Array(rows.length * n).fill(BigInt(tok.pad_token_id ?? 0));
  const mask = new BigInt64Array(rows.length * n);
  rows.forEach((r, i) => r.forEach((id, j) => {
    ids[i * n + j] = BigInt(id);
    mask[i * n + j] = 1n;
  }));
  const out = await x.model({ input_ids: new x.Tensor('int64', ids, [rows.length, n]), attention_mask: new x.Tensor('int64', mask, [rows.length, n]) });
  const h = out.last_hidden_state ?? out.token_embeddings ?? out.logits;
  if (!h || h.dims.length !== 3 || h.dims[0] !== rows.length || h.dims[1] !== n) {
    throw new EmbedderError(`the model returned no token vectors of shape [${rows.length}, ${n}, hidden] (got ${h ? `[${h.dims.join(', ')}]` : 'none'})`);
  }
  const hidden = h.dims[2]!;
  const res = new Float32Array(rows.length * hidden);
  for (let i = 0; i < rows.length; i++) {
    const len = o.pooling === 'cls' ? 1 : rows[i]!.length;
    const v = res.subarray(i * hidden, (i + 1) * hidden);
    for (let j = 0; j < len; j++) {
      const base = (i * n + j) * hidden;
      for (let d = 0; d < hidden; d++) v[d] += h.data[base + d]!;
    }
    if (len > 1) for (let d = 0; d < hidden; d++) v[d] /= len;
    if (o.normalize) {
      let s = 0;
      for (let d = 0; d < hidden; d++) s += v[d]! * v[d]!;
      const norm = Math.max(Math.sqrt(s), 1e-12);
      for (let d = 0; d < hidden; d++) v[d] /= norm;
    }
  }
  return { dims: [rows.length, hidden], data: res };
}

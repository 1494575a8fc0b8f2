/**
 * Sentence embeddings with Transformers.js (`@huggingface/transformers`, optional peer) from a
 * LOCAL model folder only (no model hub).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Embedder } from '../types.js';
import { MemValidationError } from '../errors.js';
import { assertTexts, chunk, EmbedderError, ModelNotFoundError, toUnitVector } from './util.js';

export interface TransformersEmbedderOptions {
  /**
   * Folder with `config.json`, `tokenizer.json`, `tokenizer_config.json` and `onnx/model.onnx`
   * (the layout of Hugging Face ONNX exports, e.g. Xenova/all-MiniLM-L6-v2). Required.
   */
  modelPath: string;
  /** How token vectors become one sentence vector: `'mean'` (masked mean, default) or `'cls'` (first token). */
  pooling?: 'mean' | 'cls';
  /** L2-normalise inside the pipeline. Default true. (Outputs are always re-normalised and validated.) */
  normalize?: boolean;
  /** Expected dimension. Default: `hidden_size` (or `d_model`, `dim`) of config.json; a mismatch → DIMENSION_MISMATCH at embed time. */
  dimension?: number;
  /** Texts per forward pass. Default 32. */
  batchSize?: number;
  /** ONNX weights variant: `'fp32'` (default, `onnx/model.onnx`), `'q8'` (`onnx/model_quantized.onnx`), … as Transformers.js names them. */
  dtype?: 'fp32' | 'fp16' | 'q8' | 'int8' | 'uint8' | 'q4' | 'bnb4' | 'q4f16';
  /** Stored as the embedder's `model`. Default `transformers:<folder name>:<pooling>`. */
  modelName?: string;
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
 * `createTransformersEmbedder({ modelPath, pooling, normalize })` → Embedder running the
 * Transformers.js `feature-extraction` pipeline on CPU (onnxruntime-node) from a local folder.
 * `env.allowRemoteModels` is set to false and `local_files_only` is passed, so nothing is ever
 * downloaded. The package is imported lazily on the first `embed`.
 *
 * Errors: MODEL_NOT_FOUND (synchronously) when the folder or its config.json is missing, naming the
 * path; MODEL_NOT_FOUND when `@huggingface/transformers` is not installed; EMBEDDER_ERROR when the
 * model fails to load or run; DIMENSION_MISMATCH / EMBEDDER_ERROR for wrong-length or non-finite
 * outputs; TEXT_EMPTY / INVALID_INPUT for bad texts.
 */
export function createTransformersEmbedder(options: TransformersEmbedderOptions): Embedder {
  if (!options || typeof options.modelPath !== 'string' || options.modelPath.length === 0) {
    throw new MemValidationError('INVALID_INPUT', 'createTransformersEmbedder: `modelPath` (a local folder) is required');
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
  const pooling = options.pooling ?? 'mean';
  if (pooling !== 'mean' && pooling !== 'cls') throw new MemValidationError('INVALID_INPUT', "pooling must be 'mean' or 'cls'");
  const normalize = options.normalize ?? true;
  const batchSize = options.batchSize ?? 32;
  if (!Number.isInteger(batchSize) || batchSize <= 0) throw new MemValidationError('INVALID_INPUT', 'batchSize must be a positive integer');
  const dimension = options.dimension ?? readDimension(modelPath);
  if (!dimension || !Number.isInteger(dimension) || dimension <= 0) {
    throw new MemValidationError('INVALID_INPUT', `cannot read hidden_size from ${path.join(modelPath, 'config.json')}; pass \`dimension\``, {
      details: { path: modelPath },
    });
  }
  const model = options.modelName ?? `transformers:${path.basename(modelPath)}:${pooling}`;

  type Extractor = (texts: string[], o: { pooling: string; normalize: boolean }) => Promise<{ dims: number[]; data: ArrayLike<number> }>;
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
        tf.env.allowRemoteModels = false;
        tf.env.allowLocalModels = true;
        try {
          return (await tf.pipeline('feature-extraction', modelPath, {
            local_files_only: true,
            dtype: options.dtype ?? 'fp32',
            device: 'cpu',
          })) as Extractor;
        } catch (cause) {
          throw new EmbedderError(`cannot load Transformers.js model from ${modelPath}: ${(cause as Error)?.message ?? cause}`, {
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
      const out: Float32Array[] = [];
      let offset = 0;
      for (const batch of chunk(texts, batchSize)) {
        let t: { dims: number[]; data: ArrayLike<number> };
        try {
          t = await run(batch, { pooling, normalize });
        } catch (cause) {
          throw new EmbedderError(`Transformers.js inference failed: ${(cause as Error)?.message ?? cause}`, { cause });
        }
        const [rows, cols] = t.dims;
        if (t.dims.length !== 2 || rows !== batch.length) {
          throw new EmbedderError(`Transformers.js returned shape [${t.dims.join(', ')}] for ${batch.length} texts`);
        }
        for (let r = 0; r < rows; r++) {
          const row = Array.prototype.slice.call(t.data, r * cols, (r + 1) * cols) as number[];
          out.push(toUnitVector(row, dimension, `${model} (input ${offset + r})`));
        }
        offset += batch.length;
      }
      return out;
    },
  };
}

/**
 * all-MiniLM-L6-v2 (384-d sentence encoder, mean pooling, Jev-Mem's default encoder) from the local
 * model folder that `pnpm models:fetch` assembles (ours).
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Embedder } from '../types.js';
import { createTransformersEmbedder } from './transformers.js';
import { ModelNotFoundError } from './util.js';
import { MemValidationError } from '../errors.js';

/** Folder name of the MiniLM model inside the models folder. */
export const MINILM_FOLDER = 'all-MiniLM-L6-v2';

/**
 * The models folder: `MEM_MODELS_DIR`, else `${XDG_CACHE_HOME:-~/.cache}/mem/models` — where
 * `pnpm models:fetch` (scripts/models-fetch.mjs, same rule) puts the MiniLM folder, the SmolLM2 GGUF
 * and the LLM server's venv. Pure: reads only `env` and the home folder.
 */
export function defaultModelsDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MEM_MODELS_DIR) return path.resolve(env.MEM_MODELS_DIR);
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'mem', 'models');
}

export interface MiniLmEmbedderOptions {
  /** The Transformers.js folder. Default `MEM_MINILM_PATH`, else `<defaultModelsDir()>/all-MiniLM-L6-v2`. */
  modelPath?: string;
  /** Use `onnx/model_quantized.onnx` (dynamic int8, 23 MB) instead of `onnx/model.onnx` (fp32, 90 MB). Default false. */
  quantized?: boolean;
  /** Texts per forward pass (see `TransformersEmbedderOptions.batchSize`; default 32 fp32, 1 quantized). */
  batchSize?: number;
  /** Longest input in word pieces; longer texts are truncated. Default 256, the model's `max_seq_length` in sentence-transformers (its reference implementation). */
  maxTokens?: number;
  /** Environment for the defaults. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /**
   * onnxruntime intra-op threads. Default: `MEM_MINILM_THREADS`, else 1: a sentence or a batch of 32
   * short turns is too small to split across threads, and onnxruntime's spinning worker threads cost
   * CPU (measured on 2 cores, issue 33: one at a time 2.0× the sentences per CPU second of the
   * two-thread default, batched 1.9×; bench/minilm-ort.ts). Set more for long texts on an idle machine.
   */
  threads?: number;
}

/**
 * `createMiniLmEmbedder({ quantized })` → a 384-d Embedder (`model` = `all-MiniLM-L6-v2` or
 * `all-MiniLM-L6-v2:q8`; unit vectors, masked mean pooling, inputs truncated at 256 word pieces keeping
 * the final [SEP] — the sentence-transformers recipe, checked on long texts by minilm.test.ts). Needs the optional peer
 * `@huggingface/transformers`; loads lazily on the first `embed`; never downloads.
 *
 * Errors: MODEL_NOT_FOUND (synchronously) when the folder or the chosen ONNX file is missing, with
 * the hint to run `pnpm models:fetch`; otherwise those of `createTransformersEmbedder`.
 */
export function createMiniLmEmbedder(options: MiniLmEmbedderOptions = {}): Embedder {
  const env = options.env ?? process.env;
  const modelPath = path.resolve(options.modelPath ?? env.MEM_MINILM_PATH ?? path.join(defaultModelsDir(env), MINILM_FOLDER));
  const file = path.join(modelPath, 'onnx', options.quantized ? 'model_quantized.onnx' : 'model.onnx');
  if (!existsSync(path.join(modelPath, 'config.json')) || !existsSync(file)) {
    throw new ModelNotFoundError(
      `all-MiniLM-L6-v2 is not in ${modelPath} (missing ${existsSync(path.join(modelPath, 'config.json')) ? path.relative(modelPath, file) : 'config.json'}): run \`pnpm models:fetch\` (or set MEM_MODELS_DIR / MEM_MINILM_PATH)`,
      { details: { path: modelPath } },
    );
  }
  const threads = options.threads ?? (env.MEM_MINILM_THREADS ? Number(env.MEM_MINILM_THREADS) : 1);
  if (!Number.isInteger(threads) || threads < 1) {
    throw new MemValidationError('INVALID_INPUT', `MiniLM threads must be a positive integer (option threads or MEM_MINILM_THREADS), got ${threads}`);
  }
  return createTransformersEmbedder({
    modelPath,
    dtype: options.quantized ? 'q8' : 'fp32',
    pooling: 'mean',
    dimension: 384,
    batchSize: options.batchSize,
    maxTokens: options.maxTokens ?? 256,
    sessionOptions: { intraOpNumThreads: threads },
    modelName: options.quantized ? 'all-MiniLM-L6-v2:q8' : 'all-MiniLM-L6-v2',
  });
}

/**
 * Which embedder the demo agent uses (ours): `--embedder glove|minilm|openai`, else MEM_EMBEDDER,
 * else `glove`. One place for the CLI, the demo, the HTTP server and the evals.
 *
 * - `glove` (default): core's offline `createWinkEmbedder()` (100-d GloVe, SIF), no set-up.
 * - `minilm`: core's `createMiniLmEmbedder()` (all-MiniLM-L6-v2, 384-d) from the folder
 *   `pnpm models:fetch` assembles (MEM_MODELS_DIR / MEM_MINILM_PATH); MEM_MINILM_QUANTIZED=1 picks the
 *   int8 ONNX file.
 * - `openai`: core's `createOpenAIEmbedder` on an OpenAI-compatible `/embeddings` endpoint:
 *   MEM_EMBED_MODEL and MEM_EMBED_DIMENSION (required), MEM_EMBED_BASE_URL / MEM_EMBED_API_KEY
 *   (default MEM_LLM_BASE_URL / MEM_LLM_API_KEY).
 * With MEM_EMBED_CACHE_DIR set, the embedder is wrapped in core's `createCachedEmbedder` (a text
 * already embedded by the same model is read back from a file in that folder: re-running an eval
 * with MiniLM costs the encoder only once).
 */
import { createCachedEmbedder, createMiniLmEmbedder, createOpenAIEmbedder, createWinkEmbedder, MemValidationError, type Embedder } from '@mem/core';

export const EMBEDDER_KINDS = ['glove', 'minilm', 'openai'] as const;
export type EmbedderKind = (typeof EMBEDDER_KINDS)[number];

/** The option if given, else MEM_EMBEDDER, else 'glove'. INVALID_INPUT for another name. */
export function resolveEmbedderKind(option: string | undefined, env: NodeJS.ProcessEnv = process.env): EmbedderKind {
  const v = (option ?? env.MEM_EMBEDDER ?? 'glove').trim().toLowerCase();
  if (!(EMBEDDER_KINDS as readonly string[]).includes(v)) {
    throw new MemValidationError('INVALID_INPUT', `embedder must be one of ${EMBEDDER_KINDS.join(', ')} (--embedder or MEM_EMBEDDER), got "${v}"`);
  }
  return v as EmbedderKind;
}

/**
 * Build the embedder of `kind` (cached on disk when MEM_EMBED_CACHE_DIR is set). Throws MODEL_NOT_FOUND for `minilm` without its folder (naming
 * `pnpm models:fetch`), INVALID_INPUT for `openai` without MEM_EMBED_MODEL / MEM_EMBED_DIMENSION or
 * an endpoint.
 */
export function createEmbedderFor(kind: EmbedderKind, env: NodeJS.ProcessEnv = process.env): Embedder {
  const inner = createUncachedEmbedder(kind, env);
  const dir = env.MEM_EMBED_CACHE_DIR?.trim();
  return dir ? createCachedEmbedder(inner, { dir }) : inner;
}

function createUncachedEmbedder(kind: EmbedderKind, env: NodeJS.ProcessEnv): Embedder {
  switch (kind) {
    case 'glove':
      return createWinkEmbedder();
    case 'minilm':
      return createMiniLmEmbedder({ quantized: env.MEM_MINILM_QUANTIZED === '1', env });
    case 'openai': {
      const model = env.MEM_EMBED_MODEL?.trim();
      const dimension = Number(env.MEM_EMBED_DIMENSION);
      const baseURL = env.MEM_EMBED_BASE_URL ?? env.MEM_LLM_BASE_URL;
      const apiKey = env.MEM_EMBED_API_KEY ?? env.MEM_LLM_API_KEY;
      if (!model || !Number.isInteger(dimension) || dimension <= 0 || !baseURL) {
        throw new MemValidationError('INVALID_INPUT', '--embedder openai needs MEM_EMBED_MODEL, MEM_EMBED_DIMENSION and MEM_EMBED_BASE_URL (or MEM_LLM_BASE_URL); MEM_EMBED_API_KEY defaults to MEM_LLM_API_KEY');
      }
      return createOpenAIEmbedder({ model, dimension, baseURL, apiKey });
    }
    default:
      throw new MemValidationError('INVALID_INPUT', `unknown embedder "${String(kind)}"`);
  }
}

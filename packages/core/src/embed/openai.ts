/**
 * Embeddings from any OpenAI-compatible `/v1/embeddings` endpoint, via the official `openai` SDK.
 */
import type { Embedder } from '../types.js';
import { MemValidationError } from '../errors.js';
import { assertTexts, chunk, EmbedderError, toUnitVector } from './util.js';

export interface OpenAIEmbedderOptions {
  /** Embedding model id, e.g. `text-embedding-3-small`. Required. */
  model: string;
  /** Length of the returned vectors (e.g. 1536 for text-embedding-3-small). Required: stores record it before the first call. */
  dimension: number;
  /** API base URL (ending in `/v1` for OpenAI-style servers). Default: env `OPENAI_BASE_URL`, else `https://api.openai.com/v1`. */
  baseURL?: string;
  /** Default: env `OPENAI_API_KEY`; with a custom `baseURL` and no key, the placeholder `"unused"` is sent (local servers). */
  apiKey?: string;
  /** Texts per request. Default 96 (OpenAI accepts up to 2048). */
  batchSize?: number;
  /** Send `dimensions` in the request (text-embedding-3 models can shorten vectors). Default false. */
  requestDimensions?: boolean;
  /** Per-request timeout in ms. Default 30 000. */
  timeoutMs?: number;
  /** SDK retries on 408/409/429/5xx and connection errors. Default 2. */
  maxRetries?: number;
  /** Extra HTTP headers on every request. */
  headers?: Record<string, string>;
}

/**
 * `createOpenAIEmbedder(options)` → Embedder over `POST {baseURL}/embeddings` (OpenAI protocol;
 * the `openai` npm SDK, loaded lazily). Inputs are sent in batches of `batchSize` with
 * `encoding_format: "float"` (base64 float32 replies are decoded too); every returned vector is checked (count, `index` order, length
 * `dimension`, finite) and L2-normalised.
 *
 * Errors: INVALID_INPUT for bad options or non-string texts; TEXT_EMPTY for an empty text (the API
 * rejects them); DIMENSION_MISMATCH when the server returns another length; EMBEDDER_ERROR for
 * HTTP/API failures (`details.status` holds the HTTP status) and malformed responses.
 */
export function createOpenAIEmbedder(options: OpenAIEmbedderOptions): Embedder {
  if (!options || typeof options.model !== 'string' || options.model.length === 0) {
    throw new MemValidationError('INVALID_INPUT', 'createOpenAIEmbedder: `model` is required');
  }
  const dimension = options.dimension;
  if (!Number.isInteger(dimension) || dimension <= 0) {
    throw new MemValidationError('INVALID_INPUT', 'createOpenAIEmbedder: `dimension` must be a positive integer');
  }
  const batchSize = options.batchSize ?? 96;
  if (!Number.isInteger(batchSize) || batchSize <= 0 || batchSize > 2048) {
    throw new MemValidationError('INVALID_INPUT', 'createOpenAIEmbedder: `batchSize` must be an integer in 1..2048');
  }
  if (options.timeoutMs !== undefined && !(typeof options.timeoutMs === 'number' && Number.isFinite(options.timeoutMs) && options.timeoutMs > 0)) {
    throw new MemValidationError('INVALID_INPUT', `createOpenAIEmbedder: \`timeoutMs\` must be a finite number of ms > 0, got ${String(options.timeoutMs)}`);
  }
  if (options.maxRetries !== undefined && !(Number.isInteger(options.maxRetries) && options.maxRetries >= 0)) {
    throw new MemValidationError('INVALID_INPUT', `createOpenAIEmbedder: \`maxRetries\` must be an integer >= 0, got ${String(options.maxRetries)}`);
  }
  const baseURL = options.baseURL ?? process.env.OPENAI_BASE_URL;
  const apiKey = options.apiKey ?? process.env.OPENAI_API_KEY ?? (baseURL ? 'unused' : undefined);
  if (!apiKey) {
    throw new MemValidationError('INVALID_INPUT', 'createOpenAIEmbedder: no apiKey (pass `apiKey` or set OPENAI_API_KEY)');
  }

  type Client = { embeddings: { create(body: Record<string, unknown>): Promise<{ data?: { embedding: unknown; index: number }[] }> } };
  let client: Promise<Client> | null = null;
  const getClient = (): Promise<Client> => {
    if (!client) {
      client = import('openai').then((mod) => {
        const OpenAI = (mod as any).default ?? (mod as any).OpenAI;
        return new OpenAI({
          apiKey,
          baseURL,
          timeout: Math.min(options.timeoutMs ?? 30_000, 2_147_483_647), // setTimeout fires a longer delay after 1 ms
          maxRetries: options.maxRetries ?? 2,
          defaultHeaders: options.headers,
        }) as Client;
      });
    }
    return client;
  };

  const embedBatch = async (batch: string[], offset: number): Promise<Float32Array[]> => {
    const c = await getClient();
    let res: { data?: { embedding: unknown; index: number }[] };
    try {
      res = await c.embeddings.create({
        model: options.model,
        input: batch,
        encoding_format: 'float',
        ...(options.requestDimensions ? { dimensions: dimension } : {}),
      });
    } catch (cause) {
      const status = (cause as { status?: number })?.status;
      throw new EmbedderError(
        `OpenAI-compatible embeddings request failed${status ? ` (HTTP ${status})` : ''}: ${(cause as Error)?.message ?? String(cause)}`,
        { cause, details: { status: status ?? null, model: options.model, baseURL: baseURL ?? null } },
      );
    }
    const data = res?.data;
    if (!Array.isArray(data) || data.length !== batch.length) {
      throw new EmbedderError(`embeddings response has ${Array.isArray(data) ? data.length : 'no'} items for ${batch.length} inputs`);
    }
    const out: Float32Array[] = new Array(batch.length);
    for (let k = 0; k < data.length; k++) {
      const item = data[k];
      if (item === null || typeof item !== 'object') throw new EmbedderError(`embeddings response item ${k} is not an object`);
      const i = typeof item.index === 'number' ? item.index : k;
      if (!Number.isInteger(i) || i < 0 || i >= batch.length || out[i]) throw new EmbedderError(`embeddings response has a bad index ${i}`);
      let emb = item.embedding as unknown;
      // Some compatible servers ignore encoding_format and send base64 little-endian float32.
      if (typeof emb === 'string') {
        const bytes = Buffer.from(emb, 'base64');
        if (bytes.length % 4 !== 0) throw new EmbedderError('embeddings response item is malformed base64 (not float32)');
        const f = new Float32Array(bytes.length / 4);
        for (let j = 0; j < f.length; j++) f[j] = bytes.readFloatLE(j * 4);
        emb = f;
      }
      if (!Array.isArray(emb) && !(emb instanceof Float32Array)) {
        throw new EmbedderError('embeddings response item is neither a float array nor base64 float32');
      }
      out[i] = toUnitVector(emb as ArrayLike<number>, dimension, `${options.model} (input ${offset + i})`);
    }
    return out;
  };

  return {
    model: options.model,
    dimension,
    async embed(texts: string[]) {
      assertTexts(texts);
      texts.forEach((t, i) => {
        if (t.trim().length === 0) throw new MemValidationError('TEXT_EMPTY', `embed: texts[${i}] is empty or whitespace`, { details: { index: i } });
      });
      const out: Float32Array[] = [];
      let offset = 0;
      for (const batch of chunk(texts, batchSize)) {
        out.push(...(await embedBatch(batch, offset)));
        offset += batch.length;
      }
      return out;
    },
  };
}

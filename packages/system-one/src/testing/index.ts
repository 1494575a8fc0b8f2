/**
 * Test helpers of `@mem/system-one` (import from `@mem/system-one/testing`; ours).
 *
 * `startOpenAICompatibleServer(handlers)` starts a loopback HTTP server (node:http, 127.0.0.1, a free
 * port) speaking the OpenAI REST protocol well enough for clients built on the `openai` package:
 * `POST /v1/chat/completions`, `POST /v1/embeddings`, `GET /v1/models`, plus any other path through
 * `handlers.other`. Each handler returns a {@link MockReply}: a JSON body (default status 200), a raw
 * body (for malformed replies), a status (429, 500 …), headers (e.g. `retry-after`) and a delay (slow
 * replies). Every request is recorded in `server.requests`.
 * Example: `startOpenAICompatibleServer({ embeddings: (body) => ({ json: embeddingsResponse(vectorsFor(body.input), { request: body }) }) })`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MockReply {
  status?: number;
  headers?: Record<string, string>;
  /** JSON body (serialised). */
  json?: unknown;
  /** Raw body, sent as-is (use for malformed replies). Takes precedence over `json`. */
  body?: string;
  /** Wait this many ms before replying (slow servers, timeouts). */
  delayMs?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

export type MockHandler = (body: any, request: RecordedRequest) => MockReply | Promise<MockReply>;

export interface OpenAICompatibleHandlers {
  /** POST /v1/chat/completions. */
  chat?: MockHandler;
  /** POST /v1/embeddings. */
  embeddings?: MockHandler;
  /** GET /v1/models; default lists `mock-model`. */
  models?: MockHandler;
  /** Any other method/path. */
  other?: MockHandler;
}

export interface MockOpenAIServer {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:41234/v1` (pass as `baseURL`). */
  url: string;
  /** Origin without `/v1`, e.g. `http://127.0.0.1:41234`. */
  origin: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Start the loopback server. Close it with `await server.close()`. */
export async function startOpenAICompatibleServer(handlers: OpenAICompatibleHandlers = {}): Promise<MockOpenAIServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: any = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        /* keep raw text */
      }
      const path = (req.url ?? '/').split('?')[0];
      const rec: RecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body };
      requests.push(rec);
      let handler: MockHandler | undefined;
      if (rec.method === 'POST' && path.endsWith('/chat/completions')) handler = handlers.chat;
      else if (rec.method === 'POST' && path.endsWith('/embeddings')) handler = handlers.embeddings;
      else if (rec.method === 'GET' && path.endsWith('/models'))
        handler = handlers.models ?? (() => ({ json: { object: 'list', data: [{ id: 'mock-model', object: 'model', created: 0, owned_by: 'mock' }] } }));
      handler ??= handlers.other;
      let reply: MockReply;
      try {
        reply = handler ? await handler(body, rec) : { status: 404, json: { error: { message: `no handler for ${rec.method} ${path}`, type: 'not_found' } } };
      } catch (e) {
        reply = { status: 500, json: { error: { message: e instanceof Error ? e.message : String(e), type: 'server_error' } } };
      }
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (res.destroyed) return;
      const payload = reply.body ?? (reply.json === undefined ? '' : JSON.stringify(reply.json));
      res.writeHead(reply.status ?? 200, { 'content-type': reply.body !== undefined ? 'text/plain' : 'application/json', ...reply.headers });
      res.end(payload);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/v1`,
    origin,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A chat.completions response with `content`, optionally with logprobs of the first token. */
export function chatCompletion(
  content: string,
  options: { topLogprobs?: { token: string; logprob: number }[]; model?: string } = {},
): Record<string, unknown> {
  const logprobs = options.topLogprobs
    ? {
        content: [
          {
            token: options.topLogprobs[0]?.token ?? content,
            logprob: options.topLogprobs[0]?.logprob ?? 0,
            bytes: null,
            top_logprobs: options.topLogprobs.map((t) => ({ ...t, bytes: null })),
          },
        ],
        refusal: null,
      }
    : null;
  return {
    id: 'chatcmpl-mock',
    object: 'chat.completion',
    created: 0,
    model: options.model ?? 'mock-model',
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

/**
 * An embeddings response for the given vectors. The `openai` package asks for
 * `encoding_format: 'base64'` by default and decodes little-endian float32; pass the request body as
 * `request` (or set `encodingFormat`) so the reply uses the encoding the client asked for.
 */
export function embeddingsResponse(
  vectors: ArrayLike<number>[],
  options: { model?: string; encodingFormat?: 'float' | 'base64'; request?: { encoding_format?: string } } = {},
): Record<string, unknown> {
  const format = options.encodingFormat ?? (options.request?.encoding_format === 'base64' ? 'base64' : 'float');
  return {
    object: 'list',
    data: vectors.map((v, index) => ({
      object: 'embedding',
      index,
      embedding: format === 'base64' ? Buffer.from(Float32Array.from(v).buffer).toString('base64') : Array.from(v),
    })),
    model: options.model ?? 'mock-embedding',
    usage: { prompt_tokens: 1, total_tokens: 1 },
  };
}

/**
 * What the @mem HTTP services share (the gate service here, the demo agent's memory API; ours): JSON
 * error bodies `{ error: { code, message } }`, with the HTTP status taken from the category of any
 * `@mem` error (recognised by its shared marker, so this package needs no `@mem/core`); the gate
 * decision's schema; listening with JSON client errors and listen errors a user can act on.
 */
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Duplex } from 'node:stream';
import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';

/** The marker every `@mem` error carries (`MemError.isInstance` of @mem/core reads the same one). */
const MEM_ERROR_MARKER = Symbol.for('@mem/error');

function isMemError(e: unknown): e is Error & { code: string; category: string } {
  return typeof e === 'object' && e !== null && (e as any)[MEM_ERROR_MARKER] === true;
}

/** HTTP status of each MemError category. */
export const STATUS_BY_CATEGORY: Record<string, 400 | 404 | 409 | 503 | 500> = {
  validation: 400,
  not_found: 404,
  conflict: 409,
  unavailable: 503,
  internal: 500,
};

/** The OpenAPI schema of an error body, registered under `name` with an example code. */
export function errorSchema(name: string, exampleCode: string) {
  return z.object({ error: z.object({ code: z.string().openapi({ example: exampleCode }), message: z.string() }) }).openapi(name);
}

/** Reply with `{ error: { code, message } }` and `status`. */
export function errorJson(c: Context, status: number, code: string, message: string) {
  return c.json({ error: { code, message } }, status as any);
}

/** Error code of a hono HTTPException by status (bad JSON, auth, body size, media type). */
function httpExceptionCode(status: number): string {
  if (status === 400) return 'INVALID_JSON';
  if (status === 401) return 'UNAUTHORIZED';
  if (status === 413) return 'PAYLOAD_TOO_LARGE';
  if (status === 415) return 'UNSUPPORTED_MEDIA_TYPE';
  return 'HTTP_ERROR';
}

/**
 * An OpenAPIHono app whose every error is a JSON body: request validation → 400 INVALID_INPUT,
 * a `@mem` error → its category's status and code, HTTPException → its status, unknown routes → 404, and
 * anything else → 500 INTERNAL after `onInternal(e)`. `mapError` handles a service's own error types first.
 */
export function createJsonApp(options: { onInternal: (e: unknown) => void; mapError?: (e: Error, c: Context) => Response | undefined }) {
  const app = new OpenAPIHono({
    defaultHook: (result, c) => {
      if (!result.success) {
        const issue = result.error.issues[0];
        const where = issue?.path?.length ? `${issue.path.join('.')}: ` : '';
        return errorJson(c, 400, 'INVALID_INPUT', `${where}${issue?.message ?? 'invalid input'}`);
      }
    },
  });
  app.onError((e, c) => {
    const mapped = options.mapError?.(e, c);
    if (mapped) return mapped;
    if (isMemError(e)) return errorJson(c, STATUS_BY_CATEGORY[e.category] ?? 500, e.code, e.message);
    if (e instanceof HTTPException) return errorJson(c, e.status, httpExceptionCode(e.status), e.message || 'Bad request');
    options.onInternal(e);
    return errorJson(c, 500, 'INTERNAL', 'Internal error');
  });
  app.notFound((c) => errorJson(c, 404, 'NOT_FOUND', `No route ${c.req.method} ${new URL(c.req.url).pathname}`));
  return app;
}

/** How long a connection refused by Node's HTTP parser stays open after the JSON reply (ms). */
const CLIENT_ERROR_GRACE_MS = 1000;

/** The status, code and message of an error Node's HTTP parser raises before the app sees the request. */
function clientErrorReply(code: string | undefined): { status: number; code: string; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      code: 'HEADERS_TOO_LARGE',
      message: `The request line and headers are over ${maxHeaderSize} bytes (Node's maxHeaderSize, --max-http-header-size): shorten the query string; /v1/search and /v1/ask take their input in a JSON body`,
    };
  }
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'Chunk extensions too large' };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, code: 'REQUEST_TIMEOUT', message: 'The request was not received in time' };
  return { status: 400, code: 'BAD_REQUEST', message: 'The request is not valid HTTP/1.1' };
}

/**
 * Answer the requests Node's HTTP parser refuses (an oversized request line or headers, malformed
 * HTTP, a request timeout) with the same `{ error: { code, message } }` body as every other error,
 * instead of Node's bare status line (ours). Statuses are Node's own (431, 413, 408, 400). Written
 * straight to the socket, which is then ended and destroyed a second later at the latest; nothing is
 * written when a response is already under way on that socket or the peer has gone.
 */
export function answerClientErrorsAsJson(server: { on(event: 'clientError', listener: (err: Error & { code?: string }, socket: Duplex) => void): unknown }): void {
  server.on('clientError', (err, socket) => {
    if (socket.writableEnded) return; // already answered (the parser can fail again on later bytes)
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const reply = clientErrorReply(err.code);
    const body = JSON.stringify({ error: { code: reply.code, message: reply.message } });
    socket.end(
      `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? 'Error'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    // like Node's own reply, the connection does not outlive it: a client that keeps its half open
    // is cut after a grace second (immediately would risk a reset that loses the reply)
    const cut = setTimeout(() => socket.destroy(), CLIENT_ERROR_GRACE_MS);
    cut.unref();
    socket.once('close', () => clearTimeout(cut));
  });
}

/** A listen failure the user can act on (ours): `code` PORT_IN_USE, PORT_NOT_ALLOWED or HOST_UNAVAILABLE. */
export class ListenError extends Error {
  constructor(
    readonly code: 'PORT_IN_USE' | 'PORT_NOT_ALLOWED' | 'HOST_UNAVAILABLE',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ListenError';
  }
}

/**
 * Turn a `listen` error into a ListenError naming the address and what to do (a port in use, a
 * privileged port, an address this machine does not have); any other error is returned as it is.
 */
export function listenError(e: unknown, host: string, port: number): unknown {
  const code = (e as NodeJS.ErrnoException)?.code;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (code === 'EADDRINUSE') return new ListenError('PORT_IN_USE', `cannot listen on ${where}: the port is already in use (another server?); pass --port <n>, or --port 0 for any free port`, { cause: e });
  if (code === 'EACCES') return new ListenError('PORT_NOT_ALLOWED', `cannot listen on ${where}: permission denied (ports below 1024 need privileges); pass --port <n> with n ≥ 1024`, { cause: e });
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return new ListenError('HOST_UNAVAILABLE', `cannot listen on ${where}: this machine has no such address; pass --host 127.0.0.1 (or 0.0.0.0 for every interface)`, { cause: e });
  return e;
}

/**
 * Serve `fetch` on `host`:`port` (0 = a free port), answering refused requests as JSON
 * (`answerClientErrorsAsJson`); `configure` sees the server before it listens. Resolves with the
 * listening server, its port and URL (an IPv6 host in brackets); rejects with `listenError`'s error.
 */
export async function listenJson(
  fetch: Parameters<typeof serve>[0]['fetch'],
  host: string,
  port: number,
  configure?: (server: ReturnType<typeof serve>) => void,
): Promise<{ server: ReturnType<typeof serve>; port: number; url: string }> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch, port, hostname: host }, () => resolve(s));
    answerClientErrorsAsJson(s);
    configure?.(s);
    s.once('error', reject);
  }).catch((e: unknown) => {
    throw listenError(e, host, port);
  });
  const actual = (server.address() as AddressInfo).port;
  return { server, port: actual, url: `http://${host.includes(':') ? `[${host}]` : host}:${actual}` };
}

/**
 * The fields of a SAGE gate decision (`GateDecision` of `@mem/gate-vmf`) as an OpenAPI schema; each
 * service extends it with its own fields and registers it as `GateDecision`.
 */
export const gateDecisionSchema = z.object({
  action: z.enum(['add', 'update', 'noop']),
  novelty: z.number(),
  score: z.number(),
  threshold: z.number(),
  kappa: z.number(),
  density: z.number(),
  nearest: z.object({ id: z.string(), cosine: z.number() }).nullable(),
});

/**
 * The stdio transport of `mem mcp` (ours, issue 32 point 5): the SDK's newline-delimited JSON-RPC
 * framing (`@modelcontextprotocol/sdk/shared/stdio.js`), plus the error answers JSON-RPC 2.0 §5.1
 * requires and the SDK's `StdioServerTransport` never sends (it hands the failure to `onerror`, so a
 * client waits for ever):
 *
 * - a line that is not JSON → `{ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error…' } }`;
 * - JSON that is not a JSON-RPC 2.0 message (`[1,2]`, `{}`, a `method` that is not a string) →
 *   `-32600 Invalid Request` with `id: null`, or the request's own id when it carries a well-formed
 *   one (a string or a number); a batch (array) gets one answer per element, an empty one a single
 *   answer (§6). MCP has no batches (2025-06-18), so elements of a batch are never run.
 * - a line that is not UTF-8 → `-32700` too (decoded, its bytes would become U+FFFD in a stored text);
 * - a line longer than `maxLineBytes` (default 10 MiB, the SDK's buffer limit) is dropped and
 *   answered with `-32600`, instead of the SDK's way of closing the transport.
 *
 * The server stays up after each of these. Blank lines are ignored.
 */
import { isUtf8 } from 'node:buffer';
import process from 'node:process';
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** JSON-RPC 2.0 error codes (spec §5.1). */
export const JSONRPC_PARSE_ERROR = -32700;
export const JSONRPC_INVALID_REQUEST = -32600;

const DEFAULT_MAX_LINE_BYTES = 10 * 1024 * 1024;

/** The JSON-RPC error object answering a malformed message (`id` null unless the request's own id could be read). */
export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string };
}

function errorResponse(code: number, message: string, id: string | number | null = null): JsonRpcErrorResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** The id of a rejected request when it is well-formed (a string or a finite number), else null (§5). */
function idOf(value: unknown): string | number | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/**
 * What one line of input is: a message to hand to the server, or the error answer(s) to write back.
 * Pure (no I/O); exported for tests.
 */
export function readJsonRpcLine(line: string): { message: JSONRPCMessage } | { reply: JsonRpcErrorResponse | JsonRpcErrorResponse[] } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e) {
    return { reply: errorResponse(JSONRPC_PARSE_ERROR, `Parse error: ${(e as Error).message}`) };
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return { reply: errorResponse(JSONRPC_INVALID_REQUEST, 'Invalid Request: empty batch') };
    return { reply: value.map((v) => errorResponse(JSONRPC_INVALID_REQUEST, 'Invalid Request: batches are not supported by MCP; send one message per line', idOf(v))) };
  }
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (!parsed.success) {
    const why = parsed.error.issues[0];
    const where = why?.path?.length ? ` at ${why.path.join('.')}` : '';
    return { reply: errorResponse(JSONRPC_INVALID_REQUEST, `Invalid Request: not a JSON-RPC 2.0 message${where}${why?.message ? ` (${why.message})` : ''}`, idOf(value)) };
  }
  return { message: parsed.data };
}

/** A newline-delimited JSON-RPC transport over a readable and a writable stream (default stdin / stdout). */
export class JsonRpcStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private buffer: Buffer = Buffer.alloc(0);
  /** True while the rest of an over-long line is skipped (up to its newline). */
  private skipping = false;
  private started = false;
  private readonly maxLineBytes: number;

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
    options: { maxLineBytes?: number } = {},
  ) {
    this.maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  }

  private readonly onData = (chunk: Buffer | string): void => {
    this.buffer = Buffer.concat([this.buffer, typeof chunk === 'string' ? Buffer.from(chunk) : chunk]);
    for (;;) {
      const nl = this.buffer.indexOf(0x0a);
      if (nl === -1) {
        if (this.buffer.length > this.maxLineBytes) {
          if (!this.skipping) this.reply(errorResponse(JSONRPC_INVALID_REQUEST, `Invalid Request: message longer than ${this.maxLineBytes} bytes`));
          this.skipping = true;
          this.buffer = Buffer.alloc(0);
        }
        return;
      }
      const bytes = this.buffer.subarray(0, nl);
      const line = bytes.toString('utf8').replace(/\r$/, '');
      this.buffer = this.buffer.subarray(nl + 1);
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      if (!isUtf8(bytes)) {
        // decoded, its bad bytes would be U+FFFD and `remember` would store the text changed
        this.reply(errorResponse(JSONRPC_PARSE_ERROR, 'Parse error: the line is not UTF-8 (e.g. a Latin-1 byte); nothing was run'));
        continue;
      }
      if (line.length > this.maxLineBytes) {
        this.reply(errorResponse(JSONRPC_INVALID_REQUEST, `Invalid Request: message longer than ${this.maxLineBytes} bytes`));
        continue;
      }
      if (!line.trim()) continue;
      const read = readJsonRpcLine(line);
      if ('reply' in read) {
        this.reply(read.reply);
        this.onerror?.(new Error(`Refused a malformed JSON-RPC line: ${JSON.stringify(read.reply).slice(0, 300)}`));
      } else {
        try {
          this.onmessage?.(read.message);
        } catch (e) {
          this.onerror?.(e as Error);
        }
      }
    }
  };

  private readonly onStreamError = (e: Error): void => this.onerror?.(e);

  private reply(body: JsonRpcErrorResponse | JsonRpcErrorResponse[]): void {
    this.output.write(`${JSON.stringify(body)}\n`);
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('JsonRpcStdioTransport already started');
    this.started = true;
    this.input.on('data', this.onData);
    this.input.on('error', this.onStreamError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    this.input.off('data', this.onData);
    this.input.off('error', this.onStreamError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.buffer = Buffer.alloc(0);
    this.onclose?.();
  }
}

/** `mem serve`: build the stack, mount the API + playground, listen (127.0.0.1 by default). */
import { createStack, type Stack, type StackOptions } from '../stack.js';
import { createApi } from './app.js';
// shared with the gate service; not re-exported by ../output.js, which every CLI command loads (it pulls in hono)
import { listenJson } from '@mem/gate-service/http';
import type { Scope } from '@mem/core';

export interface ServeOptions {
  stack: StackOptions | Stack;
  /** 0 = random free port. Default 8787. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  token?: string;
  bodyLimit?: number;
  /** Scope of MCP tool calls that name none (null = calls must name one). Default: null. */
  mcpScope?: Scope | null;
}

export interface RunningServer {
  url: string;
  port: number;
  stack: Stack;
  close(): Promise<void>;
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const owned = !('add' in options.stack);
  const stack: Stack = owned ? await createStack(options.stack as StackOptions) : (options.stack as Stack);
  const app = createApi({ stack, token: options.token, bodyLimit: options.bodyLimit, mcp: { scope: options.mcpScope ?? null } });
  const host = options.host ?? '127.0.0.1';
  let listening: Awaited<ReturnType<typeof listenJson>>;
  try {
    listening = await listenJson(app.fetch, host, options.port ?? 8787, (s) => {
      // Keep idle keep-alive sockets open longer than clients keep them (undici: 4 s): with Node's 5 s
      // default, a client that reuses a socket just as the server closes it gets ECONNRESET (issue 33
      // load test: 22 of 10,000 adds on a loaded machine).
      const http = s as unknown as { keepAliveTimeout: number; headersTimeout: number };
      http.keepAliveTimeout = 65_000;
      http.headersTimeout = 66_000;
    });
  } catch (e) {
    if (owned) await stack.close().catch(() => undefined); // do not leave the store open
    throw e;
  }
  const { server, port, url } = listening;
  return {
    url,
    port,
    stack,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Idle keep-alive sockets (e.g. the playground tab) would otherwise hold close() open.
      (server as { closeIdleConnections?: () => void }).closeIdleConnections?.();
      await closed;
      if (owned) await stack.close();
    },
  };
}

/**
 * MCP over streamable HTTP at `/mcp` of `mem serve` (ours; the SDK's web-standard transport in
 * stateless mode: each POST gets a fresh server + transport over the shared stack, so no session
 * state lives in the process). Same bearer token as /v1/* when one is set; JSON responses.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Hono } from 'hono';
import { createMemMcpServer, type McpServerOptions } from './server.js';
import { firstNonUtf8Line } from '../utf8.js';
import { createScopeOrder } from './order.js';

export interface MountMcpOptions extends McpServerOptions {
  /** Returns a Response to send instead (e.g. 401) or null to go on. */
  guard?: (req: Request) => Response | null;
}

export function mountMcp(app: Hono<any>, options: MountMcpOptions): void {
  // one per-scope order for every request (each POST gets a fresh server): calls run in arrival order per scope
  const order = options.order ?? createScopeOrder();
  app.all('/mcp', async (c) => {
    const refused = options.guard?.(c.req.raw);
    if (refused) return refused;
    if (c.req.method !== 'POST') {
      // stateless: no server-initiated stream (GET) and no session to delete (DELETE)
      return c.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless; POST JSON-RPC messages' }, id: null }, 405, { Allow: 'POST' });
    }
    // the transport would decode bytes that are not UTF-8 as U+FFFD and `remember` would store the
    // text changed without a word: a JSON-RPC parse error instead (the body is bounded by --body-limit)
    const bytes = new Uint8Array(await c.req.raw.arrayBuffer());
    const badLine = firstNonUtf8Line(bytes);
    if (badLine !== null) {
      return c.json({ jsonrpc: '2.0', error: { code: -32700, message: `Parse error: the request body is not UTF-8 (line ${badLine} holds bytes that are not UTF-8); nothing was written` }, id: null }, 400);
    }
    const request = new Request(c.req.raw.url, { method: 'POST', headers: c.req.raw.headers, body: bytes });
    const server = createMemMcpServer({ ...options, order });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      void server.close();
    }
  });
}

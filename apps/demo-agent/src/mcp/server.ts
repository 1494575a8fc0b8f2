/**
 * The MCP server of the demo agent (ours, on the official @modelcontextprotocol/sdk): five tools over
 * one `Stack`, served over stdio by `mem mcp` and over streamable HTTP at `/mcp` by `mem serve`.
 *
 * Tools (inputs are zod schemas; unknown keys are errors):
 * - `remember` { text, speaker?, observedAt?, timeZone? | observations[], timeZone?, scope? } → the stored
 *   memories with their gate decision;
 * - `recall` { query, k?, now?, scope? } → evidence (best first, `EvidenceItem`) + a compact trace;
 * - `forget` { id, scope? } → { id, forgotten: true } (a missing id is an error, code NODE_NOT_FOUND);
 *   { all: true, scope } → { scope, forgotten: n } (every memory of the scope named in the call);
 * - `history` { nodeId?, limit?, scope? } → append-only history rows, oldest first;
 * - `stats` { scope? } → counts of the scope.
 *
 * Scope: the `scope` argument when a call gives one, else the scope the server was configured with
 * (`mem mcp --user maya`, `$MEM_USER`); with neither the call fails with SCOPE_MISSING. The server
 * never guesses a scope. Errors come back as tool results with `isError: true` and the text
 * `[CODE] message` (MCP's convention for tool failures, so the model sees them); structured content
 * carries `{ error: { code, message } }`. That holds for the SDK's own refusals too (arguments
 * that fail a tool's schema: INVALID_INPUT; an unknown tool: UNKNOWN_TOOL).
 *
 * Order: calls on one scope run in the order they arrive, a write visible to every later read from
 * the same client even when the client does not wait for the write's result (order.ts).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ErrorCode, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { assertTimeZone, MemValidationError, resolveScope, scopeKey, type Scope } from '@mem/core';
import type { Stack } from '../stack.js';
import { compactTrace, stateNote, toEvidenceItem, type EvidenceItem } from '../evidence.js';
import { normalizeTrace } from '../trace.js';
import { errorBody, formatScope, truncate } from '../output.js';
import { createScopeOrder, READ_TOOLS, type ScopeOrder } from './order.js';

const VERSION = '0.1.0';

export interface McpServerOptions {
  stack: Stack;
  /** The configured scope (from flags / $MEM_USER); null = every call must name its scope. */
  scope: Scope | null;
  /** Runs writes one at a time (share the HTTP API's so both advance the gate in one order). */
  exclusive?: <T>(fn: () => Promise<T>) => Promise<T>;
  /**
   * The per-scope order of tool calls (order.ts): a call waits for the calls before it on its scope
   * that it must see (a read for earlier writes, a write for everything earlier). Default: one per
   * server (one connection); `mem serve` passes one shared by every /mcp request.
   */
  order?: ScopeOrder;
}

const id = z.string().min(1).max(256);
export const ScopeArg = z
  .object({
    userId: id.optional(),
    agentId: id.optional(),
    runId: id.optional(),
    namespace: id.optional(),
  })
  .strict()
  .refine((s) => Boolean(s.userId || s.agentId || s.runId), { message: 'scope needs at least one of userId, agentId, runId' })
  .describe('Whose memories: user / agent / run (and namespace). Default: the scope the server was started with.');

const Observation = z
  .object({
    // no min(1): an empty or blank text is core's TEXT_EMPTY, the code every path gives (not INVALID_INPUT)
    text: z.string().max(20_000).describe('What was said (at least one visible character, else TEXT_EMPTY; no control characters but tab and line breaks)'),
    speaker: z.string().max(200).optional(),
    observedAt: z.string().max(64).optional().describe('When it was said: ISO-8601 with a zone (e.g. 2025-04-12T18:00:00Z), or zone-less with timeZone; 1583-01-01 to 9999-12-30 UTC; default now'),
    sourceId: z.string().max(200).optional(),
  })
  .strict();

export const RememberInput = z
  .object({
    text: z.string().max(20_000).optional().describe('One thing to remember (or use observations); at least one visible character, else TEXT_EMPTY; no control characters but tab and line breaks'),
    speaker: z.string().max(200).optional().describe('Who said it, with text'),
    observedAt: z.string().max(64).optional().describe('When it was said, with text: ISO-8601 with a zone (e.g. 2025-04-12T18:00:00Z), or zone-less with timeZone; 1583-01-01 to 9999-12-30 UTC; default now'),
    timeZone: z.string().max(64).optional().describe('IANA zone (e.g. Europe/Paris) of zone-less observedAt values and of relative dates ("yesterday") in this call; default the server\'s --time-zone'),
    observations: z.array(Observation).min(1).max(100).optional().describe('Several observations at once (instead of text)'),
    scope: ScopeArg.optional(),
  })
  .strict()
  .refine((a) => (a.text === undefined) !== (a.observations === undefined), { message: 'give exactly one of text or observations' })
  .refine((a) => a.text !== undefined || (a.speaker === undefined && a.observedAt === undefined), { message: 'speaker and observedAt go with text; with observations, give them per observation' });

export const RecallInput = z
  .object({
    query: z.string().max(4000).describe('What to look for, e.g. a question (non-empty, else TEXT_EMPTY)'),
    k: z.number().int().min(1).max(50).optional().describe('How many evidence items (default 5)'),
    now: z.string().max(64).optional().describe('Reference time for "today" / recency, ISO-8601 with a zone (e.g. 2025-04-12T18:00:00Z; default now)'),
    scope: ScopeArg.optional(),
  })
  .strict();

export const ForgetInput = z
  .object({
    id: id.optional().describe('Memory id (from recall or remember)'),
    all: z.literal(true).optional().describe('Forget every memory of the scope given in this call (instead of id)'),
    scope: ScopeArg.optional(),
  })
  .strict()
  .refine((a) => (a.id === undefined) !== (a.all === undefined), { message: 'give exactly one of id or all' })
  .refine((a) => !a.all || a.scope !== undefined, { message: 'all: true needs the scope in the call (never the default scope)' });

export const HistoryInput = z
  .object({
    nodeId: id.optional().describe('Only the history of this memory'),
    limit: z.number().int().min(1).max(1000).optional().describe('Rows (default 50)'),
    scope: ScopeArg.optional(),
  })
  .strict();

export const StatsInput = z.object({ scope: ScopeArg.optional() }).strict();

function ok(structured: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

function failure(e: unknown): CallToolResult {
  const body = errorBody(e);
  return { isError: true, content: [{ type: 'text', text: `[${body.error.code}] ${body.error.message}` }], structuredContent: body };
}

/**
 * A tool error the SDK made itself (arguments that fail the tool's input schema, an unknown tool: a
 * bare `isError` text "MCP error -32602: …") in the shape of ours (ours): text `[CODE] message` and
 * structuredContent `{ error: { code, message } }` with code INVALID_INPUT (bad arguments),
 * UNKNOWN_TOOL, or INTERNAL (any other SDK error). Every other result is returned as it is.
 */
export function typedSdkToolError<R>(result: R): R {
  const r = result as CallToolResult | undefined;
  if (!r || typeof r !== 'object' || !r.isError || r.structuredContent) return result;
  const text = (r.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  const m = /^MCP error (-?\d+): ([\s\S]*)$/.exec(text);
  const message = m ? m[2]! : text;
  const invalidParams = m?.[1] === String(ErrorCode.InvalidParams);
  const code = invalidParams && /^Tool \S+ (not found|disabled)$/.test(message) ? 'UNKNOWN_TOOL' : invalidParams ? 'INVALID_INPUT' : 'INTERNAL';
  return { ...r, content: [{ type: 'text', text: `[${code}] ${message}` }], structuredContent: { error: { code, message } } } as R;
}

/**
 * Route the SDK's tools/call handler through `queue` (called as each request arrives, in arrival
 * order, before the SDK validates it) and {@link typedSdkToolError}: the handler is wrapped as
 * McpServer installs it (at the first registerTool), so must run before any tool is registered.
 */
function typeSdkToolErrors(server: McpServer, queue: (request: unknown, call: () => Promise<unknown>) => Promise<unknown>): void {
  const low = server.server as unknown as { setRequestHandler: (schema: unknown, handler: (...a: unknown[]) => unknown) => void };
  const set = low.setRequestHandler.bind(low);
  low.setRequestHandler = (schema, handler) =>
    set(schema, schema === CallToolRequestSchema ? async (...a: unknown[]) => typedSdkToolError(await queue(a[0], async () => handler(...a))) : handler);
}

/** Build an MCP server over `stack`. Connect it to a transport with `server.connect(transport)`. */
export function createMemMcpServer(options: McpServerOptions): McpServer {
  const { stack } = options;
  const exclusive = options.exclusive ?? (<T>(fn: () => Promise<T>) => fn());
  const server = new McpServer({ name: 'mem', version: VERSION }, { instructions: 'Long-term memory. Call recall before answering questions about the user or past conversations; call remember for facts worth keeping.' });
  const order = options.order ?? createScopeOrder();
  // the key of the scope a call names (or the configured one); a call without a valid scope fails on its own
  const keyOf = (given: unknown): string => {
    try {
      return scopeKey(resolveScope((given ?? options.scope) as Scope));
    } catch {
      return '(no valid scope)';
    }
  };
  typeSdkToolErrors(server, (request, call) => {
    const params = (request as { params?: { name?: unknown; arguments?: { scope?: unknown } } } | undefined)?.params;
    return order.run(keyOf(params?.arguments?.scope), READ_TOOLS.has(String(params?.name)) ? 'read' : 'write', call);
  });

  const scoped = (given: Scope | undefined): Stack => {
    const scope = given ?? options.scope;
    if (!scope) throw new MemValidationError('SCOPE_MISSING', 'No scope: pass scope { userId | agentId | runId } in the call, or start the server with --user / --agent / --run (or $MEM_USER)');
    return stack.withScope(scope);
  };
  const run = async (fn: () => Promise<CallToolResult>): Promise<CallToolResult> => {
    try {
      return await fn();
    } catch (e) {
      return failure(e);
    }
  };
  /**
   * A reference time read strictly (core's `normalizeNow` via `Stack.readNow`): ISO-8601 with a zone,
   * or zone-less in the configured time zone; else a tool error BAD_DATE / MISSING_TIMEZONE.
   */
  const readNow = (v: string | undefined) => (v === undefined ? undefined : stack.readNow(v));

  server.registerTool(
    'remember',
    {
      title: 'Remember',
      description: 'Store one or more observations (facts, statements, events) in long-term memory. Each is kept; the SAGE novelty gate decides whether it adds, updates or repeats what is known.',
      inputSchema: RememberInput,
    },
    (args) =>
      run(async () => {
        const s = scoped(args.scope);
        const list = args.observations ?? [{ text: args.text!, speaker: args.speaker, ...(args.observedAt === undefined ? {} : { observedAt: args.observedAt }) }];
        // observedAt is checked by core's add (ISO-8601 with a zone, or zone-less in the call's timeZone,
        // else the configured one; else BAD_DATE / MISSING_TIMEZONE before anything is written); an
        // unknown timeZone is INVALID_INPUT
        if (args.timeZone !== undefined) assertTimeZone(args.timeZone);
        const added = await exclusive(() => s.add(list, args.timeZone === undefined ? {} : { timeZone: args.timeZone }));
        const items = added.map((a) => ({ id: a.node.id, text: a.node.text, action: a.action, novelty: a.gate?.novelty ?? null }));
        return ok({ scope: s.scope, added: items }, `Stored ${items.length} in ${formatScope(s.scope)}:\n${items.map((a) => `- ${a.id} (${a.action}) ${truncate(a.text, 80)}`).join('\n')}`);
      }),
  );

  server.registerTool(
    'recall',
    {
      title: 'Recall',
      description: 'Search long-term memory. Returns evidence (stored observations, best first, with id, speaker and time) and a compact trace of how the Jev-Mem read path found them.',
      inputSchema: RecallInput,
      annotations: { readOnlyHint: true },
    },
    (args) =>
      run(async () => {
        const s = scoped(args.scope);
        const r = await s.search(args.query, { k: args.k ?? 5, now: readNow(args.now) });
        const evidence = r.evidence.map(toEvidenceItem);
        const trace = compactTrace(normalizeTrace(r.trace));
        return ok({ evidence, ...(r.answerable === undefined ? {} : { answerable: r.answerable, pEvidence: r.pEvidence }), trace }, recallText(evidence, r, formatScope(s.scope)));
      }),
  );

  server.registerTool(
    'forget',
    {
      title: 'Forget',
      description: 'Delete one memory by id, or with all: true every memory of the scope named in the call (relations go too; the text is erased from the store; the history keeps a FORGET row without it).',
      inputSchema: ForgetInput,
      annotations: { destructiveHint: true, idempotentHint: false },
    },
    (args) =>
      run(async () => {
        const s = scoped(args.scope);
        if (args.all) {
          const forgotten = await exclusive(() => s.forgetAll());
          return ok({ scope: s.scope, forgotten }, `Forgot ${forgotten} memories in ${formatScope(s.scope)}`);
        }
        const nodeId = args.id!;
        await s.get(nodeId); // NODE_NOT_FOUND (or "was forgotten at …") when absent in this scope
        const removed = await exclusive(() => s.forget(nodeId));
        if (!removed) await s.get(nodeId);
        return ok({ id: nodeId, forgotten: true }, `Forgot ${nodeId}`);
      }),
  );

  server.registerTool(
    'history',
    {
      title: 'History',
      description: 'The append-only history of the scope or of one memory (ADD / UPDATE / NOOP / RELATE / FORGET …), oldest first.',
      inputSchema: HistoryInput,
      annotations: { readOnlyHint: true },
    },
    (args) =>
      run(async () => {
        const rows = await scoped(args.scope).history({ nodeId: args.nodeId, limit: args.limit ?? 50 });
        const history = rows.map((h) => ({ seq: h.seq ?? null, at: h.at, op: h.op, nodeId: h.nodeId }));
        return ok({ history }, history.length ? history.map((h) => `${h.at} ${h.op} ${h.nodeId ?? ''}`).join('\n') : '(no history)');
      }),
  );

  server.registerTool(
    'stats',
    {
      title: 'Stats',
      description: 'Counts of the scope: memories, relations by view, gate decisions.',
      inputSchema: StatsInput,
      annotations: { readOnlyHint: true },
    },
    (args) =>
      run(async () => {
        const st = (await scoped(args.scope).stats()) as Record<string, any>;
        const out = { scope: st.scope, nodes: st.nodes, relations: st.relations, relationsByView: st.relationsByView, gate: st.gate, embedder: st.embedder, retriever: st.retriever };
        return ok(out, `${formatScope(st.scope)}: ${st.nodes} memories, ${st.relations} relations; gate add ${st.gate.add} / update ${st.gate.update} / noop ${st.gate.noop}`);
      }),
  );

  return server;
}

/**
 * The text of a `recall` result, the part a host model reads (ours, issue 37): a first line with
 * p(evidence) — p that the memories hold an answer at all — when the retriever gave one: "memory
 * holds nothing reliable on this (p(evidence) 0.12, below the abstention threshold): none of these
 * memories answers it; closest:" when it abstained (`answerable: false`), else "p(evidence) 0.93 that
 * these memories hold the answer; best first:"; then one line per evidence item (rank, [id], date,
 * speaker: text, and its state when superseded). `scope` names the scope when nothing matched.
 */
export function recallText(evidence: readonly EvidenceItem[], r: { answerable?: boolean; pEvidence?: number }, scope: string): string {
  if (!evidence.length) return `(no memory in ${scope} matches this query)`;
  const lines = evidence.map((e, i) => `${i + 1}. [${e.id}] ${e.observedAt.slice(0, 10)} ${e.speaker ? `${e.speaker}: ` : ''}${e.text}${e.status === 'superseded' ? ` [${stateNote(e)}]` : ''}`);
  const p = r.pEvidence === undefined ? '?' : r.pEvidence.toFixed(2);
  const head =
    r.answerable === false
      ? `memory holds nothing reliable on this (p(evidence) ${p}, below the abstention threshold): none of these memories answers it; do not answer from them. Closest memories:\n`
      : r.pEvidence !== undefined
        ? `p(evidence) ${p} that these memories hold the answer; best first:\n`
        : '';
  return head + lines.join('\n');
}

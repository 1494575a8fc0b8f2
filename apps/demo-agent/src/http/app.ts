/**
 * The HTTP API of the demo agent (hono + @hono/zod-openapi; ours). Every body and query is
 * zod-validated; the OpenAPI 3 document is served at /openapi.json. Errors are JSON
 * `{ error: { code, message } }` mapped from MemError categories (validation 400, not_found 404,
 * conflict 409, unavailable 503, anything else 500 with a generic message: no stack traces leave
 * the process). Optional bearer token on /v1/*; request bodies are size-limited.
 *
 * Scope: each /v1 request may name its scope with the query parameters userId / agentId / runId /
 * namespace; without them the server's default scope (from `mem serve --user …`) is used.
 *
 * Observations (POST /v1/observations) are validated by core's `validateObservation`, the same as on
 * every other path, all before anything is written (400 with the first error's code):
 * - `text`: at least one visible character (else TEXT_EMPTY), at most 20 000 characters here and
 *   64 KiB of UTF-8 in core (TEXT_TOO_LONG); no C0 control character but tab, LF and CR (NUL, ESC…),
 *   no U+FFFE / U+FFFF, no lone surrogate (INVALID_INPUT naming the character); so for `speaker`;
 * - `observedAt`: ISO-8601 with a zone (zone-less only with `--time-zone`, else MISSING_TIMEZONE) or
 *   epoch milliseconds, from 1583-01-01T00:00:00.000Z to 9999-12-30T23:59:59.999Z UTC (core's
 *   `TIME_RANGE`; year 0000 / 0001 "no date" values included), else BAD_DATE. Default: now.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { createJsonApp, errorJson, errorSchema } from '../http-errors.js';
import { gateDecisionSchema } from '@mem/gate-service/http';
import { bodyLimit } from 'hono/body-limit';
import type { Context } from 'hono';
import { exportLines, MemError, MemValidationError, scopeKey, type Scope } from '@mem/core';
import type { Stack } from '../stack.js';
import { mountPlayground } from './static.js';
import { mountMcp } from '../mcp/http.js';
import { toEvidenceItem } from '../evidence.js';
import { normalizeTrace } from '../trace.js';
import { decodeUtf8Strict } from '../utf8.js';

/**
 * The `now` of /v1/search and /v1/ask, read strictly (core's `normalizeNow` via `Stack.readNow`):
 * ISO-8601 with a zone (`Z`, `±HH:MM`), or zone-less read in the server's configured time zone
 * (`mem serve --time-zone`, $MEM_TIME_ZONE). Otherwise 400 BAD_DATE (not ISO-8601) or
 * MISSING_TIMEZONE (zone-less and no zone configured); never read as UTC or the process's zone.
 */
function readNow(stack: Stack, now: string | undefined): string | undefined {
  return now === undefined ? undefined : stack.readNow(now);
}

/**
 * Throws MemValidationError INVALID_INPUT when the request's path or query string holds a
 * percent-escape that does not decode to UTF-8 (`%ff`, `%e2%82`) or a bare `%`: the router would
 * otherwise keep such a parameter literally ("%ff") and, e.g., use it as a user id.
 */
export function assertDecodableUrl(url: string): void {
  const u = new URL(url);
  const parts = [u.pathname, ...u.search.slice(1).split('&').flatMap((kv) => kv.split('='))];
  for (const part of parts) {
    try {
      decodeURIComponent(part.replace(/\+/g, ' '));
    } catch {
      throw new MemValidationError('INVALID_INPUT', `The URL holds a percent-escape that is not valid UTF-8: "${part.slice(0, 80)}"`);
    }
  }
}

export interface ApiOptions {
  stack: Stack;
  /** Require `Authorization: Bearer <token>` on /v1/*. */
  token?: string;
  /** Max request body in bytes. Default 1 000 000. */
  bodyLimit?: number;
  /** Serve the web playground at / (default true). */
  playground?: boolean;
  /**
   * MCP over streamable HTTP at /mcp (default on). `scope`: the scope tools use when a call names
   * none (the server's configured scope); null = every call must name one.
   */
  mcp?: { scope: Scope | null } | false;
  /** Called with unexpected (non-MemError) errors; default logs a one-line message to stderr. */
  onInternalError?: (e: unknown) => void;
}


export const ErrorSchema = errorSchema('Error', 'TEXT_EMPTY');


// strict: an unknown or misspelt query parameter (`?userid=alice`, `?tenant=x`) is a 400, never the default scope
const ScopeQuery = z.strictObject({
  userId: z.string().max(256).optional(),
  agentId: z.string().max(256).optional(),
  runId: z.string().max(256).optional(),
  namespace: z.string().max(256).optional(),
});

const ObservationSchema = z
  .object({
    // no min(1) here: an empty or blank text is core's TEXT_EMPTY on every path (HTTP, MCP, CLI, library), not INVALID_INPUT
    text: z.string().max(20_000).openapi({ example: 'I switched from espresso to green tea.', description: 'at least one visible character (else 400 TEXT_EMPTY); no C0 control character but tab / LF / CR, no U+FFFE / U+FFFF (else 400 INVALID_INPUT)' }),
    speaker: z.string().max(200).optional(),
    observedAt: z.union([z.string(), z.number()]).optional().openapi({ description: 'ISO-8601 with zone or epoch ms, 1583-01-01T00:00:00.000Z to 9999-12-30T23:59:59.999Z UTC (else 400 BAD_DATE); default now' }),
    sourceId: z.string().max(200).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  // unknown keys are errors, not silently dropped: a typo such as `observed_at` would store "now"
  .strict()
  .openapi('Observation');

const AddBody = z
  .object({ observations: z.array(ObservationSchema).min(1).max(500) })
  .strict()
  .openapi('AddObservations');

const GateSchema = gateDecisionSchema
  .extend({
    routed: z.enum(['add', 'update', 'noop']).optional().describe("the gate's own routing when the write path changed it: 'noop' when the state question found a changed value (action is then 'update')"),
  })
  .openapi('GateDecision');

/** The fields a stored memory and an evidence item both start with. */
const turnFields = { id: z.string(), text: z.string(), speaker: z.string().nullable(), observedAt: z.string() };

const NodeSchema = z
  .object({
    ...turnFields,
    eventTime: z.any(),
    entities: z.array(z.string()),
    keywords: z.array(z.string()),
    types: z.record(z.string(), z.number()),
    gate: GateSchema.nullable(),
    provenance: z.any(),
    obsoleteBy: z.string().nullable().optional(),
    createdAt: z.string(),
    scope: z.any(),
  })
  .openapi('MemoryNode');

/** The one evidence shape of /v1/search and /v1/ask (and of the MCP recall tool): `EvidenceItem`. */
const EvidenceSchema = z
  .object({
    ...turnFields,
    eventTime: z.any().nullable(),
    sourceId: z.string().nullable(),
    score: z.number(),
    via: z.array(z.string()).describe('relation subtypes followed from an anchor (empty for anchors)'),
    status: z.enum(['current', 'superseded']).describe('current, or superseded when a later memory changed what this one says (it stays evidence for questions about the past)'),
    supersededBy: z
      .object({ id: z.string(), at: z.string(), p: z.number().nullable(), relation: z.string().nullable() })
      .nullable()
      .describe('for a superseded item: the newer memory, its observation time, the edge probability and subtype (CONTRADICTS / OBSOLETES)'),
  })
  .openapi('Evidence');

const SearchBody = z
  .object({ query: z.string().max(4000).openapi({ description: 'non-empty, else 400 TEXT_EMPTY' }), k: z.number().int().min(1).max(100).optional(), now: z.string().optional().openapi({ description: 'reference time: ISO-8601 with a zone (zone-less only with the server\'s --time-zone, else 400 MISSING_TIMEZONE); default now' }) })
  .strict()
  .openapi('SearchRequest');

const AskBody = z
  .object({
    question: z.string().max(4000).openapi({ description: 'non-empty, else 400 TEXT_EMPTY' }),
    k: z.number().int().min(1).max(100).optional(),
    tokenBudget: z.number().int().min(50).max(100_000).optional(),
    now: z.string().optional().openapi({ description: 'reference time ("today" for System Two): ISO-8601 with a zone (zone-less only with the server\'s --time-zone, else 400 MISSING_TIMEZONE); default now' }),
  })
  .strict()
  .openapi('AskRequest');

// a full id, or the short id `mem ask` / `mem history` print (the end of the id) or any unique start or end of one; several matches: 400 AMBIGUOUS_ID
const IdParam = z.object({ id: z.string().min(1).max(200).openapi({ param: { name: 'id', in: 'path' }, description: "a memory's id, or any unique start or end of it (the CLI's 8-character short id)" }) });

const json = (schema: z.ZodType, description: string) => ({ content: { 'application/json': { schema } }, description });
const errors = {
  400: json(ErrorSchema, 'Invalid input'),
  401: json(ErrorSchema, 'Missing or wrong bearer token'),
  404: json(ErrorSchema, 'Not found'),
  413: json(ErrorSchema, 'Body too large'),
  500: json(ErrorSchema, 'Internal error'),
};
const body = <T extends z.ZodType>(schema: T) => ({ body: { content: { 'application/json': { schema } }, required: true as const } });

/** Drop the embedding (100+ floats) from nodes sent to clients. */
export function publicNode(node: any) {
  if (!node) return node;
  const { embedding: _e, ...rest } = node;
  return rest;
}

function sameToken(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Serialise write operations so gate state and the store advance in one order. */
function createMutex() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };
}

export function createApi(options: ApiOptions): OpenAPIHono {
  const { stack } = options;
  const limit = options.bodyLimit ?? 1_000_000;
  const exclusive = createMutex();
  const onInternal = options.onInternalError ?? ((e: unknown) => console.error(`mem serve: internal error: ${(e as Error)?.message ?? e}`));
  // per scope key (a request must never see another scope's texts); at most LAST_SCOPES keys, oldest dropped
  const lastByScope = new Map<string, { write: unknown; query: unknown }>();
  const LAST_SCOPES = 1000;
  const lastOf = (s: Stack) => {
    const key = scopeKey(s.scope);
    let entry = lastByScope.get(key);
    if (entry) lastByScope.delete(key);
    else entry = { write: null, query: null };
    lastByScope.set(key, entry);
    if (lastByScope.size > LAST_SCOPES) lastByScope.delete(lastByScope.keys().next().value as string);
    return entry;
  };

  const app = createJsonApp({ onInternal });

  /** True when no token is set or the Authorization header carries it (/v1/* and /mcp alike). */
  const authorized = (header: string | undefined): boolean => {
    if (!options.token) return true;
    const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
    return Boolean(m && sameToken(m[1].trim(), options.token));
  };
  app.use('/v1/*', async (c, next) => {
    if (!authorized(c.req.header('authorization'))) return errorJson(c, 401, 'UNAUTHORIZED', 'A valid "Authorization: Bearer <token>" header is required');
    await next();
  });
  if (options.mcp !== false) {
    app.use('/mcp', bodyLimit({ maxSize: limit, onError: (c) => errorJson(c, 413, 'PAYLOAD_TOO_LARGE', `Request body is larger than ${limit} bytes`) }));
    mountMcp(app, {
      stack,
      scope: options.mcp?.scope ?? null,
      exclusive,
      guard: (req) => (authorized(req.headers.get('authorization') ?? undefined) ? null : Response.json({ error: { code: 'UNAUTHORIZED', message: 'A valid "Authorization: Bearer <token>" header is required' } }, { status: 401 })),
    });
  }
  app.use('/v1/*', async (_c, next) => {
    assertDecodableUrl(_c.req.url);
    await next();
  });
  app.use(
    '/v1/*',
    bodyLimit({
      maxSize: limit,
      onError: (c) => {
        // the unread rest of the body is still on the socket: close the connection after this
        // reply, or a keep-alive client's next request would be parsed after it (a socket error)
        c.header('Connection', 'close');
        return errorJson(c, 413, 'PAYLOAD_TOO_LARGE', `Request body is larger than ${limit} bytes`);
      },
    }),
  );
  // a body must be UTF-8 (after the size limit, which bounds this read): c.req.json() / text() would
  // turn other bytes into U+FFFD and store the text changed without a word; 400 INVALID_INPUT instead
  app.use('/v1/*', async (c, next) => {
    if (c.req.raw.body) decodeUtf8Strict(new Uint8Array(await c.req.arrayBuffer()), 'The request body');
    await next();
  });

  /**
   * The request's scope: query parameters override the server default. A scope parameter that is
   * present but empty (`?userId=`) is 400 SCOPE_INVALID, never the default user.
   */
  const scoped = (c: Context): Stack => {
    const q = c.req.query();
    const given: Scope = { userId: q.userId, agentId: q.agentId, runId: q.runId, namespace: q.namespace };
    const empty = (Object.keys(given) as (keyof Scope)[]).filter((k) => given[k] !== undefined && given[k]!.trim() === '');
    if (empty.length) throw new MemValidationError('SCOPE_INVALID', `Empty scope parameter ${empty.map((k) => `"${k}"`).join(', ')}: give a value or leave the parameter out`, { details: { empty } });
    if (!given.userId && !given.agentId && !given.runId) return given.namespace ? stack.withScope({ ...stack.scope, namespace: given.namespace }) : stack;
    return stack.withScope(given);
  };

  const api: ApiContext = { stack, exclusive, scoped, lastOf, lastByScope };
  addQueryRoutes(app, api);
  addNodeRoutes(app, api);
  addScopeRoutes(app, api);
  addTransferRoutes(app, api);

  app.get('/healthz', (c) => c.json({ ok: true }));
  app.doc('/openapi.json', {
    openapi: '3.0.0',
    info: { title: '@mem demo-agent API', version: '0.1.0', description: 'Long-term memory for LLM agents: SAGE gate + Jev-Mem controller' },
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });

  if (options.playground !== false) mountPlayground(app);
  return app;
}

/** What the API's route groups share. */
interface ApiContext {
  stack: Stack;
  /** Runs writes one at a time. */
  exclusive: ReturnType<typeof createMutex>;
  /** The request's scope (400 SCOPE_INVALID for an empty scope parameter). */
  scoped: (c: Context) => Stack;
  /** The last write and question of a scope (for /v1/last), most recent scopes kept. */
  lastOf: (s: Stack) => { write: unknown; query: unknown };
  lastByScope: Map<string, { write: unknown; query: unknown }>;
}

/** The API's routes: observations, search, ask. */
function addQueryRoutes(app: OpenAPIHono, ctx: ApiContext): void {
  const { stack, exclusive, scoped, lastOf } = ctx;
  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/observations',
      summary: 'Add observations (each becomes one canonical memory; the SAGE gate decides how much write work it earns)',
      request: { query: ScopeQuery, ...body(AddBody) },
      responses: {
        200: json(z.object({ added: z.array(z.object({ node: NodeSchema, gate: GateSchema.nullable(), created: z.boolean() })) }).openapi('AddResult'), 'Stored memories with their gate decision'),
        ...errors,
      },
    }),
    async (c) => {
      const { observations } = c.req.valid('json');
      const s = scoped(c);
      const added = await exclusive(() => s.add(observations as any));
      const out = added.map((a) => ({ node: publicNode(a.node), gate: a.gate, created: a.created }));
      lastOf(s).write = { at: new Date().toISOString(), added: out.map((a) => ({ id: a.node.id, text: a.node.text, gate: a.gate, created: a.created })) };
      return c.json({ added: out } as any, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/search',
      summary: 'Retrieve evidence for a query (Jev closed loop by default) with its trace',
      request: { query: ScopeQuery, ...body(SearchBody) },
      responses: { 200: json(z.object({ evidence: z.array(EvidenceSchema), answerable: z.boolean().optional().describe('false when memory holds nothing on the query (calibrated pEvidence below the threshold)'), pEvidence: z.number().optional().describe('calibrated p that the evidence holds an answer'), trace: z.any() }).openapi('SearchResult'), 'Evidence (best first, the same shape as /v1/ask) and retrieval trace'), ...errors },
    }),
    async (c) => {
      const { query, k, now } = c.req.valid('json');
      const r = await scoped(c).search(query, { k, now: readNow(stack, now) });
      return c.json({ evidence: r.evidence.map(toEvidenceItem), ...(r.answerable === undefined ? {} : { answerable: r.answerable, pEvidence: r.pEvidence }), trace: normalizeTrace(r.trace) } as any, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/ask',
      summary: 'Answer a question from memory (System Two when configured; offline, or when System Two is unavailable (systemTwoError), the answer is the top evidence, mode "evidence")',
      request: { query: ScopeQuery, ...body(AskBody) },
      responses: {
        200: json(
          z
            .object({ question: z.string(), mode: z.enum(['llm', 'evidence']), answer: z.string(), answerRank: z.number().int().nullable().describe('offline: the 1-based rank of the evidence item the answer line quotes (1, or the best-ranked dated item of the top 3 for a when-question); null when System Two answered'), model: z.string().nullable(), evidence: z.array(EvidenceSchema), answerable: z.boolean().optional().describe('false when memory holds nothing on the question; the offline answer then says so'), pEvidence: z.number().optional(), context: z.string(), trace: z.any(), ms: z.number(), systemTwoError: z.object({ code: z.string(), message: z.string() }).nullable().optional().describe('set when System Two is configured but unavailable (LLM_UNAVAILABLE): the answer is then the top evidence (mode "evidence")') })
            .openapi('AskResult'),
          'Answer, evidence and retrieval trace',
        ),
        ...errors,
      },
    }),
    async (c) => {
      const { question, k, tokenBudget, now } = c.req.valid('json');
      const s = scoped(c);
      const r = await s.ask(question, { k, tokenBudget, now: readNow(stack, now) });
      // what the playground shows of a question on load (everything but the packed context)
      lastOf(s).query = { at: new Date().toISOString(), question, mode: r.mode, answer: r.answer, answerRank: r.answerRank, model: r.model, evidence: r.evidence, trace: r.trace, ms: r.ms };
      return c.json(r as any, 200);
    },
  );
}

/** The API's routes: one memory, its neighbours, forgetting. */
function addNodeRoutes(app: OpenAPIHono, ctx: ApiContext): void {
  const { exclusive, scoped } = ctx;
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/nodes/{id}',
      summary: 'Get one memory',
      request: { params: IdParam, query: ScopeQuery },
      responses: { 200: json(NodeSchema, 'The memory'), ...errors },
    }),
    async (c) => {
      const s = scoped(c);
      return c.json(publicNode(await s.get(await s.resolveId(c.req.valid('param').id))) as any, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/nodes/{id}/neighbors',
      summary: 'Relations of one memory (both directions), optionally filtered by view',
      request: {
        params: IdParam,
        query: ScopeQuery.extend({
          views: z.string().regex(/^(semantic|temporal|causal|entity)(,(semantic|temporal|causal|entity))*$/).optional().openapi({ example: 'semantic,causal' }),
          limit: z.coerce.number().int().min(1).max(1000).optional(),
        }),
      },
      responses: { 200: json(z.object({ neighbors: z.array(z.object({ relation: z.any(), node: NodeSchema, fromId: z.string() })) }).openapi('Neighbors'), 'Neighbours'), ...errors },
    }),
    async (c) => {
      const s = scoped(c);
      const id = await s.resolveId(c.req.valid('param').id);
      const q = c.req.valid('query');
      const list = await s.neighbors(id, { views: q.views?.split(','), limit: q.limit });
      return c.json({ neighbors: list.map((n) => ({ relation: n.relation, node: publicNode(n.node), fromId: n.fromId })) } as any, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/v1/nodes/{id}',
      summary: 'Forget one memory (its relations go too; history keeps a FORGET row)',
      request: { params: IdParam, query: ScopeQuery },
      responses: { 200: json(z.object({ id: z.string(), forgotten: z.literal(true) }).openapi('Forgotten'), 'Forgotten'), ...errors },
    }),
    async (c) => {
      const s = scoped(c);
      const id = await s.resolveId(c.req.valid('param').id);
      await s.get(id); // 404 when absent in this scope
      // a concurrent DELETE may have forgotten it meanwhile: only the request that removed it gets 200
      const removed = await exclusive(() => s.forget(id));
      if (!removed) await s.get(id); // throws the same 404 as above
      if (!removed) throw new MemError('NODE_NOT_FOUND', 'not_found', `No memory ${id}`);
      return c.json({ id, forgotten: true as const }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/v1/nodes',
      summary: 'Forget every memory of a scope (named in the query: userId, agentId or runId); the text leaves the store files, history keeps one FORGET row per memory',
      request: { query: ScopeQuery },
      responses: { 200: json(z.object({ scope: z.any(), forgotten: z.number().int() }).openapi('ScopeForgotten'), 'How many memories were forgotten'), ...errors },
    }),
    async (c) => {
      const q = c.req.valid('query');
      // never the server's default scope by accident
      if (!q.userId && !q.agentId && !q.runId) throw new MemValidationError('SCOPE_MISSING', 'DELETE /v1/nodes needs the scope in the query: userId, agentId or runId');
      const s = scoped(c);
      const forgotten = await exclusive(() => s.forgetAll());
      return c.json({ scope: s.scope, forgotten }, 200);
    },
  );
}

/** True when `id` was forgotten in the scope of `s` (its history has a FORGET row; ours). */
async function wasForgotten(s: Stack, id: string): Promise<boolean> {
  try {
    await s.get(id);
    return false;
  } catch (e) {
    if (MemError.isInstance(e) && e.code === 'NODE_NOT_FOUND') return Boolean((e.details as { forgottenAt?: string } | undefined)?.forgottenAt);
    throw e;
  }
}

/**
 * Remove from a /v1/last entry every trace of a memory forgotten since it was recorded, by this
 * server (DELETE /v1/nodes, MCP forget) or by another process on the same store (`mem forget`):
 * the write's item for it goes, and a question whose evidence held it is dropped whole (its answer
 * may quote the text). Mutates `entry`, so the text leaves this process's memory too (ours).
 */
async function dropForgotten(s: Stack, entry: { write: unknown; query: unknown }): Promise<void> {
  const write = entry.write as { added: { id: string }[] } | null;
  if (write) {
    const kept: { id: string }[] = [];
    for (const a of write.added) if (!(await wasForgotten(s, a.id))) kept.push(a);
    entry.write = kept.length ? { ...write, added: kept } : null;
  }
  const query = entry.query as { evidence: { id: string }[] } | null;
  if (query) {
    for (const e of query.evidence) {
      if (await wasForgotten(s, e.id)) {
        entry.query = null;
        break;
      }
    }
  }
}

/** The API's routes: history, stats, graph, last. */
function addScopeRoutes(app: OpenAPIHono, ctx: ApiContext): void {
  const { scoped, lastByScope } = ctx;
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/history',
      summary: 'Append-only history of the scope',
      request: { query: ScopeQuery.extend({ nodeId: z.string().max(200).optional(), limit: z.coerce.number().int().min(1).max(10_000).optional() }) },
      responses: { 200: json(z.object({ history: z.array(z.any()) }).openapi('History'), 'History rows, oldest first'), ...errors },
    }),
    async (c) => {
      const q = c.req.valid('query');
      return c.json({ history: await scoped(c).history({ nodeId: q.nodeId, limit: q.limit }) } as any, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/stats',
      summary: "Counts of the request's scope: nodes, relations by view and subtype, gate decisions of the stored memories",
      request: { query: ScopeQuery },
      responses: { 200: json(z.record(z.string(), z.any()).openapi('Stats'), 'Statistics'), ...errors },
    }),
    async (c) => {
      // only the request's scope: the process-wide counters (`session`: writes, gate decisions and
      // controller calls of every scope; `systemOne`) would tell one scope about another's activity
      const { session: _session, systemOne: _systemOne, ...ofScope } = (await scoped(c).stats()) as Record<string, unknown>;
      return c.json(ofScope as any, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/graph',
      summary: 'The scope\'s memory graph for visualisation (nodes with dominant type and gate action; edges with view)',
      request: { query: ScopeQuery.extend({ limit: z.coerce.number().int().min(1).max(2000).optional() }) },
      responses: { 200: json(z.object({ nodes: z.array(z.any()), edges: z.array(z.any()) }).openapi('Graph'), 'Graph'), ...errors },
    }),
    async (c) => c.json((await scoped(c).graph({ limit: c.req.valid('query').limit })) as any, 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/last',
      summary: 'The last write\'s gate decisions and the last question (answer, evidence, retrieval trace) seen by this server in the request\'s scope',
      request: { query: ScopeQuery },
      responses: { 200: json(z.object({ write: z.any(), query: z.any() }).openapi('Last'), 'Last write and query'), ...errors },
    }),
    async (c) => {
      const s = scoped(c);
      const entry = lastByScope.get(scopeKey(s.scope));
      if (!entry) return c.json({ write: null, query: null } as any, 200);
      await dropForgotten(s, entry);
      return c.json(entry as any, 200);
    },
  );
}

/** The API's routes: export, import. */
function addTransferRoutes(app: OpenAPIHono, ctx: ApiContext): void {
  const { stack, exclusive } = ctx;
  const ndjson = (description: string) => ({ content: { 'application/x-ndjson': { schema: z.string() } }, description });
  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/export',
      summary: 'Export memories, relations (with p), history, gate state and the embedder id as @mem/export JSONL (docs/reliability.md): the scopes matching the given scope parameters (e.g. ?userId=x: every scope of user x), ?all=true for the whole store, else the server default scope; 404 SCOPE_NOT_FOUND when the parameters name no scope the store ever wrote',
      request: { query: ScopeQuery.extend({ all: z.enum(['true', 'false']).optional() }) },
      responses: { 200: ndjson('One JSON object per line: header, scope, memory, relation, history, state, end'), ...errors },
    }),
    async (c) => {
      const { all, ...q } = c.req.valid('query');
      const given = Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined));
      for (const [k, v] of Object.entries(given)) if (!String(v).trim()) throw new MemValidationError('SCOPE_INVALID', `Empty scope parameter "${k}": give a value or leave the parameter out`);
      if (all === 'true' && Object.keys(given).length) throw new MemValidationError('INVALID_INPUT', 'all=true exports every scope: leave out the scope parameters');
      const match = all === 'true' ? {} : Object.keys(given).length ? given : { ...stack.scope };
      const lines = stack.memory.export({ match });
      // the first line is read before answering, so a failure (bad match, store down) is a JSON error, not a cut stream
      const first = await lines.next();
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          if (!first.done) controller.enqueue(new TextEncoder().encode(first.value));
        },
        async pull(controller) {
          try {
            const next = await lines.next();
            if (next.done) controller.close();
            else controller.enqueue(new TextEncoder().encode(next.value));
          } catch (e) {
            controller.error(e); // the client sees a stream without its end line: a truncated export, refused by import
          }
        },
        async cancel() {
          await lines.return(undefined);
        },
      });
      return c.body(stream, 200, { 'content-type': 'application/x-ndjson; charset=utf-8' }) as any;
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/import',
      summary: "Import an @mem/export JSONL body into this server's store: a scope already holding exactly the file's memories is skipped (a repeated or resumed import); refused with 409 IMPORT_MISMATCH when its version or embedder differs, 409 STORE_CONFLICT when one of its scopes holds other memories here, 400 for a malformed or truncated file; nothing written then",
      request: { body: { content: { 'application/x-ndjson': { schema: z.string() } }, required: true as const } },
      responses: { 200: json(z.object({ counts: z.record(z.string(), z.number()), scopes: z.array(z.any()), skipped: z.array(z.any()), header: z.any() }).openapi('ImportReport'), 'What was imported (skipped: scopes found imported already)'), ...errors },
    }),
    async (c) => {
      const text = await c.req.text();
      const report = await exclusive(() => stack.memory.import(exportLines(text)));
      return c.json(report as any, 200);
    },
  );
}

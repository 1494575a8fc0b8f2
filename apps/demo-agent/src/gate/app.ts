/**
 * The HTTP gate service (ours; the gate itself is SAGE, seed 001 §3): lets a memory system in any
 * language ask the novelty gate before it writes. hono + @hono/zod-openapi; every body is
 * zod-validated; errors are JSON `{ error: { code, message } }` (validation 400, unknown id 404,
 * duplicate id 409, state not persisted 503, anything else 500 with a generic message).
 *
 * Endpoints (scopes are opaque strings, e.g. `user:alice`; URL-encode them in paths):
 * - `POST /v1/gate/route  { scope, vector | text, tauNoop? }` → the adaptive gate's decision plus the
 *   fixed-τ_noop pre-filter's verdict on the same score (read-only).
 * - `POST /v1/gate/commit { scope, id, vector | text, replace? }` → store the memory's vector.
 * - `DELETE /v1/gate/{scope}/{id}` → forget it.
 * - `GET /v1/gate/{scope}/stats` → N, κ, τ, density, … of the scope.
 * - `GET /openapi.json`, `GET /healthz`.
 * After each mutation the state (`gate.serialize()`) is written atomically to `statePath`; a
 * restarted service restores it and decides exactly the same. When the write fails the mutation is
 * rolled back (the gate is restored from the last persisted snapshot) and 503 STATE_NOT_PERSISTED
 * is returned, so the file and the memory never disagree.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { createJsonApp, errorJson, errorSchema } from '../http-errors.js';
import { bodyLimit } from 'hono/body-limit';
import { createNoveltyGate, isNoopByScore, SAGE_DEFAULTS, type GateDecision, type NoveltyGate } from '@mem/gate-vmf';
import type { Embedder } from '@mem/core';
import { writeStateAtomic } from './state.js';

export interface GateAppOptions {
  /** The gate to serve (its state is replaced on a failed persist, see above). */
  gate: NoveltyGate;
  /** Embeds `text` requests (core's `createWinkEmbedder()` by default in `startGateServer`). */
  embedder?: Embedder;
  /** Where the state is written after each mutation; omitted = in-memory only. */
  statePath?: string;
  /** Writes the state to `statePath` (default: `writeStateAtomic`, temp file + rename); for tests. */
  writeState?: (path: string, snapshot: ReturnType<NoveltyGate['serialize']>) => Promise<void>;
  /** Max request body in bytes. Default 2 000 000. */
  bodyLimit?: number;
  /** Called with unexpected errors; default: one line on stderr. */
  onInternalError?: (e: unknown) => void;
}


const ErrorSchema = errorSchema('GateError', 'DIMENSION_MISMATCH');

const Scope = z.string().min(1).max(512).openapi({ example: 'user:alice', description: 'Opaque scope key; novelty is computed against all memories of the scope' });
const Vector = z.array(z.number()).min(1).max(8192).openapi({ description: 'Embedding (normalised to unit length by the service)' });
const Text = z.string().min(1).max(20_000).openapi({ description: 'Text embedded by the service (offline wink GloVe embedder by default)' });

const RouteBody = z
  .object({
    scope: Scope,
    vector: Vector.optional(),
    text: Text.optional(),
    tauNoop: z.number().min(-1).max(1).optional().openapi({ description: `τ_noop of the fixed pre-filter (seed 001 §3.5). Default ${SAGE_DEFAULTS.tauNoop}` }),
  })
  // unknown keys are refused (400), so a misspelt option such as "tau_noop" is not silently ignored
  .strict()
  .openapi('RouteRequest');

const CommitBody = z
  .object({
    scope: Scope,
    id: z.string().min(1).max(512),
    vector: Vector.optional(),
    text: Text.optional(),
    replace: z.boolean().optional().openapi({ description: 'Replace the vector when the id exists (after an Update merge); default false → 409 DUPLICATE_ID' }),
  })
  .strict()
  .openapi('CommitRequest');

const DecisionSchema = z
  .object({
    action: z.enum(['add', 'update', 'noop']),
    novelty: z.number(),
    score: z.number(),
    threshold: z.number(),
    kappa: z.number(),
    density: z.number(),
    nearest: z.object({ id: z.string(), cosine: z.number() }).nullable(),
    n: z.number().int(),
  })
  .openapi('GateDecision');

const RouteResult = z
  .object({
    scope: z.string(),
    decision: DecisionSchema,
    noopFilter: z.object({ tauNoop: z.number(), noop: z.boolean() }).openapi({ description: 'Fixed-τ pre-filter: noop iff N > 0 and s_vMF > τ_noop' }),
  })
  .openapi('RouteResult');

const CommitResult = z.object({ scope: z.string(), id: z.string(), size: z.number().int(), replaced: z.boolean() }).openapi('CommitResult');
const DeleteResult = z.object({ scope: z.string(), id: z.string(), removed: z.literal(true), size: z.number().int() }).openapi('DeleteResult');
const StatsResult = z
  .object({
    scope: z.string(),
    size: z.number().int(),
    stats: z
      .object({
        n: z.number(),
        dimension: z.number(),
        commits: z.number(),
        tau: z.number().nullable(),
        kappa: z.number(),
        density: z.number(),
        logVolume: z.number(),
        pcaComponents: z.number(),
        refits: z.number(),
      })
      .passthrough()
      .nullable(),
  })
  .openapi('ScopeStats');

const ScopeParam = z.object({ scope: Scope.openapi({ param: { name: 'scope', in: 'path' } }) });
const ScopeIdParam = z.object({
  scope: Scope.openapi({ param: { name: 'scope', in: 'path' } }),
  id: z.string().min(1).max(512).openapi({ param: { name: 'id', in: 'path' } }),
});

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const errors = {
  400: json(ErrorSchema, 'Invalid input'),
  404: json(ErrorSchema, 'Unknown id'),
  409: json(ErrorSchema, 'Duplicate id'),
  503: json(ErrorSchema, 'State could not be persisted (mutation rolled back) or embedder unavailable'),
};

class ServiceError extends Error {
  constructor(
    readonly status: 400 | 404 | 409 | 503,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}


/** The public fields of a decision (drops internal bookkeeping such as `mode`). */
function publicDecision(d: GateDecision) {
  return { action: d.action, novelty: d.novelty, score: d.score, threshold: d.threshold, kappa: d.kappa, density: d.density, nearest: d.nearest, n: d.n };
}

/** Build the gate service app (no listening; see `startGateServer`). */
export function createGateApp(options: GateAppOptions) {
  let gate = options.gate;
  const limit = options.bodyLimit ?? 2_000_000;
  const onInternal = options.onInternalError ?? ((e: unknown) => console.error(`[mem gate] internal error: ${String((e as any)?.message ?? e)}`));
  // The last state known to be on disk (for rollback) and a queue so writes land in order.
  let persisted = options.statePath ? gate.serialize() : null;
  let chain: Promise<void> = Promise.resolve();

  const vectorOf = async (body: { vector?: number[]; text?: string }): Promise<ArrayLike<number>> => {
    if ((body.vector === undefined) === (body.text === undefined)) throw new ServiceError(400, 'INVALID_INPUT', 'Give exactly one of "vector" or "text"');
    if (body.vector) return body.vector;
    if (!options.embedder) throw new ServiceError(400, 'TEXT_UNSUPPORTED', 'This service has no embedder; send "vector"');
    const [v] = await options.embedder.embed([body.text!]);
    return v;
  };

  /**
   * Apply a mutation, persist, and roll back to the last persisted state when the write fails. With a
   * state file, mutations run one at a time (apply, write, then the next), so a failed write rolls back
   * exactly its own change: a 200 means written and visible, a 503 means absent from memory and file.
   */
  const mutate = async <T>(fn: (g: NoveltyGate) => T): Promise<T> => {
    if (!options.statePath) return fn(gate);
    const run = chain.then(async () => {
      const out = fn(gate);
      const snapshot = gate.serialize();
      try {
        await (options.writeState ?? writeStateAtomic)(options.statePath!, snapshot);
        persisted = snapshot;
      } catch (e) {
        gate = createNoveltyGate({ state: persisted! });
        throw new ServiceError(503, 'STATE_NOT_PERSISTED', `The gate state could not be written (${String((e as any)?.code ?? (e as any)?.message ?? e)}); the change was rolled back`);
      }
      return out;
    });
    chain = run.then(
      () => {},
      () => {},
    );
    return run;
  };

  const app = createJsonApp({
    onInternal,
    mapError: (e, c) => (e instanceof ServiceError ? errorJson(c, e.status, e.code, e.message) : undefined),
  });
  app.use('/v1/*', bodyLimit({ maxSize: limit, onError: (c) => errorJson(c, 413, 'PAYLOAD_TOO_LARGE', `Request body is larger than ${limit} bytes`) }));

  app.get('/healthz', (c) => c.json({ ok: true, scopes: gate.scopes().length }));

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/gate/route',
      summary: 'Route a candidate memory: add / update / noop (read-only)',
      request: { body: { content: { 'application/json': { schema: RouteBody } }, required: true } },
      responses: { 200: json(RouteResult, 'The decision'), ...errors },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const v = await vectorOf(body);
      const d = gate.route(body.scope, v);
      const tauNoop = body.tauNoop ?? SAGE_DEFAULTS.tauNoop;
      return c.json({ scope: body.scope, decision: publicDecision(d), noopFilter: { tauNoop, noop: d.n > 0 && isNoopByScore(d.score, tauNoop) } }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/gate/commit',
      summary: 'Record a stored memory in the gate (advances the scope\'s τ EMA)',
      request: { body: { content: { 'application/json': { schema: CommitBody } }, required: true } },
      responses: { 200: json(CommitResult, 'Committed'), ...errors },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const v = await vectorOf(body);
      const replaced = await mutate((g) => {
        if (body.replace && g.has(body.scope, body.id)) {
          g.replace(body.scope, body.id, v);
          return true;
        }
        g.commit(body.scope, body.id, v);
        return false;
      });
      return c.json({ scope: body.scope, id: body.id, size: gate.size(body.scope), replaced }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/v1/gate/{scope}/{id}',
      summary: 'Forget a memory of a scope',
      request: { params: ScopeIdParam },
      responses: { 200: json(DeleteResult, 'Removed'), ...errors },
    }),
    async (c) => {
      const { scope, id } = c.req.valid('param');
      if (!gate.has(scope, id)) throw new ServiceError(404, 'UNKNOWN_ID', `No memory ${JSON.stringify(id)} in scope ${JSON.stringify(scope)}`);
      await mutate((g) => g.remove(scope, id));
      return c.json({ scope, id, removed: true as const, size: gate.size(scope) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/gate/{scope}/stats',
      summary: 'Statistics of a scope (N, κ, τ, density); stats is null for an unknown scope',
      request: { params: ScopeParam },
      responses: { 200: json(StatsResult, 'Scope statistics'), ...errors },
    }),
    (c) => {
      const { scope } = c.req.valid('param');
      const stats = gate.stats(scope);
      return c.json({ scope, size: gate.size(scope), stats: stats as any }, 200);
    },
  );

  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: '@mem gate service',
      version: '0.1.0',
      description: 'SAGE von Mises–Fisher novelty gate (seed 001 §3) over HTTP: route before you write, commit what you stored.',
    },
  });

  const extras = Object.defineProperties(app, {
    /** The gate currently served (replaced after a rollback). */
    gate: { get: () => gate, enumerable: true },
    /** Resolves when every pending state write has finished. */
    flush: { value: () => chain, enumerable: true },
  });
  return extras as typeof app & { readonly gate: NoveltyGate; flush(): Promise<void> };
}

export type GateApp = ReturnType<typeof createGateApp>;

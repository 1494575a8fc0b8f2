/**
 * The HTTP gate service (`mem-gate serve`; ours; the gate itself is SAGE, seed 001 §3): lets a memory system in any
 * language ask the novelty gate before it writes. hono + @hono/zod-openapi; every body is
 * zod-validated; errors are JSON `{ error: { code, message } }` (validation 400, unknown id 404,
 * duplicate id 409, state not persisted 503, anything else 500 with a generic message).
 *
 * Endpoints (scopes are opaque strings, e.g. `user:alice`; URL-encode them in paths). Scopes and ids
 * follow core's scope character rules (`scopeValueProblem`: no control characters, not only
 * whitespace or invisible characters), are well-formed Unicode in NFC, and are never "." or ".."
 * (path segments a client resolves away); anything else is 400 INVALID_INPUT naming the field.
 * - `POST /v1/gate/route  { scope, vector | text, tauNoop? }` → the adaptive gate's decision plus the
 *   fixed-τ_noop pre-filter's verdict on the same score (read-only).
 * - `POST /v1/gate/commit { scope, id, vector | text, replace? }` → store the memory's vector. A
 *   commit of an id the scope already holds with the same vector (a retry after a timeout) is a
 *   200 `unchanged: true` that changes nothing; with another vector it is 409 DUPLICATE_ID unless
 *   `replace: true`.
 * - `DELETE /v1/gate/{scope}/{id}` → forget it.
 * - `GET /v1/gate/{scope}/stats` → N, κ, τ, density, … of the scope.
 * - `GET /openapi.json`, `GET /healthz`.
 * After each mutation the state (`gate.serialize()`) is written atomically to `statePath`; a
 * restarted service restores it and decides exactly the same. When the write fails the mutation is
 * rolled back (the gate is restored from the last persisted snapshot) and 503 STATE_NOT_PERSISTED
 * is returned, so the file and the memory never disagree.
 */
import { createRoute, z, type RouteConfig } from '@hono/zod-openapi';
import { createJsonApp, errorJson, errorSchema, gateDecisionSchema } from './http.js';
import { bodyLimit } from 'hono/body-limit';
import { createNoveltyGate, GateError, isNoopByScore, isWellFormed, SAGE_DEFAULTS, scopeValueProblem, toUnitVector, type GateDecision, type NoveltyGate } from '@mem/gate-vmf';
import { writeStateAtomic } from './state.js';

/** What the service needs of an embedder for `text` requests (structural: @mem/core's embedders fit). */
export interface TextEmbedder {
  embed(texts: string[]): Promise<ArrayLike<number>[]> | ArrayLike<number>[];
}

export interface GateAppOptions {
  /** The gate to serve (its state is replaced on a failed persist, see above). */
  gate: NoveltyGate;
  /** Embeds `text` requests; omitted = `text` is answered 400 TEXT_UNSUPPORTED (send `vector`). */
  embedder?: TextEmbedder;
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

/**
 * What is wrong with a scope or id string, or null (break-it findings 6 and 7): core's scope
 * character rules, well-formed UTF-16, NFC (an NFD spelling of the same text would be a second key
 * that looks the same), and not "." or ".." (URL path segments that clients resolve away, so
 * DELETE and stats could never address what was committed under them).
 */
export function gateKeyProblem(v: string): string | null {
  if (v === '.' || v === '..') return `must not be "${v}" (a URL path segment clients resolve away: it could not be deleted or read)`;
  const p = scopeValueProblem(v);
  if (p) return p;
  if (!isWellFormed(v)) return 'must not contain a lone UTF-16 surrogate';
  if (v.normalize('NFC') !== v) return 'must be in Unicode NFC (normalize it to NFC: an NFD spelling would be a second key that looks the same)';
  return null;
}

/** A scope or id string: 1–512 characters that pass `gateKeyProblem`. */
const key = () =>
  z
    .string()
    .min(1)
    .max(512)
    .superRefine((v, ctx) => {
      const problem = gateKeyProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });

const Scope = key().openapi({ example: 'user:alice', description: 'Opaque scope key (NFC, no control characters, not blank, not "." or ".."); novelty is computed against all memories of the scope' });
const Id = key().openapi({ description: 'Memory id (same rules as the scope)' });
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
    id: Id,
    vector: Vector.optional(),
    text: Text.optional(),
    replace: z
      .boolean()
      .optional()
      .openapi({ description: 'Replace the vector when the id exists (after an Update merge); default false → 409 DUPLICATE_ID (the same vector again is a 200 unchanged, whatever replace says)' }),
  })
  .strict()
  .openapi('CommitRequest');

const DecisionSchema = gateDecisionSchema.extend({ n: z.number().int() }).openapi('GateDecision');

const RouteResult = z
  .object({
    scope: z.string(),
    decision: DecisionSchema,
    noopFilter: z.object({ tauNoop: z.number(), noop: z.boolean() }).openapi({ description: 'Fixed-τ pre-filter: noop iff N > 0 and s_vMF > τ_noop' }),
  })
  .openapi('RouteResult');

const CommitResult = z
  .object({
    scope: z.string(),
    id: z.string(),
    size: z.number().int(),
    replaced: z.boolean(),
    unchanged: z.boolean().openapi({ description: 'True when the id already held this vector (a retried commit): nothing was changed or written' }),
  })
  .openapi('CommitResult');
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
  id: Id.openapi({ param: { name: 'id', in: 'path' } }),
});

const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const errors = {
  400: json(ErrorSchema, 'Invalid input'),
  404: json(ErrorSchema, 'Unknown id'),
  409: json(ErrorSchema, 'Duplicate id'),
  503: json(ErrorSchema, 'State could not be persisted (mutation rolled back) or embedder unavailable'),
};

/** A route of the service: 200 with `ok`, or one of the service's errors. */
const gateRoute = <M extends 'get' | 'post' | 'delete', P extends string, Req extends NonNullable<RouteConfig['request']>, R extends ReturnType<typeof json>>(
  method: M,
  path: P,
  summary: string,
  request: Req,
  ok: R,
) => createRoute({ method, path, summary, request, responses: { 200: ok, ...errors } });

/** A POST route taking a required JSON `Body` (see `gateRoute`). */
const jsonPost = <P extends string, B extends z.ZodTypeAny, R extends ReturnType<typeof json>>(path: P, summary: string, Body: B, ok: R) =>
  gateRoute('post', path, summary, { body: { content: { 'application/json': { schema: Body } }, required: true } }, ok);

class ServiceError extends Error {
  constructor(
    readonly status: 400 | 404 | 409 | 503,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}


/**
 * The vector handed to the gate (break-it finding 10): when Σxᵢ² overflows (components near 1e200) or
 * falls to the subnormal range (near 1e-160) although a component is non-zero, the vector is first
 * divided by max |xᵢ| — the same direction, so the same unit vector — instead of failing as
 * ZERO_VECTOR. Every other vector is passed as it is, so decisions stay bit for bit the library's.
 * Only for a normalising gate (one with `normalize: false` expects unit vectors and says NOT_NORMALIZED).
 */
export function scaledForNorm(v: number[], normalize: boolean): number[] {
  if (!normalize) return v;
  let s = 0;
  let m = 0;
  for (const x of v) {
    if (typeof x !== 'number' || !Number.isFinite(x)) return v; // the gate names the bad component
    s += x * x;
    const a = Math.abs(x);
    if (a > m) m = a;
  }
  if (m === 0 || (Number.isFinite(s) && s >= 1e-290)) return v;
  return v.map((x) => x / m);
}

/**
 * True when `id` in `scope` already holds exactly the vector `v` would be stored as (its Float32
 * unit vector; break-it finding 4: a retried commit). False when the id is absent or `v` is invalid
 * (the commit then answers with its own error).
 */
function holdsSameVector(g: NoveltyGate, scope: string, id: string, v: ArrayLike<number>): boolean {
  if (!g.has(scope, id)) return false;
  const sc = g.serialize({ scopes: [scope] }).scopes.find((s) => s.scope === scope);
  const row = sc?.vectors ? sc.ids.indexOf(id) : -1;
  if (!sc || row < 0) return false;
  let unit: Float64Array;
  try {
    unit = toUnitVector(v, sc.dimension, g.options.normalize, g.options.normTolerance);
  } catch {
    return false;
  }
  const bytes = Buffer.from(sc.vectors!, 'base64');
  const d = sc.dimension;
  for (let j = 0; j < d; j++) {
    if (bytes.readFloatLE(4 * (row * d + j)) !== Math.fround(unit[j]!)) return false;
  }
  return true;
}

/** The public fields of a decision (drops internal bookkeeping such as `mode`). */
function publicDecision(d: GateDecision) {
  return { action: d.action, novelty: d.novelty, score: d.score, threshold: d.threshold, kappa: d.kappa, density: d.density, nearest: d.nearest, n: d.n };
}

/**
 * `POST /v1/gate/commit` on the gate: commit, or with `replace` replace an id's vector; a retry of an
 * applied commit (the same vector) changes nothing; the same id with another vector is 409 DUPLICATE_ID.
 */
function commitOrReplace(g: NoveltyGate, body: { scope: string; id: string; replace?: boolean }, v: ArrayLike<number>): { replaced: boolean; unchanged: boolean } {
  // a retry of a commit that was applied (say, after a client timeout) changes nothing
  if (holdsSameVector(g, body.scope, body.id, v)) return { replaced: false, unchanged: true };
  if (body.replace && g.has(body.scope, body.id)) {
    g.replace(body.scope, body.id, v);
    return { replaced: true, unchanged: false };
  }
  try {
    g.commit(body.scope, body.id, v);
  } catch (e) {
    if (GateError.isInstance(e) && e.code === 'DUPLICATE_ID') {
      throw new ServiceError(409, 'DUPLICATE_ID', `${e.message} with another vector; send "replace": true to replace it (the same vector again is answered 200, unchanged)`);
    }
    throw e;
  }
  return { replaced: false, unchanged: false };
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
    if (body.vector) return scaledForNorm(body.vector, gate.options.normalize);
    if (!options.embedder) throw new ServiceError(400, 'TEXT_UNSUPPORTED', 'This service has no embedder; send "vector"');
    const [v] = await options.embedder.embed([body.text!]);
    return v;
  };

  /**
   * Apply a mutation, persist, and roll back to the last persisted state when the write fails. With a
   * state file, mutations run one at a time (apply, write, then the next), so a failed write rolls back
   * exactly its own change: a 200 means written and visible, a 503 means absent from memory and file.
   * When `changed(out)` is false the mutation changed nothing and nothing is written.
   */
  const mutate = async <T>(fn: (g: NoveltyGate) => T, changed: (out: T) => boolean = () => true): Promise<T> => {
    if (!options.statePath) return fn(gate);
    const run = chain.then(async () => {
      const out = fn(gate);
      if (!changed(out)) return out;
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
    jsonPost('/v1/gate/route', 'Route a candidate memory: add / update / noop (read-only)', RouteBody, json(RouteResult, 'The decision')),
    async (c) => {
      const body = c.req.valid('json');
      const v = await vectorOf(body);
      const d = gate.route(body.scope, v);
      const tauNoop = body.tauNoop ?? SAGE_DEFAULTS.tauNoop;
      return c.json({ scope: body.scope, decision: publicDecision(d), noopFilter: { tauNoop, noop: d.n > 0 && isNoopByScore(d.score, tauNoop) } }, 200);
    },
  );

  app.openapi(
    jsonPost('/v1/gate/commit', 'Record a stored memory in the gate (advances the scope\'s τ EMA)', CommitBody, json(CommitResult, 'Committed')),
    async (c) => {
      const body = c.req.valid('json');
      const v = await vectorOf(body);
      const { replaced, unchanged } = await mutate((g) => commitOrReplace(g, body, v), (out) => !out.unchanged);
      return c.json({ scope: body.scope, id: body.id, size: gate.size(body.scope), replaced, unchanged }, 200);
    },
  );

  app.openapi(
    gateRoute('delete', '/v1/gate/{scope}/{id}', 'Forget a memory of a scope', { params: ScopeIdParam }, json(DeleteResult, 'Removed')),
    async (c) => {
      const { scope, id } = c.req.valid('param');
      if (!gate.has(scope, id)) throw new ServiceError(404, 'UNKNOWN_ID', `No memory ${JSON.stringify(id)} in scope ${JSON.stringify(scope)}`);
      await mutate((g) => g.remove(scope, id));
      return c.json({ scope, id, removed: true as const, size: gate.size(scope) }, 200);
    },
  );

  app.openapi(
    gateRoute('get', '/v1/gate/{scope}/stats', 'Statistics of a scope (N, κ, τ, density); stats is null for an unknown scope', { params: ScopeParam }, json(StatsResult, 'Scope statistics')),
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

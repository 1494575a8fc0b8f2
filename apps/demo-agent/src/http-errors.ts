/**
 * JSON error bodies shared by the demo agent's two HTTP services (the memory API in http/ and the
 * gate service in gate/; ours): `{ error: { code, message } }`, with the HTTP status taken from the
 * MemError category.
 */
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';

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

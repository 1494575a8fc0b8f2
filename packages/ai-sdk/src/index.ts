/**
 * @mem/ai-sdk: memory for agents built on the Vercel AI SDK (ours).
 *
 * - `createMemoryTools({ memory, scope })` → `{ remember, recall, forget }`, each built with the
 *   SDK's `tool()` and a zod input schema, ready for `generateText({ tools })` / `streamText`.
 * - `recallForPrompt({ memory, scope, query })` → the recalled evidence and a `system` text that puts
 *   it in front of the model (retrieval-augmented prompting without a tool round trip).
 *
 * The scope is fixed when the tools are created (from your app's session: the user, agent or run),
 * never chosen by the model, so a model cannot read or write another user's memories.
 * Errors: a failing tool call throws the @mem error (a `MemError` with `code`); the AI SDK turns a
 * thrown tool error into a tool-error part the model sees.
 * An empty or blank `text` (remember) or `query` (recall) is `TEXT_EMPTY`, the code every @mem path
 * gives for it (the schemas leave it to core instead of failing it as a schema error).
 *
 * Tool input schemas: the model is shown a portable JSON Schema (types, required keys, descriptions;
 * length and range limits moved into the descriptions, see `portableJsonSchema`), because local
 * OpenAI-compatible servers compile tool schemas into sampling grammars and some cannot compile
 * those keywords (llama-cpp-python's server expands `maxLength: 4000` into a grammar it fails to
 * parse, and exits). The arguments the model sends are still validated against the strict zod
 * schema before `execute` runs.
 */
import { jsonSchema, tool, zodSchema, type Schema, type Tool } from 'ai';
import { z } from 'zod';
import { MemValidationError, resolveScope, type Evidence, type Memory, type Scope } from '@mem/core';

/** One recalled memory, as tools return it and prompts show it. */
export interface RecalledMemory {
  id: string;
  text: string;
  speaker: string | null;
  /** ISO-8601 UTC time of the observation. */
  observedAt: string;
  /** Retriever score, higher = better (not comparable across retrievers). */
  score: number;
  /** 'current', or 'superseded' when a later memory changed what this one says (issue 37). */
  status: 'current' | 'superseded';
  /** For a superseded memory: the newer memory's id, its observation time, the edge's p (null if unknown). Null when current. */
  supersededBy: { id: string; at: string; p: number | null } | null;
}

export interface MemoryToolsOptions {
  /** A @mem/core `Memory` (e.g. `createMemory({ store, retriever })`). */
  memory: Memory;
  /** Whose memories the tools read and write; required (the model never picks it). */
  scope: Scope;
  /** Evidence items `recall` returns by default (1..50). Default 5. */
  k?: number;
  /**
   * The JSON Schema the model is shown: 'portable' (default; limits in descriptions, see
   * `portableJsonSchema`) or 'strict' (every zod constraint as a JSON Schema keyword). Arguments are
   * validated against the strict zod schema either way.
   */
  schemas?: 'portable' | 'strict';
}

/** JSON Schema keywords that `portableJsonSchema` moves out of the schema (into the description). */
const LIMIT_KEYWORDS: Record<string, (v: unknown) => string> = {
  minLength: (v) => `at least ${v} character${v === 1 ? '' : 's'}`,
  maxLength: (v) => `at most ${v} character${v === 1 ? '' : 's'}`,
  minimum: (v) => `≥ ${v}`,
  maximum: (v) => `≤ ${v}`,
  exclusiveMinimum: (v) => `> ${v}`,
  exclusiveMaximum: (v) => `< ${v}`,
  minItems: (v) => `at least ${v} item${v === 1 ? '' : 's'}`,
  maxItems: (v) => `at most ${v} item${v === 1 ? '' : 's'}`,
  pattern: (v) => `matching /${v}/`,
  format: (v) => `format ${v}`,
};

/**
 * A JSON Schema that grammar-constrained local servers can compile (ours): `$schema` dropped, and the
 * length, range, pattern and format keywords (`LIMIT_KEYWORDS`) removed and stated in the property's
 * `description` instead ("… (at most 4000 characters)"), recursively. Types, `required`, `enum`,
 * `additionalProperties` and descriptions stay. Returns a new object; the input is not changed.
 * Source: ours (llama-cpp-python's server fails on `maxLength: 4000`; many servers ignore the rest).
 */
export function portableJsonSchema(schema: unknown): Record<string, unknown> {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    const limits: string[] = [];
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (key === '$schema') continue;
      const say = LIMIT_KEYWORDS[key];
      if (say && (typeof value === 'number' || typeof value === 'string')) limits.push(say(value));
      else out[key] = key === 'properties' || key === '$defs' || key === 'definitions' ? Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, walk(v)])) : walk(value);
    }
    if (limits.length) out.description = `${typeof out.description === 'string' ? `${out.description} ` : ''}(${limits.join(', ')})`;
    return out;
  };
  return walk(schema) as Record<string, unknown>;
}

/**
 * An AI SDK schema that shows the model `portableJsonSchema(zod's JSON Schema)` and validates the
 * arguments with the strict zod schema (ours). With `strict: true`, zod's own JSON Schema is shown.
 */
export function toolInputSchema<T>(schema: z.ZodType<T>, options: { strict?: boolean } = {}): Schema<T> {
  const strict = zodSchema(schema as any) as Schema<T>;
  if (options.strict) return strict;
  return jsonSchema<T>(async () => portableJsonSchema(await strict.jsonSchema) as any, {
    validate: (value) => strict.validate!(value),
  });
}

/** The strict input schemas of the three tools (what `execute` receives has passed these). */
export const RememberInput = z
  .object({
    // no min(1): an empty or blank text reaches memory.add, whose TEXT_EMPTY every @mem path gives
    text: z.string().max(20_000).describe('The observation, in the words it was said (non-empty)'),
    speaker: z.string().max(200).optional().describe('Who said it'),
  })
  .strict();
export const RecallInput = (defaultK = 5) =>
  z
    .object({
      query: z.string().max(4000).describe('What to look for, e.g. the question (non-empty)'),
      k: z.number().int().min(1).max(50).optional().describe(`How many memories (default ${defaultK})`),
    })
    .strict();
export const ForgetInput = z.object({ id: z.string().min(1).max(256).describe('The id of the memory, from recall') }).strict();

function toRecalled(e: Evidence): RecalledMemory {
  const st = e.state;
  return {
    id: e.node.id,
    text: e.node.text,
    speaker: e.node.speaker,
    observedAt: e.node.observedAt,
    score: e.score,
    status: st?.status ?? 'current',
    supersededBy: st?.status === 'superseded' ? { id: st.by, at: st.at, p: st.p } : null,
  };
}

const SCOPE_KEYS = ['namespace', 'userId', 'agentId', 'runId'];

function checkScope(scope: Scope | undefined): Scope {
  // a misspelt key alone (`{ userid: 'alice' }`) is named as such (SCOPE_INVALID, "did you mean userId?"), not SCOPE_MISSING
  if (scope && typeof scope === 'object' && Object.keys(scope).some((k) => !SCOPE_KEYS.includes(k))) resolveScope(scope);
  if (!scope || typeof scope !== 'object' || !(scope.userId || scope.agentId || scope.runId)) {
    throw new MemValidationError('SCOPE_MISSING', '@mem/ai-sdk needs a scope with userId, agentId or runId (the model never chooses it)');
  }
  // strict now, not at the model's first tool call: a misspelt key (`{ userId, nameSpace }`) is SCOPE_INVALID
  resolveScope(scope);
  // a copy, frozen: changing the caller's object later must not move the tools to another scope
  return Object.freeze({ ...scope });
}

function checkK(k: number | undefined): number | undefined {
  if (k !== undefined && !(Number.isInteger(k) && k >= 1 && k <= 50)) throw new MemValidationError('INVALID_INPUT', `k must be an integer in 1..50, got ${k}`);
  return k;
}

/** What `createMemoryTools` returns: three AI SDK tools (input → output). */
export type MemoryTools = {
  remember: Tool<{ text: string; speaker?: string }, { id: string; action: 'add' | 'update' | 'noop' | 'duplicate' }>;
  recall: Tool<{ query: string; k?: number }, { memories: RecalledMemory[]; answerable?: boolean; pEvidence?: number }>;
  forget: Tool<{ id: string }, { id: string; forgotten: boolean }>;
};

/**
 * Memory tools for the AI SDK: `remember` (store an observation), `recall` (search; evidence best
 * first) and `forget` (delete one memory by id). Source: ours (tool names as in @mem's MCP server).
 * Throws `MemValidationError` SCOPE_MISSING when `scope` names no user, agent or run, SCOPE_INVALID for an
 * unknown or bad scope key (checked here, not at the first tool call), INVALID_INPUT when `k` is not 1..50.
 */
export function createMemoryTools(options: MemoryToolsOptions): MemoryTools {
  const { memory } = options;
  const scope = checkScope(options.scope);
  const defaultK = checkK(options.k) ?? 5;
  if (options.schemas !== undefined && options.schemas !== 'portable' && options.schemas !== 'strict') {
    throw new MemValidationError('INVALID_INPUT', `schemas must be 'portable' or 'strict', got ${String(options.schemas)}`);
  }
  const strict = options.schemas === 'strict';
  return {
    remember: tool({
      description: 'Store something worth remembering about the user or the conversation in long-term memory (one fact, preference or event per call).',
      inputSchema: toolInputSchema(RememberInput, { strict }),
      execute: async ({ text, speaker }) => {
        const r = await memory.add({ text, speaker, scope });
        return { id: r.node.id, action: r.action };
      },
    }),
    recall: tool({
      description: 'Search long-term memory before answering questions about the user or earlier conversations. Returns stored observations, best first.',
      inputSchema: toolInputSchema(RecallInput(defaultK), { strict }),
      execute: async ({ query, k }) => {
        const r = await memory.search(query, { scope, k: k ?? defaultK });
        return { memories: r.evidence.map(toRecalled), ...(r.answerable === undefined ? {} : { answerable: r.answerable, pEvidence: r.pEvidence }) };
      },
    }),
    forget: tool({
      description: 'Delete one memory by its id (from recall), e.g. when the user asks to forget something.',
      inputSchema: toolInputSchema(ForgetInput, { strict }),
      execute: async ({ id }) => {
        if (typeof id !== 'string' || !id.trim()) throw new MemValidationError('INVALID_INPUT', 'forget needs the id of a memory (a non-empty string, from recall)');
        return { id, forgotten: await memory.forget(id, { scope }) };
      },
    }),
  };
}

/**
 * A `transformRequestBody` for `createOpenAICompatible` against llama-cpp-python's server (ours):
 * an assistant message that only carries tool calls is sent by the AI SDK with `content: null`, which
 * that server's request schema refuses (HTTP 422 "Input should be a valid string"), so the step after
 * a tool call fails. Sets such `content` to `''`; everything else is passed through unchanged.
 *
 *   createOpenAICompatible({ name: 'local', baseURL, transformRequestBody: llamaCppRequestBody })
 */
export function llamaCppRequestBody(body: Record<string, any>): Record<string, any> {
  if (!Array.isArray(body.messages)) return body;
  return { ...body, messages: body.messages.map((m: any) => (m && m.role === 'assistant' && m.content === null ? { ...m, content: '' } : m)) };
}

export interface RecallForPromptOptions {
  memory: Memory;
  scope: Scope;
  /** What to recall for, usually the user's latest message. */
  query: string;
  /** Evidence items. Default 5. */
  k?: number;
  /** Your system prompt; the memories are appended to it. */
  system?: string;
  /** Reference time (ISO-8601) for recency and "today". Default now. */
  now?: string;
}

/**
 * One line per memory: `- [2024-05-16] Mira: I prefer tea over coffee.`; a superseded memory ends in
 * `(no longer true since 2024-09-01)` so a model does not take the old state for the current one.
 */
export function formatMemories(memories: RecalledMemory[]): string {
  return memories
    .map((m) => {
      const stale = m.status === 'superseded' && m.supersededBy ? ` (no longer true since ${m.supersededBy.at.slice(0, 10) || 'a later memory'})` : '';
      return `- [${m.observedAt.slice(0, 10)}] ${m.speaker ? `${m.speaker}: ` : ''}${m.text.replace(/\s+/g, ' ').trim()}${stale}`;
    })
    .join('\n');
}

/**
 * Recall evidence for `query` and build a system prompt that carries it:
 * `{ system, memories }`, to pass as `generateText({ system, prompt })`. With no evidence the system
 * text says so (the model should not invent memories); so it does when the retriever abstained
 * (`answerable: false`, issue 37), and otherwise it gives the retriever's p(evidence) when there is one.
 * Source: ours.
 */
export async function recallForPrompt(options: RecallForPromptOptions): Promise<{ system: string; memories: RecalledMemory[] }> {
  const scope = checkScope(options.scope);
  const r = await options.memory.search(options.query, { scope, k: checkK(options.k) ?? 5, now: options.now });
  const memories = r.evidence.map(toRecalled);
  const block = r.answerable === false
    ? `No stored memory answers this message (p(evidence) ${r.pEvidence?.toFixed(2)}); do not invent one.`
    : memories.length
    ? `Relevant memories (stored observations, best match first${r.pEvidence === undefined ? '' : `; p(evidence) ${r.pEvidence.toFixed(2)} that they hold the answer`}; use them when they answer the question, and say when they do not):\n${formatMemories(memories)}`
    : 'No stored memory matches this message.';
  return { system: options.system ? `${options.system}\n\n${block}` : block, memories };
}

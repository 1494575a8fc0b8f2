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
 */
import { tool, type Tool } from 'ai';
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
}

export interface MemoryToolsOptions {
  /** A @mem/core `Memory` (e.g. `createMemory({ store, retriever })`). */
  memory: Memory;
  /** Whose memories the tools read and write; required (the model never picks it). */
  scope: Scope;
  /** Evidence items `recall` returns by default (1..50). Default 5. */
  k?: number;
}

function toRecalled(e: Evidence): RecalledMemory {
  return { id: e.node.id, text: e.node.text, speaker: e.node.speaker, observedAt: e.node.observedAt, score: e.score };
}

function checkScope(scope: Scope | undefined): Scope {
  if (!scope || typeof scope !== 'object' || !(scope.userId || scope.agentId || scope.runId)) {
    throw new MemValidationError('SCOPE_MISSING', '@mem/ai-sdk needs a scope with userId, agentId or runId (the model never chooses it)');
  }
  // strict now, not at the model's first tool call: a misspelt key (`{ userId, nameSpace }`) is SCOPE_INVALID
  resolveScope(scope);
  return scope;
}

function checkK(k: number | undefined): number | undefined {
  if (k !== undefined && !(Number.isInteger(k) && k >= 1 && k <= 50)) throw new MemValidationError('INVALID_INPUT', `k must be an integer in 1..50, got ${k}`);
  return k;
}

/** What `createMemoryTools` returns: three AI SDK tools (input → output). */
export type MemoryTools = {
  remember: Tool<{ text: string; speaker?: string }, { id: string; action: 'add' | 'update' | 'noop' | 'duplicate' }>;
  recall: Tool<{ query: string; k?: number }, { memories: RecalledMemory[] }>;
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
  return {
    remember: tool({
      description: 'Store something worth remembering about the user or the conversation in long-term memory (one fact, preference or event per call).',
      inputSchema: z.object({
        text: z.string().min(1).max(20_000).describe('The observation, in the words it was said'),
        speaker: z.string().max(200).optional().describe('Who said it'),
      }),
      execute: async ({ text, speaker }) => {
        const r = await memory.add({ text, speaker, scope });
        return { id: r.node.id, action: r.action };
      },
    }),
    recall: tool({
      description: 'Search long-term memory before answering questions about the user or earlier conversations. Returns stored observations, best first.',
      inputSchema: z.object({
        query: z.string().min(1).max(4000).describe('What to look for, e.g. the question'),
        k: z.number().int().min(1).max(50).optional().describe(`How many memories (default ${defaultK})`),
      }),
      execute: async ({ query, k }) => {
        const r = await memory.search(query, { scope, k: k ?? defaultK });
        return { memories: r.evidence.map(toRecalled) };
      },
    }),
    forget: tool({
      description: 'Delete one memory by its id (from recall), e.g. when the user asks to forget something.',
      inputSchema: z.object({ id: z.string().min(1).max(256) }),
      execute: async ({ id }) => ({ id, forgotten: await memory.forget(id, { scope }) }),
    }),
  };
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

/** One line per memory: `- [2024-05-16] Mira: I prefer tea over coffee.` */
export function formatMemories(memories: RecalledMemory[]): string {
  return memories.map((m) => `- [${m.observedAt.slice(0, 10)}] ${m.speaker ? `${m.speaker}: ` : ''}${m.text.replace(/\s+/g, ' ').trim()}`).join('\n');
}

/**
 * Recall evidence for `query` and build a system prompt that carries it:
 * `{ system, memories }`, to pass as `generateText({ system, prompt })`. With no evidence the system
 * text says so (the model should not invent memories). Source: ours.
 */
export async function recallForPrompt(options: RecallForPromptOptions): Promise<{ system: string; memories: RecalledMemory[] }> {
  const scope = checkScope(options.scope);
  const r = await options.memory.search(options.query, { scope, k: checkK(options.k) ?? 5, now: options.now });
  const memories = r.evidence.map(toRecalled);
  const block = memories.length
    ? `Relevant memories (stored observations, best match first; use them when they answer the question, and say when they do not):\n${formatMemories(memories)}`
    : 'No stored memory matches this message.';
  return { system: options.system ? `${options.system}\n\n${block}` : block, memories };
}

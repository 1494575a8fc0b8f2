/**
 * Against a real OpenAI-compatible server (e.g. the local llama.cpp server of `pnpm models:fetch`,
 * SmolLM2-135M), through the AI SDK's `@ai-sdk/openai-compatible` provider. GATED: runs when
 * MEM_LLM_BASE_URL and MEM_LLM_MODEL are set (MEM_LLM_API_KEY optional), else skips and says why.
 * A 135M model's wording is not checked; the test checks that the recalled evidence goes out in the
 * request and that the server's answer comes back through the SDK.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateText } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createMemory, type Memory } from '@mem/core';
import { recallForPrompt } from './index.js';

const baseURL = process.env.MEM_LLM_BASE_URL?.trim();
const modelId = process.env.MEM_LLM_MODEL?.trim();
const enabled = Boolean(baseURL && modelId);
if (!enabled) console.warn('@mem/ai-sdk local LLM test skipped: set MEM_LLM_BASE_URL and MEM_LLM_MODEL (e.g. the llama.cpp server of `pnpm models:fetch`) to run it');

describe.skipIf(!enabled)('@mem/ai-sdk against an OpenAI-compatible server', () => {
  let memory: Memory;
  const scope = { userId: 'alice' };
  beforeAll(async () => {
    memory = createMemory();
    await memory.add({ text: 'My sister Nora moved to Lisbon last year.', speaker: 'Alice', observedAt: '2024-03-11T09:00:00Z', scope });
  }, 60_000);
  afterAll(async () => memory?.close());

  it('answers with the recalled evidence in its system prompt', async () => {
    const sent: string[] = [];
    const provider = createOpenAICompatible({
      name: 'local',
      baseURL: baseURL!,
      apiKey: process.env.MEM_LLM_API_KEY || 'none',
      fetch: async (input, init) => {
        sent.push(String(init?.body ?? ''));
        return fetch(input, init);
      },
    });
    const { system } = await recallForPrompt({ memory, scope, query: 'Where does Nora live?', system: 'Answer in one short sentence.' });
    const r = await generateText({ model: provider(modelId!), system, prompt: 'Where does Nora live?', maxOutputTokens: 32, temperature: 0 });
    expect(sent.join('\n')).toContain('Nora moved to Lisbon');
    expect(r.text.trim().length).toBeGreaterThan(0);
    expect(r.usage.outputTokens ?? 0).toBeGreaterThan(0);
  }, 120_000);
});

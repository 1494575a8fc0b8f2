/**
 * The memory tools inside the AI SDK's own loop: `generateText` with the SDK's test model
 * (`MockLanguageModelV4` from `ai/test`) calling remember / recall / forget, and `recallForPrompt`
 * feeding a real @mem/core memory (offline embedder, in-memory SQLite) into the prompt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateText, isStepCount } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createMemory, MemError, type Memory, MemValidationError } from '@mem/core';
import { createMemoryTools, formatMemories, portableJsonSchema, recallForPrompt } from './index.js';
import { errorCodeOf, expectMemError } from '@mem/test-utils';

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } } as any;
const toolCall = (toolName: string, input: unknown, id = 'call-1') => ({
  content: [{ type: 'tool-call' as const, toolCallId: id, toolName, input: JSON.stringify(input) }],
  finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
  usage,
  warnings: [],
});
const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] });

/** Every text the model was shown across its calls (prompt messages and tool results). */
const shown = (model: MockLanguageModelV4) => JSON.stringify(model.doGenerateCalls.map((c) => c.prompt));

describe('@mem/ai-sdk with the AI SDK test model', () => {
  let memory: Memory;
  const alice = { userId: 'alice' };
  beforeAll(async () => {
    memory = createMemory();
    await memory.add([
      { text: 'I switched from espresso to green tea in March.', speaker: 'Alice', observedAt: '2024-03-10T09:00:00Z', scope: alice },
      { text: 'My sister Nora moved to Lisbon last year.', speaker: 'Alice', observedAt: '2024-03-11T09:00:00Z', scope: alice },
      { text: 'I only drink black coffee.', speaker: 'Bob', observedAt: '2024-03-11T09:00:00Z', scope: { userId: 'bob' } },
    ]);
  }, 60_000);
  afterAll(async () => memory?.close());

  it('recall: the model calls the tool, the SDK runs it, the evidence reaches the next step', async () => {
    const model = new MockLanguageModelV4({ doGenerate: [toolCall('recall', { query: 'Which tea does Alice drink?' }), text('Green tea, since March.')] });
    const r = await generateText({ model, tools: createMemoryTools({ memory, scope: alice }), prompt: 'What does Alice drink?', stopWhen: isStepCount(3) });
    expect(r.text).toBe('Green tea, since March.');
    const result = r.steps[0].toolResults[0] as any;
    expect(result.toolName).toBe('recall');
    const texts: string[] = result.output.memories.map((m: any) => m.text);
    expect(texts).toContain('I switched from espresso to green tea in March.');
    expect(texts).not.toContain('I only drink black coffee.'); // another user's memory never leaks
    expect(Object.keys(result.output.memories[0]).sort()).toEqual(['id', 'observedAt', 'score', 'speaker', 'status', 'supersededBy', 'text']);
    expect(shown(model)).toContain('green tea in March');
    // the tools were offered to the model with their JSON schemas
    const offered = model.doGenerateCalls[0].tools!.map((t: any) => t.name).sort();
    expect(offered).toEqual(['forget', 'recall', 'remember']);
  });

  it('remember then forget through tool calls', async () => {
    const scope = { userId: 'carol' };
    const tools = createMemoryTools({ memory, scope });
    const model = new MockLanguageModelV4({ doGenerate: [toolCall('remember', { text: 'I am allergic to peanuts.', speaker: 'Carol' }), text('Noted.')] });
    const r = await generateText({ model, tools, prompt: 'Remember: I am allergic to peanuts.', stopWhen: isStepCount(3) });
    const stored = (r.steps[0].toolResults[0] as any).output;
    expect(stored.action).toBe('add');
    expect((await memory.list({ scope })).map((n) => n.text)).toEqual(['I am allergic to peanuts.']);

    const forget = new MockLanguageModelV4({ doGenerate: [toolCall('forget', { id: stored.id }), text('Forgotten.')] });
    const f = await generateText({ model: forget, tools, prompt: 'Forget that.', stopWhen: isStepCount(3) });
    expect((f.steps[0].toolResults[0] as any).output).toEqual({ id: stored.id, forgotten: true });
    expect(await memory.list({ scope })).toEqual([]);
  });

  it('bad tool input from the model becomes a tool error, nothing is stored', async () => {
    const scope = { userId: 'dave' };
    const model = new MockLanguageModelV4({ doGenerate: [toolCall('remember', { text: '' }), toolCall('remember', { text: ' \t' }, 'call-2'), toolCall('recall', { query: '' }, 'call-3'), text('Sorry.')] });
    const r = await generateText({ model, tools: createMemoryTools({ memory, scope }), prompt: 'x', stopWhen: isStepCount(5) });
    const parts = r.steps.flatMap((s) => s.content.filter((p: any) => p.type === 'tool-error')) as any[];
    expect(parts).toHaveLength(3);
    // break-it point 1: an empty text (or query) is the @mem error TEXT_EMPTY, as on every other path
    expect(parts.map((p) => MemError.isInstance(p.error) && p.error.code)).toEqual(['TEXT_EMPTY', 'TEXT_EMPTY', 'TEXT_EMPTY']);
    expect(await memory.list({ scope })).toEqual([]);
  });

  it('a scope is required and never chosen by the model', () => {
    expect(() => createMemoryTools({ memory, scope: {} as any })).toThrow(/SCOPE_MISSING|needs a scope/);
    try {
      createMemoryTools({ memory, scope: undefined as any });
    } catch (e) {
      expect(MemError.isInstance(e) && e.code).toBe('SCOPE_MISSING');
    }
    // a misspelt or extra scope key, or a bad default k, fails when the tools are made, not at the model's first call
    const codeOf = (f: () => unknown) => errorCodeOf(f, MemError);
    expect(codeOf(() => createMemoryTools({ memory, scope: { userId: 'alice', nameSpace: 'x' } as any }))).toBe('SCOPE_INVALID');
    // the misspelt key alone: named (did you mean userId?), not "needs a scope"
    expect(codeOf(() => createMemoryTools({ memory, scope: { userid: 'alice' } as any }))).toBe('SCOPE_INVALID');
    expect(() => createMemoryTools({ memory, scope: { userid: 'alice' } as any })).toThrow(/"userid".*userId/);
    expect(codeOf(() => createMemoryTools({ memory, scope: { userId: 'a|b' } }))).toBe('SCOPE_INVALID');
    expect(codeOf(() => createMemoryTools({ memory, scope: { userId: '\u200b' } }))).toBe('SCOPE_INVALID');
    for (const k of [0, 2.5, 51, NaN]) expect(codeOf(() => createMemoryTools({ memory, scope: alice, k }))).toBe('INVALID_INPUT');
    const schema = JSON.stringify(createMemoryTools({ memory, scope: alice }).recall.inputSchema);
    expect(schema).not.toMatch(/userId|scope/);
  });

  it('adversarial: unknown tool arguments are refused, the scope is copied when the tools are made, forget checks its id', async () => {
    const { RememberInput, RecallInput, ForgetInput } = await import('./index.js');
    // a model that adds `observedAt` or a `scope` must not have them silently dropped (nor obeyed)
    expect(RememberInput.safeParse({ text: 'hi', observedAt: '2020-01-01T00:00:00Z' }).success).toBe(false);
    expect(RecallInput().safeParse({ query: 'hi', scope: { userId: 'bob' } }).success).toBe(false);
    expect(ForgetInput.safeParse({ id: 'x', all: true }).success).toBe(false);
    const s = { userId: 'scope-copy' };
    const tools = createMemoryTools({ memory, scope: s });
    s.userId = 'mallory';
    const stored = (await tools.remember.execute!({ text: 'The copied scope keeps this fact.' }, { toolCallId: 't', messages: [] } as any)) as any;
    expect((await memory.get(stored.id, { scope: { userId: 'scope-copy' } }))?.text).toBe('The copied scope keeps this fact.');
    expect(await memory.list({ scope: { userId: 'mallory' } })).toEqual([]);
    for (const id of [{ a: 1 }, '', '  ']) {
      const err = await Promise.resolve(tools.forget.execute!({ id } as any, { toolCallId: 't', messages: [] } as any)).catch((e) => e);
      expect(MemError.isInstance(err) && err.code).toBe('INVALID_INPUT');
    }
    await expectMemError(memory.forget({ a: 1 } as any, { scope: { userId: 'scope-copy' } }), MemValidationError, 'INVALID_INPUT');
  });

  it('recallForPrompt refuses a misspelt scope key and a bad k with typed errors', async () => {
    const codeOf = async (p: () => Promise<unknown>) => p().then(() => 'none', (e) => (MemError.isInstance(e) ? e.code : 'untyped'));
    expect(await codeOf(() => recallForPrompt({ memory, scope: { userId: 'alice', runid: 'r' } as any, query: 'tea' }))).toBe('SCOPE_INVALID');
    expect(await codeOf(() => recallForPrompt({ memory, scope: alice, query: 'tea', k: 0 }))).toBe('INVALID_INPUT');
  });

  it('recallForPrompt puts the recalled evidence into the system prompt the model receives', async () => {
    const { system, memories } = await recallForPrompt({ memory, scope: alice, query: 'Where does Nora live?', system: 'You are a helpful assistant.' });
    expect(memories.map((m) => m.text)).toContain('My sister Nora moved to Lisbon last year.');
    expect(system.startsWith('You are a helpful assistant.\n\nRelevant memories')).toBe(true);
    expect(system).toContain('- [2024-03-11] Alice: My sister Nora moved to Lisbon last year.');
    const model = new MockLanguageModelV4({ doGenerate: text('In Lisbon.') });
    await generateText({ model, system, prompt: 'Where does Nora live?' });
    const sys = model.doGenerateCalls[0].prompt.find((m: any) => m.role === 'system') as any;
    expect(sys.content).toContain('Nora moved to Lisbon');
    const none = await recallForPrompt({ memory, scope: { userId: 'nobody' }, query: 'Where does Nora live?' });
    expect(none).toEqual({ system: 'No stored memory matches this message.', memories: [] });
    expect(formatMemories([])).toBe('');
  });

  it('recall and recallForPrompt carry whether memory holds an answer and its p (issue 37)', async () => {
    // a retriever that says p(evidence) (jev with its learned models), stubbed: one memory, both outcomes
    const item = { node: { id: 'n1', text: 'I have a peanut allergy.', speaker: 'Tomas', observedAt: '2026-02-14T10:00:00.000Z' }, score: 0.3, path: [] };
    const stub = (answerable: boolean, pEvidence: number) => ({ search: async () => ({ evidence: [item], answerable, pEvidence, trace: {} }) }) as unknown as Memory;
    const no = await recallForPrompt({ memory: stub(false, 0.123), scope: alice, query: "What is Tomas's blood type?" });
    expect(no.system).toBe('No stored memory answers this message (p(evidence) 0.12); do not invent one.');
    const yes = await recallForPrompt({ memory: stub(true, 0.934), scope: alice, query: 'What is Tomas allergic to?' });
    expect(yes.system).toContain('best match first; p(evidence) 0.93 that they hold the answer; use them');
    expect(yes.system).toContain('- [2026-02-14] Tomas: I have a peanut allergy.');
    const out = await (createMemoryTools({ memory: stub(false, 0.123), scope: alice }).recall as any).execute({ query: "What is Tomas's blood type?" }, { toolCallId: 't', messages: [] });
    expect(out).toMatchObject({ answerable: false, pEvidence: 0.123 });
  });

  it('a superseded memory says so in the tool result and in the prompt (issue 37)', () => {
    const base = { id: 'a', text: 'I love spicy food.', speaker: 'Jonas', observedAt: '2026-01-10T10:00:00.000Z', score: 0.5 };
    const old = { ...base, status: 'superseded' as const, supersededBy: { id: 'b', at: '2026-11-10T10:00:00.000Z', p: 0.94 } };
    expect(formatMemories([old])).toBe('- [2026-01-10] Jonas: I love spicy food. (no longer true since 2026-11-10)');
    expect(formatMemories([{ ...base, status: 'current', supersededBy: null }])).toBe('- [2026-01-10] Jonas: I love spicy food.');
  });

  it('the model is shown portable schemas (no length/range keywords a grammar builder chokes on); arguments are still checked strictly', async () => {
    const model = new MockLanguageModelV4({ doGenerate: [toolCall('recall', { query: 'x'.repeat(4001) }), toolCall('recall', { query: 'tea', k: 51 }, 'call-2'), text('Sorry.')] });
    const r = await generateText({ model, tools: createMemoryTools({ memory, scope: alice }), prompt: 'x', stopWhen: isStepCount(4) });
    const offered = model.doGenerateCalls[0].tools! as any[];
    const recall = offered.find((t) => t.name === 'recall').inputSchema;
    const all = JSON.stringify(offered.map((t) => t.inputSchema));
    for (const keyword of ['maxLength', 'minLength', 'minimum', 'maximum', '$schema']) expect(all).not.toContain(`"${keyword}"`);
    expect(recall).toMatchObject({ type: 'object', required: ['query'], properties: { query: { type: 'string' }, k: { type: 'integer' } } });
    expect(recall.properties.query.description).toBe('What to look for, e.g. the question (non-empty) (at most 4000 characters)');
    expect(recall.properties.k.description).toBe('How many memories (default 5) (≥ 1, ≤ 50)');
    // both over-limit calls fail validation (tool errors the model sees), neither reaches execute
    const errors = r.steps.flatMap((s) => s.content.filter((p: any) => p.type === 'tool-error'));
    expect(errors).toHaveLength(2);
    expect(r.steps.flatMap((s) => s.toolResults)).toHaveLength(0);
    // schemas: 'strict' shows zod's own JSON Schema
    const strict = new MockLanguageModelV4({ doGenerate: text('ok') });
    await generateText({ model: strict, tools: createMemoryTools({ memory, scope: alice, schemas: 'strict' }), prompt: 'x' });
    expect(JSON.stringify(strict.doGenerateCalls[0].tools!.map((t: any) => t.inputSchema))).toContain('"maxLength":4000');
  });

  it('portableJsonSchema moves limits into descriptions recursively and leaves its input alone', () => {
    const input = { $schema: 'x', type: 'object', properties: { tags: { type: 'array', maxItems: 3, items: { type: 'string', pattern: '^[a-z]+$' } } }, required: ['tags'], additionalProperties: false };
    const copy = structuredClone(input);
    expect(portableJsonSchema(input)).toEqual({
      type: 'object',
      properties: { tags: { type: 'array', description: '(at most 3 items)', items: { type: 'string', description: '(matching /^[a-z]+$/)' } } },
      required: ['tags'],
      additionalProperties: false,
    });
    expect(input).toEqual(copy);
  });
});

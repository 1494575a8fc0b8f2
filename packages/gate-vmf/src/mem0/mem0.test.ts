/**
 * The wrapper against the real mem0ai OSS Memory (mem0ai 3.3.1, a devDependency), configured to talk
 * to a loopback OpenAI-compatible server written here (chat completions + embeddings), so LLM
 * calls can be counted. MEM0_TELEMETRY=false and MEM0_DIR are set before mem0ai is imported.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { withNoveltyGate } from './index.js';

const DIM = 64;

/** Deterministic bag-of-words embedding (hashed, unit length): same words → cosine 1. */
function embedText(text: string): number[] {
  const v = new Array(DIM).fill(0);
  for (const w of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619) >>> 0;
    v[h % DIM] += 1;
    v[(h >>> 8) % DIM] += 0.5;
  }
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}

let server: http.Server;
let baseURL = '';
const calls = { chat: 0, embeddings: 0 };
let tmp = '';
let MemoryCls: any;

function readBody(req: http.IncomingMessage): Promise<any> {
  return new Promise((resolve) => {
    let s = '';
    req.on('data', (c) => (s += c));
    req.on('end', () => resolve(s ? JSON.parse(s) : {}));
  });
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-mem0-'));
  process.env.MEM0_TELEMETRY = 'false';
  process.env.MEM0_DIR = tmp;
  server = http.createServer(async (req, res) => {
    const body = await readBody(req);
    res.setHeader('content-type', 'application/json');
    if (req.url?.endsWith('/embeddings')) {
      calls.embeddings++;
      const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input];
      res.end(JSON.stringify({ object: 'list', model: body.model, data: inputs.map((t, i) => ({ object: 'embedding', index: i, embedding: embedText(String(t)) })), usage: { prompt_tokens: 1, total_tokens: 1 } }));
      return;
    }
    if (req.url?.endsWith('/chat/completions')) {
      calls.chat++;
      // The stand-in LLM extracts one fact per new user message (mem0's additive extraction format).
      const user = String(body.messages?.find((m: any) => m.role === 'user')?.content ?? '');
      const block = user.split('## New Messages')[1]?.split('## Observation Date')[0] ?? '';
      const facts = block
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l.startsWith('user:'))
        .map((l, i) => ({ id: String(i), text: l.slice(5).trim(), attributed_to: 'user' }));
      const content = JSON.stringify({ memory: facts });
      res.end(JSON.stringify({ id: 'x', object: 'chat.completion', created: 0, model: body.model, choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
      return;
    }
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  MemoryCls = (await import('mem0ai/oss')).Memory;
}, 60_000);

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

function newMemory(name: string) {
  return new MemoryCls({
    embedder: { provider: 'openai', config: { apiKey: 'test', baseURL, model: 'stand-in-embed', embeddingDims: DIM } },
    vectorStore: { provider: 'memory', config: { collectionName: name, dimension: DIM, dbPath: ':memory:' } },
    llm: { provider: 'openai', config: { apiKey: 'test', baseURL, model: 'stand-in-llm' } },
    historyStore: { provider: 'sqlite', config: { historyDbPath: path.join(tmp, `${name}.db`) } },
  });
}

// A fact stream with repeats: 10 distinct facts, each said 2-3 times (in reordered words).
const FACTS = [
  'I live in Lisbon with my two cats',
  'my favourite food is grilled sardines',
  'I work as a marine biologist at the aquarium',
  'my sister Ana plays the cello in an orchestra',
  'I am training for the Berlin marathon in autumn',
  'I am allergic to peanuts and shellfish',
  'my daughter starts school in September',
  'I drive an old blue Volvo station wagon',
  'I learned to surf last summer in Ericeira',
  'my favourite author is Jose Saramago',
];
const reorder = (s: string) => s.split(' ').reverse().join(' ');
const STREAM = [...FACTS, ...FACTS.map(reorder), ...FACTS.slice(0, 5)];

describe('withNoveltyGate on a real mem0ai Memory (loopback OpenAI-compatible server)', () => {
  it('skips redundant adds and saves their extraction LLM calls (infer: true)', async () => {
    const plain = newMemory('plain');
    const before = calls.chat;
    for (const m of STREAM) await plain.add(m, { userId: 'u1' });
    const baselineCalls = calls.chat - before;
    expect(baselineCalls).toBe(STREAM.length); // mem0 3.3: one extraction call per add

    const gated = withNoveltyGate(newMemory('gated'), { embed: embedText, policy: { gate: 'adaptive', onUpdate: 'add', onNoop: 'skip' } });
    const before2 = calls.chat;
    const outcomes: string[] = [];
    for (const m of STREAM) {
      const r = await gated.add(m, { userId: 'u1' });
      outcomes.push(r.gate.decisions[0].action);
      if (r.gate.decisions[0].action === 'noop') {
        expect(r.gate.skipped).toBe(1);
        expect(r.gate.forwardedAdd).toBe(false);
        expect(r.results).toEqual([]);
      }
    }
    const gatedCalls = calls.chat - before2;
    const skipped = gated.stats().addCallsSkipped;
    expect(outcomes.slice(0, FACTS.length).every((a) => a === 'add')).toBe(true);
    expect(skipped).toBe(STREAM.length - FACTS.length); // every repeat is a Noop with these embeddings
    expect(gatedCalls).toBe(baselineCalls - skipped);
    const stored = await gated.getAll({ filters: { user_id: 'u1' }, topK: 100 });
    expect(stored.results.length).toBe(FACTS.length);
    expect(gated.gate.size('user:u1|agent:|run:')).toBe(FACTS.length);
    console.log(`mem0 wrapper: ${baselineCalls} extraction LLM calls without the gate, ${gatedCalls} with it (${skipped} saved)`);
  });

  it('seeds a scope from the wrapped memory on first use and keeps deletes in step', async () => {
    const mem = newMemory('seeded');
    for (const f of FACTS.slice(0, 4)) await mem.add(f, { userId: 'u2', infer: false });
    const gated = withNoveltyGate(mem, { embed: embedText });
    const r = await gated.add(FACTS[1], { userId: 'u2', infer: false });
    expect(r.gate.decisions[0].action).toBe('noop');
    expect(gated.stats().seededScopes).toBe(1);
    expect(gated.gate.size('user:u2|agent:|run:')).toBe(4);
    // other scopes are not seeded from u2's memories
    const other = await gated.add(FACTS[1], { userId: 'u3', infer: false });
    expect(other.gate.decisions[0].action).toBe('add');
    // delete through the wrapper → the gate forgets it → the same fact is new again
    const id = r.gate.decisions[0].nearest!.id;
    await gated.delete(id);
    expect(gated.gate.has('user:u2|agent:|run:', id)).toBe(false);
    const again = await gated.add(FACTS[1], { userId: 'u2', infer: false });
    expect(again.gate.decisions[0].action).toBe('add');
    expect(again.results.length).toBe(1);
    // deleteAll drops the scope
    await gated.deleteAll({ userId: 'u2' });
    expect(gated.gate.size('user:u2|agent:|run:')).toBe(0);
  });

  it('Update → updates the nearest memory with the merged text when the policy allows', async () => {
    // a wide Update band so a partial overlap lands in it: τ = 0.2 fixed (τ₀ = 0), δ = 0.3
    const gated = withNoveltyGate(newMemory('upd'), {
      embed: embedText,
      gate: { normalize: true, tau0: 0, tauMin: 0.2, delta: 0.3 },
      policy: { onUpdate: 'update', merge: (old, incoming) => `${old}; ${incoming}` },
    });
    const first = await gated.add('I drive an old blue Volvo', { userId: 'u4', infer: false });
    const id = first.results[0].id;
    const r = await gated.add('I drive a red bicycle', { userId: 'u4', infer: false });
    expect(r.gate.decisions[0].action).toBe('update');
    expect(r.gate.decisions[0].forwarded).toBe('update');
    expect(r.results[0]).toMatchObject({ id, memory: 'I drive an old blue Volvo; I drive a red bicycle', metadata: { event: 'UPDATE' } });
    expect((await gated.get(id))?.memory).toBe('I drive an old blue Volvo; I drive a red bicycle');
    expect(gated.gate.size('user:u4|agent:|run:')).toBe(1);
    // with onUpdate: 'add' the same decision is forwarded as an add
    const g2 = withNoveltyGate(newMemory('upd2'), { embed: embedText, gate: { normalize: true, tau0: 0, tauMin: 0.2, delta: 0.3 }, policy: { onUpdate: 'add' } });
    await g2.add('I drive an old blue Volvo', { userId: 'u4', infer: false });
    const r2 = await g2.add('I drive a red bicycle', { userId: 'u4', infer: false });
    expect(r2.gate.decisions[0]).toMatchObject({ action: 'update', forwarded: 'add' });
    expect(g2.gate.size('user:u4|agent:|run:')).toBe(2);
  });

  it("onNoop 'annotate' (the default) stores a Noop raw with infer: false and a link, and it can be searched", async () => {
    const mem = newMemory('annotate');
    const seen: { infer?: boolean; metadata?: Record<string, any> }[] = [];
    const add = mem.add.bind(mem);
    mem.add = (messages: any, config: any) => {
      seen.push({ infer: config?.infer, metadata: config?.metadata });
      return add(messages, config);
    };
    const gated = withNoveltyGate(mem, { embed: embedText, policy: 'noop-filter' });
    const before = calls.chat;
    const first = await gated.add(FACTS[2], { userId: 'u6', metadata: { source: 'chat' } });
    const chatAfterFirst = calls.chat;
    const dup = await gated.add(reorder(FACTS[2]), { userId: 'u6', metadata: { source: 'chat' } });
    expect(chatAfterFirst - before).toBe(1); // the first message went through extraction
    expect(calls.chat).toBe(chatAfterFirst); // the Noop made no LLM call
    expect(dup.gate.decisions[0]).toMatchObject({ action: 'noop', forwarded: 'annotate' });
    expect(dup.gate).toMatchObject({ skipped: 0, annotated: 1, forwardedAdd: false });
    expect(seen.map((s) => s.infer)).toEqual([undefined, false]);
    const originalId = first.results[0].id;
    expect(seen[1].metadata).toEqual({ source: 'chat', gate: 'noop', duplicate_of: originalId, gate_score: dup.gate.decisions[0].score });
    expect(dup.results).toHaveLength(1);
    expect(dup.results[0].memory).toBe(reorder(FACTS[2]));
    // stored, searchable (mem0's own search), and not in the gate
    const hits = await gated.search(reorder(FACTS[2]), { filters: { user_id: 'u6' }, topK: 5 });
    const raw = hits.results.find((h: any) => h.id === dup.results[0].id);
    expect(raw?.metadata).toMatchObject({ gate: 'noop', duplicate_of: originalId });
    expect(gated.gate.size('user:u6|agent:|run:')).toBe(1);
    expect(gated.stats()).toMatchObject({ noop: 1, annotated: 1, addCallsSkipped: 1 });
    // a new wrapper seeded from the store leaves the raw memory out of the gate
    const reseeded = withNoveltyGate(mem, { embed: embedText });
    await reseeded.add(FACTS[7], { userId: 'u6', infer: false });
    expect(reseeded.gate.has('user:u6|agent:|run:', dup.results[0].id)).toBe(false);
    expect(reseeded.gate.has('user:u6|agent:|run:', originalId)).toBe(true);
    // deleting the raw memory through the wrapper works like any delete
    await gated.delete(dup.results[0].id);
    expect(await gated.get(dup.results[0].id)).toBeNull();
  });

  it('refuses an unknown onNoop', () => {
    expect(() => withNoveltyGate(newMemory('bad'), { embed: embedText, policy: { onNoop: 'drop' as any } })).toThrow(/onNoop/);
  });

  it("the fixed-τ_noop filter policy ('noop-filter') never updates", async () => {
    const gated = withNoveltyGate(newMemory('nf'), { embed: embedText, policy: 'noop-filter' });
    await gated.add(FACTS[0], { userId: 'u5', infer: false });
    const dup = await gated.add(reorder(FACTS[0]), { userId: 'u5', infer: false });
    const other = await gated.add(FACTS[3], { userId: 'u5', infer: false });
    expect(dup.gate.decisions[0].action).toBe('noop');
    expect(other.gate.decisions[0].action).toBe('add');
  });
});

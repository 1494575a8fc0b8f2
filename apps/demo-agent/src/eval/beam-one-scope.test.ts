import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { oneScopeConversation, prepareBeam } from './beam.js';
import { formatOneScopeComparison, oneScopeVerdict, recallByGroup, runBeamOneScope } from './beam-one-scope.js';
import type { EvalObservation } from './locomo.js';
import type { EvalSystemFactory } from './types.js';
import { main } from '../cli.js';

// Our own invented BEAM-shaped chats (not BEAM text): both use chat ids 0–3, as BEAM's files do.
const user = (id: number, content: string, extra: Record<string, unknown> = {}) => ({ role: 'user', id, content: `${content} ->-> 1,1`, ...extra });
const bot = (id: number, content: string) => ({ role: 'assistant', id, content });
const garden = [
  {
    batch_number: '1',
    turns: [
      [user(0, 'I am planting tomatoes on my balcony.', { time_anchor: 'April-02-2024' }), bot(1, 'Tomatoes like sun and deep pots.')],
      [user(2, 'I moved the tomato pots to the roof terrace.'), bot(3, 'The terrace will give them more sun.')],
    ],
  },
];
const cycling = [
  {
    batch_number: '1',
    turns: [
      [user(0, 'My bicycle chain keeps slipping on hills.', { time_anchor: 'June-10-2024' }), bot(1, 'A worn chain or cassette often slips under load.')],
      [user(2, 'I replaced the chain with a new one yesterday.'), bot(3, 'A new chain on an old cassette can still skip.')],
    ],
  },
];
const gardenQ = { information_extraction: [{ question: 'Where did I move the tomato pots?', answer: 'To the roof terrace.', source_chat_ids: [2] }] };
const cyclingQ = { information_extraction: [{ question: 'What did I replace on my bicycle?', answer: 'The chain.', source_chat_ids: [2] }] };

const tmp = mkdtempSync(path.join(os.tmpdir(), 'mem-beam-one-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => {
  process.exitCode = 0;
});

function writeData(name: string): string {
  const dir = path.join(tmp, name);
  for (const [n, chat, q] of [
    [1, garden, gardenQ],
    [2, cycling, cyclingQ],
  ] as const) {
    mkdirSync(path.join(dir, String(n)), { recursive: true });
    writeFileSync(path.join(dir, String(n), 'chat.json'), JSON.stringify(chat));
    writeFileSync(path.join(dir, String(n), 'probing_questions.json'), JSON.stringify(q));
  }
  return dir;
}

/** A system that records each build and always answers conversation 2's chat 2 (as the one-scope id, and as the bare id). */
function recording(builds: EvalObservation[][]): EvalSystemFactory {
  return (ctx) => ({
    name: ctx.name,
    async build(obs) {
      builds.push(obs);
      return { observations: obs.length, gate: { add: obs.length, update: 0, noop: 0 }, cpuSeconds: 0.5 };
    },
    async search() {
      return { ids: [ctx.conversation === 0 ? '2:2' : '2'] };
    },
    async close() {},
  });
}

describe('mem eval beam --one-scope', () => {
  it('one scope: every message once, ids and sessions tagged with their conversation, evidence stays its own', () => {
    const { prepared } = prepareBeam({ data: writeData('merge') });
    const one = oneScopeConversation(prepared);
    expect(one.observations).toHaveLength(8);
    // the same chat id in two conversations: two distinct ids (without the tag they would collide)
    expect(new Set(one.observations.map((o) => o.sourceId)).size).toBe(8);
    expect(one.observations.filter((o) => o.sourceId.endsWith(':2')).map((o) => o.sourceId)).toEqual(['1:2', '2:2']);
    // sessions per conversation: no dialogue chain crosses from one chat into the other
    expect(new Set(one.observations.map((o) => o.session))).toEqual(new Set(['1/1', '2/1']));
    expect(one.questions.map((q) => [q.conversation, q.evidence])).toEqual([
      [1, ['1:2']],
      [2, ['2:2']],
    ]);
  });

  it('builds one memory for all conversations, asks each question against it, compares with the per-conversation run', async () => {
    const builds: EvalObservation[][] = [];
    const result = await runBeamOneScope({ data: writeData('run'), systems: [{ name: 'jev', factory: recording(builds) }], ks: [1] });
    // per conversation: two builds of 4; one scope: one build of 8
    expect(builds.map((b) => b.length)).toEqual([4, 4, 8]);
    expect(result.oneScope.report.config.one_scope).toBe(true);
    expect(result.oneScope.report.config.conversations).toEqual([1, 2]);
    expect(result.oneScope.report.systems.jev.build_cpu_seconds).toBe(0.5);
    expect(result.oneScope.report.config.load_average?.end).toHaveLength(3);
    // rows name the question's own conversation; conversation 1's question is answered by a distractor
    expect(result.oneScope.rows.map((r) => [r.conversation, r.retrieved[0], r.evidence[0]])).toEqual([
      [1, '2:2', '1:2'],
      [2, '2:2', '2:2'],
    ]);
    expect(recallByGroup(result.oneScope.rows, 1).get('jev')).toEqual({ overall: 0.5, information_extraction: 0.5 });
    expect(recallByGroup(result.oneScope.rows, 1, new Set([2])).get('jev')?.overall).toBe(1);
    // per conversation the system answered the bare id '2': conversation 1's evidence, not 2's… and 2's own
    expect(recallByGroup(result.perConversation!.rows, 1).get('jev')?.overall).toBe(1);
    const v = oneScopeVerdict(result, [1], 1)!;
    expect(v).toMatchObject({ jevOneScope: 0, jevPerConversation: 1, delta: -1, bestFlat: null });
    const md = formatOneScopeComparison(result, 1, [2]);
    expect(md).toMatch(/ONE scope holding conversations 1, 2: 8 observations/);
    expect(md).toMatch(/\| jev \| Δ \| -0\.500 \| -0\.500 \|/);
    expect(md).toMatch(/held out \(2\)/);
    expect(md).toMatch(/jev one scope 0\.000 vs per conversation 1\.000: -1\.000 \(not met\)/);
  });

  it('the CLI runs the real systems in one scope and writes both reports', async () => {
    const out = path.join(tmp, 'one.json');
    const dump = path.join(tmp, 'one.jsonl');
    let stdout = '';
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void (stdout += `${a.join(' ')}\n`));
    try {
      await main(['node', 'mem', 'eval', 'beam', '--data', writeData('cli'), '--one-scope', '--systems', 'bm25,hybrid', '--k', '1,5', '--held-out', '2', '--out', out, '--dump', dump]);
    } finally {
      err.mockRestore();
      log.mockRestore();
    }
    expect(process.exitCode ?? 0).toBe(0);
    const report = JSON.parse(readFileSync(out, 'utf8'));
    expect(report.config.one_scope).toBe(true);
    expect(report.systems.bm25.observations).toBe(8);
    expect(report.per_conversation.systems.bm25.observations).toBe(8);
    expect(report.per_conversation.config.one_scope).toBe(false);
    const rows = readFileSync(dump, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(rows.filter((r) => r.one_scope)).toHaveLength(4); // 2 questions × 2 systems
    // each question finds its own conversation's turn among the other conversation's turns
    expect(report.systems.bm25.recall_at_k.overall['5']).toBe(1);
    expect(stdout).toMatch(/Evidence recall@5, all 2 conversations/);
    expect(stdout).toMatch(/one scope \| hybrid/);
  }, 60_000);
});

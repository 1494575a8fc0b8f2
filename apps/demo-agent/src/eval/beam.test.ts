import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { MemError, MemValidationError } from '@mem/core';
import {
  beamEvidence,
  beamObservations,
  beamQuestions,
  beamRubric,
  formatBeamMarkdown,
  formatBeamPerConversation,
  parseBeamAnchor,
  runBeamEval,
  splitLongText,
  stripBeamMarker,
} from './beam.js';
import type { DumpRow } from './engine.js';
import type { EvalSystemFactory } from './types.js';
import { main } from '../cli.js';
import { errorCodeOf, expectMemError } from '@mem/test-utils';

/** The MemError code a call throws (see errorCodeOf). */
const code = (f: () => unknown) => errorCodeOf(f, MemError);

// Our own tiny BEAM-shaped fixture (invented chats, not BEAM text).
const user = (id: number, content: string, extra: Record<string, unknown> = {}) => ({ role: 'user', id, content: `${content} ->-> 1,1`, ...extra });
const bot = (id: number, content: string) => ({ role: 'assistant', id, content });

function chat(longReply: string) {
  return [
    {
      batch_number: '1',
      time_anchor: null,
      turns: [
        [user(0, 'I am planning a vegetable garden on my balcony.', { time_anchor: 'April-02-2024' }), bot(1, 'Great idea. Tomatoes and herbs do well in pots.')],
        [user(2, 'My balcony faces north, so it gets little sun.'), bot(3, longReply)],
      ],
    },
    {
      batch_number: '2',
      turns: [
        [user(4, 'I moved the pots to the south-facing roof terrace last week.', { time_anchor: 'May-10-2024' }), bot(5, 'The extra sun will help the tomatoes ripen.')],
        [user(6, 'What should I water them with?'), bot(7, 'Rain water is best; tap water left to stand works too.')],
      ],
    },
  ];
}

const probing = {
  information_extraction: [{ question: 'Where did I move my pots?', answer: 'To the south-facing roof terrace.', source_chat_ids: [4], rubric: ['mentions the roof terrace'] }],
  knowledge_update: [{ question: 'How much sun do my plants get now?', answer: 'Plenty: they are on the south-facing terrace.', source_chat_ids: { original_info: [2], updated_info: [4] }, rubric: "['says the terrace gets sun']" }],
  temporal_reasoning: [{ question: 'How long after starting the garden did I move the pots?', answer: 'About five weeks.', conversation_references: ['chat_id: 0', 'chat_id: 3-4'], rubric: [] }],
  abstention: [{ question: 'What brand of soil did I buy?', ideal_response: 'The chat does not say which soil you bought.', source_chat_ids: null, rubric: ['says it is not in the chat'] }],
  summarization: [{ question: 'Summarise my garden project.', ideal_summary: 'You started a balcony garden, then moved it to the terrace.', source_chat_ids: [0, 2, 4, 99], rubric: ['balcony start', 'terrace move'] }],
};

const tmp = mkdtempSync(path.join(os.tmpdir(), 'mem-beam-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A BEAM-shaped folder with conversations `convs` (each with its own long reply). */
function writeSplit(name: string, convs: Record<number, unknown[]>, questions: Record<string, unknown> = probing): string {
  const dir = path.join(tmp, name);
  for (const [n, c] of Object.entries(convs)) {
    mkdirSync(path.join(dir, n), { recursive: true });
    writeFileSync(path.join(dir, n, 'chat.json'), JSON.stringify(c));
    writeFileSync(path.join(dir, n, 'probing_questions.json'), JSON.stringify(questions));
  }
  return dir;
}

const LONG = `${'Shade-tolerant plants such as lettuce, spinach and mint cope with a north balcony. '.repeat(40)}\n\n${'Reflective surfaces can add light. '.repeat(40)}`;

describe('BEAM data', () => {
  it('time anchors, markers', async () => {
    expect(parseBeamAnchor('March-15-2024')).toBe('2024-03-15T00:00:00.000Z');
    expect(parseBeamAnchor('Sep-01-2023')).toBe('2023-09-01T00:00:00.000Z');
    expect(() => parseBeamAnchor('February-30-2024')).toThrow(/impossible date/);
    await expectMemError(() => parseBeamAnchor('soon'), MemValidationError, 'BAD_DATE');
    expect(stripBeamMarker('Is this right? ->-> 3,12')).toBe('Is this right?');
    expect(stripBeamMarker('An arrow -> stays')).toBe('An arrow -> stays');
  });

  it('splits long text within the byte limit, at boundaries, without losing words or cutting a code point', () => {
    const text = `${'Grüße aus Köln, wo die Tomaten wachsen. '.repeat(30)}\n\n${'😀 emoji run '.repeat(40)}`;
    const pieces = splitLongText(text, 200);
    expect(pieces.length).toBeGreaterThan(5);
    for (const p of pieces) {
      expect(Buffer.byteLength(p, 'utf8')).toBeLessThanOrEqual(200);
      expect(p).not.toMatch(/\uFFFD/);
      expect(p).toBe(p.trim());
    }
    expect(pieces.join(' ').replace(/\s+/g, ' ')).toBe(text.trim().replace(/\s+/g, ' '));
    expect(pieces[0].endsWith('.')).toBe(true); // cut at a sentence end
    expect(splitLongText('short', 200)).toEqual(['short']);
    expect(splitLongText(`word ${' '.repeat(5000)} end`, 100)).toEqual(['word', 'end']); // runs of spaces vanish
    expect(splitLongText('x'.repeat(450), 200).map((p) => p.length)).toEqual([200, 200, 50]); // no boundary: at the limit
    expect(() => splitLongText('x', 4)).toThrow(/maxTextBytes/);
  });

  it('one observation per message (role as speaker, dated from the batch anchor); long ones split into parts sharing the chat id', () => {
    const { observations, split } = beamObservations(chat(LONG), 7, 1024);
    const reply = observations.filter((o) => o.sourceId === '3');
    expect(reply.length).toBeGreaterThan(1);
    expect(reply.map((o) => o.metadata)).toEqual(reply.map((_, i) => ({ part: i + 1, parts: reply.length })));
    expect(split).toEqual([{ conversation: 7, sourceId: '3', bytes: Buffer.byteLength(LONG.trim()), parts: reply.length }]);
    const first = observations[0];
    expect(first).toMatchObject({ conversation: 7, session: 1, turn: 1, sourceId: '0', speaker: 'user', text: 'I am planning a vegetable garden on my balcony.', observedAt: '2024-04-02T00:00:01.000Z' });
    expect(observations.find((o) => o.sourceId === '4')).toMatchObject({ session: 2, speaker: 'user', observedAt: '2024-05-10T00:00:01.000Z' });
    expect(observations.find((o) => o.sourceId === '7')?.speaker).toBe('assistant');
    const times = observations.map((o) => o.observedAt);
    expect([...times].sort()).toEqual(times); // order kept
  });

  it('refuses malformed chats with typed errors', () => {
    expect(code(() => beamObservations({}, 1))).toBe('INVALID_INPUT');
    expect(code(() => beamObservations([{ turns: [[{ role: 'user', id: 1, content: 'hi' }]] }], 1))).toBe('BAD_DATE');
    const dup = [{ turns: [[user(1, 'a', { time_anchor: 'May-01-2024' }), bot(1, 'b')]] }];
    expect(code(() => beamObservations(dup, 1))).toBe('INVALID_INPUT');
    expect(code(() => beamObservations([{ time_anchor: 'May-01-2024', turns: [[{ role: 'user', id: 1 }]] }], 1))).toBe('INVALID_INPUT');
    // empty conversations: no turns, or only blank messages / bare markers
    expect(code(() => beamObservations([{ time_anchor: 'May-01-2024', turns: [] }], 1))).toBe('INVALID_INPUT');
    expect(code(() => beamObservations([{ time_anchor: 'May-01-2024', turns: [[{ role: 'user', id: 1, content: '  ->-> 1,1' }, bot(2, ' ')]] }], 1))).toBe('INVALID_INPUT');
  });

  it('long messages are measured and split in the NFC form the memory stores; text the memory would refuse is refused before any build (break-it)', () => {
    // U+0958 is 3 bytes as written and 6 bytes in NFC (U+0915 U+093C): 60 000 B in the file, 120 000 B stored
    const grows = '\u0958'.repeat(20_000);
    expect(Buffer.byteLength(grows)).toBe(60_000);
    const at = { time_anchor: 'May-01-2024' };
    const { observations, split } = beamObservations([{ ...at, turns: [[user(1, 'hello'), bot(2, grows)]] }], 1);
    const parts = observations.filter((o) => o.sourceId === '2');
    expect(parts.length).toBe(2);
    for (const p of parts) {
      expect(p.text).toBe(p.text.normalize('NFC'));
      expect(Buffer.byteLength(p.text)).toBeLessThanOrEqual(65_536);
    }
    expect(split).toEqual([{ conversation: 1, sourceId: '2', bytes: 120_000, parts: 2 }]);
    expect(code(() => beamObservations([{ ...at, turns: [[user(1, 'a lone \ud800 surrogate')]] }], 1))).toBe('INVALID_INPUT');
    expect(code(() => beamObservations([{ ...at, turns: [[{ role: 'user', id: 'x'.repeat(513), content: 'hi' }]] }], 1))).toBe('INVALID_INPUT');
  });

  it('evidence in every shape; rubrics as lists or Python-list strings', () => {
    expect(beamEvidence({ source_chat_ids: [30, 31] })).toEqual(['30', '31']);
    expect(beamEvidence({ source_chat_ids: { first_statement: [398], second_statement: [330, 398] } })).toEqual(['398', '330']);
    expect(beamEvidence({ source_chat_ids: '[12, 14]' })).toEqual(['12', '14']);
    expect(beamEvidence({ source_chat_ids: "{'first_event': [62], 'second_event': [230]}" })).toEqual(['62', '230']);
    expect(beamEvidence({ conversation_references: ['chat_id: 246, 248', 'chat_id: 172-174 (debugging)', 'Session 2 talk'] })).toEqual(['246', '248', '172', '173', '174']);
    expect(beamEvidence({ source_chat_ids: null, conversation_references: ['Redis grew to 200MB'] })).toEqual([]);
    expect(beamRubric(['a', 'b'])).toEqual(['a', 'b']);
    expect(beamRubric("['LLM response should mention: 13 days', \"it's fine\"]")).toEqual(['LLM response should mention: 13 days', "it's fine"]);
  });

  it('questions: types in order, unknown evidence ids dropped and counted, abstention out of token recall, round-robin cap', async () => {
    const known = new Set(['0', '1', '2', '3', '4', '5', '6', '7']);
    const { questions, missing } = beamQuestions(probing, 1, known);
    expect(questions.map((q) => q.category)).toEqual(['abstention', 'information_extraction', 'knowledge_update', 'summarization', 'temporal_reasoning']);
    expect(missing).toBe(1); // chat id 99
    expect(questions.find((q) => q.category === 'summarization')?.evidence).toEqual(['0', '2', '4']);
    expect(questions.find((q) => q.category === 'temporal_reasoning')?.evidence).toEqual(['0', '3', '4']);
    const abst = questions.find((q) => q.category === 'abstention')!;
    expect(abst.evidence).toEqual([]);
    expect(abst.tokenGroups).toEqual([]);
    expect(abst.answerGroups).toEqual(['overall', 'abstention']);
    expect(beamQuestions(probing, 1, known, 2).questions.map((q) => q.category)).toEqual(['abstention', 'information_extraction']);
    await expectMemError(() => beamQuestions([], 1, known), MemValidationError, 'INVALID_INPUT');
  });
});

/** A system that returns the chat ids it was given in a fixed order (no memory; fast). */
const fixedOrder =
  (order: string[], failOn?: number): EvalSystemFactory =>
  (ctx) => ({
    name: ctx.name,
    async build(obs) {
      if (ctx.conversation === failOn) throw new Error('boom');
      return { observations: obs.length, gate: { add: obs.length, update: 0, noop: 0 } };
    },
    async search(_q, k) {
      return { ids: order.slice(0, k), context: () => 'you moved the pots to the south-facing roof terrace' };
    },
    async close() {},
  });

describe('runBeamEval', () => {
  it('recall@k per type and overall, answer-token recall, splits and missing evidence in the report', async () => {
    const dir = writeSplit('ok', { 1: chat(LONG), 2: chat('short reply') });
    const rows: DumpRow[] = [];
    const report = await runBeamEval({
      data: dir,
      systems: [{ name: 'fixed', factory: fixedOrder(['4', '2', '0', '3']) }],
      ks: [1, 3],
      maxTextBytes: 1024,
      dump: (r) => void rows.push(r),
    });
    expect(report.config.conversations).toEqual([1, 2]);
    expect(report.questions).toBe(10);
    expect(report.config.questions_without_evidence).toBe(2);
    expect(report.config.evidence_missing).toBe(2);
    expect(report.config.split_messages).toHaveLength(1);
    const r = report.systems.fixed.recall_at_k;
    expect(r.information_extraction).toEqual({ '1': 1, '3': 1 });
    expect(r.knowledge_update).toEqual({ '1': 0.5, '3': 1 });
    expect(r.temporal_reasoning['3']).toBeCloseTo(2 / 3, 4);
    expect(r.abstention).toEqual({}); // no evidence: answer mode only
    expect(r.overall['1']).toBeCloseTo((1 + 0.5 + 1 / 3 + 1 / 3) / 4, 4);
    expect(report.systems.fixed.answer_token_recall.abstention).toBeUndefined();
    expect(report.systems.fixed.answer_token_recall.information_extraction).toBe(1);
    expect(rows).toHaveLength(10);
    const md = formatBeamMarkdown(report);
    expect(md).toMatch(/\| system \| overall \| information extraction \| knowledge update \| summarization \| temporal reasoning \|/);
    expect(md).toMatch(/conv 1 chat 3 \(\d+ B → \d+\)/);
    expect(formatBeamPerConversation(rows, 3)).toMatch(/\| 2 \| 0\.917 \| 1\.000 \| 1\.000 \| 1\.000 \| 0\.667 \|/);
  });

  it('judges answers against the rubric only with an answerer; abstention counts there', async () => {
    const dir = writeSplit('answers', { 1: chat('ok') });
    const seen: string[] = [];
    const report = await runBeamEval({
      data: dir,
      systems: [{ name: 'fixed', factory: fixedOrder(['4']) }],
      ks: [1],
      answerer: {
        systemTwo: { model: 'fake', answer: async () => ({ text: 'on the terrace' }) } as any,
        judge: { model: 'judge', score: async (q) => (seen.push(q.category as string), q.rubric!.length ? 1 : 0.5) },
      },
    });
    expect(seen).toContain('abstention');
    expect(report.systems.fixed.answers?.llm_judge.abstention).toBe(1);
    expect(report.systems.fixed.answers?.llm_judge.temporal_reasoning).toBe(0.5);
    expect(report.systems.fixed.answers?.answered).toBe(5);
  });

  it('a failure in one conversation names it and leaves no report or dump behind (CLI)', async () => {
    const dir = writeSplit('fail', { 1: chat('ok'), 2: { not: 'a chat' } as unknown as unknown[] });
    const e = await runBeamEval({ data: dir, systems: [{ name: 'fixed', factory: fixedOrder([]) }] }).catch((x) => x);
    expect(MemError.isInstance(e) && e.code).toBe('INVALID_INPUT'); // checked before any build
    const ok = writeSplit('fail-build', { 1: chat('ok'), 2: chat('ok') });
    const err = await runBeamEval({ data: ok, systems: [{ name: 'fixed', factory: fixedOrder([], 2) }], dump: path.join(tmp, 'rows.jsonl') }).catch((x) => x);
    expect(err.message).toMatch(/^conversation 2: boom/);
    expect(err.details).toMatchObject({ conversation: 2 });
    expect(existsSync(path.join(tmp, 'rows.jsonl'))).toBe(false);
    expect(readdirSync(tmp).filter((f) => f.includes('partial'))).toEqual([]);

    const out = path.join(tmp, 'report.json');
    let stderr = '';
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((c: any) => ((stderr += String(c)), true));
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await main(['node', 'mem', 'eval', 'beam', '--data', dir, '--systems', 'bm25', '--out', out]);
    } finally {
      spy.mockRestore();
      log.mockRestore();
    }
    expect(process.exitCode).not.toBe(0);
    expect(stderr).toMatch(/conversation 2/);
    expect(existsSync(out)).toBe(false);
  });

  it('`mem eval beam` runs the real systems on the fixture and writes the report (JSON)', async () => {
    const dir = writeSplit('cli', { 1: chat(LONG) });
    const out = path.join(tmp, 'cli-report.json');
    const dump = path.join(tmp, 'cli-rows.jsonl');
    let stdout = '';
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void (stdout += `${a.join(' ')}\n`));
    try {
      await main(['node', 'mem', 'eval', 'beam', '--data', dir, '--systems', 'jev,bm25', '--k', '1,5', '--max-text-bytes', '1024', '--out', out, '--dump', dump]);
    } finally {
      spy.mockRestore();
      log.mockRestore();
    }
    expect(process.exitCode ?? 0).toBe(0);
    const report = JSON.parse(readFileSync(out, 'utf8'));
    expect(Object.keys(report.systems)).toEqual(['jev', 'bm25']);
    expect(report.systems.bm25.observations).toBeGreaterThan(8); // the long reply became several observations
    expect(report.systems.bm25.recall_at_k.information_extraction['5']).toBe(1);
    expect(readFileSync(dump, 'utf8').trim().split('\n')).toHaveLength(10);
    expect(stdout).toMatch(/Evidence recall@5/);
    expect(stdout).toMatch(/jev: evidence recall@1 per conversation/);
  }, 60_000);
});

afterEach(() => {
  process.exitCode = 0;
});

import { describe, expect, it } from 'vitest';
import { MemError, MemValidationError } from '@mem/core';
import { answerTokenRecall, costTable, groupsOf, latencyRatios, normalizeTokens, percentile, recallAtK } from './metrics.js';
import {
  auditId,
  conversationObservations,
  conversationQuestions,
  normalizeEvidence,
  parseAudit,
  parseLocomoDateTime,
  turnText,
  type LocomoConversation,
} from './locomo.js';
import { formatLocomoMarkdown, recallByConversation, runLocomoEval, type DumpRow } from './engine.js';
import type { EvalSystemFactory } from './types.js';
import { expectMemError } from '@mem/test-utils';

// Our own tiny LoCoMo-shaped fixture (not LoCoMo text).
const fixture: LocomoConversation[] = [
  {
    sample_id: 'toy-0',
    conversation: {
      speaker_a: 'Ana',
      speaker_b: 'Ben',
      session_1_date_time: '9:05 am on 3 March, 2024',
      session_1: [
        { speaker: 'Ana', dia_id: 'D1:1', text: 'I started pottery classes on Monday.' },
        { speaker: 'Ben', dia_id: 'D1:2', text: 'Nice! Look at my new kayak.', blip_caption: 'a photo of a red kayak', query: 'red kayak lake' },
      ],
      session_2_date_time: '7:40 pm on 12 April, 2024',
      session_2: [
        { speaker: 'Ana', dia_id: 'D2:1', text: 'My first bowl cracked in the kiln.' },
        { speaker: 'Ben', dia_id: 'D2:2', text: 'We paddled across the lake on Sunday.' },
      ],
      session_3_date_time: '1:00 pm on 1 May, 2024',
    },
    qa: [
      { question: 'What class did Ana start?', answer: 'pottery', evidence: ['D1:1'], category: 4 },
      { question: 'What happened to the bowl?', answer: 'It cracked in the kiln', evidence: ['D2:1; D1:1'], category: 1 },
      { question: 'When did Ben paddle?', answer: 'The Sunday before 12 April 2024', evidence: ['D:2:2'], category: 2 },
      { question: 'What colour is Ana\'s kayak?', adversarial_answer: 'red', evidence: ['D1:2'], category: 5 },
      { question: 'Unanswerable', answer: 'x', evidence: ['D'], category: 3 },
    ],
  },
];

describe('metrics', () => {
  it('recall@k = share of evidence in the top k; null without evidence', () => {
    expect(recallAtK(['a', 'b'], ['x', 'a', 'y', 'b'], 2)).toBe(0.5);
    expect(recallAtK(['a', 'b'], ['x', 'a', 'y', 'b'], 4)).toBe(1);
    // the parts of a split message share one id: top-k is the first k DISTINCT ids (break-it)
    expect(recallAtK(['a', 'b'], ['x', 'x', 'x', 'a', 'b'], 3)).toBe(1);
    expect(recallAtK(['a', 'b'], ['x', 'x', 'x', 'a', 'b'], 2)).toBe(0.5);
    expect(recallAtK(['a', 'a'], ['a'], 1)).toBe(1);
    expect(recallAtK([], ['a'], 1)).toBeNull();
    expect(recallAtK(['a'], [], 5)).toBe(0);
  });
  it('answer-token recall uses SQuAD/LoCoMo normalisation', () => {
    expect(normalizeTokens('The Red, kayak & an oar!')).toEqual(['red', 'kayak', 'oar']);
    expect(answerTokenRecall('7 May 2023', '- Ana: on 7 May we met (2023)')).toBe(1);
    expect(answerTokenRecall('red kayak', 'a blue kayak')).toBe(0.5);
    expect(answerTokenRecall('the', 'anything')).toBeNull();
  });
  it('groups: overall, overall_1_4 for categories 1–4, and the category', () => {
    expect(groupsOf(1)).toEqual(['overall', 'overall_1_4', 'multi-hop']);
    expect(groupsOf(5)).toEqual(['overall', 'adversarial']);
    expect(groupsOf(4)).toContain('single-hop');
  });
  it('jev p50 / hybrid p50 of the same run, per store; printed under the cost table', () => {
    const sys = (p50: number, p95: number) => ({ build_seconds: 1, observations: 1, query_latency_ms: { p50, p95 }, recall_at_k: {}, answer_token_recall: {}, controller_calls_per_query: 0, gate: { add: 1, update: 0, noop: 0 } });
    const systems = { 'jev@sqlite': sys(30, 90), 'hybrid@sqlite': sys(10, 20), 'jev@neo4j': sys(40, 80), 'hybrid@neo4j': sys(20, 40), 'bm25@sqlite': sys(1, 2) };
    const names = Object.keys(systems);
    expect(latencyRatios(systems, names)).toEqual([
      { system: 'jev@sqlite', baseline: 'hybrid@sqlite', p50: 3, p95: 4.5 },
      { system: 'jev@neo4j', baseline: 'hybrid@neo4j', p50: 2, p95: 2 },
    ]);
    expect(latencyRatios({ jev: sys(5, 5), bm25: sys(1, 1) }, ['jev', 'bm25'])).toEqual([]); // no hybrid: no ratio
    expect(costTable({ jev: sys(25, 50), hybrid: sys(10, 10) }, ['jev', 'hybrid']).join('\n')).toMatch(/jev p50 \/ hybrid p50 = 2\.50× \(p95 5\.00×; same run\)$/m);
    // CPU time per query, when both report it
    const cpu = { jev: { ...sys(25, 50), query_cpu_ms: { p50: 6, p95: 9 } }, hybrid: { ...sys(10, 10), query_cpu_ms: { p50: 2, p95: 3 } } };
    expect(latencyRatios(cpu, ['jev', 'hybrid'])[0]!.cpuP50).toBe(3);
    expect(costTable(cpu, ['jev', 'hybrid']).join('\n')).toMatch(/same run\); CPU time per query p50 3\.00×/);
  });
  it('percentile interpolates', () => {
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(percentile([5], 0.95)).toBe(5);
    expect(percentile([], 0.5)).toBe(0);
  });
});

describe('LoCoMo parsing', () => {
  it('parses session stamps as UTC', () => {
    expect(parseLocomoDateTime('1:56 pm on 8 May, 2023')).toBe('2023-05-08T13:56:00.000Z');
    expect(parseLocomoDateTime('12:09 am on 13 September, 2023')).toBe('2023-09-13T00:09:00.000Z');
    expect(parseLocomoDateTime('12:30 pm on 1 January, 2024')).toBe('2024-01-01T12:30:00.000Z');
    for (const bad of ['yesterday', '1:56 pm on 31 February, 2023', '13:00 pm on 1 May, 2023']) {
      let err: unknown;
      try {
        parseLocomoDateTime(bad);
      } catch (e) {
        err = e;
      }
      expect(MemError.isInstance(err)).toBe(true);
    }
  });
  it('turns become observations with captions; sessions without turns are skipped', () => {
    const obs = conversationObservations(fixture[0], 0);
    expect(obs.map((o) => o.sourceId)).toEqual(['D1:1', 'D1:2', 'D2:1', 'D2:2']);
    expect(obs[1].text).toBe('Nice! Look at my new kayak. [image: a photo of a red kayak; red kayak lake]');
    expect(obs[2].observedAt).toBe('2024-04-12T19:40:00.000Z');
    expect(turnText({ speaker: 'x', dia_id: 'D1:1', text: 'hi' })).toBe('hi');
  });
  it('normalises evidence ids', () => {
    expect(normalizeEvidence(['D8:6; D9:17', 'D', 'D:11:26', 'D8:6'])).toEqual(['D8:6', 'D9:17', 'D11:26']);
  });
  it('applies audit corrections by question id', () => {
    const audit = parseAudit([
      { question_id: auditId(0, 0), correct_evidence: ['D1:1', 'D2:1'], correct_answer: 'pottery classes' },
      { question_id: 'locomo_0_qa2', correct_evidence: [], correct_answer: 'unknown' },
      { question_id: 'locomo_1_qa0', correct_evidence: ['D9:9'], correct_answer: 'elsewhere' },
    ]);
    const qs = conversationQuestions(fixture[0], 0, audit);
    expect(qs[0]).toMatchObject({ evidence: ['D1:1', 'D2:1'], answer: 'pottery classes', audited: true });
    expect(qs[1]).toMatchObject({ evidence: ['D2:1', 'D1:1'], audited: false });
    expect(qs[2].evidence).toEqual([]);
    expect(qs[3].answer).toBe('red');
    expect(() => parseAudit([{ nope: 1 }])).toThrow();
    expect(() => parseAudit({})).toThrow();
  });
});

/** A fake system: returns the turns that share the most words with the question. */
const overlap: EvalSystemFactory = (ctx) => {
  let obs: { id: string; text: string }[] = [];
  return {
    name: ctx.name,
    async build(o) {
      obs = o.map((x) => ({ id: x.sourceId, text: x.text }));
      return { observations: o.length, gate: { add: o.length, update: 0, noop: 0 } };
    },
    async search(q, k) {
      const qw = new Set(normalizeTokens(q));
      const ranked = [...obs].sort((a, b) => normalizeTokens(b.text).filter((w) => qw.has(w)).length - normalizeTokens(a.text).filter((w) => qw.has(w)).length);
      const top = ranked.slice(0, k);
      return { ids: top.map((x) => x.id), controllerCalls: 2, context: () => top.map((x) => x.text).join('\n') };
    },
    async close() {},
  };
};
const reversed: EvalSystemFactory = (ctx) => ({
  name: ctx.name,
  async build(o) {
    return { observations: o.length, gate: { add: 0, update: 0, noop: 0 } };
  },
  async search() {
    return { ids: ['D2:2', 'D2:1', 'D1:2', 'D1:1'] };
  },
  async close() {},
});

describe('runLocomoEval', () => {
  it('produces the report shape, recall per group and dump rows', async () => {
    const rows: DumpRow[] = [];
    const report = await runLocomoEval({
      data: fixture,
      datasetName: 'toy',
      systems: ['overlap', 'reversed'],
      registry: { overlap, reversed },
      ks: [1, 4],
      budgetTokens: 200,
      dump: (r) => void rows.push(r),
    });
    expect(Object.keys(report)).toEqual(['dataset', 'conversations', 'questions', 'config', 'systems']);
    expect(report.questions).toBe(5);
    const rev = report.systems.reversed;
    expect(Object.keys(rev)).toEqual(['build_seconds', 'observations', 'query_latency_ms', 'query_cpu_ms', 'recall_at_k', 'answer_token_recall', 'controller_calls_per_query', 'gate']);
    expect(rev.query_cpu_ms!.p50).toBeGreaterThanOrEqual(0);
    // reversed: q0 evidence D1:1 at rank 4; q1 D2:1 rank 2 + D1:1 rank 4; q2 D2:2 rank 1; q3 D1:2 rank 3; q4 no evidence
    expect(rev.recall_at_k.overall['1']).toBeCloseTo((0 + 0 + 1 + 0) / 4);
    expect(rev.recall_at_k.overall['4']).toBe(1);
    expect(rev.recall_at_k.overall_1_4['1']).toBeCloseTo(1 / 3);
    expect(rev.recall_at_k.temporal['1']).toBe(1);
    expect(rev.recall_at_k['open-domain']).toEqual({});
    expect(rev.answer_token_recall).toEqual({});
    const ov = report.systems.overlap;
    expect(ov.controller_calls_per_query).toBe(2);
    expect(ov.gate.add).toBe(4);
    expect(ov.answer_token_recall['single-hop']).toBe(1);
    expect(ov.answer_token_recall.overall_1_4).toBeGreaterThan(0);
    expect(rows).toHaveLength(10);
    expect(rows[0]).toEqual({ system: 'overlap', conversation: 0, qa_index: 0, category: 4, evidence: ['D1:1'], retrieved: expect.any(Array) });
    expect(recallByConversation(rows, 4).get('reversed')!.get(0)).toBe(1);
    const md = formatLocomoMarkdown(report);
    expect(md).toContain('| reversed | 0.250 |');
  });
  it('maxQuestions keeps the first n questions of each conversation', async () => {
    const report = await runLocomoEval({ data: fixture, systems: ['overlap'], registry: { overlap }, ks: [1], maxQuestions: 2 });
    expect(report.questions).toBe(2);
  });
  it('rejects unknown systems and bad options before building', async () => {
    await expectMemError(runLocomoEval({ data: fixture, systems: ['nope'], registry: { overlap } }), MemValidationError, 'INVALID_INPUT');
    await expectMemError(runLocomoEval({ data: fixture, systems: ['overlap'], registry: { overlap }, ks: [0] }), MemValidationError, 'INVALID_INPUT');
    await expectMemError(runLocomoEval({ data: fixture, systems: ['overlap'], registry: { overlap }, conversations: [3] }), MemValidationError, 'INVALID_INPUT');
    await expectMemError(runLocomoEval({ data: { not: 'locomo' }, systems: ['overlap'], registry: { overlap } }), MemValidationError, 'INVALID_INPUT');
    await expectMemError(runLocomoEval({ data: fixture, systems: ['overlap'], registry: { overlap }, maxQuestions: 0 }), MemValidationError, 'INVALID_INPUT');
  });
});

describe('runLocomoEval with a System-Two answerer', () => {
  it('scores written answers (token-F1, BLEU-1, judge) for categories 1–4 and counts failures', async () => {
    let calls = 0;
    const systemTwo = {
      model: 'stub-two',
      async answer(question: string, context: string) {
        calls += 1;
        if (calls === 2) throw Object.assign(new MemError('INTERNAL', 'unavailable', 'down'), {});
        return { text: context.split('\n')[0] ?? '' };
      },
    };
    const judge = { model: 'stub-judge', async judge(_q: string, gold: string, answer: string) { return (normalizeTokens(answer).some((t) => normalizeTokens(gold).includes(t)) ? 1 : 0) as 0 | 1; } };
    const report = await runLocomoEval({ data: fixture, systems: ['overlap', 'reversed'], registry: { overlap, reversed }, ks: [1], answerer: { systemTwo, judge } });
    const a = report.systems.overlap.answers!;
    expect(a.model).toBe('stub-two');
    expect(a.judge_model).toBe('stub-judge');
    expect(a.answered + a.failed).toBe(4); // the four category 1–4 questions with a context
    expect(a.failed).toBe(1);
    for (const m of [a.token_f1, a.bleu1, a.llm_judge]) for (const v of Object.values(m)) expect(v).toBeGreaterThanOrEqual(0);
    expect(a.token_f1.overall_1_4).toBeGreaterThan(0);
    expect(report.systems.reversed.answers!.answered).toBe(0); // no context → nothing to answer from
    expect(formatLocomoMarkdown(report)).toContain('System-Two answers (stub-two, judge stub-judge');
    await expect(
      runLocomoEval({ data: fixture, systems: ['overlap'], registry: { overlap }, answerer: { systemTwo: { model: 'x', answer: async () => { throw new Error('bug'); } } } }),
    ).rejects.toThrow('bug');
  });
});

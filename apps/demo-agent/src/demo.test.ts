import { describe, expect, it } from 'vitest';
import { judgeAnswerLine, runDemo } from './demo.js';
import { offlineAnswerEvidence } from './stack.js';

describe('pnpm demo', () => {
  it('ingests the sample conversation and answers with evidence, routing, budgets and a stop reason', async () => {
    const lines: string[] = [];
    const report = await runDemo({ questions: 3, log: (l) => lines.push(l) });
    expect(report.observations).toBeGreaterThanOrEqual(60);
    expect(report.sessions).toBeGreaterThanOrEqual(3);
    expect(report.gate.add + report.gate.update + report.gate.noop + report.gate.duplicate).toBe(report.observations);
    expect(report.graph.nodes).toBe(report.observations);
    expect(Object.keys(report.graph.byView)).toEqual(['semantic', 'temporal', 'causal', 'entity']);
    expect(report.questions).toHaveLength(3);
    for (const q of report.questions) {
      expect(q.mode).toBe('evidence');
      expect(q.answer).toContain(offlineAnswerEvidence(q.evidence)!.text);
      expect(q.trace.routing).not.toBeNull();
      expect(q.trace.budgets).not.toBeNull();
      expect(typeof q.trace.stopReason).toBe('string');
    }
    const text = lines.join('\n');
    expect(text).toContain('SAGE novelty gate');
    expect(text).toContain('Memory graph');
    expect(text).toContain('OFFLINE: the answer shown is the top evidence statement itself');
    expect(text).toMatch(/stop: \S+/);
    // issue 17: the espresso turns are superseded by the green-tea turns (obsoleteBy, from the trained
    // relation model through the write path), and Q1 ("… drink in the morning these days?") is answered
    // by a green-tea statement
    const espresso = ['D1:4', 'D2:9', 'D2:11'];
    const greenTea = ['D3:5', 'D3:6'];
    expect(report.superseded.some((s) => espresso.includes(s.older) && greenTea.includes(s.by))).toBe(true);
    expect(text).toMatch(/superseded memories \(\d+;/);
    expect(greenTea).toContain(report.questions[0]!.evidence[0]!.sourceId);
  });

  it('judges the answer line itself (issue 36): the answering turn, and the date for a when-question', () => {
    const item = (sourceId: string, eventTime: { start: string; end: string | null; expression: string } | null = null) => ({ sourceId, eventTime, id: `id-${sourceId}` }) as any;
    const longest = { question: "What was Maya's longest run?", answer: '18 km', evidence: ['D4:14', 'D2:13'], answers: ['D4:14'] };
    // the old 15 km run is expected evidence, but quoting it does not answer the question
    const old = judgeAnswerLine(longest, { evidence: [item('D2:13'), item('D4:14')], answerRank: 1 });
    expect(old).toEqual({ hit: false, why: 'the line quotes D2:13, which does not answer it; answering turn D4:14 #2' });
    expect(judgeAnswerLine(longest, { evidence: [item('D4:14')], answerRank: 1 }).hit).toBe(true);
    const when = { question: 'When did Maya get the flat tire?', answer: '17 March', evidence: ['D2:2'], answers: ['D2:2'], date: '2025-03-17' };
    const day = { start: '2025-03-17T00:00:00.000Z', end: '2025-03-18T00:00:00.000Z', expression: 'Yesterday' };
    expect(judgeAnswerLine(when, { evidence: [item('D2:3'), item('D2:2', day)], answerRank: 2 }).hit).toBe(true);
    expect(judgeAnswerLine(when, { evidence: [item('D2:2')], answerRank: 1 })).toMatchObject({ hit: false, why: expect.stringContaining('gives no date') });
    const wrongDay = { ...day, start: '2025-03-16T00:00:00.000Z', end: '2025-03-17T00:00:00.000Z' };
    expect(judgeAnswerLine(when, { evidence: [item('D2:2', wrongDay)], answerRank: 1 })).toMatchObject({ hit: false, why: 'the line gives 2025-03-16, not 2025-03-17' });
    expect(judgeAnswerLine(when, { evidence: [], answerRank: null }).hit).toBe(false);
  });

  it('counts a hit only when the answer line answers, prints its misses, and gives dates for when-questions', async () => {
    const lines: string[] = [];
    const report = await runDemo({ log: (l) => lines.push(l) });
    const text = lines.join('\n');
    expect(report.answerHits).toBe(report.questions.filter((q) => q.answerHit?.hit).length);
    expect(report.misses).toHaveLength(report.questions.length - report.answerHits!);
    expect(text).toContain(`the offline answer line answered ${report.answerHits}/${report.questions.length} questions`);
    for (const m of report.misses) expect(text).toContain(`  miss Q${m.question}. ${report.questions[m.question - 1]!.question} — ${m.why}`);
    // every when-question's answer line says when it was said, and gives a date when it quotes one
    const whens = report.questions.filter((q) => /^When\b/.test(q.question));
    expect(whens.length).toBeGreaterThanOrEqual(3);
    for (const q of whens) {
      expect(q.answer).toMatch(/said \d{4}-\d{2}-\d{2}/);
      const quoted = q.evidence[q.answerRank! - 1]!;
      if (quoted.eventTime) expect(q.answer).toContain(`happened ${quoted.eventTime.start.slice(0, 10)}`);
    }
    // "When did Maya get the flat tire?": the dated turn answers it, with the day it happened
    const tire = report.questions.find((q) => q.question === 'When did Maya get the flat tire?')!;
    expect(tire.answer).toContain('happened 2025-03-17');
    expect(tire.answerHit).toMatchObject({ hit: true });
  });
});

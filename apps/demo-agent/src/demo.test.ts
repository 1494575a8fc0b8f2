import { describe, expect, it } from 'vitest';
import { runDemo } from './demo.js';
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
});

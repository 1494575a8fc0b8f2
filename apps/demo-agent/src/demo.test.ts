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
  });
});

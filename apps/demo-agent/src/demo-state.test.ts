// The demo's small memory (issue 37): the question memory holds nothing on abstains, with its p,
// and the answer line quotes no memory; the questions it does answer are not refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAnswerability } from '@mem/retrieval';
import { createStack, type Stack } from './stack.js';
import { runStateDemo, STATE_DEMO_OBSERVATIONS, type StateDemoReport } from './demo-state.js';

let stack: Stack;
let report: StateDemoReport;
const lines: string[] = [];
beforeAll(async () => {
  stack = await createStack({ db: ':memory:', scope: { userId: 'jonas', agentId: 'demo' }, systemTwo: null });
  report = await runStateDemo(stack, (l) => lines.push(l));
}, 60_000);
afterAll(async () => stack?.close());

describe('pnpm demo: what is true now (abstention)', () => {
  it('abstains on the sister question with p(evidence) below the threshold, quoting no memory', () => {
    const sister = report.answers.find((a) => a.question.includes('sister'))!;
    expect(sister.answerable).toBe(false);
    expect(sister.pEvidence).toBeLessThan(defaultAnswerability().threshold);
    expect(sister.answer).toBe(`memory holds nothing on this (p(evidence) ${sister.pEvidence!.toFixed(2)})`);
    for (const o of STATE_DEMO_OBSERVATIONS) expect(sister.answer).not.toContain(o.text);
    expect(lines.join('\n')).toContain(`answer (offline): memory holds nothing on this (p(evidence) ${sister.pEvidence!.toFixed(2)})`);
  });
  it('answers the questions memory does hold something on', () => {
    for (const a of report.answers.filter((x) => !x.question.includes('sister'))) expect(a.answerable, a.question).toBe(true);
  });
});

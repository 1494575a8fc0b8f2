import { describe, expect, it } from 'vitest';
import { offlineAnswerEvidence } from './stack.js';

describe('offlineAnswerEvidence', () => {
  it('is result #1, whatever it is (the answer line and the evidence list never disagree)', () => {
    const ev = [{ text: 'What happened with the meeting?' }, { text: 'I missed it because of a flat tire.' }, { text: 'Ok.' }];
    expect(offlineAnswerEvidence(ev)).toBe(ev[0]);
    expect(offlineAnswerEvidence([{ text: 'I missed it.' }, { text: 'Why?' }])!.text).toBe('I missed it.');
  });
  it('is undefined without evidence', () => {
    expect(offlineAnswerEvidence([])).toBeUndefined();
  });
});

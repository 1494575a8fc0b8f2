import { describe, expect, it } from 'vitest';
import { offlineAnswerEvidence } from './stack.js';

describe('offlineAnswerEvidence', () => {
  it('skips questions and picks the highest-ranked statement', () => {
    const ev = [{ text: 'What happened with the meeting?' }, { text: 'I missed it because of a flat tire.' }, { text: 'Ok.' }];
    expect(offlineAnswerEvidence(ev)!.text).toBe('I missed it because of a flat tire.');
  });
  it('falls back to the top item when every item is a question, and to undefined when empty', () => {
    expect(offlineAnswerEvidence([{ text: 'Why? ' }, { text: 'How?' }])!.text).toBe('Why? ');
    expect(offlineAnswerEvidence([])).toBeUndefined();
  });
});

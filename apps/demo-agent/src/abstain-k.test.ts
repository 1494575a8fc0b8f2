import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStack, type Stack } from './stack.js';

// Whether memory holds anything on a question (answerable / pEvidence) is read from the relevance order
// before the state order (issue 37). It once read the reordered list: with k = 10 the memory that
// superseded the old job rose to #1 on the pair's joint p but with its own weak features, and the
// offline answer said "memory holds nothing on this" (p 0.14) while k = 3 answered (p 0.92).
const observations = [
  { text: 'I live in Berlin and I work as a nurse at the Charité hospital.', speaker: 'Priya', observedAt: '2024-01-10T09:00:00Z' },
  { text: 'I ran the Berlin marathon in September 2023, my first marathon.', speaker: 'Priya', observedAt: '2024-01-10T09:01:00Z' },
  { text: 'I drink an espresso every morning, I love coffee.', speaker: 'Priya', observedAt: '2024-03-02T08:00:00Z' },
  { text: 'My cat Mochi is three years old.', speaker: 'Priya', observedAt: '2024-03-02T08:01:00Z' },
  { text: 'I moved to Munich last week, the new flat is near the Isar.', speaker: 'Priya', observedAt: '2024-06-15T10:00:00Z' },
  { text: 'I quit the hospital and started a new job as a data analyst at Siemens.', speaker: 'Priya', observedAt: '2024-09-01T10:00:00Z' },
  { text: 'I switched to green tea, coffee makes me jittery now.', speaker: 'Priya', observedAt: '2024-10-20T08:00:00Z' },
];

describe('abstention does not depend on k or on the state order', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await createStack({ db: ':memory:', scope: { userId: 'priya' }, systemTwo: null });
    await stack.add(observations);
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('answers a present-tense question about a changed job at k = 3 and k = 10 with the same p(evidence)', async () => {
    const now = '2024-11-01T12:00:00Z';
    const small = await stack.ask('Where does Priya work?', { k: 3, now });
    const large = await stack.ask('Where does Priya work?', { k: 10, now });
    expect(large.evidence.some((e) => e.status === 'superseded')).toBe(true);
    expect(large.answerable).toBe(true);
    expect(small.answerable).toBe(true);
    expect(large.pEvidence).toBeCloseTo(small.pEvidence!, 10);
    expect(large.answer).toMatch(/Siemens/);
  }, 60_000);
});

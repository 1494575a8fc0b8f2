import { describe, expect, it } from 'vitest';
import { asksWhen, eventDates, offlineAnswerLabel, whenAnswer, whenNote } from './when.js';

const said = '2025-03-18T18:30:00.000Z';
const yesterday = { start: '2025-03-17T00:00:00.000Z', end: '2025-03-18T00:00:00.000Z', expression: 'Yesterday' };

describe('when-questions (issue 36)', () => {
  it('reads the interrogative, not any mention of "when"', () => {
    expect(asksWhen('When did Maya get the flat tire?')).toBe(true);
    expect(asksWhen('what day did she move?')).toBe(true);
    expect(asksWhen('How long ago was the race?')).toBe(true);
    expect(asksWhen('Why did Maya miss the meeting when the bridge closed?')).toBe(false);
    expect(asksWhen('What does Maya drink?')).toBe(false);
    expect(asksWhen('How long was the run?')).toBe(false);
  });

  it('quotes the best-ranked dated item of the top 3, else #1', () => {
    const undated = { eventTime: null };
    const dated = { eventTime: yesterday };
    expect(whenAnswer([undated, dated, undated])).toEqual({ item: dated, rank: 2 });
    expect(whenAnswer([dated, undated])).toEqual({ item: dated, rank: 1 });
    expect(whenAnswer([undated, undated, undated, dated])).toEqual({ item: undated, rank: 1 });
    expect(whenAnswer([])).toBeUndefined();
  });

  it('gives the resolved date of the event (spans end exclusively) and when it was said', () => {
    expect(eventDates(yesterday)).toBe('2025-03-17');
    expect(eventDates({ start: '2025-02-22T00:00:00.000Z', end: '2025-02-24T00:00:00.000Z', expression: 'two weekends ago' })).toBe('2025-02-22 … 2025-02-23');
    expect(eventDates({ start: '2025-03-17T09:00:00.000Z', end: null, expression: 'at nine' })).toBe('2025-03-17');
    expect(whenNote({ eventTime: yesterday, observedAt: said })).toBe(' — happened 2025-03-17 ("Yesterday"), said 2025-03-18');
    expect(whenNote({ eventTime: null, observedAt: said })).toBe(' — said 2025-03-18; the text gives no date');
  });

  it('labels which evidence item the line quotes', () => {
    expect(offlineAnswerLabel(1)).toBe('Answer (offline: top evidence statement, not generated)');
    expect(offlineAnswerLabel(2)).toBe('Answer (offline: evidence #2, the best-ranked with a date, not generated)');
    expect(offlineAnswerLabel(1, true)).toContain('offline fallback, System Two unavailable');
    // an abstention (memory holds nothing on it) quotes no memory: the label must not claim one
    expect(offlineAnswerLabel(null)).toBe('Answer (offline: no memory quoted, not generated)');
  });
});

import { describe, expect, it } from 'vitest';
import { answerness, createDialogueScorer, namedSpeaker, queryContentTerms, queryTimeInterval, questionShare, speakerMatch, termCoverage, timeMatch } from './dialogue.js';
import { hashEmbedder, makeNode } from './__fixtures__/stubs.js';

const e = hashEmbedder(8);

describe('dialogue signals', () => {
  it('questionShare counts question sentences and ignores image captions', () => {
    expect(questionShare('Nice! What did you paint?')).toBe(0.5);
    expect(questionShare('What did you paint?')).toBe(1);
    expect(questionShare('I painted a lake.')).toBe(0);
    expect(questionShare('Look at this! [image: a photo? of a lake]')).toBe(0);
    expect(questionShare('')).toBe(0);
    expect(questionShare('Really?" she asked.')).toBe(0.5);
  });

  it('answerness: statement after a question is positive, a question is negative', () => {
    expect(answerness('I painted a lake.', 'What did you paint?')).toBe(1);
    expect(answerness('What did you paint?', 'I went out.')).toBe(-1);
    expect(answerness('I painted a lake.', null)).toBe(0);
  });

  it('namedSpeaker: exactly one named participant, any token of the name', () => {
    expect(namedSpeaker('What did Ana paint?', ['Ana Lima', 'Ben'])).toBe('Ana Lima');
    expect(namedSpeaker('What did lima paint?', ['Ana Lima', 'Ben'])).toBe('Ana Lima');
    expect(namedSpeaker('What did Ana and Ben paint?', ['Ana Lima', 'Ben'])).toBeNull();
    expect(namedSpeaker('What was painted?', ['Ana Lima', 'Ben'])).toBeNull();
    expect(speakerMatch('Ana', 'Ana')).toBe(1);
    expect(speakerMatch('Ben', 'Ana')).toBe(-1);
    expect(speakerMatch(null, 'Ana')).toBe(0);
    expect(speakerMatch('Ben', null)).toBe(0);
  });

  it('coverage of the content terms, speaker names left out', () => {
    const q = queryContentTerms('What did Ana paint at the lake?', new Set(['ana']));
    expect(q.has('ana')).toBe(false);
    expect(q.has('lake')).toBe(true);
    expect(termCoverage(q, ['lake'])).toBeCloseTo(1 / q.size);
    expect(termCoverage(q, [...q])).toBe(1);
    expect(termCoverage(new Set(), ['lake'])).toBe(0);
  });

  it('scorer: the answer turn after the question beats the question and the other speaker', async () => {
    const ask = await makeNode(e, 'ask', 'What did you paint at the lake?', { speaker: 'Ben', keywords: ['paint', 'lake'] });
    const ans = await makeNode(e, 'ans', 'A heron, in watercolour.', { speaker: 'Ana', keywords: ['heron', 'watercolour'] });
    const prev = new Map([['ans', ask]]);
    const d = createDialogueScorer('What did Ana paint at the lake?', ['Ana', 'Ben'], (n) => prev.get(n.id) ?? null);
    const a = d(ans);
    const q = d(ask);
    expect(a.coverage).toBe(q.coverage); // the answer covers the query through its question turn
    expect(a.answerness).toBe(1);
    expect(q.answerness).toBe(-1);
    expect(a.speaker).toBe(1);
    expect(q.speaker).toBe(-1);
    expect(a.value).toBeGreaterThan(q.value);
    const noSpeaker = createDialogueScorer('What did Ana paint at the lake?', ['Ana', 'Ben'], (n) => prev.get(n.id) ?? null, { coverage: 1, answer: 1, speaker: 0, time: 1 });
    expect(noSpeaker(ans).value).toBeCloseTo(a.value - 0.5);
  });

  it('time: the query names an interval; turns said or dated in it match', async () => {
    const iv = queryTimeInterval('What did Ana paint in June?', '2024-10-20T10:00:00.000Z')!;
    expect(new Date(iv.start).toISOString()).toBe('2024-06-01T00:00:00.000Z');
    expect(new Date(iv.end).toISOString()).toBe('2024-07-01T00:00:00.000Z');
    expect(queryTimeInterval('What did Ana paint?', '2024-10-20T10:00:00.000Z')).toBeNull();
    const day = queryTimeInterval('What did Ana say on 13 October 2024?', '2024-10-20T10:00:00.000Z')!;
    expect(day.end - day.start).toBe(86_400_000);
    expect(timeMatch({ observedAt: '2024-06-15T10:00:00.000Z', eventTime: null }, iv)).toBe(1);
    expect(timeMatch({ observedAt: '2024-07-01T00:00:00.000Z', eventTime: null }, iv)).toBe(0); // end is open
    expect(timeMatch({ observedAt: '2024-07-03T10:00:00.000Z', eventTime: { start: '2024-06-28T00:00:00.000Z', end: null, expression: 'last Friday' } }, iv)).toBe(1);
    expect(timeMatch({ observedAt: '2024-07-03T10:00:00.000Z', eventTime: null }, iv)).toBe(0);
    expect(timeMatch({ observedAt: '2024-06-15T10:00:00.000Z', eventTime: null }, null)).toBe(0);
    const june = await makeNode(e, 'j', 'I painted a heron.', { speaker: 'Ana', observedAt: '2024-06-10T09:00:00.000Z' });
    const may = await makeNode(e, 'm', 'I painted a heron.', { speaker: 'Ana', observedAt: '2024-05-10T09:00:00.000Z' });
    const d = createDialogueScorer('What did Ana paint in June?', ['Ana', 'Ben'], () => null, undefined, iv);
    expect(d(june).time).toBe(1);
    expect(d(june).value - d(may).value).toBeCloseTo(1);
  });
});

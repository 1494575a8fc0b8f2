import { describe, expect, it } from 'vitest';
import { differentEpisodes, finalizeEdges, sharesEntity, temporalRuleEdge } from './relations.js';

const n = (id: string, observedAt: string, eventTime: any = null) => ({ id, observedAt, eventTime });

describe('rule edges', () => {
  it('PRECEDES from the earlier to the later, CONCURRENT when close or overlapping', () => {
    expect(temporalRuleEdge(n('b', '2024-05-16T10:00:00.000Z'), n('a', '2024-05-14T10:00:00.000Z'))).toMatchObject({ from: 'a', to: 'b', subtype: 'PRECEDES', probability: 1 });
    expect(temporalRuleEdge(n('a', '2024-05-14T10:00:00.000Z'), n('b', '2024-05-14T10:00:30.000Z'))?.subtype).toBe('CONCURRENT');
    // event time wins over observation time
    const b = n('b', '2024-05-16T10:00:00.000Z', { start: '2024-05-15T00:00:00.000Z', end: '2024-05-15T23:59:59.999Z', expression: 'yesterday' });
    const a = n('a', '2024-05-15T12:00:00.000Z');
    expect(temporalRuleEdge(b, a)?.subtype).toBe('CONCURRENT');
    expect(temporalRuleEdge(n('x', 'garbage'), a)).toBeNull();
  });
  it('exact normalized entity match', () => {
    expect(sharesEntity(['Mira', 'bicycle'], ['mira'])).toBe(true);
    expect(sharesEntity(['Mira'], ['Tom'])).toBe(false);
    expect(sharesEntity([], ['Tom'])).toBe(false);
  });
});

describe('same_episode settled by rule (differentEpisodes)', () => {
  const at = (observedAt: string, episode: string | null, eventTime: any = null) => ({ observedAt, eventTime, episode });
  it('different episode keys more than 2 days apart → different episodes; otherwise the question is asked', () => {
    expect(differentEpisodes(at('2024-05-20T10:00:00.000Z', 'm:2'), at('2024-05-14T10:00:00.000Z', 'm:1'))).toBe(true);
    // same key, a missing key, or close in time: not settled
    expect(differentEpisodes(at('2024-05-20T10:00:00.000Z', 'm:1'), at('2024-05-14T10:00:00.000Z', 'm:1'))).toBe(false);
    expect(differentEpisodes(at('2024-05-20T10:00:00.000Z', null), at('2024-05-14T10:00:00.000Z', 'm:1'))).toBe(false);
    expect(differentEpisodes(at('2024-05-15T09:00:00.000Z', 'm:2'), at('2024-05-14T10:00:00.000Z', 'm:1'))).toBe(false);
    // an event time near the other memory's time keeps the question open
    const ev = { start: '2024-05-14T00:00:00.000Z', end: '2024-05-14T23:59:59.999Z', expression: 'last Tuesday' };
    expect(differentEpisodes(at('2024-05-20T10:00:00.000Z', 'm:2', ev), at('2024-05-14T10:00:00.000Z', 'm:1'))).toBe(false);
  });
});

describe('finalizeEdges', () => {
  it('finalize dedups (from,to,subtype) keeping max p and assigns views', () => {
    const r = finalizeEdges(
      [
        { from: 'a', to: 'b', subtype: 'SAME_EPISODE', probability: 0.7, origin: 'controller' },
        { from: 'a', to: 'b', subtype: 'SAME_EPISODE', probability: 1, origin: 'rule' },
        { from: 'a', to: 'a', subtype: 'RELATED_TO', probability: 1, origin: 'rule' },
      ],
      '2024-01-01T00:00:00.000Z',
    );
    expect(r).toHaveLength(1);
    expect(r[0]!.relation).toMatchObject({ view: 'temporal', probability: 1, origin: 'rule' });
  });
});

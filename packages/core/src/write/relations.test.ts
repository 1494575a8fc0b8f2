import { describe, expect, it } from 'vitest';
import { consolidationEdges, differentEpisodes, edgesFromPairAnswers, finalizeEdges, sharesEntity, temporalRuleEdge } from './relations.js';

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
  it('an unasked same_episode yields no edge', () => {
    const answers = { pair_0_semantic: 0.1, pair_0_causes: 0.1, pair_0_caused_by: 0.1, pair_0_same_episode: 0.9 };
    const asked = edgesFromPairAnswers('new', [{ candidateId: 'c0', askAlias: false, askTemporalOrder: false }], answers, 0.6);
    const skipped = edgesFromPairAnswers('new', [{ candidateId: 'c0', askAlias: false, askTemporalOrder: false, askEpisode: false }], answers, 0.6);
    expect(asked.map((e) => e.subtype)).toEqual(['SAME_EPISODE']);
    expect(skipped).toEqual([]);
  });
});

describe('pair answers → edges (θ_rel)', () => {
  const plans = [
    { candidateId: 'c0', askAlias: true, askTemporalOrder: true },
    { candidateId: 'c1', askAlias: false, askTemporalOrder: false },
  ];
  it('keeps p ≥ θ only, with the right directions', () => {
    const answers = {
      pair_0_semantic: 0.6,
      pair_0_causes: 0.59,
      pair_0_caused_by: 0.9,
      pair_0_same_episode: 0.1,
      pair_0_entity_alias: 0.7,
      pair_0_temporal_order: { choice: 'after', probabilities: { after: 0.8, before: 0.2 } },
      pair_1_semantic: 0.2,
      pair_1_causes: 0.95,
      pair_1_entity_alias: 0.99, // not asked: ignored
    };
    const e = edgesFromPairAnswers('v', plans, answers, 0.6);
    const s = e.map((d) => `${d.from}-${d.subtype}->${d.to}`).sort();
    expect(s).toEqual(['c0-LEADS_TO->v', 'c0-PRECEDES->v', 'v-ENTITY_ALIAS->c0', 'v-LEADS_TO->c1', 'v-RELATED_TO->c0']);
  });
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

describe('consolidation edges (max ≥ 0.85)', () => {
  const kinds = (r: { drafts: { subtype: string }[] }) => r.drafts.map((d) => d.subtype).sort();
  it('adds only the strongest of redundant / contradiction / link, and OBSOLETES separately', () => {
    expect(kinds(consolidationEdges('n', 'o', { redundant: 0.9, contradiction: 0.95, obsolete: 0.2, link: 0.99 }, 0.85, false))).toEqual(['RELATED_TO']);
    expect(kinds(consolidationEdges('n', 'o', { redundant: 0.9, contradiction: 0.95, obsolete: 0.86, link: 0.1 }, 0.85, false))).toEqual(['CONTRADICTS', 'OBSOLETES']);
    expect(kinds(consolidationEdges('n', 'o', { redundant: 0.84, contradiction: 0.5, obsolete: 0.84, link: 0.1 }, 0.85, false))).toEqual([]);
    // with θ_rel (the write path): one change edge from p_contradiction + p_obsolete, the larger names it
    expect(kinds(consolidationEdges('n', 'o', { redundant: 0.1, contradiction: 0.25, obsolete: 0.4, link: 0.99 }, 0.85, false, 0.6))).toEqual(['OBSOLETES']);
    expect(consolidationEdges('n', 'o', { redundant: 0.1, contradiction: 0.45, obsolete: 0.2, link: 0.1 }, 0.85, false, 0.6)).toMatchObject({ obsolete: true, drafts: [{ subtype: 'CONTRADICTS' }] });
    expect(consolidationEdges('n', 'o', { redundant: 0.9, contradiction: 0.3, obsolete: 0.2, link: 0.1 }, 0.85, false, 0.6)).toMatchObject({ obsolete: false, drafts: [{ subtype: 'REDUNDANT_WITH' }] });
    expect(kinds(consolidationEdges('n', 'o', { redundant: 0.1, contradiction: 0.3, obsolete: 0.2, link: 0.9 }, 0.85, true, 0.6))).toEqual([]);
    const r = consolidationEdges('n', 'o', { redundant: 0.1, contradiction: 0.1, obsolete: 0.9, link: 0.95 }, 0.85, true);
    expect(kinds(r)).toEqual(['OBSOLETES']); // already RELATED_TO: no duplicate link
    expect(r.obsolete).toBe(true);
    expect(r.drafts[0]).toMatchObject({ from: 'n', to: 'o', origin: 'controller', probability: 0.9 });
  });
});

import { describe, expect, it } from 'vitest';
import {
  consolidationEdges,
  defaultQuestions,
  nearDuplicateEdges,
  relationEdges,
  stateEdge,
  stateJudgment,
  supersessionOf,
  type StateJudgment,
} from './index.js';
import type { Relation } from '../../types.js';

const judge = (p: Partial<StateJudgment['p']>): StateJudgment => {
  const full = { same: 0, update: 0, contradiction: 0, compatible: 0, unrelated: 0, ...p };
  const label = (Object.entries(full) as [StateJudgment['label'], number][]).sort((a, b) => b[1] - a[1])[0]![0];
  return { label, p: full };
};
const choice = (p: Partial<StateJudgment['p']>) => {
  const j = judge(p);
  return { choice: j.label, probabilities: j.p };
};
const th = { change: 0.6, same: 0.6 };

describe('the state rule (stateEdge): the only contradiction / obsolescence rule', () => {
  it('p(update) + p(contradiction) ≥ θ → one edge, named by the larger, p = the sum; the older is superseded', () => {
    expect(stateEdge('n', 'o', judge({ update: 0.375, contradiction: 0.25, compatible: 0.375 }), th)).toEqual({
      draft: { from: 'n', to: 'o', subtype: 'OBSOLETES', probability: 0.625, origin: 'controller' },
      supersedes: true,
    });
    expect(stateEdge('n', 'o', judge({ update: 0.2, contradiction: 0.7 }), th).draft?.subtype).toBe('CONTRADICTS');
    expect(stateEdge('n', 'o', judge({ update: 0.7, contradiction: 0.5 }), th).draft?.probability).toBe(1);
  });
  it('same fact → REDUNDANT_WITH (not superseded); compatible, unrelated, unsure, absent → no edge', () => {
    expect(stateEdge('n', 'o', judge({ same: 0.8, update: 0.1 }), th)).toMatchObject({ draft: { subtype: 'REDUNDANT_WITH', probability: 0.8 }, supersedes: false });
    expect(stateEdge('n', 'o', judge({ compatible: 0.9, update: 0.05 }), th)).toEqual({ draft: null, supersedes: false });
    expect(stateEdge('n', 'o', judge({ unrelated: 0.5, update: 0.3, contradiction: 0.2 }), th).draft).toBeNull();
    expect(stateEdge('n', 'o', null, th).draft).toBeNull();
    expect(stateEdge('n', 'n', judge({ update: 1 }), th).draft).toBeNull();
  });
  it('parses a Choice answer; anything else is no judgment', () => {
    expect(stateJudgment({ choice: 'update', probabilities: { update: 0.7, same: 0.3 } })).toEqual({
      label: 'update',
      p: { same: 0.3, update: 0.7, contradiction: 0, compatible: 0, unrelated: 0 },
    });
    expect(stateJudgment(0.9)).toBeNull();
    expect(stateJudgment(undefined)).toBeNull();
  });
});

describe('near-duplicate check, relation batch and consolidation all use the state rule', () => {
  it('near-duplicate: state edges per compared memory; RELATED_TO to the gate nearest only when no state edge links it', () => {
    const c = nearDuplicateEdges('n', ['o', 'p'], { pair_0_state: choice({ contradiction: 0.8 }), pair_1_state: choice({ compatible: 0.9 }) }, 0.6, { id: 'o', cosine: 0.9 });
    expect(c).toEqual({ drafts: [{ from: 'n', to: 'o', subtype: 'CONTRADICTS', probability: 0.8, origin: 'controller' }], supersedes: ['o'], changesState: true });
    const none = nearDuplicateEdges('n', ['o'], { pair_0_state: choice({ compatible: 0.7 }) }, 0.6, { id: 'o', cosine: 0.85 });
    expect(none).toEqual({ drafts: [{ from: 'n', to: 'o', subtype: 'RELATED_TO', probability: 0.85, origin: 'rule' }], supersedes: [], changesState: false });
  });
  it('relation batch: learned edges p ≥ θ with their directions; the state Choice only where asked', () => {
    const plans = [
      { candidateId: 'c0', askAlias: true, askTemporalOrder: true, askState: true },
      { candidateId: 'c1', askAlias: false, askTemporalOrder: false },
    ];
    const answers = {
      pair_0_semantic: 0.6,
      pair_0_causes: 0.59,
      pair_0_caused_by: 0.9,
      pair_0_same_episode: 0.1,
      pair_0_entity_alias: 0.7,
      pair_0_temporal_order: { choice: 'after', probabilities: { after: 0.8, before: 0.2 } },
      pair_0_state: choice({ update: 0.9 }),
      pair_1_semantic: 0.2,
      pair_1_causes: 0.95,
      pair_1_entity_alias: 0.99, // not asked: ignored
      pair_1_state: choice({ update: 0.99 }), // not asked: ignored
    };
    const out = relationEdges('v', plans, answers, 0.6);
    expect(out.drafts.map((d) => `${d.from}-${d.subtype}->${d.to}`).sort()).toEqual([
      'c0-LEADS_TO->v',
      'c0-PRECEDES->v',
      'v-ENTITY_ALIAS->c0',
      'v-LEADS_TO->c1',
      'v-OBSOLETES->c0',
      'v-RELATED_TO->c0',
    ]);
    expect(out.supersedes).toEqual(['c0']);
  });
  it('an unasked same_episode yields no edge', () => {
    const answers = { pair_0_semantic: 0.1, pair_0_causes: 0.1, pair_0_caused_by: 0.1, pair_0_same_episode: 0.9 };
    expect(relationEdges('new', [{ candidateId: 'c0', askAlias: false, askTemporalOrder: false }], answers, 0.6).drafts.map((e) => e.subtype)).toEqual(['SAME_EPISODE']);
    expect(relationEdges('new', [{ candidateId: 'c0', askAlias: false, askTemporalOrder: false, askEpisode: false }], answers, 0.6).drafts).toEqual([]);
  });
  it('consolidation: the state rule (change at θ_rel, same fact at 0.85), else a link ≥ 0.85 unless already related', () => {
    const t = { change: 0.6, same: 0.85 };
    expect(consolidationEdges('n', 'o', judge({ update: 0.4, contradiction: 0.25 }), 0.99, t, false)).toMatchObject({ obsolete: true, drafts: [{ subtype: 'OBSOLETES' }] });
    expect(consolidationEdges('n', 'o', judge({ same: 0.84, compatible: 0.16 }), 0.1, t, false)).toEqual({ obsolete: false, drafts: [] });
    expect(consolidationEdges('n', 'o', judge({ same: 0.9 }), 0.1, t, false)).toMatchObject({ obsolete: false, drafts: [{ subtype: 'REDUNDANT_WITH' }] });
    expect(consolidationEdges('n', 'o', judge({ compatible: 0.9 }), 0.9, t, false)).toMatchObject({ drafts: [{ subtype: 'RELATED_TO', probability: 0.9 }] });
    expect(consolidationEdges('n', 'o', judge({ compatible: 0.9 }), 0.9, t, true).drafts).toEqual([]);
  });
  it('keys: the near-duplicate check asks only pair_i_state; consolidation state + link (+ representation)', () => {
    const q = defaultQuestions();
    expect(Object.keys(q.nearDuplicate(2))).toEqual(['pair_0_state', 'pair_1_state']);
    expect(Object.keys(q.consolidation(1, { representation: false })).sort()).toEqual(['pair_0_link', 'pair_0_state']);
    expect(q.nearDuplicate(1).pair_0_state).toMatchObject({ type: 'choice', kind: 'state.change' });
    const rel = q.relations([{ candidateId: 'a', askAlias: false, askTemporalOrder: false, askEpisode: false, askState: true }]);
    expect(Object.keys(rel).sort()).toEqual(['pair_0_caused_by', 'pair_0_causes', 'pair_0_semantic', 'pair_0_state']);
  });
});

describe('supersessionOf (what the read side shows)', () => {
  const edge = (over: Partial<Relation>): Relation => ({
    id: 'e1', from: 'new', to: 'old', view: 'semantic', subtype: 'OBSOLETES', probability: 0.8, origin: 'controller', createdAt: '2025-03-01T00:00:00.000Z', ...over,
  });
  it('current memory → null; superseded → by, at (the superseding observedAt), p and kind of the state edge', () => {
    expect(supersessionOf({ id: 'old', obsoleteBy: null }, [edge({})], null)).toBeNull();
    const s = supersessionOf({ id: 'old', obsoleteBy: 'new' }, [edge({ id: 'e0', probability: 0.7, subtype: 'CONTRADICTS' }), edge({}), edge({ from: 'x', probability: 1 })], { id: 'new', observedAt: '2025-02-20T10:00:00.000Z' });
    expect(s).toEqual({ by: 'new', at: '2025-02-20T10:00:00.000Z', p: 0.8, kind: 'update', edgeId: 'e1' });
    expect(supersessionOf({ id: 'old', obsoleteBy: 'new' }, [edge({ subtype: 'CONTRADICTS' })], null)).toMatchObject({ kind: 'contradiction', at: '2025-03-01T00:00:00.000Z' });
    expect(supersessionOf({ id: 'old', obsoleteBy: 'new' }, [], null)).toEqual({ by: 'new', at: '', p: null, kind: 'update', edgeId: null });
  });
});

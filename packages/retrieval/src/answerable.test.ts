import { describe, expect, it } from 'vitest';
import { answerabilityFeatures, answerabilityProbability, defaultAnswerability, termSupport, type RankedCandidate } from './answerable.js';

const unit = (...x: number[]) => {
  const n = Math.hypot(...x);
  return Float32Array.from(x.map((v) => v / n));
};
// a 3-d toy space: "dog" ≈ "puppy", "blood" far from both
const WORDS: Record<string, Float32Array> = { dog: unit(1, 0, 0), puppy: unit(0.9, 0.1, 0), blood: unit(0, 0, 1), walk: unit(0, 1, 0) };
const cand = (final: number, terms: string[], namedSpeaker = 0, cosine = 0.5): RankedCandidate => ({
  final,
  features: { named_speaker: namedSpeaker, cosine, coverage: 0 },
  embedding: unit(1, 1, 0),
  terms: new Set(terms),
});
const q = (...terms: string[]) => ({ terms: terms.map((term) => ({ term, vec: WORDS[term] ?? null })), wordVec: (w: string) => WORDS[w] });

describe('termSupport (issue 37)', () => {
  it('a term a memory holds counts 1; another word counts its cosine to the closest word of the memories', () => {
    const s = termSupport(q('dog', 'blood'), [cand(0.5, ['puppy', 'walk'])]);
    expect(s.lexUnion).toBe(0);
    expect(s.wordMin).toBeCloseTo(0, 5); // "blood" has no close word
    expect(s.wordMean).toBeCloseTo((0.9 / Math.hypot(0.9, 0.1) + 0) / 2, 5);
    expect(s.focusWord).toBeCloseTo(0, 5); // the focus term is the last one, "blood"
    // without single-word embeddings a term counts its cosine to the memories' own embeddings
    const noWords = termSupport({ terms: [{ term: 'blood', vec: WORDS.blood! }] }, [cand(0.5, ['puppy'])]);
    expect(noWords.wordMin).toBeCloseTo(noWords.semMin, 10);
    expect(noWords.wordMin).toBe(0); // "blood" ⟂ the memory's embedding (1, 1, 0)
    const held = termSupport(q('dog'), [cand(0.5, ['dog'])]);
    expect(held).toMatchObject({ lexUnion: 1, wordMin: 1, focusLex: 1 });
  });
  it('no terms: all 1 (nothing to miss); no memories: all 0', () => {
    expect(termSupport({ terms: [] }, [cand(0.5, ['dog'])]).wordMin).toBe(1);
    expect(termSupport(q('dog'), []).lexUnion).toBe(0);
  });
});

describe('answerabilityFeatures: another speaker than the named one', () => {
  it('measures how much better another speaker’s memories support the question (a question about the wrong person)', () => {
    const wrongPerson = answerabilityFeatures([cand(0.4, ['walk'], 1), cand(0.8, ['dog'], -1)], 2, q('dog'));
    expect(wrongPerson.other_p_gap10).toBeCloseTo(0.4, 5);
    expect(wrongPerson.other_lex_gap10).toBe(1);
    expect(wrongPerson.term_lex_union_named5).toBe(0);
    const own = answerabilityFeatures([cand(0.8, ['dog'], 1), cand(0.4, ['walk'], -1)], 2, q('dog'));
    expect(own.other_p_gap10).toBeCloseTo(-0.4, 5);
    expect(own.term_lex_union_named5).toBe(1);
    // no other speaker in the top 10: the gaps read 0
    expect(answerabilityFeatures([cand(0.8, ['dog'])], 1, q('dog')).other_p_gap10).toBe(0);
  });
});

describe('the shipped abstention model', () => {
  it('a memory that holds the question’s terms is answerable; one that holds none of them, about the named person, is not', () => {
    const { model, threshold } = defaultAnswerability();
    const holds = answerabilityProbability(model, [{ ...cand(0.9, ['dog', 'walk'], 1), features: { named_speaker: 1, coverage: 1, cosine: 0.7 } }], 1, q('dog', 'walk'));
    const none = answerabilityProbability(model, [{ ...cand(0.15, ['puppy'], 1), features: { named_speaker: 1, coverage: 0, cosine: 0.2 } }], 1, q('blood'));
    expect(holds).toBeGreaterThanOrEqual(threshold);
    expect(none).toBeLessThan(threshold);
  });
});

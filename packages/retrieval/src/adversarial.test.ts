/**
 * Adversarial inputs of the dialogue evidence term (tester, ours): speaker names with hyphens,
 * apostrophes and dots, non-Latin names, and queries with no words, only stopwords, only a time
 * expression or in another language.
 */
import { describe, expect, it } from 'vitest';
import { createDialogueScorer, namedSpeaker, queryContentTerms, queryTimeInterval, speakerTokens } from './dialogue.js';
import { hashEmbedder, makeNode } from './__fixtures__/stubs.js';

describe('dialogue signals on adversarial names and queries', () => {
  it('hyphenated / apostrophe / dotted speaker names are recognised in the query and left out of its content terms', () => {
    expect(namedSpeaker('What did Jean-Luc paint?', ['Jean-Luc', 'Ben'])).toBe('Jean-Luc');
    expect(namedSpeaker('What did Luc paint?', ['Jean-Luc', 'Ben'])).toBe('Jean-Luc');
    expect(namedSpeaker("What did O'Brien paint?", ["O'Brien", 'Ben'])).toBe("O'Brien");
    expect(namedSpeaker('What did o paint?', ["O'Brien", 'Ben'])).toBeNull(); // a one-letter part alone names nobody
    expect(namedSpeaker('What did Dr. Smith say?', ['Dr. Smith', 'Ben'])).toBe('Dr. Smith');
    expect(namedSpeaker('Was hat Jörg gemalt?', ['Jörg', 'Ben'])).toBe('Jörg');
    expect(namedSpeaker('ما الذي رسمه سامي؟', ['سامي', 'Ben'])).toBe('سامي');
    expect(namedSpeaker('What did Jean-Luc and Ben paint?', ['Jean-Luc', 'Ben'])).toBeNull();
    const q = queryContentTerms('What did Jean-Luc paint?', speakerTokens(['Jean-Luc', 'Ben']));
    expect([...q]).not.toContain('jean');
    expect([...q]).not.toContain('luc');
    expect([...q]).toContain('paint');
  });

  it('queries with no words, only stopwords, only a time expression or non-English give finite d_v', async () => {
    const e = hashEmbedder(8);
    const ask = await makeNode(e, 'ask', 'What did you paint in June?', { speaker: 'Ben', observedAt: '2024-06-10T10:00:00Z' });
    const ans = await makeNode(e, 'ans', 'אני ציירתי אגם 🎨', { speaker: 'Ana', observedAt: '2024-06-10T10:01:00Z' });
    const prev = new Map([['ans', ask]]);
    for (const query of ['?', '🍕🍕', 'the of and a is', 'in June', 'yesterday', 'ما الذي رسمه سامي؟', '他画了什么', '\u202Ereversed']) {
      const d = createDialogueScorer(query, ['Ana', 'Ben'], (n) => prev.get(n.id) ?? null, undefined, queryTimeInterval(query, '2024-07-01T00:00:00Z'));
      for (const n of [ask, ans]) {
        const r = d(n);
        expect(Number.isFinite(r.value), `${query} → ${JSON.stringify(r)}`).toBe(true);
      }
    }
    expect(queryContentTerms('the of and a is').size).toBe(0);
    expect(queryTimeInterval('in June', '2024-07-01T00:00:00Z')).not.toBeNull();
    expect(queryTimeInterval('?', '2024-07-01T00:00:00Z')).toBeNull();
  });
});

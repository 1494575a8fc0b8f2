// The plain words shared by the playground and `mem ask` (issue 36).
import { describe, expect, it } from 'vitest';
import { ASK_LEGEND, howSure, STOP_REASONS, VIEW_WORDS, whyItStopped, whyTheseMemories } from '../public/wording.js';

const jev = {
  retriever: 'jev',
  routing: { semantic: 0.98, temporal: 0.93, causal: 0.04, entity: 0.95, multiHopNeed: 0.16, recencyImportance: 0.12 },
  activeViews: ['semantic', 'temporal', 'entity'],
  rounds: [{ stopping: { sufficient: 0.92, continueUseful: 0.1, missing: 0.08, contradiction: 0.02 } }],
  stopReason: 'not_useful',
  controllerCalls: 4,
};
const flat = { retriever: 'bm25', routing: null, activeViews: [], rounds: [], stopReason: null, controllerCalls: 0 };

describe('wording', () => {
  it('says why these memories in words, with the followed kinds of link and their probabilities', () => {
    const s = whyTheseMemories(jev, [{ via: [] }, { via: ['SAME_EPISODE'] }]);
    expect(s).toContain('similar meaning (0.98), time order (0.93) and same person or thing (0.95)');
    expect(s).not.toContain('cause and effect'); // below θ_act: not followed
    expect(s).toContain('1 of these 2 came through a link');
    expect(whyTheseMemories(flat, [{ via: [] }])).toMatch(/flat search \(bm25\).*share the most words/);
    expect(whyTheseMemories(jev, [])).toMatch(/no stored memory matched/);
  });

  it('says why it stopped with the playground\'s words', () => {
    expect(whyItStopped(jev)).toBe(`${STOP_REASONS.not_useful} (1 link step, 4 System-One questions).`);
    expect(STOP_REASONS.not_useful).toBe('another step would not help');
  });

  it('says how sure it is from probabilities, never from flat scores', () => {
    expect(howSure(jev, [{ score: 0.54 }])).toBe('unsure. The top memory is evidence for this question with probability 0.54; System One judged the evidence enough with probability 0.92.');
    expect(howSure(jev, [{ score: 0.81 }], 0.9)).toMatch(/^fairly sure\. .*Memory holds an answer with probability 0\.90/);
    expect(howSure(flat, [{ score: 7.3 }])).toBe('not estimated: bm25 scores are not probabilities.');
    // issue 37: an abstention says memory holds nothing reliable, with the p, and quotes no answer
    const abstained = howSure(jev, [{ score: 0.3 }], 0.12, false);
    expect(abstained).toMatch(/^memory holds nothing reliable on this: it holds an answer with probability 0\.12, below the abstention threshold/);
    expect(abstained).toContain('the top one is evidence with probability 0.30');
    expect(howSure(jev, [{ score: 0.3 }], 0.12, true)).toMatch(/^not sure\. .*Memory holds an answer with probability 0\.12/);
  });

  it('the legend names every kind of link and the short ids', () => {
    for (const w of Object.values(VIEW_WORDS)) expect(ASK_LEGEND).toContain(w);
    expect(ASK_LEGEND).toMatch(/short id\s+the last 8 characters/);
    expect(ASK_LEGEND).toContain('--trace');
  });
});

// The query embedded without the scope's speakers' names (issue 16). Texts are our own.
import { describe, expect, it } from 'vitest';
import { queryWithoutSpeakerNames } from './dialogue.js';
import { createJevRetriever } from './jev.js';
import type { RetrievalTrace } from './types.js';
import { SCOPE, hashEmbedder, makeNode, memoryStore, scriptedSystemOne, recording } from './__fixtures__/stubs.js';

const speakers = ['Ana Lima', 'Ben', 'Jean-Luc', 'user', 'assistant'];

describe('queryWithoutSpeakerNames', () => {
  it('removes every token of a named speaker, possessives included, and tidies the spaces', () => {
    expect(queryWithoutSpeakerNames('What did Ana paint?', speakers)).toBe('What did paint?');
    expect(queryWithoutSpeakerNames("When did Ben's dog run away?", speakers)).toBe('When did dog run away?');
    expect(queryWithoutSpeakerNames('Would Ana Lima and Ben be friends?', speakers)).toBe('Would and be friends?');
    expect(queryWithoutSpeakerNames('What did lima paint', speakers)).toBe('What did paint');
    expect(queryWithoutSpeakerNames('Where does Jean-Luc’s sister live?', speakers)).toBe('Where does sister live?');
    expect(queryWithoutSpeakerNames('Ben, what did you cook?', speakers)).toBe('what did you cook?');
  });

  it('leaves role labels, other words containing a name, and a query that is only a name', () => {
    expect(queryWithoutSpeakerNames('How should I rate users? Ask the assistant.', speakers)).toBe('How should I rate users? Ask the assistant.');
    expect(queryWithoutSpeakerNames('Where is the bench by the analysis lab?', speakers)).toBe('Where is the bench by the analysis lab?');
    expect(queryWithoutSpeakerNames('Ana?', speakers)).toBe('Ana?');
    expect(queryWithoutSpeakerNames('What did Ana paint?', [])).toBe('What did Ana paint?');
  });
});

describe('jev embeds the query without the speakers names', () => {
  const route = { semantic: 0.9, temporal: 0.05, causal: 0.05, entity: 0.05, multi_hop_need: 0.1, recency_importance: 0.1 };
  it('the vector anchor and the cosine features read the stripped query; stripQueryNames: false keeps it', async () => {
    const base = hashEmbedder(64);
    // Ana's own turn answers; Ben's turn only names her (a greeting)
    const nodes = [
      await makeNode(base, 'own', 'I paint lakes at dawn.', { speaker: 'Ana Lima', observedAt: '2024-01-01T10:00:00.000Z' }),
      await makeNode(base, 'bye', 'Bye Ana, see you soon!', { speaker: 'Ben', observedAt: '2024-01-01T10:00:01.000Z' }),
    ];
    const query = { scope: SCOPE, query: 'What does Ana paint?', k: 2, now: '2024-02-01T00:00:00Z' };
    const cosines = async (stripQueryNames?: boolean) => {
      const embedder = recording(base);
      const jev = createJevRetriever({ store: memoryStore(nodes), systemOne: scriptedSystemOne(route), embedder, collectFeatures: true, ...(stripQueryNames === undefined ? {} : { stripQueryNames }) });
      const trace = (await jev.search(query)).trace as RetrievalTrace;
      const cos = new Map(trace.candidates.map((c) => [c.id, c.features!.cosine]));
      return { seen: embedder.seen, own: cos.get('own')!, bye: cos.get('bye')! };
    };
    const stripped = await cosines();
    // the query first; then (abstention's term support, issue 37) its content terms, without the names
    expect(stripped.seen.slice(0, 2)).toEqual(['What does paint?', 'paint']);
    expect(stripped.own).toBeGreaterThan(0);
    expect(stripped.bye).toBe(0); // "Bye Ana, see you soon!" shares no word with "What does paint?"
    const kept = await cosines(false);
    expect(kept.seen.slice(0, 2)).toEqual(['What does Ana paint?', 'paint']);
    expect(kept.bye).toBeGreaterThan(0); // the shared name
    expect(kept.own).toBeLessThan(stripped.own);
  });
});

import { describe, expect, it } from 'vitest';
import { createBm25Retriever, createDenseRetriever, createHybridRetriever } from './flat.js';
import type { Embedder } from '@mem/core';
import { hashEmbedder, makeNode, memoryStore, OTHER, SCOPE, recording } from './__fixtures__/stubs.js';
import { MemValidationError } from '@mem/core';
import { expectMemError } from '@mem/test-utils';

const embedder = hashEmbedder();

describe('flat baselines', () => {
  it('bm25, dense and hybrid return scoped top-k', async () => {
    const nodes = [
      await makeNode(embedder, 'a', 'the violin lesson moved to Thursday'),
      await makeNode(embedder, 'b', 'violin strings need replacing'),
      await makeNode(embedder, 'c', 'we baked bread on Sunday'),
      await makeNode(embedder, 'z', 'violin violin lesson Thursday', { scope: OTHER }),
    ];
    const store = memoryStore(nodes);
    const q = { scope: SCOPE, query: 'violin lesson Thursday', k: 2 };
    const bm = await createBm25Retriever({ store }).search(q);
    expect(bm.evidence.map((x) => x.node.id)).toEqual(['a', 'b']);
    const de = await createDenseRetriever({ store, embedder }).search(q);
    expect(de.evidence[0].node.id).toBe('a');
    expect(de.evidence).toHaveLength(2);
    const hy = await createHybridRetriever({ store, embedder }).search(q);
    expect(hy.evidence[0].node.id).toBe('a');
    expect(hy.evidence.map((x) => x.node.id)).not.toContain('z');
    expect(hy.evidence[0].score).toBeCloseTo(2 / 61);
    expect(store.calls.lexicalSearch).toBe(2);
  });
  it('rejects an empty query', async () => {
    await expectMemError(createBm25Retriever({ store: memoryStore([]) }).search({ scope: SCOPE, query: '' }), MemValidationError, 'INVALID_INPUT');
  });
});

describe('flat baselines embed the query as jev does (issue 38: fair baselines)', () => {
  it("dense and hybrid embed the query without the scope's speakers' names (stripQueryNames: false keeps them); BM25 reads it as given", async () => {
    const base = hashEmbedder(64);
    const nodes = [
      await makeNode(base, 'own', 'I paint lakes at dawn.', { speaker: 'Ana Lima' }),
      await makeNode(base, 'bye', 'Bye Ana, see you soon!', { speaker: 'Ben' }),
      await makeNode(base, 'far', 'Cleo paints too.', { speaker: 'Cleo', scope: OTHER }),
    ];
    const store = memoryStore(nodes);
    const q = { scope: SCOPE, query: 'What does Ana paint?', k: 2 };
    for (const make of [(e: Embedder, strip?: boolean) => createDenseRetriever({ store, embedder: e, stripQueryNames: strip }), (e: Embedder, strip?: boolean) => createHybridRetriever({ store, embedder: e, stripQueryNames: strip })]) {
      const stripped = recording(base);
      const res = await make(stripped).search(q);
      expect(stripped.seen).toEqual(['What does paint?']);
      expect(res.trace).toMatchObject({ query: 'What does Ana paint?' });
      const kept = recording(base);
      await make(kept, false).search(q);
      expect(kept.seen).toEqual(['What does Ana paint?']);
    }
    // a speaker of another scope is not a name here; one added to this scope is, after the write
    const dense = recording(base);
    const r = createDenseRetriever({ store, embedder: dense });
    await r.search({ scope: SCOPE, query: 'Did Cleo and Ana paint?' });
    nodes.push(await makeNode(base, 'new', 'Hello from Cleo.', { speaker: 'Cleo' }));
    await r.search({ scope: SCOPE, query: 'Did Cleo and Ana paint?' });
    expect(dense.seen).toEqual(['Did Cleo and paint?', 'Did and paint?']);
  });
});

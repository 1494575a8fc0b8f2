import { describe, expect, it } from 'vitest';
import { createBm25Retriever, createDenseRetriever, createHybridRetriever } from './flat.js';
import { hashEmbedder, makeNode, memoryStore, OTHER, SCOPE } from './__fixtures__/stubs.js';

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
    await expect(createBm25Retriever({ store: memoryStore([]) }).search({ scope: SCOPE, query: '' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWinkEmbedder, type WinkEmbedder } from '../embed/index.js';
import { createMemory } from './memory.js';
import { changeProbability, nearDuplicateEdges, nearDuplicateQuestions } from './near-duplicates.js';
import { defaultQuestions } from './memory.js';
import { scriptedGate } from './test-kit.js';

describe('nearDuplicateEdges (issue 17, ours)', () => {
  const ans = (con: number, obs: number, red: number) => ({ pair_0_contradiction: con, pair_0_obsolete: obs, pair_0_redundant: red });
  it('p_change = min(1, p_contradiction + p_obsolete) ≥ θ → CONTRADICTS or OBSOLETES (the larger), older superseded', () => {
    expect(changeProbability(0.5, 0.7)).toBe(1);
    const c = nearDuplicateEdges('n', ['o'], ans(0.45, 0.2, 0.9), 0.6, { id: 'o', cosine: 0.9 });
    expect(c.drafts).toEqual([{ from: 'n', to: 'o', subtype: 'CONTRADICTS', probability: 0.65, origin: 'controller' }]);
    expect(c).toMatchObject({ supersedes: ['o'], changesState: true });
    const u = nearDuplicateEdges('n', ['o'], ans(0.1, 0.6, 0.9), 0.6, null);
    expect(u.drafts.map((d) => d.subtype)).toEqual(['OBSOLETES']);
  });
  it('same fact → REDUNDANT_WITH; nothing → RELATED_TO to the gate nearest with its cosine (never REDUNDANT_WITH by default)', () => {
    expect(nearDuplicateEdges('n', ['o'], ans(0.1, 0.1, 0.8), 0.6, { id: 'o', cosine: 0.9 }).drafts).toEqual([
      { from: 'n', to: 'o', subtype: 'REDUNDANT_WITH', probability: 0.8, origin: 'controller' },
    ]);
    const none = nearDuplicateEdges('n', ['o'], ans(0.1, 0.1, 0.3), 0.6, { id: 'o', cosine: 0.85 });
    expect(none).toMatchObject({ drafts: [{ from: 'n', to: 'o', subtype: 'RELATED_TO', probability: 0.85, origin: 'rule' }], supersedes: [], changesState: false });
  });
  it('asks only the three questions per pair', () => {
    expect(Object.keys(nearDuplicateQuestions(defaultQuestions().consolidation(2))).sort()).toEqual(
      ['pair_0_contradiction', 'pair_0_obsolete', 'pair_0_redundant', 'pair_1_contradiction', 'pair_1_obsolete', 'pair_1_redundant'],
    );
  });
});

describe('the near-duplicate check in the write path (offline System One, trained relation model)', () => {
  let embedder: WinkEmbedder;
  beforeAll(async () => {
    embedder = createWinkEmbedder();
    await embedder.embed(['warm up']);
  });
  const scope = { userId: 'jazz' };
  const memories: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const m of memories) await m.close();
  });

  it('"I really dislike jazz" after "I love jazz" (gate Noop): CONTRADICTS, the older marked obsolete and kept, one counted call', async () => {
    const m = createMemory({ embedder, gate: scriptedGate((n) => (n === 0 ? 'add' : 'noop')), consolidateEvery: 0 });
    memories.push(m);
    const a = await m.add({ text: 'I love jazz.', scope, observedAt: '2025-01-01T10:00:00Z' });
    const b = await m.add({ text: 'I really dislike jazz.', scope, observedAt: '2025-02-01T10:00:00Z' });
    expect(b.action).toBe('noop');
    expect(b.controllerCalls).toBe(2); // typing + the check
    expect(b.relations).toEqual([expect.objectContaining({ subtype: 'CONTRADICTS', from: b.node.id, to: a.node.id, origin: 'controller' })]);
    expect(b.relations[0]!.probability).toBeGreaterThanOrEqual(0.6);
    expect((await m.get(a.node.id, { scope }))!.obsoleteBy).toBe(b.node.id);
    expect((await m.history({ scope })).some((h) => h.op === 'OBSOLETE' && h.nodeId === a.node.id)).toBe(true);
    expect(await m.list({ scope })).toHaveLength(2); // nothing deleted
  });

  it("policy 'drop': a Noop that contradicts a memory is stored anyway; a plain repeat is dropped", async () => {
    const m = createMemory({ embedder, gate: scriptedGate((n) => (n % 2 === 0 ? 'add' : 'noop')), consolidateEvery: 0, policy: 'drop' });
    memories.push(m);
    await m.add({ text: 'I love jazz.', scope, observedAt: '2025-01-01T10:00:00Z' });
    const b = await m.add({ text: 'I really dislike jazz.', scope, observedAt: '2025-02-01T10:00:00Z' });
    expect(b).toMatchObject({ action: 'noop', stored: true });
    expect(await m.list({ scope })).toHaveLength(2);
    const other = { userId: 'lisbon' };
    await m.add({ text: 'My sister Lena lives in Lisbon.', scope: other, observedAt: '2025-01-01T10:00:00Z' });
    const c = await m.add({ text: 'Lena, my sister, lives in Lisbon.', scope: other, observedAt: '2025-03-01T10:00:00Z' });
    expect(c).toMatchObject({ action: 'noop', stored: false });
    expect(await m.list({ scope: other })).toHaveLength(1);
    expect((await m.stats()).gate.dropped).toBe(1);
  });
});

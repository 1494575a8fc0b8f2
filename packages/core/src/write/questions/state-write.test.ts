import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWinkEmbedder, type WinkEmbedder } from '../../embed/index.js';
import { createMemory } from '../memory.js';
import { scriptedGate } from '../test-kit.js';

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
    expect(b.action).toBe('update'); // the gate said Noop; the state question found a change (issue 37)
    expect(b.node.gate).toMatchObject({ action: 'update', routed: 'noop' });
    expect(b.controllerCalls).toBe(2); // typing + the check
    expect(b.relations).toEqual([expect.objectContaining({ subtype: 'CONTRADICTS', from: b.node.id, to: a.node.id, origin: 'controller' })]);
    expect(b.relations[0]!.probability).toBeGreaterThanOrEqual(0.6);
    expect((await m.get(a.node.id, { scope }))!.obsoleteBy).toBe(b.node.id);
    expect((await m.history({ scope })).some((h) => h.op === 'OBSOLETE' && h.nodeId === a.node.id)).toBe(true);
    expect(await m.list({ scope })).toHaveLength(2); // nothing deleted
  });

  it("policy 'drop': a Noop that contradicts a memory is an Update, stored; a plain repeat is dropped", async () => {
    const m = createMemory({ embedder, gate: scriptedGate((n) => (n % 2 === 0 ? 'add' : 'noop')), consolidateEvery: 0, policy: 'drop' });
    memories.push(m);
    await m.add({ text: 'I love jazz.', scope, observedAt: '2025-01-01T10:00:00Z' });
    const b = await m.add({ text: 'I really dislike jazz.', scope, observedAt: '2025-02-01T10:00:00Z' });
    expect(b).toMatchObject({ action: 'update', stored: true });
    expect(await m.list({ scope })).toHaveLength(2);
    const other = { userId: 'lisbon' };
    await m.add({ text: 'My sister Lena lives in Lisbon.', scope: other, observedAt: '2025-01-01T10:00:00Z' });
    const c = await m.add({ text: 'Lena, my sister, lives in Lisbon.', scope: other, observedAt: '2025-03-01T10:00:00Z' });
    expect(c).toMatchObject({ action: 'noop', stored: false });
    expect(await m.list({ scope: other })).toHaveLength(1);
    expect((await m.stats()).gate.dropped).toBe(1);
  });
});

describe('the gate and the state question agree (issue 37): offline System One, trained state model', () => {
  let embedder: WinkEmbedder;
  beforeAll(async () => {
    embedder = createWinkEmbedder();
    await embedder.embed(['warm up']);
  });
  const memories: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const m of memories) await m.close();
  });
  const noopAfterFirst = () => createMemory({ embedder, gate: scriptedGate((n) => (n === 0 ? 'add' : 'noop')), consolidateEvery: 0, policy: 'drop' });

  // the issue's other two examples ("I live in Oslo" → "I moved to Bergen last month"; "My dog loves the
  // harbour walks" vs "I used to love coffee but now I only drink green tea") are NOT yet decided right by
  // the shipped model: bench:state-write prints their probabilities (docs/state.md, "Known gaps")
  it.each([
    ['I work at the bank as a loan officer.', 'I quit the bank and became a data engineer.'],
  ])('"%s" then "%s", routed Noop under drop: an Update, stored, linked, the old memory superseded', async (older, newer) => {
    const m = noopAfterFirst();
    memories.push(m);
    const scope = { userId: `u-${older.length}` };
    const a = await m.add({ text: older, scope, observedAt: '2025-01-05T10:00:00Z' });
    const b = await m.add({ text: newer, scope, observedAt: '2025-06-05T10:00:00Z' });
    expect(b).toMatchObject({ action: 'update', stored: true });
    const edge = b.relations.find((r) => r.to === a.node.id && (r.subtype === 'OBSOLETES' || r.subtype === 'CONTRADICTS'));
    expect(edge?.probability).toBeGreaterThanOrEqual(0.6);
    expect((await m.get(a.node.id, { scope }))!.obsoleteBy).toBe(b.node.id);
  });


});

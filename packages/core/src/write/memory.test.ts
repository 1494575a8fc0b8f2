import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNoveltyGate } from '@mem/gate-vmf';
import { createSystemOne } from '@mem/system-one';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWinkEmbedder } from '../embed/index.js';
import { MemError, MemValidationError } from '../errors.js';
import { createSqliteStore } from '../store/index.js';
import type { Embedder, ObservationInput, Retriever } from '../types.js';
import { createMemory, type MemoryOptions } from './memory.js';
import { failingController, failingEmbedder, flakyStore, scriptedController, scriptedGate } from './test-kit.js';
import { expectMemError } from '@mem/test-utils';

let embedder: Embedder;
let dir: string;
beforeAll(async () => {
  embedder = createWinkEmbedder();
  await embedder.embed(['warm up']);
  dir = mkdtempSync(join(tmpdir(), 'mem-write-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const scope = { userId: 'mira' };
const make = (o: Partial<MemoryOptions> = {}) => createMemory({ embedder, ...o });

/** Our own sample dialogue (not LoCoMo text). */
const dialogue: ObservationInput[] = [
  'My old bicycle broke on the way to work.',
  'I bought a new bicycle yesterday because my old one broke.',
  'The new bicycle is red and has twelve gears.',
  'Tom recommended the bike shop on Baker Street.',
  'I am learning to bake sourdough bread on weekends.',
  'My sourdough starter is called Bubbles.',
  'Tom and I went hiking in the Alps last summer.',
  'I prefer tea over coffee in the morning.',
  'My sister Lena is visiting from Berlin next week.',
  'Lena works as a nurse in a Berlin hospital.',
].map((text, i) => ({
  text,
  speaker: 'Mira',
  observedAt: new Date(Date.UTC(2024, 4, 14 + Math.floor(i / 3), 10, i)).toISOString(),
  scope,
  sourceId: `D${1 + Math.floor(i / 3)}:${(i % 3) + 1}`,
}));

function signature(rs: { action: string; relations: { subtype: string; from: string; to: string }[]; node: { id: string } }[]) {
  const idx = new Map(rs.map((r, i) => [r.node.id, i]));
  return rs.map((r) => ({
    action: r.action,
    rel: r.relations
      .filter((x) => idx.has(x.from) && idx.has(x.to))
      .map((x) => `${idx.get(x.from)}-${x.subtype}->${idx.get(x.to)}`)
      .sort(),
  }));
}

describe('createMemory: add end to end (real SQLite store, gate, offline controller)', () => {
  it('stores a node with gate decision, types, entities, provenance; get/list/history/stats', async () => {
    const m = make();
    const r = await m.add(dialogue[0]!);
    expect(r.action).toBe('add');
    expect(r.stored).toBe(true);
    expect(r.controllerCalls).toBe(1); // typing only: nothing to relate to yet
    const got = await m.get(r.node.id, { scope });
    expect(got?.text).toBe(dialogue[0]!.text);
    expect(got?.gate?.action).toBe('add');
    expect(got?.observedAt).toBe(dialogue[0]!.observedAt);
    expect(got?.provenance.sourceId).toBe('D1:1');
    expect(Object.keys(got!.types).sort()).toEqual(['episodic', 'preference', 'procedural', 'semantic']);
    expect(got!.embedding.length).toBe(embedder.dimension);
    const r2 = await m.add(dialogue[1]!);
    expect(r2.controllerCalls).toBe(2); // typing + the relation batch (Add) or the near-duplicate check (Update / Noop)
    expect((await m.list({ scope })).map((n) => n.id)).toEqual([r.node.id, r2.node.id]);
    const h = await m.history({ scope });
    expect(h.map((e) => e.op)).toContain(r2.action.toUpperCase());
    const s = await m.stats();
    expect(s.nodes['default|mira||']).toBe(2);
    expect(s.writes).toBe(2);
    expect(s.gate.add + s.gate.update + s.gate.noop).toBe(2);
    // episode chain: D1:1 -> D1:2
    expect(r2.relations.some((x) => x.subtype === 'SAME_EPISODE' && x.from === r.node.id && x.to === r2.node.id && x.origin === 'rule')).toBe(true);
    await m.close();
  });

  it('a batch has sequential semantics: same decisions and edges as one-by-one adds', async () => {
    const a = make();
    const b = make();
    const batch = await a.add(dialogue);
    const single = [];
    for (const o of dialogue) single.push(await b.add(o));
    expect(signature(batch)).toEqual(signature(single));
    // later observations found earlier ones of the same batch as candidates
    expect(batch.slice(1).some((r) => r.relations.some((x) => x.subtype === 'PRECEDES'))).toBe(true);
    expect((await a.stats()).controllerCalls).toBe((await b.stats()).controllerCalls);
    await a.close();
    await b.close();
  });

  it('deterministic edges: exact entity → SAME_ENTITY weight 1, timestamps → PRECEDES', async () => {
    const m = make({ gate: scriptedGate(() => 'add') });
    const [x, y] = await m.add([
      { text: 'Lena lives in Berlin.', scope, observedAt: '2024-01-01T00:00:00Z' },
      { text: 'Lena likes cycling along the river.', scope, observedAt: '2024-01-03T00:00:00Z' },
    ]);
    const ent = y!.relations.find((r) => r.subtype === 'SAME_ENTITY');
    expect(ent).toMatchObject({ from: y!.node.id, to: x!.node.id, probability: 1, origin: 'rule', view: 'entity' });
    expect(y!.relations.find((r) => r.subtype === 'PRECEDES')).toMatchObject({ from: x!.node.id, to: y!.node.id, probability: 1 });
    await m.close();
  });

  it('one batched relation call per Add with pair_i_* keys; alias asked only without exact entity match; p ≥ θ_rel kept', async () => {
    const { controller, stats } = scriptedController((k) => {
      if (/^pair_\d+_semantic$/.test(k)) return 0.6; // exactly θ: kept
      if (/^pair_\d+_causes$/.test(k)) return 0.59; // below θ: dropped
      return 0.1;
    });
    const m = make({ systemOne: controller, gate: scriptedGate(() => 'add'), consolidateEvery: 0 });
    await m.add({ text: 'Lena lives in Berlin.', scope, observedAt: '2024-01-01T00:00:00Z' });
    await m.add({ text: 'Anna visits the museum.', scope, observedAt: '2024-01-02T00:00:00Z' });
    stats.keys.length = 0;
    const callsBefore = stats.calls;
    const r = await m.add({ text: 'Lena went to the museum with Anna.', scope, observedAt: '2024-01-03T00:00:00Z' });
    expect(stats.calls - callsBefore).toBe(2); // typing + ONE relation call
    expect(r.controllerCalls).toBe(2);
    const pairKeys = stats.keys.filter((k) => k.startsWith('pair_'));
    expect(pairKeys.filter((k) => k.endsWith('_semantic'))).toHaveLength(2);
    // both candidates share an exact entity (Lena / Anna): no alias question; times known: no temporal_order
    expect(pairKeys.some((k) => k.endsWith('_entity_alias'))).toBe(false);
    expect(pairKeys.some((k) => k.endsWith('_temporal_order'))).toBe(false);
    expect(r.relations.filter((x) => x.subtype === 'RELATED_TO' && x.origin === 'controller')).toHaveLength(2);
    expect(r.relations.some((x) => x.subtype === 'LEADS_TO')).toBe(false);
    const r2 = await m.add({ text: 'Paul admires Bruno.', scope, observedAt: '2024-01-04T00:00:00Z' });
    expect(r2.action).toBe('add');
    expect(stats.keys.some((k) => k.endsWith('_entity_alias'))).toBe(true);
    await m.close();
  });

  it('gate Noop (annotate): stored, near-duplicate check (one call), relation batch saved; Update: UPDATES edge', async () => {
    const gate = scriptedGate((n) => (n === 1 ? 'noop' : 'update'));
    // the near-duplicate check (issue 17): same fact for the Noop, nothing for the Update
    const { controller, stats } = scriptedController((k, _q, st) => {
      const text = (st as { new_memory?: { text?: string } }).new_memory?.text ?? '';
      if (k.endsWith('_state')) {
        const probabilities: Record<string, number> = text.includes('really') ? { same: 0.9, compatible: 0.1 } : { compatible: 0.9, update: 0.05 };
        return { choice: text.includes('really') ? 'same' : 'compatible', probabilities };
      }
      return k.startsWith('pair_') ? 0.05 : 0.3;
    });
    const m = make({ gate, consolidateEvery: 0, systemOne: controller });
    const a = await m.add({ text: 'I love green tea.', scope, observedAt: '2024-01-01T00:00:00Z' });
    const b = await m.add({ text: 'I really love green tea.', scope, observedAt: '2024-01-02T00:00:00Z' });
    expect(b.action).toBe('noop');
    expect(b.stored).toBe(true);
    expect(b.controllerCalls).toBe(2); // typing + the near-duplicate check
    expect(stats.keys.filter((k) => k.startsWith('pair_0_')).sort()).toEqual(['pair_0_state']);
    expect(b.relations).toEqual([expect.objectContaining({ subtype: 'REDUNDANT_WITH', from: b.node.id, to: a.node.id, probability: 0.9 })]);
    const c = await m.add({ text: 'I now prefer black tea.', scope, observedAt: '2024-01-03T00:00:00Z' });
    expect(c.action).toBe('update');
    // the gate's UPDATES rule edge, and RELATED_TO (the gate's cosine) since the check found no relation
    expect(c.relations.map((r) => r.subtype).sort()).toEqual(['RELATED_TO', 'UPDATES']);
    expect(c.relations.find((r) => r.subtype === 'UPDATES')).toMatchObject({ from: c.node.id, to: a.node.id, origin: 'rule' });
    const s = await m.stats();
    expect(s.controllerCallsSaved).toBe(2);
    expect(s.gate).toMatchObject({ add: 1, noop: 1, update: 1 });
    expect(s.nodes['default|mira||']).toBe(3); // nothing dropped
    expect(gate.members.get('default|mira||')).toEqual([a.node.id, c.node.id]); // Noop not committed
    await m.close();
  });

  it("policy 'drop': a Noop is returned but not stored", async () => {
    const m = make({ gate: scriptedGate(() => 'noop'), policy: 'drop' });
    await m.add({ text: 'I love green tea.', scope, observedAt: '2024-01-01T00:00:00Z' });
    const b = await m.add({ text: 'I love green tea a lot.', scope, observedAt: '2024-01-02T00:00:00Z' });
    expect(b).toMatchObject({ action: 'noop', stored: false, relations: [] });
    expect(await m.get(b.node.id, { scope })).toBeNull();
    expect((await m.stats()).gate.dropped).toBe(1);
    expect((await m.list({ scope })).length).toBe(1);
    await m.close();
  });

  it('summarizer: Update escalates to a System-Two merge (derived node, UPDATES both, originals kept)', async () => {
    const calls: string[][] = [];
    const m = make({
      gate: scriptedGate(() => 'update'),
      summarizer: {
        async summarize(req) {
          calls.push(req.memories.map((x) => x.text));
          return req.memories.map((x) => x.text).join(' Then: ');
        },
      },
    });
    const a = await m.add({ text: 'I live in Paris.', scope, observedAt: '2024-01-01T00:00:00Z' });
    const b = await m.add({ text: 'I moved to Lyon.', scope, observedAt: '2024-02-01T00:00:00Z' });
    expect(calls).toEqual([['I live in Paris.', 'I moved to Lyon.']]);
    const nodes = await m.list({ scope });
    expect(nodes).toHaveLength(3);
    const derived = nodes.find((n) => n.id !== a.node.id && n.id !== b.node.id)!;
    expect(derived.text).toBe('I live in Paris. Then: I moved to Lyon.');
    expect(derived.provenance.metadata).toEqual({ derivedFrom: [a.node.id, b.node.id], derivation: 'update' });
    const rel = await m.store.relations(m.store ? { namespace: 'default', userId: 'mira', agentId: '', runId: '' } : (null as any));
    expect(rel.filter((r) => r.from === derived.id && r.subtype === 'UPDATES').map((r) => r.to).sort()).toEqual([a.node.id, b.node.id].sort());
    await m.close();
  });

  it('consolidation every N writes: one change-of-state edge per pair (p_contradiction + p_update ≥ θ_rel, the larger names it), REDUNDANT_WITH ≥ 0.85, obsolescence recorded, nothing deleted', async () => {
    const { controller, stats } = scriptedController((k) => {
      // the state Choice (issue 37): same fact 0.05 (below 0.85), update 0.5 > contradiction 0.4
      if (k.endsWith('_state')) return { choice: 'update', probabilities: { update: 0.5, contradiction: 0.4, same: 0.05, compatible: 0.05 } as Record<string, number> };
      if (k.endsWith('_representation')) return { choice: 'merge', probabilities: { merge: 0.95, keep_separate: 0.05 } };
      return 0.2;
    });
    const m = make({ systemOne: controller, gate: scriptedGate(() => 'add'), consolidateEvery: 3 });
    const rs = await m.add([
      { text: 'The meeting is on Monday.', scope, observedAt: '2024-01-01T00:00:00Z' },
      { text: 'The meeting moved to Tuesday.', scope, observedAt: '2024-01-02T00:00:00Z' },
      { text: 'The meeting is now on Wednesday.', scope, observedAt: '2024-01-03T00:00:00Z' },
    ]);
    // without a summarizer the representation Choice could not change anything: not asked
    expect(stats.keys.some((k) => k.endsWith('_state'))).toBe(true);
    expect(stats.keys.some((k) => k.endsWith('_representation'))).toBe(false);
    const all = rs.flatMap((r) => r.relations);
    // p_update 0.5 > p_contradiction 0.4: the one change edge of each pair is OBSOLETES (issue 17 / 37)
    expect(all.some((r) => r.subtype === 'CONTRADICTS' && r.origin === 'controller')).toBe(false);
    expect(all.some((r) => r.subtype === 'REDUNDANT_WITH')).toBe(false);
    const obs = all.filter((r) => r.subtype === 'OBSOLETES');
    expect(obs.length).toBeGreaterThan(0);
    const nodes = await m.list({ scope });
    expect(nodes).toHaveLength(3); // merge approved but no summarizer: no System Two, nothing deleted
    for (const target of new Set(obs.map((e) => e.to))) {
      const newest = obs.filter((e) => e.to === target).map((e) => e.from).sort().at(-1);
      expect(nodes.find((n) => n.id === target)!.obsoleteBy).toBe(newest);
    }
    expect((await m.history({ scope })).some((h) => h.op === 'OBSOLETE')).toBe(true);
    expect((await m.stats()).consolidations).toBe(1);
    // break-it point 5: the batch's OBSOLETE rows come after the ADD rows of the memories they name,
    // in the store's own append order (seq) and as history() shows it
    for (const rows of [await m.history({ scope }), await m.store.history({ namespace: 'default', userId: 'mira', agentId: '', runId: '' })]) {
      const writeAt = new Map(rows.flatMap((h, i) => (h.op === 'ADD' && h.nodeId ? [[h.nodeId, i] as const] : [])));
      for (const [i, h] of rows.entries()) {
        if (h.op !== 'OBSOLETE') continue;
        expect(writeAt.get(h.nodeId!)).toBeLessThan(i);
        expect(writeAt.get(h.data.obsoleteBy as string)).toBeLessThan(i);
      }
    }
    // third write carries the consolidation calls
    expect(rs[2]!.controllerCalls).toBeGreaterThan(2);
    await m.close();
  });

  it('consolidation with a summarizer: representation asked, merge ≥ 0.85 (no contradiction) → derived node', async () => {
    const { controller, stats } = scriptedController((k) => {
      if (k.endsWith('_representation')) return { choice: 'merge', probabilities: { merge: 0.95, keep_separate: 0.05 } };
      return 0.2;
    });
    const merged: string[][] = [];
    const m = make({
      systemOne: controller,
      gate: scriptedGate(() => 'add'),
      consolidateEvery: 3,
      summarizer: {
        async summarize(req) {
          merged.push(req.memories.map((x) => x.text));
          return req.memories.map((x) => x.text).join(' + ');
        },
      },
    });
    await m.add([
      { text: 'The meeting is on Monday.', scope, observedAt: '2024-01-01T00:00:00Z' },
      { text: 'The meeting moved to Tuesday.', scope, observedAt: '2024-01-02T00:00:00Z' },
      { text: 'The meeting is now on Wednesday.', scope, observedAt: '2024-01-03T00:00:00Z' },
    ]);
    expect(stats.keys.some((k) => k.endsWith('_representation'))).toBe(true);
    expect(merged.length).toBeGreaterThan(0);
    expect((await m.list({ scope })).length).toBe(3 + merged.length);
    await m.close();
  });

  it('identical observation added twice concurrently yields one node; concurrent adds lose nothing', async () => {
    const m = make();
    const o = dialogue[3]!;
    const [x, y] = await Promise.all([m.add(o), m.add({ ...o })]);
    expect([x.action, y.action].filter((a) => a === 'duplicate')).toHaveLength(1);
    expect(x.node.id).toBe(y.node.id);
    const texts = Array.from({ length: 40 }, (_, i) => `Note number ${i}: buy ${['milk', 'eggs', 'rice', 'tea'][i % 4]} for day ${i}`);
    const res = await Promise.all(texts.map((text, i) => m.add({ text, scope, observedAt: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString() })));
    expect(res.every((r) => r.stored)).toBe(true);
    expect(new Set(res.map((r) => r.node.id)).size).toBe(40);
    expect((await m.list({ scope, limit: 1000 })).length).toBe(41);
    // identical within one batch
    const dup = await m.add([o, o]);
    expect(dup.map((r) => r.action)).toEqual(['duplicate', 'duplicate']);
    await m.close();
  });

  it('scopes never leak: writes and searches are per scope', async () => {
    const m = make();
    await m.add({ text: 'Secret plan for the surprise party.', scope: { userId: 'a' } });
    await m.add({ text: 'Grocery list for the week.', scope: { userId: 'b' } });
    const ra = await m.search('surprise party', { scope: { userId: 'b' }, k: 5 });
    expect(ra.evidence.map((e) => e.node.text)).toEqual(['Grocery list for the week.']);
    const s = await m.stats();
    expect(s.nodes).toEqual({ 'default|a||': 1, 'default|b||': 1 });
    await m.close();
  });

  it('search delegates to an injected Retriever (or a factory given the deps)', async () => {
    const seen: unknown[] = [];
    const retriever: Retriever = { name: 'fake', search: async (req) => (seen.push(req), { evidence: [] }) };
    const m = make({ retriever: (deps) => (expect(deps.store).toBeDefined(), retriever) });
    await m.search('hi', { scope, k: 3 });
    expect(seen).toEqual([{ scope: { namespace: 'default', userId: 'mira', agentId: '', runId: '' }, query: 'hi', k: 3, now: undefined }]);
    await m.close();
  });

  it('unicode, emoji, CJK and right-to-left text through the whole path', async () => {
    const m = make();
    const texts = [
      '我昨天在东京买了一辆新自行车 🚲',
      'أحب القهوة العربية في الصباح',
      'שלום! אני גר בתל אביב',
      'Ça va? Ünïcödé ñandú — naïve café 👩‍👩‍👧‍👦🏳️‍🌈',
      '東京タワーに行きました。とても綺麗でした！',
    ];
    const rs = await m.add(texts.map((text, i) => ({ text, scope, observedAt: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(), speaker: 'ميرا' })));
    for (let i = 0; i < texts.length; i++) {
      const got = await m.get(rs[i]!.node.id, { scope });
      expect(got?.text).toBe(texts[i]);
      expect(got?.speaker).toBe('ميرا');
    }
    for (const t of texts) {
      const { evidence } = await m.search(t, { scope, k: 1 });
      expect(evidence[0]?.node.text).toBe(t);
    }
    const lex = await m.store.lexicalSearch({ namespace: 'default', userId: 'mira', agentId: '', runId: '' }, 'القهوة', 3);
    expect(lex[0]?.node.text).toBe(texts[1]);
    await m.close();
  });

  it('rejects invalid input with typed errors and writes nothing (batch validated first)', async () => {
    const m = make();
    await expectMemError(m.add({ text: '   ', scope }), MemValidationError, 'TEXT_EMPTY');
    await expectMemError(m.add([dialogue[0]!, { text: 'ok', scope, observedAt: '2024-01-01T10:00' }]), MemValidationError, 'MISSING_TIMEZONE', { index: 1 });
    expect(await m.list({ scope })).toEqual([]);
    const tz = await m.add({ text: 'ok', scope, observedAt: '2024-01-01T10:00' }, { timeZone: 'America/New_York' });
    expect(tz.node.observedAt).toBe('2024-01-01T15:00:00.000Z');
    // validate(): the same checks as add, nothing written, the list's index
    await expectMemError(() => m.validate([dialogue[0]!, dialogue[1]!, { text: 'ok', scope, observedAt: '2024-01-01T10:00' }]), MemValidationError, 'MISSING_TIMEZONE', { index: 2 });
    expect(() => m.validate([{ text: 'ok', scope, observedAt: '2024-01-01T10:00' }], { timeZone: 'America/New_York' })).not.toThrow();
    await expectMemError(() => m.validate({ text: 'ok', scope } as any), MemValidationError, 'INVALID_INPUT');
    expect((await m.list({ scope })).map((n) => n.text)).toEqual(['ok']);
    await expectMemError(() => createMemory({ timeZone: 'Nowhere/City' }), MemValidationError, 'INVALID_INPUT');
    await expectMemError(() => createMemory({ candidateK: -1 }), MemValidationError, 'INVALID_INPUT');
    await expectMemError(() => createMemory({ candidateEfSearch: 0 }), MemValidationError, 'INVALID_INPUT');
    expect((await expectMemError(() => createMemory({ consolidateEveryy: 3 } as any), MemValidationError, 'INVALID_INPUT')).message).toContain('did you mean "consolidateEvery"');
    expect((await expectMemError(() => createMemory({ gate: { mdoe: 'exact' } }), MemValidationError, 'INVALID_INPUT')).message).toContain('Invalid gate options');
    expect(() => createMemory({ gate: { mdoe: 'exact' } })).toThrow(expect.objectContaining({ message: expect.not.stringContaining('Invalid gate options: Invalid gate options') }));
    await expectMemError(() => createMemory({ gate: { tauMin: -1 } }), MemValidationError, 'INVALID_INPUT');
    expect(() => createMemory({ gate: { mode: 'exact' } })).not.toThrow();
    await m.close();
  });

  it('adversarial: an observedAt on 9999-12-31 is a validation error (BAD_DATE), not a failed write', async () => {
    const m = make();
    await expectMemError(m.add({ text: 'Far future note.', scope, observedAt: '9999-12-31T12:00:00Z' }), MemValidationError, 'BAD_DATE');
    const ok = await m.add({ text: 'Near the end of time.', scope, observedAt: '9999-12-30T12:00:00Z' });
    expect(ok.stored).toBe(true);
    expect((await m.list({ scope })).map((n) => n.text)).toEqual(['Near the end of time.']);
    await m.close();
  });

  it('adversarial: close() waits for calls made before it (they complete), rejects calls made after it', async () => {
    const path = join(dir, 'close-race.db');
    const m = make({ store: createSqliteStore({ path }) });
    const added = m.add({ text: 'Written just before close.', scope, observedAt: '2024-06-01T10:00:00Z' });
    const listed = m.list({ scope });
    const closing = m.close();
    const again = m.close();
    await expect(added).resolves.toMatchObject({ action: 'add', stored: true });
    await expect(listed).resolves.toBeInstanceOf(Array);
    await closing;
    await again;
    await expectMemError(m.add({ text: 'After close.', scope }), MemError, 'STORE_UNAVAILABLE');
    const reopened = make({ store: createSqliteStore({ path }) });
    expect((await reopened.list({ scope })).map((n) => n.text)).toEqual(['Written just before close.']);
    await reopened.close();
  });

  it('get/forget/history are scoped; forget removes the node from the gate', async () => {
    const m = make();
    const r = await m.add(dialogue[0]!);
    expect(await m.get(r.node.id, { scope: { userId: 'other' } })).toBeNull();
    expect(await m.forget(r.node.id, { scope: { userId: 'other' } })).toBe(false);
    expect(await m.forget(r.node.id, { scope })).toBe(true);
    expect(await m.get(r.node.id, { scope })).toBeNull();
    expect((await m.history({ scope })).map((h) => h.op)).toContain('FORGET');
    // the gate no longer holds it: the same text is an Add again (N = 0)
    const again = await m.add({ ...dialogue[0]!, sourceId: 'again' });
    expect(again.action).toBe('add');
    expect(again.node.gate?.nearest).toBeNull();
    await m.close();
  });
});

describe('gate state: rebuilt from the store, in step with forget and failures', () => {
  const extra: ObservationInput = { text: 'I bought a second bicycle for my sister.', scope, observedAt: '2024-06-01T00:00:00Z', speaker: 'Mira' };
  /** A memory that added the first `n` turns, and its result for `extra` (what an untouched gate decides). */
  const twinAfter = async (n: number) => {
    const twin = make();
    await twin.add(dialogue.slice(0, n));
    return { twin, twinNext: await twin.add(extra) };
  };
  const gateOf = (r: { node: { gate: any } }) => ({ ...r.node.gate, nearest: r.node.gate.nearest?.cosine });

  it('a restarted process decides the same (replay of commits in order)', async () => {
    const path = join(dir, 'restart.db');
    const live = make();
    await live.add(dialogue);
    const liveNext = await live.add(extra);
    await live.close();

    const first = make({ store: createSqliteStore({ path }) });
    await first.add(dialogue.slice(0, 5));
    await first.add(dialogue.slice(5));
    await first.close();
    const second = make({ store: createSqliteStore({ path }) });
    const next = await second.add(extra);
    expect(gateOf(next)).toEqual(gateOf(liveNext));
    await second.close();
  });

  it('after forget the gate decides as a process that never saw the node', async () => {
    const a = make();
    const rs = await a.add(dialogue);
    await a.forget(rs[1]!.node.id, { scope });
    const ra = await a.add(extra);
    const b = make();
    await b.add(dialogue.filter((_, i) => i !== 1));
    expect(gateOf(ra)).toEqual(gateOf(await b.add(extra)));
    await Promise.all([a.close(), b.close()]);
  });

  it('a store write that throws leaves nothing, a typed error, and the gate unchanged', async () => {
    const { twin, twinNext } = await twinAfter(4);

    const { store, fail } = flakyStore(createSqliteStore({ path: ':memory:' }));
    const m = make({ store });
    await m.add(dialogue.slice(0, 4));
    const before = await m.history({ scope });
    fail.on = true;
    await expectMemError(m.add(dialogue.slice(4)), MemError, 'WRITE_FAILED', { stage: 'store' });
    expect((await m.list({ scope })).length).toBe(4);
    expect(await m.history({ scope })).toEqual(before);
    expect((await m.stats()).writes).toBe(4);
    fail.on = false;
    expect(gateOf(await m.add(extra))).toEqual(gateOf(twinNext));
    await Promise.all([m.close(), twin.close()]);
  });

  it('an embedder or controller failing mid-batch writes nothing and leaves the gate unchanged', async () => {
    const { twin, twinNext } = await twinAfter(2);

    const m1 = make({ embedder: failingEmbedder(embedder, 3), embedBatchSize: 2 });
    await m1.add(dialogue.slice(0, 2)); // embed call 1
    await expectMemError(m1.add(dialogue.slice(2)), MemError, 'EMBEDDER_ERROR'); // calls 2, 3 (throws): the write path's MemError
    expect((await m1.list({ scope })).length).toBe(2);
    expect(gateOf(await m1.add(extra))).toEqual(gateOf(twinNext));

    const isRelation = (qs: Record<string, unknown>) => Object.keys(qs).some((k) => k.startsWith('pair_'));
    const m2 = make({ systemOne: failingController(createSystemOne() as any, 3, isRelation) });
    await m2.add(dialogue.slice(0, 2));
    await expectMemError(m2.add(dialogue.slice(2)), MemError, 'WRITE_FAILED', { stage: 'relations' });
    expect((await m2.list({ scope })).length).toBe(2);
    expect(gateOf(await m2.add(extra))).toEqual(gateOf(twinNext));
    await Promise.all([m1.close(), m2.close(), twin.close()]);
  });

  it('a multi-scope batch does all fallible work first: a failure in one scope writes no scope', async () => {
    const real = createSystemOne();
    const controller = {
      ask: (state: Record<string, unknown>, qs: Record<string, any>) => {
        if (typeof state.observation === 'string' && state.observation.includes('boom')) return Promise.reject(new Error('controller down'));
        return real.ask(state, qs);
      },
    };
    const m = make({ systemOne: controller as any });
    const other = { userId: 'other' };
    await expectMemError(
      m.add([
        { text: 'Scope A first note.', scope, observedAt: '2024-01-01T00:00:00Z' },
        { text: 'Scope B note that goes boom.', scope: other, observedAt: '2024-01-01T00:00:00Z' },
      ]),
      MemError,
      'WRITE_FAILED',
      { stage: 'typing' },
    );
    expect(await m.list({ scope })).toEqual([]);
    expect(await m.list({ scope: other })).toEqual([]);
    expect((await m.stats()).writes).toBe(0);
    const ok = await m.add([
      { text: 'Scope A first note.', scope, observedAt: '2024-01-01T00:00:00Z' },
      { text: 'Scope B calm note.', scope: other, observedAt: '2024-01-01T00:00:00Z' },
    ]);
    expect(ok.map((r) => [r.action, r.node.scope.userId])).toEqual([
      ['add', 'mira'],
      ['add', 'other'],
    ]);
    await m.close();
  });

  it('a shared gate instance is used as-is and failed commits are removed from it', async () => {
    const gate = createNoveltyGate();
    const { store, fail } = flakyStore(createSqliteStore({ path: ':memory:' }));
    const m = make({ gate: gate as any, store });
    await m.add(dialogue.slice(0, 3));
    const size = gate.size('default|mira||');
    fail.on = true;
    await expectMemError(m.add(dialogue.slice(3)), MemError, 'WRITE_FAILED');
    expect(gate.size('default|mira||')).toBe(size);
    await m.close();
  });
});

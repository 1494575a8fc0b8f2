/**
 * Break-it tests of the consolidation schedule restored from history rows (writer.ts
 * `restoreSchedule`, gates.ts `ScheduleRecord`): a restart with a changed `consolidateEvery`,
 * hostile / malformed `data.consolidation` records appended through the public store API, what a
 * caller can make the write path record (sourceId / metadata), forget then re-add.
 */
import { describe, expect, it } from 'vitest';
import { createSystemOne } from '@mem/system-one';
import { resolveScope } from '../scope.js';
import { createSqliteStore } from '../store/index.js';
import type { HistoryEntry, MemoryStore } from '../types.js';
import { SCHEDULE_FIELD, scheduleRecord, type ScheduleRecord } from './gates.js';
import { createMemory } from './memory.js';
import type { WriteController } from './ports.js';
import { simpleExtractor } from './test-kit.js';
import { hashEmbedder } from './testdata/hash-embedder.js';
import { MemValidationError } from '../errors.js';
import { expectMemError } from '@mem/test-utils';
import { tempDbFolder } from '../testdata/temp-files.js';

const { file } = tempDbFolder('mem-breakit-schedule-', 's');
const scope = { userId: 'breakit-sched' };
const topics = ['garden tomato soil water', 'piano lesson music teacher', 'hiking trail mountain boots', 'bakery bread flour oven'].map((t) => t.split(' '));
const names = ['Ann', 'Bob', 'Cleo', 'Dev', 'Eli'];
function obs(i: number, extra: Record<string, unknown> = {}) {
  const t = topics[i % 4]!;
  const text = `${names[i % 5]} ${t[i % 4]} ${t[(i + 1) % 4]} ${t[(i + 3) % 4]} item${i} number ${i}`;
  return { text, speaker: 'Ann', observedAt: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(), scope, sourceId: `S${i}`, ...extra };
}
let clock = Date.UTC(2025, 0, 1);
const now = () => (clock += 1000);

/** Consolidation calls, each the reviewed write's text, grouped by the add() call that ran them. */
type Log = { calls: string[] };
function recorder(log: Log): WriteController {
  const inner = createSystemOne() as unknown as WriteController;
  return {
    async ask(state, questions) {
      if ('pair_0_link' in questions) log.calls.push((state as { new_memory: { text: string } }).new_memory.text);
      return inner.ask(state, questions);
    },
  };
}
const open = (store: MemoryStore, log: Log, consolidateEvery: number) =>
  createMemory({ store, embedder: hashEmbedder(), extractor: simpleExtractor, systemOne: recorder(log) as never, now, consolidateEvery });
const writeRows = (h: HistoryEntry[]) => h.filter((x) => x.op === 'ADD' || x.op === 'UPDATE' || x.op === 'NOOP');
const rec = (h: HistoryEntry) => scheduleRecord(h.data) as ScheduleRecord;


/** Adds obs(from)…obs(to − 1) to `m`; returns the write ordinals (i + 1) after which a consolidation pass ran. */
async function passOrdinals(m: { add(o: ReturnType<typeof obs>): Promise<unknown>; stats(): Promise<{ consolidations: number }> }, from: number, to: number): Promise<number[]> {
  const passAt: number[] = [];
  for (let i = from; i < to; i++) {
    const before = (await m.stats()).consolidations;
    await m.add(obs(i));
    if ((await m.stats()).consolidations > before) passAt.push(i + 1);
  }
  return passAt;
}
describe('restart with a changed consolidateEvery', () => {
  // Process 1 (every 4): writes 1..6, a pass at write 4 reviews writes 1..4. Process 2 (every 10):
  // the next pass comes 10 writes after the last one (write 14) and reviews writes 5..14 only. Was a
  // bug: restoreSchedule took floor = 6 − 6 mod 10 = 0, so the window held writes 1..6 again and a
  // pass at write 10 re-sent writes 1..4 to the controller (already reviewed, maybe linked twice).
  it('raising consolidateEvery across a restart: the next pass comes `every` writes after the last one and re-reviews nothing', async () => {
    const path = file();
    const log: Log = { calls: [] };
    const m1 = open(createSqliteStore({ path }), log, 4);
    for (let i = 0; i < 6; i++) await m1.add(obs(i));
    const firstPass = [...log.calls];
    expect(firstPass.length).toBeGreaterThan(0); // the pass at write 4 reviewed something
    await m1.close();
    log.calls = [];
    const m2 = open(createSqliteStore({ path }), log, 10);
    const passAt = await passOrdinals(m2, 6, 14);
    expect(passAt).toEqual([14]); // 10 writes after the pass at write 4, not at write 10
    const rows = writeRows(await m2.history({ scope, limit: 1000 }));
    const texts = new Map((await m2.list({ scope, limit: 1000 })).map((n) => [n.id, n.text]));
    await m2.close();
    expect(rows.map((h) => [rec(h).write, rec(h).pass, rec(h).every])).toEqual([
      ...[1, 2, 3].map((w) => [w, 0, 4]),
      ...[4, 5, 6].map((w) => [w, 4, 4]),
      ...[7, 8, 9, 10, 11, 12, 13].map((w) => [w, 4, 10]),
      [14, 14, 10],
    ]);
    for (const t of firstPass) expect(log.calls, `re-reviewed: ${t}`).not.toContain(t);
    // … and every reviewed write after the pass at write 4 is reviewed by the pass at write 14
    const pending = rows.slice(4).filter((h) => rec(h).candidates?.length).map((h) => texts.get(h.nodeId!)!);
    expect(pending.length).toBeGreaterThan(2);
    expect([...log.calls].sort()).toEqual([...pending].sort());
  });

  // Process 1 (every 8): writes 1..7, no pass yet. Process 2 (every 3): 7 writes since the last pass
  // is overdue, so the pass comes at the next write (8) and reviews writes 1..8, then every 3. Was a
  // bug: floor = 7 − 7 mod 3 = 6, so writes 1..6 were outside every future window, never reviewed.
  it('lowering consolidateEvery across a restart: the overdue pass runs at the next write and reviews every write no pass has seen', async () => {
    const path = file();
    const log: Log = { calls: [] };
    const m1 = open(createSqliteStore({ path }), log, 8);
    for (let i = 0; i < 7; i++) await m1.add(obs(i));
    expect(log.calls).toEqual([]);
    const rows = writeRows(await m1.history({ scope, limit: 1000 }));
    const texts = new Map((await m1.list({ scope, limit: 1000 })).map((n) => [n.id, n.text]));
    const reviewable = rows.filter((h) => rec(h).candidates?.length).map((h) => texts.get(h.nodeId!)!);
    expect(reviewable.length).toBeGreaterThan(2);
    await m1.close();
    const m2 = open(createSqliteStore({ path }), log, 3);
    const passAt = await passOrdinals(m2, 7, 16);
    await m2.close();
    expect(passAt).toEqual([8, 11, 14]);
    for (const t of reviewable) expect(log.calls, `never reviewed: ${t}`).toContain(t);
    expect(new Set(log.calls).size, 'each write reviewed once').toBe(log.calls.length);
  });

  it('the same consolidateEvery across a restart: passes at the same ordinals, each write reviewed once', async () => {
    const path = file();
    const log: Log = { calls: [] };
    let m = open(createSqliteStore({ path }), log, 3);
    for (let i = 0; i < 14; i++) {
      if (i % 4 === 2) {
        await m.close();
        m = open(createSqliteStore({ path }), log, 3);
      }
      await m.add(obs(i));
    }
    const rows = writeRows(await m.history({ scope, limit: 1000 }));
    expect(rows.map((h) => rec(h).write)).toEqual(Array.from({ length: 14 }, (_, i) => i + 1));
    // every reviewed write of the first 12 (4 passes) reviewed exactly once
    expect(new Set(log.calls).size).toBe(log.calls.length);
    await m.close();
  });
});

describe('hostile schedule records appended through the public store API', () => {
  /** A memory on a store the caller also writes to directly. */
  async function setup(every: number) {
    const store = createSqliteStore({ path: file() });
    const log: Log = { calls: [] };
    const m = open(store, log, every);
    return { store, m, log };
  }
  const resolved = resolveScope(scope);

  it('malformed records (write: string / NaN / 0 / -1 / 1.5 / 2^53, candidates not string[]) are ignored: the schedule restarts, adds still work', async () => {
    for (const bad of [{ write: 'x' }, { write: NaN }, { write: 0 }, { write: -1 }, { write: 1.5 }, { write: 2 ** 53 }, { write: 2, candidates: [1, 2] }, { write: 2, related: 'a' }, 'str', null, []]) {
      const { store, m } = await setup(2);
      const r0 = (await m.add(obs(0))) as never as { node: { id: string } };
      await m.close();
      // a second memory on the same file, after a direct history append naming the stored node
      const s2 = createSqliteStore({ path: (store as unknown as { path: string }).path });
      await s2.open({ schemaVersion: 1, embeddingModel: hashEmbedder().model, dimension: hashEmbedder().dimension });
      await s2.write({ scope: resolved, history: [{ scope: resolved, op: 'ADD', nodeId: r0.node.id, at: '2025-01-01T00:00:00Z', data: { [SCHEDULE_FIELD]: bad } }] });
      await s2.close();
      const log: Log = { calls: [] };
      const m2 = open(createSqliteStore({ path: (store as unknown as { path: string }).path }), log, 2);
      for (let i = 1; i < 5; i++) await m2.add(obs(i));
      const rows = writeRows(await m2.history({ scope, limit: 100 }));
      expect(rows.slice(-4).map((h) => rec(h).write), JSON.stringify(bad)).toEqual([1, 2, 3, 4]);
      await m2.close();
    }
  });

  // A record whose candidate list names the write's own node (appended through store.write). Was a
  // bug: the restored window paired the node with itself and sent that pair to the controller;
  // finalizeEdges dropped the self-loop edge, but an `obsolete` answer ≥ threshold still set the
  // node's obsoleteBy to its OWN id (nodeUpdates), so the node was marked superseded by itself.
  it('a restored record naming the node itself as candidate: the self pair is never reviewed, the node never obsolete-by-itself', async () => {
    const { store, m } = await setup(2);
    const r0 = (await m.add(obs(0))) as never as { node: { id: string } };
    await m.close();
    const path = (store as unknown as { path: string }).path;
    const s2 = createSqliteStore({ path });
    await s2.open({ schemaVersion: 1, embeddingModel: hashEmbedder().model, dimension: hashEmbedder().dimension });
    await s2.write({
      scope: resolved,
      history: [{ scope: resolved, op: 'ADD', nodeId: r0.node.id, at: '2025-01-01T00:00:00Z', data: { [SCHEDULE_FIELD]: { write: 1, candidates: [r0.node.id, r0.node.id], related: [] } } }],
    });
    await s2.close();
    // a controller that answers "obsolete" for a pair of identical texts (a plausible answer)
    const inner = createSystemOne() as unknown as WriteController;
    const pairs: string[] = [];
    const ctl: WriteController = {
      async ask(state, questions) {
        const r = await inner.ask(state, questions);
        if ('pair_0_link' in questions) {
          const st = state as { new_memory: { text: string }; candidates: { text: string }[] };
          pairs.push(...st.candidates.map((c) => `${st.new_memory.text} | ${c.text}`));
          // "obsolete" with certainty for the pairs whose two texts are the same memory
          st.candidates.forEach((c, i) => {
            if (c.text === st.new_memory.text) (r.answers as Record<string, unknown>)[`pair_${i}_obsolete`] = 1;
          });
        }
        return r;
      },
    };
    const m2 = createMemory({ store: createSqliteStore({ path }), embedder: hashEmbedder(), extractor: simpleExtractor, systemOne: ctl as never, now, consolidateEvery: 2 });
    await m2.add(obs(3)); // write 2: the pass reviews the restored window
    const node0 = (await m2.get(r0.node.id, { scope }))!;
    await m2.close();
    expect(pairs.length).toBeGreaterThan(0);
    expect(node0.obsoleteBy).not.toBe(r0.node.id);
    expect(pairs).not.toContain(`${obs(0).text} | ${obs(0).text}`);
  });

  /** 30 writes with consolidateEvery 4, then an ADD history row carrying `record` appended through the store (as a hostile writer could); returns the file path. */
  async function thirtyWritesThenPlant(record: Record<string, unknown>): Promise<string> {
    const { store, m } = await setup(4);
    let last = '';
    for (let i = 0; i < 30; i++) last = ((await m.add(obs(i))) as never as { node: { id: string } }).node.id;
    await m.close();
    const path = (store as unknown as { path: string }).path;
    const s2 = createSqliteStore({ path });
    await s2.open({ schemaVersion: 1, embeddingModel: hashEmbedder().model, dimension: hashEmbedder().dimension });
    await s2.write({ scope: resolved, history: [{ scope: resolved, op: 'ADD', nodeId: last, at: '2025-01-01T00:00:00Z', data: { [SCHEDULE_FIELD]: record } }] });
    await s2.close();
    return path;
  }

  // A record whose ordinal goes backwards (write: 1 appended after 30 recorded writes). Was a bug:
  // the restore took writes = 1, floor = 0, and every older row has write > 0, so the window never
  // closed: the whole history was read and the next pass reviewed every reviewed write the scope
  // ever had (one controller call each) instead of at most consolidateEvery. Now the walk stops at
  // the first ordinal that is not one less than the newer row's, and the window is capped.
  it('one backwards ordinal: the next pass reviews at most consolidateEvery writes', async () => {
    const path = await thirtyWritesThenPlant({ write: 1 });
    const log: Log = { calls: [] };
    const m2 = open(createSqliteStore({ path }), log, 4);
    for (let i = 30; i < 33; i++) await m2.add(obs(i)); // ordinals 2, 3, 4: a pass at 4
    await m2.close();
    expect(log.calls.length).toBeGreaterThan(0);
    expect(log.calls.length).toBeLessThanOrEqual(4);
  });

  // A consistent-looking record (the next ordinal) claiming no pass ever ran: without a cap, the
  // whole history since write 1 would be the window. The window holds at most
  // max(consolidateEvery, the record's every) writes.
  it('a record claiming no pass since write 1 (pass: 0): the next pass reviews at most consolidateEvery writes', async () => {
    const path = await thirtyWritesThenPlant({ write: 31, pass: 0 });
    const log: Log = { calls: [] };
    const m2 = open(createSqliteStore({ path }), log, 4);
    await m2.add(obs(30)); // write 32: overdue, a pass over the capped window (writes 29..32)
    expect((await m2.stats()).consolidations).toBe(1);
    await m2.close();
    expect(log.calls.length).toBeGreaterThan(0);
    expect(log.calls.length).toBeLessThanOrEqual(4);
  });

  it('a caller cannot plant a schedule record through add(): sourceId / metadata named "consolidation" stay out of data.consolidation', async () => {
    const { m } = await setup(3);
    const hostile = { write: 99, candidates: ['x'] };
    await m.add(obs(0, { sourceId: JSON.stringify({ [SCHEDULE_FIELD]: hostile }), metadata: { [SCHEDULE_FIELD]: hostile, nested: { consolidation: hostile } } }));
    // a metadata object with a hostile prototype is refused typed, before anything is written
    await expectMemError(m.add(obs(1, { metadata: Object.create({ consolidation: hostile }) })), MemValidationError, 'INVALID_INPUT');
    await m.add(obs(1, { metadata: JSON.parse('{"__proto__": {"consolidation": {"write": 99}}}') }));
    const rows = writeRows(await m.history({ scope, limit: 10 }));
    expect(rows.map((h) => rec(h).write)).toEqual([1, 2]);
    await m.close();
  });
});

describe('forget then re-add', () => {
  it('forgetting the node of the open window and re-adding the same text: counted once per stored write, no crash, restart agrees', async () => {
    const path = file();
    const log: Log = { calls: [] };
    const m = open(createSqliteStore({ path }), log, 4);
    const r = [] as { node: { id: string } }[];
    for (let i = 0; i < 6; i++) r.push((await m.add(obs(i))) as never as { node: { id: string } });
    expect(await m.forget(r[5]!.node.id, { scope })).toBe(true);
    expect(await m.forget(r[4]!.node.id, { scope })).toBe(true);
    const again = (await m.add(obs(5))) as never as { action: string; node: { id: string } };
    expect(again.action).not.toBe('duplicate'); // the forgotten copy is gone
    expect(again.node.id).not.toBe(r[5]!.node.id);
    const rows = writeRows(await m.history({ scope, limit: 100 }));
    expect(rows.map((h) => rec(h).write)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    await m.add(obs(6)); // write 8: a pass
    expect((await m.stats()).consolidations).toBe(2);
    await m.close();
  });
});

/**
 * The consolidation schedule survives restarts, forgets and failed writes (ours; gates.ts
 * `ScheduleRecord`, writer.ts `restoreSchedule`): every stored write records its ordinal and its
 * reviewed candidates in its history row, and a rebuilt scope restores `sinceConsolidation` and the
 * window of recent writes from those rows, so passes run at the same writes over the same inputs
 * (same controller states, bit-identical cosines) as in one uninterrupted process.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSystemOne } from '@mem/system-one';
import { createSqliteStore } from '../store/index.js';
import type { HistoryEntry, MemoryStore } from '../types.js';
import { createMemory } from './memory.js';
import { SCHEDULE_FIELD, scheduleRecord, type ScheduleRecord } from './gates.js';
import type { WriteController } from './ports.js';
import { failingController, flakyStore, simpleExtractor } from './test-kit.js';
import { hashEmbedder } from './testdata/hash-embedder.js';
import type { AddResult } from './writer.js';

const dir = mkdtempSync(join(tmpdir(), 'mem-schedule-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const scope = { userId: 'sched' };
const topics = ['garden tomato soil water', 'piano lesson music teacher', 'hiking trail mountain boots', 'bakery bread flour oven'].map((t) => t.split(' '));
const names = ['Ann', 'Bob', 'Cleo', 'Dev', 'Eli'];
/** Observation i: a name (entity), three words of one of four topics, a unique tail (texts are unique). */
function obs(i: number) {
  const t = topics[i % 4]!;
  const text = `${names[i % 5]} ${t[i % 4]} ${t[(i + 1) % 4]} ${t[(i + 3) % 4]} item${i} number ${i}`;
  return { text, speaker: 'Ann', observedAt: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(), scope, sourceId: `S${i}` };
}
let clock = Date.UTC(2025, 0, 1);
const now = () => (clock += 1000);

/** Each consolidation call's state (JSON, so cosines compare to the last bit), shared across processes. */
type Passes = string[];
/** An offline controller recording every consolidation call's state into `passes`. */
function recorder(passes: Passes): WriteController {
  const inner = createSystemOne() as unknown as WriteController;
  return {
    async ask(state, questions) {
      if ('pair_0_link' in questions) passes.push(JSON.stringify(state));
      return inner.ask(state, questions);
    },
  };
}
const open = (store: MemoryStore, controller: WriteController, consolidateEvery: number) =>
  createMemory({ store, embedder: hashEmbedder(), extractor: simpleExtractor, systemOne: controller as never, now, consolidateEvery });
/** Calls, action and relations (subtype and probability to 12 digits) of a result. */
/** Adds obs(from)…obs(to − 1) to `m` one by one; their results. */
async function addEach(m: { add(o: ReturnType<typeof obs>): Promise<unknown> }, from: number, to: number): Promise<AddResult[]> {
  const out: AddResult[] = [];
  for (let i = from; i < to; i++) out.push((await m.add(obs(i))) as AddResult);
  return out;
}

const sig = (r: AddResult) =>
  `${r.controllerCalls}:${r.action}:${r.relations
    .map((x) => `${x.subtype}@${x.probability.toFixed(12)}`)
    .sort()
    .join(',')}`;
const adds = async (m: ReturnType<typeof open>, batch: number[]) => (await m.add(batch.map(obs))) as AddResult[];
const writeRows = (h: HistoryEntry[]) => h.filter((x) => x.op === 'ADD' || x.op === 'UPDATE' || x.op === 'NOOP');
const rec = (h: HistoryEntry) => scheduleRecord(h.data) as ScheduleRecord;
const hist = (m: ReturnType<typeof open>) => m.history({ scope, limit: 100_000 });
/** The pass-triggering writes of a sequence of results: their calls exceed typing + relations (2). */
const passWrites = (rs: AddResult[]) => rs.flatMap((r, i) => (r.controllerCalls > 2 ? [i] : []));

/**
 * The file `name` (holding the history written before) reopened by a new process with
 * `consolidateEvery`: adding obs(from)…obs(to − 1) gives the live process's results (by `sig`), and
 * the passes it records (into `passes`) are the live ones.
 */
async function expectRestartedLike(name: string, consolidateEvery: number, passes: Passes, from: number, to: number, live: { results: AddResult[]; passes: Passes }): Promise<void> {
  const m = open(createSqliteStore({ path: join(dir, name) }), recorder(passes), consolidateEvery);
  const results = await addEach(m, from, to);
  await m.close();
  expect(results.map(sig)).toEqual(live.results.map(sig));
  expect(passes).toEqual(live.passes);
}

describe('consolidation schedule: restart', () => {
  const groups = [[0], [1], [2], [3], [4], [5, 6, 7], [8], [9], [10, 11, 12], [13]];
  async function run(path: string, restartBefore: number | null) {
    const passes: Passes = [];
    let m = open(createSqliteStore({ path }), recorder(passes), 4);
    const results: AddResult[] = [];
    for (const [g, batch] of groups.entries()) {
      if (g === restartBefore) {
        await m.close();
        m = open(createSqliteStore({ path }), recorder(passes), 4);
      }
      results.push(...(await adds(m, batch)));
    }
    const rows = writeRows(await hist(m));
    await m.close();
    return { results, passes, rows };
  }

  it('a restart before any write leaves every later decision, edge, call count and pass state unchanged', async () => {
    const base = await run(join(dir, 'r-base.db'), null);
    // one uninterrupted process: passes at writes 4, 8, 12 (0-based 3, 7, 11), each reviewing its window
    expect(passWrites(base.results)).toEqual([3, 7, 11]);
    expect(base.passes.length).toBeGreaterThan(3);
    expect(base.rows.map((h) => rec(h).write)).toEqual(Array.from({ length: 14 }, (_, i) => i + 1));
    for (const g of [1, 3, 4, 5, 6, 8, 9]) {
      const r = await run(join(dir, `r-${g}.db`), g);
      expect(r.results.map(sig), `restart before group ${g}`).toEqual(base.results.map(sig));
      expect(r.passes, `restart before group ${g}`).toEqual(base.passes);
    }
  });

  it('history rows record the ordinal, the last pass, the every in force, the reviewed candidates (≤ 3, best first) and their RELATED_TO links', async () => {
    const path = join(dir, 'rows.db');
    const store = createSqliteStore({ path });
    const m = open(store, recorder([]), 4);
    const results: AddResult[] = [];
    for (const g of groups) results.push(...(await adds(m, g)));
    const rows = writeRows(await hist(m));
    expect(rows.length).toBe(14);
    let reviewed = 0;
    for (const [i, row] of rows.entries()) {
      const r = rec(row);
      expect(r.write).toBe(i + 1);
      // passes at writes 4, 8, 12: each row names the last one at or before it, and the every in force
      expect([r.pass, r.every]).toEqual([r.write - (r.write % 4), 4]);
      const res = results.find((x) => x.node.id === row.nodeId)!;
      // Adds, and Noops / Updates (their near-duplicate check's memories; issue 17)
      if (!(row.data.candidates as number)) {
        expect(r.candidates).toBeUndefined();
        continue;
      }
      reviewed++;
      expect(r.candidates!.length).toBe(Math.min(3, row.data.candidates as number));
      const linked = new Set(res.relations.filter((x) => x.subtype === 'RELATED_TO' && (x.origin === 'controller' || row.op !== 'ADD') && x.from === row.nodeId).map((x) => x.to));
      expect(r.related ?? []).toEqual(r.candidates!.filter((id) => linked.has(id)));
    }
    expect(reviewed).toBeGreaterThan(5);
    expect(rows.some((h) => rec(h).related?.length)).toBe(true);
    await m.close();
  });

  it('scheduling adds no store read per write: history is read once per scope rebuild', async () => {
    const calls = { history: 0 };
    const inner = createSqliteStore({ path: ':memory:' });
    const store = new Proxy(inner, {
      get(t, p, r) {
        if (p === 'history') return (...a: Parameters<MemoryStore['history']>) => (calls.history++, t.history(...a));
        const v = Reflect.get(t, p, r);
        return typeof v === 'function' ? v.bind(t) : v;
      },
    });
    const m = open(store, recorder([]), 4);
    for (let i = 0; i < 20; i++) await m.add(obs(i));
    expect(calls.history).toBe(1);
    await m.close();
  });
});

describe('consolidation schedule: forget in the middle', () => {
  /** Writes 1..12 (passes at 5 and 10), then forget a reviewed write of the open window and a candidate of another. */
  async function history(path: string, passes: Passes) {
    const m = open(createSqliteStore({ path }), recorder(passes), 5);
    for (let i = 0; i < 12; i++) await m.add(obs(i));
    const rows = writeRows(await hist(m));
    const win = rows.filter((h) => rec(h).write > 10 && rec(h).candidates?.length);
    expect(win.length).toBe(2); // writes 11 and 12 are both reviewed
    const victim = win[0]!.nodeId!;
    const victimCandidate = rec(win[1]!).candidates!.find((id) => id !== victim)!;
    const texts = new Map((await m.list({ scope, limit: 1000 })).map((n) => [n.id, n.text]));
    const gone = [texts.get(victim)!, texts.get(victimCandidate)!];
    expect(await m.forget(victim, { scope })).toBe(true);
    expect(await m.forget(victimCandidate, { scope })).toBe(true);
    return { m, gone };
  }

  it('the forgotten write leaves the window, its write still counts, and a restart decides the same', async () => {
    const passes: Passes = [];
    const { m, gone } = await history(join(dir, 'f-live.db'), passes);
    expect((await m.stats()).consolidations).toBe(2);
    const before = passes.length;
    const live = await addEach(m, 12, 14);
    expect((await m.stats()).consolidations).toBe(2);
    live.push((await m.add(obs(14))) as AddResult); // write 15: the pass runs here, as without the forget
    expect((await m.stats()).consolidations).toBe(3);
    expect(passWrites(live)).toEqual([2]);
    // the pass reviews exactly the window's surviving reviewed writes against their surviving candidates
    const rows = writeRows(await hist(m));
    const nodes = new Map((await m.list({ scope, limit: 1000 })).map((n) => [n.id, n.text]));
    const expected = rows
      .filter((h) => rec(h).write > 10 && rec(h).candidates?.length && nodes.has(h.nodeId!))
      .map((h) => ({ text: nodes.get(h.nodeId!), candidates: rec(h).candidates!.filter((id) => nodes.has(id)).map((id) => nodes.get(id)) }));
    const got = passes.slice(before).map((s) => JSON.parse(s) as { new_memory: { text: string }; candidates: { text: string }[] });
    expect(got.map((s) => ({ text: s.new_memory.text, candidates: s.candidates.map((c) => c.text) }))).toEqual(expected.filter((e) => e.candidates.length));
    expect(expected.length).toBeGreaterThan(1);
    // neither the forgotten write nor the forgotten candidate is sent to the controller again
    for (const s of passes.slice(before)) for (const t of gone) expect(s).not.toContain(JSON.stringify(t));
    live.push(...(await addEach(m, 15, 20)));
    expect(passWrites(live)).toEqual([2, 7]);
    await m.close();

    // the same history, then a new process
    const passes2: Passes = [];
    const first = await history(join(dir, 'f-restart.db'), passes2);
    await first.m.close();
    expect(passes2).toEqual(passes.slice(0, before));
    await expectRestartedLike('f-restart.db', 5, passes2, 12, 20, { results: live, passes });
  });
});

describe('consolidation schedule: failed writes in the middle', () => {
  /** Writes obs 0..13 one by one; `failing` injects a failed store write (two batches) after write 7 and a failed pass at write 10. */
  async function run(path: string, failing: boolean) {
    const passes: Passes = [];
    const fs = flakyStore(createSqliteStore({ path }));
    // while `failPass` is set, the first consolidation call fails (the write that triggers the pass fails)
    const phase = { failPass: false, failures: 0 };
    const ctl = failing ? failingController(recorder(passes), 1, (qs) => phase.failPass && 'pair_0_link' in qs) : recorder(passes);
    const m = open(fs.store, ctl, 5);
    const results: AddResult[] = [];
    const failedAdd = async (f: () => Promise<unknown>) => {
      const mark = passes.length;
      await expect(f()).rejects.toThrow();
      phase.failures++;
      passes.length = mark; // calls of a failed write are not part of the schedule's record
    };
    for (let i = 0; i < 14; i++) {
      if (failing && i === 7) {
        fs.fail.on = true;
        await failedAdd(() => m.add([obs(100), obs(101)]));
        await failedAdd(() => m.add(obs(102)));
        fs.fail.on = false;
      }
      if (failing && i === 9) {
        // write 10 triggers the pass; its first consolidation call fails, so the whole write fails
        phase.failPass = true;
        await failedAdd(() => m.add(obs(i)));
        phase.failPass = false;
        expect(await m.list({ scope, limit: 100 })).toHaveLength(9);
      }
      results.push((await m.add(obs(i))) as AddResult);
    }
    const rows = writeRows(await hist(m));
    const stats = await m.stats();
    await m.close();
    return { results, passes, rows, stats, failures: phase.failures };
  }

  it('a failed store write or a failed pass leaves no trace: the schedule equals a run without the failures', async () => {
    const ref = await run(join(dir, 'x-ref.db'), false);
    const got = await run(join(dir, 'x-fail.db'), true);
    expect(got.failures).toBe(3);
    expect(passWrites(ref.results)).toEqual([4, 9]);
    expect(got.results.map(sig)).toEqual(ref.results.map(sig));
    expect(got.passes).toEqual(ref.passes);
    expect(got.stats.consolidations).toBe(2);
    // no history row, node or ordinal of the failed writes
    expect(got.rows.map((h) => h.data.sourceId)).toEqual(ref.rows.map((h) => h.data.sourceId));
    expect(got.rows.map((h) => rec(h).write)).toEqual(Array.from({ length: 14 }, (_, i) => i + 1));
  });
});

describe('consolidation schedule: stores without schedule records', () => {
  it('rows without a record (older versions, or consolidation off) start the schedule at 0, then it is kept', async () => {
    const path = join(dir, 'legacy.db');
    const m0 = open(createSqliteStore({ path }), recorder([]), 0);
    for (let i = 0; i < 6; i++) await m0.add(obs(i));
    const old = await hist(m0);
    expect(writeRows(old).every((h) => !(SCHEDULE_FIELD in h.data))).toBe(true);
    await m0.close();

    const run = async (file: string, restartAfter: number | null) => {
      const passes: Passes = [];
      let m = open(createSqliteStore({ path: file }), recorder(passes), 4);
      const rs: AddResult[] = [];
      for (let i = 6; i < 16; i++) {
        if (i === restartAfter) {
          await m.close();
          m = open(createSqliteStore({ path: file }), recorder(passes), 4);
        }
        rs.push((await m.add(obs(i))) as AddResult);
      }
      const rows = writeRows(await hist(m));
      await m.close();
      return { rs, passes, rows };
    };
    copyFileSync(path, join(dir, 'legacy-2.db'));
    const a = await run(path, null);
    // the old writes do not count: passes at the 4th and 8th new write; new rows numbered from 1
    expect(passWrites(a.rs)).toEqual([3, 7]);
    expect(a.rows.slice(6).map((h) => rec(h).write)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    // old writes are never reviewed (the window holds new writes only)
    const oldTexts = new Set(Array.from({ length: 6 }, (_, i) => obs(i).text));
    expect(a.passes.length).toBeGreaterThan(0);
    for (const s of a.passes) expect(oldTexts.has((JSON.parse(s) as { new_memory: { text: string } }).new_memory.text)).toBe(false);
    const b = await run(join(dir, 'legacy-2.db'), 10);
    expect(b.rs.map(sig)).toEqual(a.rs.map(sig));
    expect(b.passes).toEqual(a.passes);
  });
});

describe('consolidation schedule: many forgets after the last writes', () => {
  it('restores the window from deep in the history (more FORGET rows than the first read covers) like the live process', async () => {
    const build = async (path: string, passes: Passes) => {
      const m = open(createSqliteStore({ path }), recorder(passes), 3);
      for (let i = 0; i < 41; i++) await m.add(obs(i)); // 41 writes: window = writes 40, 41
      const nodes = await m.list({ scope, limit: 1000, orderBy: 'createdAt', order: 'asc' });
      for (const n of nodes.slice(0, 30)) await m.forget(n.id, { scope }); // 30 FORGET rows > 4·3 + 16
      return m;
    };
    const livePasses: Passes = [];
    const live = await build(join(dir, 'deep-live.db'), livePasses);
    const liveRs = await addEach(live, 41, 47);
    expect(passWrites(liveRs)).toEqual([0, 3]); // writes 42 and 45
    expect((await live.stats()).consolidations).toBe(15);
    await live.close();

    const passes: Passes = [];
    await (await build(join(dir, 'deep-restart.db'), passes)).close();
    await expectRestartedLike('deep-restart.db', 3, passes, 41, 47, { results: liveRs, passes: livePasses });
  });
});

describe('consolidation schedule: caller mutation', () => {
  it("mutating the arrays of returned nodes does not change a later pass's controller states", async () => {
    const run = async (mutate: boolean) => {
      const passes: Passes = [];
      const m = open(createSqliteStore({ path: ':memory:' }), recorder(passes), 4);
      const rs: AddResult[] = [];
      for (let i = 0; i < 8; i++) {
        const r = (await m.add(obs(i))) as AddResult;
        if (mutate) {
          r.node.entities.length = 0;
          r.node.keywords.length = 0;
        }
        rs.push(r);
      }
      await m.close();
      return { sigs: rs.map(sig), passes };
    };
    const plain = await run(false);
    const mutated = await run(true);
    expect(plain.passes.length).toBeGreaterThan(2);
    expect(mutated.passes).toEqual(plain.passes);
    expect(mutated.sigs).toEqual(plain.sigs);
  });
});

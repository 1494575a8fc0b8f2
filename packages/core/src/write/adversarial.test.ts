/**
 * Adversarial tests of the write path (tester, ours): caller mutation of returned nodes, and a
 * long-running process vs a restart after concurrent adds on two scopes, forgets and injected
 * store failures. Findings that are not fixed are `it.skip` with the reason.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createSqliteStore } from '../store/index.js';
import { unitEmbedding, type AddResult } from './writer.js';
import { createMemory } from './memory.js';
import { failingController, failingEmbedder, flakyStore, simpleExtractor } from './test-kit.js';
import { createSystemOne } from '@mem/system-one';
import type { WriteController } from './ports.js';
import { hashEmbedder } from './testdata/hash-embedder.js';

const dir = mkdtempSync(join(tmpdir(), 'mem-adv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const scope = { userId: 'adv' };
const syll = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'po', 'da', 'gu'];
/** Word j of a deterministic vocabulary; capitalised every fifth (an entity for simpleExtractor). */
const word = (j: number) => {
  const w = syll[j % 12]! + syll[Math.floor(j / 12) % 12]! + syll[(j * 7) % 12]!;
  return j % 5 === 0 ? w[0]!.toUpperCase() + w.slice(1) : w;
};
/** Observation i: some repeat earlier ones closely (i % 4 === 3), so Update / Noop happen too. */
function obs(i: number, s = scope) {
  const b = i % 4 === 3 ? i - 1 : i;
  // every third observation comes from a 4-word cluster (the gate routes those to Update / Noop)
  const ws = i % 3 === 0 ? Array.from({ length: 6 }, (_, k) => word(((i >> 2) + k) % 4)) : Array.from({ length: 6 }, (_, k) => word((b * 37 + k * 11 + (k === 5 ? i : 0)) % 144));
  return { text: ws.join(' '), speaker: 'Ann', observedAt: new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString(), scope: s, sourceId: `S${i}` };
}
let clock = Date.UTC(2025, 0, 1);
const echo = (i: number, s = scope) => ({ ...obs(i + 300, s), text: i % 2 ? obs(i, s).text : `${obs(i, s).text} ${obs(i + 1, s).text}` });
const now = () => (clock += 1000);
function sig(rs: AddResult[]) {
  return rs.map((r) => `${r.controllerCalls}:${r.action}:${r.node.gate?.nearest ? 'n' : '-'}:${r.relations.length}:${r.relations.map((x) => x.subtype).sort().join(',')}`);
}

describe('write path: restart equivalence under caller mutation', () => {
  it('mutating nested arrays of a returned node does not change later decisions', async () => {
    const run = async (path: string, mutate: boolean) => {
      const store = createSqliteStore({ path });
      const m = createMemory({ store, embedder: hashEmbedder(), extractor: simpleExtractor, now, consolidateEvery: 0 });
      const first = (await m.add(Array.from({ length: 20 }, (_, i) => obs(i)))) as AddResult[];
      if (mutate) for (const r of first) { r.node.embedding.fill(0); r.node.entities.length = 0; r.node.keywords.length = 0; }
      const later = (await m.add(Array.from({ length: 20 }, (_, i) => obs(i + 100)))) as AddResult[];
      await m.close();
      return sig(later);
    };
    const a = await run(join(dir, 'a.db'), false);
    const b = await run(join(dir, 'b.db'), true);
    expect(b).toEqual(a);
  });
});

describe('write path: long-running process vs restart after concurrency, forget and injected failures', () => {
  const base = (store: ReturnType<typeof flakyStore>['store'] | ReturnType<typeof createSqliteStore>, consolidateEvery: number) =>
    createMemory({ store, embedder: hashEmbedder(), extractor: simpleExtractor, now, consolidateEvery });
  const other = { userId: 'adv-other' };
  /** The same history on a file: concurrent adds on two scopes, forgets, a failed store write, a failing controller. */
  async function history(path: string, consolidateEvery: number) {
    const fs = flakyStore(createSqliteStore({ path }));
    const m = base(fs.store, consolidateEvery);
    await Promise.all([
      ...Array.from({ length: 12 }, (_, i) => m.add(obs(i))),
      ...Array.from({ length: 12 }, (_, i) => m.add(obs(i + 3, other))),
      m.add(Array.from({ length: 6 }, (_, i) => obs(i + 40))),
    ]);
    const listed = await m.list({ scope, limit: 100, orderBy: 'createdAt', order: 'asc' });
    await Promise.all([m.forget(listed[2]!.id, { scope }), m.add(obs(50)), m.forget(listed[5]!.id, { scope }), m.add(obs(51, other))]);
    fs.fail.on = true;
    await expect(m.add(Array.from({ length: 5 }, (_, i) => obs(i + 60)))).rejects.toThrow();
    await expect(m.add([obs(70), obs(71, other)])).rejects.toThrow();
    fs.fail.on = false;
    await m.add(Array.from({ length: 4 }, (_, i) => obs(i + 80)));
    return { m, fs };
  }
  const finalBatch = () => [
    ...Array.from({ length: 12 }, (_, i) => obs(i + 60)),
    ...Array.from({ length: 6 }, (_, i) => echo(i)),
    ...Array.from({ length: 6 }, (_, i) => obs(i + 200, other)),
    ...Array.from({ length: 4 }, (_, i) => echo(i + 3, other)),
  ];

  async function liveVsRestart(name: string, consolidateEvery: number) {
    const live = await history(join(dir, `${name}-live.db`), consolidateEvery);
    const liveSig = sig((await live.m.add(finalBatch())) as AddResult[]);
    const gate = (await live.m.stats()).gate;
    await live.m.close();

    const first = await history(join(dir, `${name}-restart.db`), consolidateEvery);
    await first.m.close();
    const reopened = base(createSqliteStore({ path: join(dir, `${name}-restart.db`) }), consolidateEvery);
    const restartSig = sig((await reopened.add(finalBatch())) as AddResult[]);
    await reopened.close();
    return { liveSig, restartSig, gate };
  }

  it('the next writes decide the same (actions, edges, calls) in the long-running process and after reopening the file (no consolidation)', async () => {
    const { liveSig, restartSig, gate } = await liveVsRestart('c0', 0);
    expect(gate.update + gate.noop).toBeGreaterThan(0); // the replayed history holds all three actions
    expect(restartSig).toEqual(liveSig);
  });

  it('gate actions agree between the long-running process and a restart with consolidation on', async () => {
    const { liveSig, restartSig } = await liveVsRestart('c7a', 7);
    expect(restartSig.map((x) => x.split(':')[1])).toEqual(liveSig.map((x) => x.split(':')[1]));
  });

  // Was a finding (the consolidation schedule was in-process state, reset by a rebuild); fixed: each
  // write's history row records its schedule inputs and the writer restores the schedule from them
  // (gates.ts ScheduleRecord, writer.ts restoreSchedule; more cases in schedule.test.ts).
  it('the next writes decide the same with consolidation on (consolidation schedule survives a restart)', async () => {
    const { liveSig, restartSig } = await liveVsRestart('c7', 7);
    expect(restartSig).toEqual(liveSig);
  });
});

describe('write path: embedder outputs at the edge of floating point', () => {
  it('unitEmbedding keeps the direction of finite vectors whose squared norm over- or underflows', () => {
    expect(Array.from(unitEmbedding([3e200, 4e200], 2, 0))).toEqual([Math.fround(0.6), Math.fround(0.8)]);
    expect(Array.from(unitEmbedding([3e-200, -4e-200], 2, 0))).toEqual([Math.fround(0.6), Math.fround(-0.8)]);
    expect(Array.from(unitEmbedding([3, 4], 2, 0))).toEqual([Math.fround(0.6), Math.fround(0.8)]);
    expect(() => unitEmbedding([0, 0], 2, 0)).toThrow(/zero vector/);
  });

  // Float32Array outputs cannot over/underflow in f64; a JS embedder returning plain number arrays
  // (accepted at run time: unitEmbedding takes ArrayLike<number>) can
  it('an embedder returning huge finite plain numbers still writes (not a gate ZERO_VECTOR failure)', async () => {
    const embed = async (t: string[]) => t.map((_, i) => [1e200, (i + 2) * 1e200]) as unknown as Float32Array[];
    const m = createMemory({ embedder: { model: 'huge', dimension: 2, embed }, extractor: simpleExtractor });
    const r = (await m.add({ text: 'hello there', observedAt: '2024-01-01T00:00:00Z', scope })) as AddResult;
    expect(r.action).toBe('add');
    expect(Math.hypot(...r.node.embedding)).toBeCloseTo(1, 6);
    await m.close();
  });
});

describe('write path: a collaborator failing at step k, then more writes, decides like a restart', () => {
  for (const k of [1, 2, 3, 5, 8, 13]) {
    it(`controller call ${k} and embedder call ${k} fail (multi-scope batches), later writes match a reopened file`, async () => {
      const path = join(dir, `fail-${k}.db`);
      const other = { userId: 'adv-fail-other' };
      // collaborators fail (at call k, and the embedder also at call k + 3) only during the history
      const phase = { history: true };
      const plainController = createSystemOne() as unknown as WriteController;
      const failing = failingController(plainController, k);
      const controller: WriteController = { ask: (st, qs) => (phase.history ? failing : plainController).ask(st, qs) };
      const plainEmbedder = hashEmbedder();
      const failingEmb = failingEmbedder(failingEmbedder(plainEmbedder, k), k + 3);
      const embedder = { ...plainEmbedder, embed: (t: string[]) => (phase.history ? failingEmb : plainEmbedder).embed(t) };
      const m = createMemory({ store: createSqliteStore({ path }), embedder, systemOne: controller as never, extractor: simpleExtractor, now, consolidateEvery: 0 });
      let failures = 0;
      for (let b = 0; b < 8; b++) {
        const batch = [...Array.from({ length: 3 }, (_, i) => obs(b * 3 + i)), obs(b * 3 + 500, other)];
        try {
          await m.add(batch);
        } catch {
          failures++;
          // nothing partial: no observation of the failed batch is stored
          const stored = new Set((await m.list({ scope, limit: 1000 })).map((n) => n.provenance.sourceId));
          const storedOther = new Set((await m.list({ scope: other, limit: 1000 })).map((n) => n.provenance.sourceId));
          expect(batch.filter((o) => (o.scope === other ? storedOther : stored).has(o.sourceId))).toEqual([]);
        }
      }
      expect(failures).toBeGreaterThan(0);
      phase.history = false;
      const next = () => [...Array.from({ length: 10 }, (_, i) => obs(i + 700)), echo(1), echo(4), ...Array.from({ length: 4 }, (_, i) => obs(i + 800, other))];
      const live = sig((await m.add(next())) as AddResult[]);
      await m.close();
      // the same history again without the last batch, then a reopened process adds it
      const path2 = join(dir, `fail-${k}-restart.db`);
      const c2 = failingController(createSystemOne() as unknown as WriteController, k);
      const e2 = failingEmbedder(failingEmbedder(hashEmbedder(), k), k + 3);
      const m2 = createMemory({ store: createSqliteStore({ path: path2 }), embedder: e2, systemOne: c2 as never, extractor: simpleExtractor, now, consolidateEvery: 0 });
      for (let b = 0; b < 8; b++) await m2.add([...Array.from({ length: 3 }, (_, i) => obs(b * 3 + i)), obs(b * 3 + 500, other)]).catch(() => undefined);
      await m2.close();
      const m3 = createMemory({ store: createSqliteStore({ path: path2 }), embedder: hashEmbedder(), extractor: simpleExtractor, now, consolidateEvery: 0 });
      expect(sig((await m3.add(next())) as AddResult[])).toEqual(live);
      await m3.close();
    });
  }
});

describe('write path: ids after a restart whose clock is behind the stored ids', () => {
  it('new ids of a scope sort after its stored ids (replay order = write order) even when the clock went back', async () => {
    const path = join(dir, 'clock.db');
    let t = Date.UTC(2030, 0, 1);
    const m1 = createMemory({ store: createSqliteStore({ path }), embedder: hashEmbedder(), extractor: simpleExtractor, now: () => (t += 1000), consolidateEvery: 0 });
    await m1.add(Array.from({ length: 6 }, (_, i) => obs(i)));
    await m1.close();
    // a new process (fresh id generator) whose clock is years behind the stored ids
    vi.resetModules();
    const fresh = (await import('./memory.js')) as typeof import('./memory.js');
    let t2 = Date.UTC(2024, 0, 1);
    const m2 = fresh.createMemory({ store: createSqliteStore({ path }), embedder: hashEmbedder(), extractor: simpleExtractor, now: () => (t2 += 1000), consolidateEvery: 0 });
    const added = (await m2.add(Array.from({ length: 4 }, (_, i) => obs(i + 50)))) as AddResult[];
    const all = (await m2.list({ scope, limit: 100 })).map((n) => n.id).sort();
    await m2.close();
    expect(all.slice(-4)).toEqual(added.map((r) => r.node.id));
  });
});

describe('write path: heavy interleaving of add / forget / search on one scope and across scopes', () => {
  const scopes = [{ userId: 'storm-a' }, { userId: 'storm-b' }, { userId: 'storm-a', agentId: 'x' }, { namespace: 'נ', userId: '🙂' }];
  const open = (path: string) => createMemory({ store: createSqliteStore({ path }), embedder: hashEmbedder(), extractor: simpleExtractor, now, consolidateEvery: 0 });
  async function storm(path: string) {
    const m = open(path);
    const ops: Promise<unknown>[] = [];
    const added: { id: string; scope: number }[] = [];
    for (let i = 0; i < 120; i++) {
      const si = i % scopes.length;
      ops.push(
        (m.add(obs(i, scopes[si])) as Promise<AddResult>).then((r) => {
          if (r.stored) added.push({ id: r.node.id, scope: si });
        }),
      );
      if (i % 7 === 6) {
        ops.push(
          m.search(obs(i - 3, scopes[si]).text, { scope: scopes[si]!, k: 5 }).then((res) => {
            for (const e of res.evidence) expect(e.node.scope).toEqual(expect.objectContaining(scopes[si]));
          }),
        );
      }
      if (i % 11 === 10 && added.length) {
        const victim = added[Math.floor(added.length / 2)]!;
        ops.push(m.forget(victim.id, { scope: scopes[victim.scope]! }));
      }
    }
    await Promise.all(ops);
    return m;
  }
  const probe = () => scopes.flatMap((s, si) => [obs(900 + si, s), echo(si, s), echo(si + 1, s), obs(3 * si, s)]);

  it('no leak across scopes, nothing lost or partial, and a reopened file decides like the live process', async () => {
    const live = await storm(join(dir, 'storm-live.db'));
    for (const [si, s] of scopes.entries()) {
      const nodes = await live.list({ scope: s, limit: 1000 });
      expect(nodes.length).toBeGreaterThan(0);
      for (const n of nodes) expect(n.scope).toEqual(expect.objectContaining(s));
      const hist = await live.history({ scope: s, limit: 10_000 });
      const writes = new Set(hist.filter((h) => h.op === 'ADD' || h.op === 'UPDATE' || h.op === 'NOOP').map((h) => h.nodeId));
      for (const n of nodes) expect(writes.has(n.id), `history of ${n.id} in scope ${si}`).toBe(true);
    }
    const liveSig = sig((await live.add(probe())) as AddResult[]);
    await live.close();
    await (await storm(join(dir, 'storm-restart.db'))).close();
    const reopened = open(join(dir, 'storm-restart.db'));
    const restartSig = sig((await reopened.add(probe())) as AddResult[]);
    await reopened.close();
    expect(restartSig).toEqual(liveSig);
  });
});

describe('write path: restart equivalence with policy drop and a System-Two summarizer', () => {
  const summarizer = { summarize: async (req: { memories: { text: string }[] }) => `merged: ${req.memories.map((m) => m.text).join(' / ')}` };
  const open = (path: string) => {
    const fs = flakyStore(createSqliteStore({ path }));
    return { m: createMemory({ store: fs.store, embedder: hashEmbedder(), extractor: simpleExtractor, now, consolidateEvery: 0, policy: 'drop', summarizer, gate: { kappa: 40 } }), fs };
  };
  async function history(path: string) {
    const { m, fs } = open(path);
    for (let b = 0; b < 6; b++) await m.add([...Array.from({ length: 5 }, (_, i) => obs(b * 5 + i)), echo(b), echo(b + 1)]);
    fs.fail.on = true;
    await expect(m.add([obs(40), echo(2)])).rejects.toThrow();
    fs.fail.on = false;
    return m;
  }
  const next = () => [...Array.from({ length: 6 }, (_, i) => obs(i + 60)), echo(3), echo(5), echo(7)];
  it('the next writes decide the same live and after reopening', async () => {
    const live = await history(join(dir, 'drop-live.db'));
    const liveSig = sig((await live.add(next())) as AddResult[]);
    const { gate, summarizerCalls } = await live.stats();
    await live.close();
    await (await history(join(dir, 'drop-restart.db'))).close();
    const { m } = open(join(dir, 'drop-restart.db'));
    const restartSig = sig((await m.add(next())) as AddResult[]);
    await m.close();
    expect(gate.update + gate.noop).toBeGreaterThan(0);
    expect(summarizerCalls).toBeGreaterThan(0); // derived (merged) nodes joined the gate
    expect(restartSig).toEqual(liveSig);
  });
});

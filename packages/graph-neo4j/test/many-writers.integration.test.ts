// Many writers, one graph (issue #14), against a REAL Neo4j (gated like src/neo4j.integration.test.ts):
// 3 OS processes add to one scope at once, 8 observations shared by all of them (the same
// observation written concurrently) and 8 of their own. The database's uniqueness constraint on the
// content key [scopeKey, contentHash] keeps exactly one node per distinct observation; every
// acknowledged add is in the graph (no lost write); the losers of a race get the stored node back
// as a `duplicate` (Memory retries a STORE_CONFLICT once it re-read the store).
// And the SQLite kill test on Neo4j (issue 32 point 1): 4 processes × MEM_NEO4J_KILL_ADDS (default 60;
// 500 is the SQLite test's full size) adds of @mem/core's many-writers job (a third shared), one
// process SIGKILLed mid-run: one node per text and scope, every ack stored, one write-history row each.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resolveScope, scopeKey, type StoreMeta } from '@mem/core';
import { createNeo4jStore } from '../src/store.js';
import { makeNode } from '../src/test/fixtures.js';
// the SQLite kill test's observations (test data of @mem/core, read from its source)
import { manyWritersJob } from '../../core/src/write/testdata/many-writers-job.js';
import { DATABASE, PASSWORD, URI, USER, logSkip, resetDatabase, withSession } from './neo4j-test-db.js';

logSkip('many-writers.integration.test.ts');

const PKG = join(dirname(fileURLToPath(import.meta.url)), '..');
const WRITERS = 3;
const SHARED = 8;
const OWN = 8;

interface Ack {
  text: string;
  user?: string;
  id: string;
  action: string;
  stored: boolean;
}

/** Deterministic shuffle (each process gets its own order). */
function shuffled<T>(xs: T[], seed: number): T[] {
  const out = [...xs];
  let s = seed * 2654435761;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function startWriter(job: unknown): { ready: Promise<void>; done: Promise<Ack[]>; go(): void } {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@mem/source', 'test/writer-process.ts'], {
    cwd: PKG,
    env: { ...process.env, MEM_WRITER_JOB: JSON.stringify(job) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let onReady!: () => void;
  const ready = new Promise<void>((r) => (onReady = r));
  child.stdout.on('data', (d) => {
    out += d;
    if (out.includes('READY\n')) onReady();
  });
  child.stderr.on('data', (d) => (err += d));
  const done = new Promise<Ack[]>((resolve, reject) =>
    child.once('exit', (code) => {
      if (code !== 0 || !out.includes('DONE')) return reject(new Error(`writer exited ${code}\n${err.slice(-3000)}\n${out.slice(-1000)}`));
      resolve(out.split('\n').filter((l) => l.startsWith('ACK ')).map((l) => JSON.parse(l.slice(4)) as Ack));
    }),
  );
  // a writer that dies before READY fails the test instead of leaving it waiting
  return { ready: Promise.race([ready, done.then(() => undefined)]), done, go: () => child.stdin.end('go\n') };
}

/** A writer that may be SIGKILLed: its acks so far (live), and how it ended. */
function startKillableWriter(job: unknown): {
  child: ReturnType<typeof spawn>;
  acks: Ack[];
  /** The writer's gateState counters (STATS line), once it finished. */
  stats: { rebuilt?: number; caughtUp?: number; caughtUpNodes?: number; catchUpFallbacks?: Record<string, number> } | null;
  ready: Promise<void>;
  exit: Promise<{ code: number | null; signal: string | null; err: string; done: boolean }>;
  go(): void;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@mem/source', 'test/writer-process.ts'], {
    cwd: PKG,
    env: { ...process.env, MEM_WRITER_JOB: JSON.stringify(job) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const acks: Ack[] = [];
  let buf = '';
  let err = '';
  let done = false;
  let onReady!: () => void;
  const ready = new Promise<void>((r) => (onReady = r));
  child.stdout.on('data', (d) => {
    buf += d;
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line === 'READY') onReady();
      else if (line === 'DONE') done = true;
      else if (line.startsWith('ACK ')) acks.push(JSON.parse(line.slice(4)) as Ack);
      else if (line.startsWith('STATS ')) writer.stats = JSON.parse(line.slice(6));
    }
  });
  child.stderr.on('data', (d) => (err += d));
  const exit = new Promise<{ code: number | null; signal: string | null; err: string; done: boolean }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, err, done })));
  const writer = { child, acks, stats: null as { rebuilt?: number; caughtUp?: number; caughtUpNodes?: number; catchUpFallbacks?: Record<string, number> } | null, ready: Promise.race([ready, exit.then((e) => Promise.reject(new Error(`writer exited before READY: ${e.err.slice(-2000)}`)))]), exit, go: () => child.stdin.end('go\n') };
  return writer;
}

/** Sizes of the kill test (issue 32 point 1, the SQLite kill test's twin): MEM_NEO4J_KILL_WRITERS × MEM_NEO4J_KILL_ADDS. */
const KILL_WRITERS = Number(process.env.MEM_NEO4J_KILL_WRITERS ?? 4);
const KILL_ADDS = Number(process.env.MEM_NEO4J_KILL_ADDS ?? 60);

describe.runIf(URI)('Neo4j store: many writers, one graph', () => {
  it(`${KILL_WRITERS} processes × ${KILL_ADDS} adds, a third shared, one SIGKILLed mid-run: one node per text and scope, no lost ack (the SQLite kill test on Neo4j)`, async () => {
    await resetDatabase(32);
    const writers = Array.from({ length: KILL_WRITERS }, (_, w) => startKillableWriter({ scope: { userId: 'unused' }, items: manyWritersJob(w, KILL_ADDS) }));
    await Promise.all(writers.map((w) => w.ready));
    const started = Date.now();
    for (const w of writers) w.go();
    // kill writer 0 once it acknowledged a third of its adds
    const killAt = Math.floor(KILL_ADDS / 3);
    await new Promise<void>((resolve) => {
      const tick = setInterval(() => {
        if (writers[0]!.acks.length >= killAt || writers[0]!.child.exitCode !== null) {
          clearInterval(tick);
          setTimeout(() => {
            writers[0]!.child.kill('SIGKILL');
            resolve();
          }, Math.floor(Math.random() * 20));
        }
      }, 5);
    });
    const exits = await Promise.all(writers.map((w) => w.exit));
    const sum = (f: 'rebuilt' | 'caughtUp' | 'caughtUpNodes') => writers.reduce((a, w) => a + (w.stats?.[f] ?? 0), 0);
    console.log(`[many-writers] ${KILL_WRITERS}×${KILL_ADDS} on Neo4j: ${((Date.now() - started) / 1000).toFixed(1)} s; survivors: ${sum('rebuilt')} scope rebuilds, ${sum('caughtUp')} catch-ups reading ${sum('caughtUpNodes')} memories, fallbacks ${JSON.stringify(writers.map((w) => w.stats?.catchUpFallbacks ?? {}))}`);
    expect(exits[0]!.signal).toBe('SIGKILL');
    for (let w = 1; w < KILL_WRITERS; w++) expect({ w, code: exits[w]!.code, done: exits[w]!.done, err: exits[w]!.err.slice(-2000) }).toEqual({ w, code: 0, done: true, err: '' });

    const keys = ['kill-a', 'kill-b'].map((u) => scopeKey(resolveScope({ userId: u })));
    const rows = await withSession(async (s) =>
      (await s.run('MATCH (m:Memory) WHERE m.scopeKey IN $keys RETURN m.scopeKey AS key, m.text AS text, collect(m.id) AS ids', { keys })).records.map((r) => r.toObject()),
    );
    const byKey = new Map(rows.map((r) => [`${r.key}\u0000${r.text}`, r.ids as string[]]));
    expect(rows.filter((r) => (r.ids as string[]).length !== 1).map((r) => r.text)).toEqual([]);
    const keyOf = (user: string, text: string) => `${scopeKey(resolveScope({ userId: user }))}\u0000${text}`;
    const acks = writers.flatMap((w) => w.acks);
    expect(acks.filter((a) => byKey.get(keyOf(a.user!, a.text))?.[0] !== a.id).map((a) => a.text)).toEqual([]);
    for (let w = 1; w < KILL_WRITERS; w++) for (const it of manyWritersJob(w, KILL_ADDS)) expect(byKey.has(keyOf(it.user, it.text)), it.text).toBe(true);
    const given = new Set(Array.from({ length: KILL_WRITERS }, (_, w) => manyWritersJob(w, KILL_ADDS).map((it) => keyOf(it.user, it.text))).flat());
    expect([...byKey.keys()].filter((k) => !given.has(k))).toEqual([]);
    const writes = await withSession(async (s) =>
      (await s.run("MATCH (h:MemoryHistory) WHERE h.scopeKey IN $keys AND h.op IN ['ADD', 'UPDATE', 'NOOP'] RETURN h.nodeId AS id, count(*) AS n", { keys })).records.map((r) => r.toObject()),
    );
    expect(writes.filter((r) => Number(r.n) !== 1)).toEqual([]);
    expect(writes.length).toBe(rows.length);
  }, 900_000);


  const scope = { userId: 'many-writers-東京' };
  const key = scopeKey(resolveScope(scope));
  const at = (i: number) => new Date(Date.UTC(2024, 4, 1, 10, i)).toISOString();
  const shared = Array.from({ length: SHARED }, (_, i) => ({ text: `shared note ${i}: the team met at the harbour café about invoice ${i * 7}`, observedAt: at(i) }));
  const own = (w: number) => Array.from({ length: OWN }, (_, i) => ({ text: `writer ${w} private note ${i} on topic ${w * 100 + i}`, observedAt: at(20 + i) }));

  it(`${WRITERS} processes, the same observations at once: one node per distinct observation, no lost write`, async () => {
    await resetDatabase(32);
    const writers = Array.from({ length: WRITERS }, (_, w) => startWriter({ scope, items: shuffled([...shared, ...own(w)], w + 1) }));
    await Promise.all(writers.map((w) => w.ready));
    for (const w of writers) w.go();
    const acks = (await Promise.all(writers.map((w) => w.done))).flat();
    expect(acks.length).toBe(WRITERS * (SHARED + OWN));

    const rows = await withSession(async (s) =>
      (await s.run('MATCH (m:Memory) WHERE m.scopeKey = $key RETURN m.text AS text, count(*) AS n, collect(m.id) AS ids', { key })).records.map((r) => r.toObject()),
    );
    // exactly one node per distinct observation
    expect(rows.length).toBe(SHARED + WRITERS * OWN);
    expect(rows.filter((r) => r.n !== 1)).toEqual([]);
    const idByText = new Map(rows.map((r) => [r.text as string, (r.ids as string[])[0]]));
    // every acknowledged add is there, and every ack of one observation names the same node
    for (const a of acks) expect(idByText.get(a.text), a.text).toBe(a.id);
    // per shared observation: one writer stored it, the others got it back as a duplicate
    for (const s of shared) {
      const mine = acks.filter((a) => a.text === s.text);
      expect(mine.length).toBe(WRITERS);
      expect(mine.filter((a) => a.action !== 'duplicate').length).toBe(1);
    }
    // history: one ADD-or-other write row per stored node, none for the duplicates
    const written = await withSession(async (s) =>
      (await s.run("MATCH (h:MemoryHistory) WHERE h.scopeKey = $key AND h.op IN ['ADD', 'UPDATE', 'NOOP'] RETURN count(DISTINCT h.nodeId) AS n", { key })).records[0]!.get('n'),
    );
    expect(Number(written)).toBe(SHARED + WRITERS * OWN);
  }, 300_000);

  it('the database itself refuses a second node with the same content key (STORE_CONFLICT), writing nothing of the batch', async () => {
    await resetDatabase(4);
    const store = createNeo4jStore({ uri: URI!, user: USER, password: PASSWORD, database: DATABASE });
    const META: StoreMeta = { schemaVersion: 1, embeddingModel: 'integration', dimension: 4 };
    try {
      await store.open(META);
      const s = resolveScope({ userId: 'conflict' });
      const a = makeNode('a', 'one observation', s);
      await store.write({ scope: s, nodes: [a] });
      const twin = { ...makeNode('b', 'one observation', s), provenance: a.provenance };
      const other = makeNode('c', 'another observation', s);
      const err = await store.write({ scope: s, nodes: [other, twin] }).catch((e) => e);
      expect(err.code).toBe('STORE_CONFLICT');
      expect(err.category).toBe('conflict');
      expect(err.details?.constraint).toBe(true);
      expect((await store.list(s)).map((n) => n.id)).toEqual(['a']);
      // the same content in another scope is another observation
      const elsewhere = resolveScope({ userId: 'conflict-2' });
      await store.write({ scope: elsewhere, nodes: [{ ...twin, scope: elsewhere }] });
      expect(await store.count(elsewhere)).toBe(1);
    } finally {
      await store.close();
    }
  });
});

/**
 * Exactly-once writes across processes on one SQLite file (issue 32 point 1): WRITERS processes each
 * add ADDS observations through `createMemory` to one file at once, a third of the texts shared by
 * all of them (same text, time and scope), and one process is SIGKILLed mid-run. Afterwards: the file
 * passes the integrity checks, there is exactly one memory per distinct text and scope, every
 * acknowledged add is stored under the id it was acknowledged with, every ack of one text names the
 * same memory, and each memory has exactly one write-history row.
 *
 * Sizes: MEM_KILL_WRITERS (default 4) × MEM_KILL_ADDS: 60 in the default tier (`pnpm test`), 500 in
 * the integration tier (`pnpm --filter @mem/core test:integration`, which sets MEM_KILL_ADDS=500).
 * Loop it with `for i in $(seq 20); do MEM_KILL_ADDS=500 pnpm --filter @mem/core exec vitest run
 * src/write/many-writers.kill.test.ts || break; done`.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createSqliteStore } from '../store/index.js';
import { childForFile, onLines } from '../testdata/crash-harness.js';
import { MEMORY_SCHEMA_VERSION } from './memory.js';
import { HASH_EMBEDDER_DIMENSION, hashEmbedder } from './testdata/hash-embedder.js';
import { manyWritersJob } from './testdata/many-writers-job.js';

const WRITERS = Number(process.env.MEM_KILL_WRITERS ?? 4);
const ADDS = Number(process.env.MEM_KILL_ADDS ?? 60);
/** The killed writer stops after about this many acknowledged adds (plus a random few ms). */
const KILL_AFTER = Math.floor(ADDS / 3);

const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = join(here, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'mem-many-writers-'));
const child = childForFile(join(here, 'testdata', 'many-writers-child.ts'), pkgDir, 'mem-many-writers-test', { cleanup: () => rmSync(dir, { recursive: true, force: true }) });

interface Ack {
  text: string;
  user: string;
  id: string;
  action: string;
}

interface Writer {
  proc: ChildProcessWithoutNullStreams;
  acks: Ack[];
  ready: Promise<void>;
  /** Resolves with how the process ended. */
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; done: boolean }>;
}

function startWriter(path: string, w: number, onAck: (n: number) => void): Writer {
  const proc = spawn(process.execPath, [...child.command, path, String(w), String(ADDS)], { cwd: pkgDir, stdio: ['pipe', 'pipe', 'pipe'] });
  const acks: Ack[] = [];
  let stderr = '';
  let done = false;
  let onReady!: () => void;
  const ready = new Promise<void>((r) => (onReady = r));
  onLines(proc.stdout, (line) => {
    if (line === 'ready') onReady();
    else if (line === 'done') done = true;
    else if (line.startsWith('ack ')) {
      acks.push(JSON.parse(line.slice(4)) as Ack);
      onAck(acks.length);
    }
  });
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; done: boolean }>((resolve) =>
    proc.on('exit', (code, signal) => resolve({ code, signal, stderr, done })),
  );
  // a writer that dies before `ready` fails the test instead of leaving it waiting
  return { proc, acks, ready: Promise.race([ready, exit.then((e) => Promise.reject(new Error(`writer ${w} exited before ready: ${e.stderr}`)))]), exit };
}

describe('many writer processes on one SQLite file', () => {
  it(`${WRITERS} processes × ${ADDS} adds, a third shared, one SIGKILLed mid-run: exactly one memory per text and scope, no lost ack`, async () => {
    const path = join(dir, 'shared.sqlite');
    let killed = false;
    const writers: Writer[] = [];
    for (let w = 0; w < WRITERS; w++) {
      writers.push(
        startWriter(path, w, (n) => {
          if (w === 0 && !killed && n >= KILL_AFTER) {
            killed = true;
            setTimeout(() => writers[0]!.proc.kill('SIGKILL'), Math.floor(Math.random() * 20));
          }
        }),
      );
    }
    await Promise.all(writers.map((w) => w.ready));
    for (const w of writers) w.proc.stdin.end('go\n');
    const exits = await Promise.all(writers.map((w) => w.exit));
    expect(exits[0]!.signal, `writer 0 should have been killed: ${exits[0]!.stderr}`).toBe('SIGKILL');
    for (let w = 1; w < WRITERS; w++) {
      expect({ writer: w, code: exits[w]!.code, done: exits[w]!.done, stderr: exits[w]!.stderr.slice(-2000) }).toEqual({ writer: w, code: 0, done: true, stderr: '' });
      expect(writers[w]!.acks.length).toBe(ADDS);
    }

    const store = createSqliteStore({ path });
    await store.open({ schemaVersion: MEMORY_SCHEMA_VERSION, embeddingModel: hashEmbedder().model, dimension: HASH_EMBEDDER_DIMENSION });
    try {
      expect(store.checkIntegrity()).toEqual([]);
    } finally {
      await store.close();
    }
    const db = new Database(path, { readonly: true });
    try {
      const rows = db
        .prepare('SELECT s.user_id AS user, n.text AS text, n.id AS id FROM nodes n JOIN scopes s ON s.sid = n.sid')
        .all() as { user: string; text: string; id: string }[];
      const byKey = new Map<string, string[]>();
      for (const r of rows) {
        const k = `${r.user}\u0000${r.text}`;
        byKey.set(k, [...(byKey.get(k) ?? []), r.id]);
      }
      // exactly one memory per distinct text and scope
      const twice = [...byKey].filter(([, ids]) => ids.length !== 1).map(([k, ids]) => `${k.replace('\u0000', ': ')} ×${ids.length}`);
      expect(twice).toEqual([]);
      // every acknowledged add is there, under the id it was acknowledged with
      const acks = writers.flatMap((w) => w.acks);
      const wrong = acks.filter((a) => byKey.get(`${a.user}\u0000${a.text}`)?.[0] !== a.id).map((a) => `${a.user}: ${a.text} acked as ${a.id}`);
      expect(wrong).toEqual([]);
      // what the finished writers were given is all stored; nothing else is (the killed writer may have stored an unacknowledged one)
      const given = new Set<string>();
      for (let w = 0; w < WRITERS; w++) for (const it of manyWritersJob(w, ADDS)) given.add(`${it.user}\u0000${it.text}`);
      for (let w = 1; w < WRITERS; w++) for (const it of manyWritersJob(w, ADDS)) expect(byKey.has(`${it.user}\u0000${it.text}`)).toBe(true);
      expect([...byKey.keys()].filter((k) => !given.has(k))).toEqual([]);
      // each memory has exactly one write-history row (nothing partial, no second write)
      const writes = db.prepare("SELECT node_id AS id, COUNT(*) AS c FROM history WHERE op IN ('ADD', 'UPDATE', 'NOOP') GROUP BY node_id").all() as { id: string; c: number }[];
      expect(writes.filter((r) => r.c !== 1)).toEqual([]);
      expect(writes.length).toBe(rows.length);
    } finally {
      db.close();
    }
  }, 900_000);
});

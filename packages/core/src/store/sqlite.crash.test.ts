/**
 * Crash safety: a child process writes batches to a store file and is SIGKILLed at random moments,
 * 15 times; after each kill the file must pass integrity checks, every acknowledged batch must be
 * present in full, and no batch may be present in part.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom, testScope } from '../testing/index.js';
import { createSqliteStore } from './sqlite.js';

const here = dirname(fileURLToPath(import.meta.url));
const child = join(here, 'testdata', 'crash-child.ts');
const dir = mkdtempSync(join(tmpdir(), 'mem-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KILLS = 15;
const pkgDir = join(here, '..', '..');
// The child is bundled once with esbuild (tsx's own copy) so each start takes ~0.2 s instead of
// ~1 s under the tsx loader; without esbuild it runs through `--import tsx`.
let childCmd: string[] = ['--import', 'tsx', '--conditions=@mem/source', child];
beforeAll(async () => {
  try {
    const req = createRequire(createRequire(import.meta.url).resolve('tsx'));
    const esbuild = req('esbuild') as { build(options: Record<string, unknown>): Promise<unknown> };
    const outDir = join(pkgDir, 'node_modules', '.cache', 'mem-crash-test');
    mkdirSync(outDir, { recursive: true });
    const outfile = join(outDir, `child-${process.pid}.mjs`);
    await esbuild.build({
      entryPoints: [child],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile,
      external: ['better-sqlite3', 'hnswlib-node'],
      conditions: ['@mem/source'],
      logLevel: 'silent',
    });
    childCmd = [outfile];
  } catch {
    // keep the tsx command
  }
}, 60_000);
afterAll(() => rmSync(join(pkgDir, 'node_modules', '.cache', 'mem-crash-test', `child-${process.pid}.mjs`), { force: true }));
const PER_BATCH = 4;

function runAndKill(path: string, run: number, delayMs: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...childCmd, path, String(run)], {
      cwd: pkgDir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const acked: string[] = [];
    let buf = '';
    let err = '';
    let timer: NodeJS.Timeout | undefined;
    p.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line === 'ready' && !timer) timer = setTimeout(() => p.kill('SIGKILL'), delayMs);
        else if (line.startsWith('ack ')) acked.push(line.slice(4));
      }
    });
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(acked);
      else reject(new Error(`child exited with ${code}: ${err}`));
    });
  });
}

const scopes = [testScope('crash-a'), testScope('crash-b')];

/** Reopen the file and check: integrity, no partial batch, every acknowledged batch present. Returns the batch count. */
async function verify(path: string, acked: Set<string>): Promise<number> {
  const store = createSqliteStore({ path });
  await store.open({ schemaVersion: 1, embeddingModel: 'crash', dimension: 16 });
  try {
    expect(store.checkIntegrity()).toEqual([]);
    const batches = new Map<string, { nodes: number; relations: number; history: number }>();
    const entry = (id: string) => {
      const b = id.replace(/-(n|r)\d+$/, '');
      if (!batches.has(b)) batches.set(b, { nodes: 0, relations: 0, history: 0 });
      return batches.get(b)!;
    };
    for (const s of scopes) {
      for (const n of await store.list(s)) entry(n.id).nodes++;
      for (const r of await store.relations(s)) entry(r.id).relations++;
      for (const h of await store.history(s)) entry(h.nodeId!).history++;
    }
    for (const [id, c] of batches) expect(c, `batch ${id}`).toEqual({ nodes: PER_BATCH, relations: PER_BATCH - 1, history: PER_BATCH });
    for (const id of acked) expect(batches.has(id), `acknowledged batch ${id} is missing`).toBe(true);
    return batches.size;
  } finally {
    await store.close();
  }
}

describe('sqlite store survives SIGKILL during writes', () => {
  it(`${KILLS} random kills: integrity ok, every acknowledged batch present, no partial batch`, async () => {
    const path = join(dir, 'crash.db');
    const rnd = seededRandom(Date.now() >>> 0);
    const acked = new Set<string>();
    let batches = 0;
    for (let run = 0; run < KILLS; run++) {
      for (const id of await runAndKill(path, run, 30 + Math.floor(rnd() * 400))) acked.add(id);
      batches = await verify(path, acked);
    }
    expect(acked.size).toBeGreaterThan(KILLS); // the children did write between kills
    expect(batches).toBeGreaterThanOrEqual(acked.size);
  }, 90_000);

  it('two processes writing (and searching) the same file at once, both killed: nothing lost, nothing partial', async () => {
    const path = join(dir, 'two-writers.db');
    const [a, b] = await Promise.all([runAndKill(path, 100, 1200), runAndKill(path, 200, 1200)]);
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    await verify(path, new Set([...a, ...b]));
  }, 30_000);
});

/**
 * What 'shared' writers cost as the scopes grow (ours, issue 32 point 1, docs/reliability.md): 4
 * processes add the many-writers kill test's job (a third shared, two scopes) to one SQLite file,
 * at N and 4·N adds each, and print per size the memories the write path read back with
 * `store.list` (each add into a scope another process changed since rebuilds that scope from the
 * store) and the time; then the ratios 4·N / N. Reads growing ~16× for 4× the adds is the
 * quadratic rebuild that makes the Neo4j kill test slow at 4×500 (every read there crosses Bolt).
 *
 *   npx tsx --conditions=@mem/source bench/shared-writers.ts          # N = 60
 *   N=120 npx tsx --conditions=@mem/source bench/shared-writers.ts
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const N = Number(process.env.N ?? 60);
const here = dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'mem-shared-writers-'));

interface Run {
  /** Memories read back by scope rebuilds (`store.list`). */
  listed: number;
  /** Memories read back by incremental catch-ups (`getMany` of the new ones). */
  caughtUpNodes: number;
  rebuilt: number;
  caughtUp: number;
  replayed: number;
  ms: number;
}

async function run(adds: number): Promise<Run> {
  const path = join(dir, `w${adds}.sqlite`);
  const kids = [0, 1, 2, 3].map((w) =>
    spawn(process.execPath, ['--import', 'tsx', '--conditions=@mem/source', join(here, 'shared-writers-child.ts'), path, String(w), String(adds)], { cwd: join(here, '..'), stdio: ['pipe', 'pipe', 'inherit'] }),
  );
  const lines = kids.map((k) => {
    let out = '';
    k.stdout.on('data', (d) => (out += d));
    return { ready: new Promise<void>((r) => k.stdout.on('data', () => out.includes('ready\n') && r())), done: new Promise<string>((r) => k.on('exit', () => r(out))) };
  });
  await Promise.all(lines.map((l) => l.ready));
  for (const k of kids) k.stdin.end('go\n');
  const rows = (await Promise.all(lines.map((l) => l.done))).map((o) => JSON.parse(o.split('\n').find((l) => l.startsWith('{'))!));
  const sum = (f: string) => rows.reduce((a, r) => a + r[f], 0);
  return { listed: sum('listed'), caughtUpNodes: sum('caughtUpNodes'), rebuilt: sum('rebuilt'), caughtUp: sum('caughtUp'), replayed: sum('replayed'), ms: Math.max(...rows.map((r) => r.ms)) };
}

const line = (n: number, r: Run) =>
  `4 writers × ${n} adds: ${r.listed + r.caughtUpNodes} memories read back (${r.listed} by ${r.rebuilt} rebuilds, ${r.caughtUpNodes} by ${r.caughtUp} catch-ups), ${r.replayed} gate commits replayed, ${(r.ms / 1000).toFixed(1)} s`;

try {
  const small = await run(N);
  const large = await run(4 * N);
  console.log(line(N, small));
  console.log(line(4 * N, large));
  const reads = (r: Run) => r.listed + r.caughtUpNodes;
  console.log(`ratio (4× the adds): reads ${(reads(large) / reads(small)).toFixed(1)}×, replayed ${(large.replayed / Math.max(1, small.replayed)).toFixed(1)}×, time ${(large.ms / small.ms).toFixed(1)}× (machine load ${(await import('node:os')).loadavg()[0].toFixed(1)})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

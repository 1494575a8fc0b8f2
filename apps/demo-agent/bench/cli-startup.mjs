#!/usr/bin/env node
/**
 * Start-up bench of the built `mem` CLI (issue 36 point 4): wall time of
 *   - `node -e 0` (the baseline: Node's own start on this machine, now),
 *   - `mem --version` (target ≤ 0.2 s),
 *   - `mem ask` on a small store (the 69-turn sample; target ≤ 0.5 s),
 *   - the same `mem ask` through tsx from the TypeScript sources (`pnpm mem:dev`, what the bin ran before),
 * interleaved round by round, so the load of a shared machine hits every row alike. Prints the median
 * and the fastest run of each row, the ratio of each median to `node -e 0`'s, and the targets; and
 * the CPU time (user + system) of each process, which a loaded machine inflates far less than the
 * wall time (read by a `--require`d hook that writes `process.cpuUsage()` to stderr at exit).
 *
 *   pnpm --filter @mem/demo-agent build && pnpm --filter @mem/demo-agent bench:cli [--rounds 7]
 *     [--compare <another checkout's apps/demo-agent, built>]
 *
 * `--compare` adds a row: the same `mem ask` run by another build (e.g. a second worktree at an older
 * commit), interleaved with this one's, and prints this build's ask time as a ratio of that one's.
 *
 * The store is built once in a temporary folder with the built CLI (not timed). Offline: GloVe
 * embedder, offline System One, no System Two (MEM_LLM_* are removed from the children's env).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '7' }, compare: { type: 'string' } } });
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a positive integer, got ${values.rounds}`);

const app = fileURLToPath(new URL('..', import.meta.url));
const bin = path.join(app, 'bin', 'mem.js');
if (!existsSync(path.join(app, 'dist', 'cli.js'))) {
  console.error('bench:cli: the CLI is not built; run `pnpm --filter @mem/demo-agent... build` (or `pnpm build`) first');
  process.exit(1);
}
const otherBin = values.compare ? path.resolve(values.compare, 'bin', 'mem.js') : null;
if (otherBin && !existsSync(path.join(path.dirname(otherBin), '..', 'dist', 'cli.js'))) {
  console.error(`bench:cli: --compare ${values.compare} has no bin/mem.js with a built dist/cli.js`);
  process.exit(1);
}
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MEM_LLM_') && k !== 'MEM_SYSTEM_ONE' && k !== 'MEM_EMBEDDER'));
const dir = mkdtempSync(path.join(os.tmpdir(), 'mem-bench-cli-'));
const db = path.join(dir, 'small.sqlite');
const question = 'Why did Maya miss the planning meeting?';

// CPU time of a child: a hook preloaded with --require prints it on stderr when the process exits
const cpuHook = path.join(dir, 'cpu-at-exit.cjs');
writeFileSync(cpuHook, "process.on('exit', () => { const u = process.cpuUsage(); require('fs').writeSync(2, `\\nmem-bench-cpu ${(u.user + u.system) / 1000}\\n`); });\n");

function run(argv, opts = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(argv[0], ['--require', cpuHook, ...argv.slice(1)], { cwd: app, env, encoding: 'utf8', ...opts });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  const cpu = Number(/mem-bench-cpu ([\d.]+)/.exec(r.stderr)?.[1] ?? NaN);
  return { ms, cpu, stdout: r.stdout };
}

try {
  run([process.execPath, bin, '--db', db, '--user', 'maya', 'ingest', path.join(app, 'data', 'sample-conversation.json')]);
  const rows = [
    { name: 'node -e 0', argv: [process.execPath, '-e', '0'] },
    { name: 'mem --version', argv: [process.execPath, bin, '--version'], target: 200 },
    { name: `mem ask (69 memories)`, argv: [process.execPath, bin, '--db', db, '--user', 'maya', 'ask', question], target: 500 },
    { name: 'mem:dev ask (tsx, sources)', argv: [process.execPath, '--import', 'tsx', '--conditions=@mem/source', 'src/cli.ts', '--db', db, '--user', 'maya', 'ask', question] },
    ...(otherBin ? [{ name: `mem ask, --compare build`, argv: [process.execPath, otherBin, '--db', db, '--user', 'maya', 'ask', question] }] : []),
  ];
  // one untimed warm-up of each (file cache), then interleaved rounds
  for (const r of rows) run(r.argv);
  const times = rows.map(() => []);
  const cpus = rows.map(() => []);
  for (let i = 0; i < rounds; i++)
    rows.forEach((r, j) => {
      const x = run(r.argv);
      times[j].push(x.ms);
      cpus[j].push(x.cpu);
    });
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const base = median(times[0]);
  const cpuBase = median(cpus[0]);
  const load = os.loadavg().map((x) => x.toFixed(1)).join(' ');
  console.log(`mem CLI start-up, ${rounds} rounds · ${os.cpus()[0]?.model ?? 'cpu'} × ${os.cpus().length} · load average ${load} · Node ${process.version}`);
  console.log('| command | median ms | fastest ms | × node -e 0 | CPU ms (median) | CPU × node -e 0 | target (wall) |');
  console.log('|---|---:|---:|---:|---:|---:|---|');
  rows.forEach((r, j) => {
    const m = median(times[j]);
    const cm = median(cpus[j]);
    const target = r.target ? `≤ ${r.target} ms: ${m <= r.target ? 'met' : 'missed'} (median)` : '';
    console.log(`| ${r.name} | ${m.toFixed(0)} | ${Math.min(...times[j]).toFixed(0)} | ${(m / base).toFixed(2)} | ${cm.toFixed(0)} | ${(cm / cpuBase).toFixed(2)} | ${target} |`);
  });
  console.log(`built ask vs tsx ask: ${(median(times[3]) / median(times[2])).toFixed(2)}× faster`);
  if (otherBin)
    console.log(`this build's ask vs the --compare build's (${values.compare}): wall ${(median(times[2]) / median(times[4])).toFixed(2)}×, CPU ${(median(cpus[2]) / median(cpus[4])).toFixed(2)}×`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

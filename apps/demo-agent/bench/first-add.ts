/**
 * The first add after opening a large existing scope (issue 33 point 4; a script, not a test): on an
 * existing SQLite file (e.g. one `bench:scale --db` grew), opens a fresh stack and times its first
 * single-observation add, which rebuilds the scope's write-path state (gate, candidate index,
 * episode chain) before routing, then one more add. Rounds alternate two ways of rebuilding, in the
 * same process on the same file, so their ratio holds on a loaded machine:
 *  - `scan`: keyset pages of `MemoryStore.scanNodes` (digests, no text; the default);
 *  - `list`: the store's `scanNodes` hidden, so the rebuild pages `list` with offsets and decodes
 *    whole nodes (what the write path did before issue 33's change).
 * Prints per round: wall and CPU (this process) of the first add, the rebuild's parts
 * (`stats().gateState.rebuildMs`: store reads, candidate index, gate restore), the write stages of
 * the first add (`stats().timings`, ms), the second add, and RSS; then the medians per way and
 * list / scan ratios.
 *
 *   nice -n 10 pnpm --filter @mem/demo-agent bench:first-add --db /tmp/scale-100k.db [--rounds 2] [--user scale-0]
 */
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { synthetic } from '../../../packages/core/bench/synthetic';
import { createStack } from '../src/stack';

const { values } = parseArgs({ options: { db: { type: 'string' }, rounds: { type: 'string', default: '2' }, user: { type: 'string', default: 'scale-0' } } });
if (!values.db || !existsSync(values.db)) throw new Error('--db <existing SQLite file> is required (grow one with bench:scale --db)');
const ROUNDS = Number(values.rounds);
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
let next = 300_000_000 + (Math.floor(Date.now() / 1000) % 1_000_000) * 10; // fresh synthetic texts (never duplicates of an earlier run)
const obs = () => {
  const x = synthetic(next++);
  return { text: x.text, speaker: x.name, observedAt: x.observedAt };
};

type Way = 'scan' | 'list';
const results: Record<Way, { wall: number; cpu: number; second: number }[]> = { scan: [], list: [] };
console.log(`first add after opening ${values.db} (scope user ${values.user}); ${ROUNDS} rounds of scan / list; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} (shared machine)`);
for (let r = 0; r < ROUNDS; r++) {
  for (const way of (r % 2 ? ['list', 'scan'] : ['scan', 'list']) as Way[]) {
    const stack = await createStack({ db: values.db, store: 'sqlite', env: process.env, scope: { userId: values.user }, retriever: 'jev', embedder: 'glove', systemTwo: null });
    if (way === 'list') Object.assign(stack.store, { scanNodes: undefined }); // the rebuild then pages list()
    const memories = await stack.store.count(stack.scope);
    let t = performance.now();
    let c = cpuMs();
    await stack.add([obs()]);
    const wall = performance.now() - t;
    const cpu = cpuMs() - c;
    const stats = await stack.memory.stats();
    t = performance.now();
    await stack.add([obs()]);
    const second = performance.now() - t;
    results[way].push({ wall, cpu, second });
    const g = stats.gateState;
    const stages = Object.entries(stats.timings)
      .filter(([, ms]) => ms >= 1)
      .map(([k, ms]) => `${k} ${ms.toFixed(0)}`)
      .join(', ');
    console.log(
      `  round ${r + 1} ${way}: ${memories} memories; first add ${(wall / 1000).toFixed(2)} s wall, ${(cpu / 1000).toFixed(2)} s CPU ` +
        `(rebuild: store reads ${(g.rebuildMs.read / 1000).toFixed(2)} s, candidate index ${(g.rebuildMs.index / 1000).toFixed(2)} s, gate ${(g.rebuildMs.gate / 1000).toFixed(2)} s; ` +
        `${g.rebuildReads} memories read, gate ${g.restored} restored / ${g.replayedCommits} replayed; write stages ms: ${stages}); ` +
        `second add ${second.toFixed(0)} ms; RSS ${(process.memoryUsage().rss / 1048576).toFixed(0)} MB; load ${loadavg()[0]!.toFixed(1)}`,
    );
    c = cpuMs();
    await stack.close();
  }
}
const m = (way: Way, k: 'wall' | 'cpu' | 'second') => median(results[way].map((x) => x[k]));
console.log(`\n| rebuild | first add wall s (median) | first add CPU s | second add ms |`);
console.log(`|---|---:|---:|---:|`);
for (const way of ['scan', 'list'] as Way[]) console.log(`| ${way} | ${(m(way, 'wall') / 1000).toFixed(2)} | ${(m(way, 'cpu') / 1000).toFixed(2)} | ${m(way, 'second').toFixed(0)} |`);
console.log(`list / scan: wall ${(m('list', 'wall') / m('scan', 'wall')).toFixed(2)}×, CPU ${(m('list', 'cpu') / m('scan', 'cpu')).toFixed(2)}×`);

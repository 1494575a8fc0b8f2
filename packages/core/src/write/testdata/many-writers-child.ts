/**
 * One writer process of many-writers.kill.test.ts (issue 32 point 1): `createMemory` on the SQLite
 * file argv[2] (the real write path; a hash embedder and a regex extractor keep it fast), writer
 * number argv[3] of argv[4] observations. A third of the observations are shared by every writer
 * (same text, time and scope, so the same content hash), the rest are its own; two scopes. Prints
 * `ready` once open, waits for one line on stdin (every writer starts at once), then adds the
 * observations one by one, printing `ack {json}` (text, scope user, node id, action) after each
 * `add` resolved, and `done` at the end.
 */
import { createInterface } from 'node:readline';
import { createSqliteStore } from '../../store/index.js';
import { createMemory } from '../memory.js';
import { simpleExtractor } from '../test-kit.js';
import { hashEmbedder } from './hash-embedder.js';
import { manyWritersJob } from './many-writers-job.js';

const [path, writerArg, countArg] = [process.argv[2]!, process.argv[3]!, process.argv[4]!];

async function main(): Promise<void> {
  const memory = createMemory({ store: createSqliteStore({ path }), embedder: hashEmbedder(), extractor: simpleExtractor });
  // open the store (and create the file) before the start signal
  await memory.stats();
  process.stdout.write('ready\n');
  const rl = createInterface({ input: process.stdin });
  await new Promise<void>((resolve) => rl.once('line', () => resolve()));
  rl.close();
  for (const item of manyWritersJob(Number(writerArg), Number(countArg))) {
    const r = await memory.add({ text: item.text, observedAt: item.observedAt, scope: { userId: item.user } });
    process.stdout.write(`ack ${JSON.stringify({ text: item.text, user: item.user, id: r.node.id, action: r.action })}\n`);
  }
  await memory.close();
  process.stdout.write('done\n');
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});

/**
 * Child process of reembed.crash.test.ts: re-embeds the SQLite file argv[2] from the 16-d to the
 * 24-d hash test embedder with `reembedStore`, in batches of argv[3] texts, each embedder call
 * slowed by argv[4] ms and each scope of the switch transaction by argv[5] ms (a synchronous wait
 * inside the transaction, so that kills land in it too). Prints `ready`, then `ack done` when the
 * re-embedding returned. The parent SIGKILLs it at random moments.
 */
import { createSqliteStore } from '../../store/index.js';
import { hashEmbedder } from '../../write/testdata/hash-embedder.js';
import type { Embedder } from '../../types.js';
import { reembedStore } from '../reembed.js';

const [path, batch, embedMs, switchMs] = [process.argv[2]!, Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5])];
const inner = hashEmbedder(24);
const slow: Embedder = {
  model: inner.model,
  dimension: inner.dimension,
  async embed(texts) {
    await new Promise((r) => setTimeout(r, embedMs));
    return inner.embed(texts);
  },
};
const pause = new Int32Array(new SharedArrayBuffer(4));

async function main(): Promise<void> {
  process.stdout.write('ready\n');
  await reembedStore(createSqliteStore({ path }), slow, {
    batchSize: batch,
    onProgress: (e) => {
      if (e.phase === 'switch') Atomics.wait(pause, 0, 0, switchMs);
    },
  });
  process.stdout.write('ack done\n');
  // stay alive until killed (runAndKill expects a SIGKILL)
  setInterval(() => undefined, 1000);
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});

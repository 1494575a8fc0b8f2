/**
 * Child process of ingest.crash.test.ts: opens `createMemory` on the SQLite file given as argv[2]
 * (the real write path: validate, dedup, embed, typing, SAGE gate, candidates, relations,
 * consolidation, one atomic store write; a hash embedder and a regex extractor keep it fast) and adds
 * observations forever, printing `ack <sourceId>` once `add` resolved. It first re-adds the first
 * observation of the previous run (acknowledged or not), which must be stored at most once. The
 * parent SIGKILLs it at random moments.
 */
import { createSqliteStore } from '../../store/index.js';
import { createMemory } from '../memory.js';
import { simpleExtractor } from '../test-kit.js';
import { hashEmbedder } from './hash-embedder.js';

const [path, runArg] = [process.argv[2]!, process.argv[3]!];
const run = Number(runArg);
const scope = { namespace: 'crash', userId: 'ingest' };
const NAMES = ['Mira', 'Tom', 'Lena', 'Ravi', 'Sofia'];
const THINGS = ['bicycle', 'guitar', 'teapot', 'kite', 'canoe', 'lamp', 'camera'];

function observation(r: number, i: number) {
  return {
    text: `${NAMES[(r + i) % NAMES.length]} talked about the ${THINGS[(i * 3 + r) % THINGS.length]} (run ${r}, turn ${i}).`,
    speaker: NAMES[i % NAMES.length],
    observedAt: new Date(Date.UTC(2024, 0, 1 + r, 9, 0, i)).toISOString(),
    scope,
    sourceId: `r${r}:${i}`,
    metadata: { session: r },
  };
}

async function main(): Promise<void> {
  const memory = createMemory({
    store: createSqliteStore({ path }),
    embedder: hashEmbedder(),
    extractor: simpleExtractor,
    consolidateEvery: 5,
  });
  if (run > 0) {
    const again = await memory.add(observation(run - 1, 0));
    process.stdout.write(`ack ${again.node.provenance.sourceId}\n`);
  }
  process.stdout.write('ready\n');
  for (let i = 0; i < 100_000; ) {
    if (i % 4 === 3) {
      // a batch of three
      const obs = [0, 1, 2].map((j) => observation(run, i + j));
      const res = await memory.add(obs);
      for (const r of res) process.stdout.write(`ack ${r.node.provenance.sourceId}\n`);
      i += 3;
    } else {
      const r = await memory.add(observation(run, i));
      process.stdout.write(`ack ${r.node.provenance.sourceId}\n`);
      i++;
    }
  }
  await memory.close();
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});

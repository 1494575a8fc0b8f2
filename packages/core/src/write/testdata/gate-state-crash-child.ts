/**
 * Child process of gate-state.breakit.test.ts: on the SQLite file given as argv[2], seeds one scope
 * with synthetic nodes when it is empty, then forever writes a few nodes, commits them to the scope's
 * gate and saves the gate snapshot (`MemoryStore.saveState`) after every write, printing
 * `ack <n>` after each save. The parent SIGKILLs it at random moments, mostly inside a save.
 */
import { createNoveltyGate } from '@mem/gate-vmf';
import { resolveScope, scopeKey } from '../../scope.js';
import { createSqliteStore } from '../../store/index.js';
import type { MemoryNode } from '../../types.js';
import { GateRegistry, isGateMember } from '../gates.js';
import { DEFAULT_WRITE_GATE_OPTIONS, MEMORY_SCHEMA_VERSION, noveltyGateCodec } from '../memory.js';
import type { WriteGate } from '../ports.js';
import { syntheticNode } from './gate-state-kit.js';
import { HASH_EMBEDDER_DIMENSION, hashEmbedder } from './hash-embedder.js';

const path = process.argv[2]!;
const scope = resolveScope({ namespace: 'crash', userId: 'gate-state' });
const key = scopeKey(scope);
const dim = HASH_EMBEDDER_DIMENSION;

const node = (i: number): MemoryNode => syntheticNode(i, scope, { tag: 'crash' });

async function main(): Promise<void> {
  const store = createSqliteStore({ path });
  await store.open({ schemaVersion: MEMORY_SCHEMA_VERSION, embeddingModel: hashEmbedder().model, dimension: dim });
  let next = await store.count(scope);
  if (next === 0) {
    const seed = Array.from({ length: 1100 }, (_, i) => node(i));
    await store.write({ scope, nodes: seed });
    next = seed.length;
  }
  const o = DEFAULT_WRITE_GATE_OPTIONS;
  const registry = new GateRegistry(store, { factory: () => createNoveltyGate(o) as unknown as WriteGate, codec: noveltyGateCodec(createNoveltyGate(o).options) });
  const rt = await registry.runtime(scope, key);
  process.stdout.write('ready\n');
  for (;;) {
    const nodes = Array.from({ length: 5 }, () => node(next++));
    await store.write({ scope, nodes });
    let committed = 0;
    for (const n of nodes) {
      if (!isGateMember(n)) continue;
      rt.gate.commit(key, n.id, n.embedding);
      committed++;
    }
    // save after every write (the write path saves every max(250, 10 %) commits): the kill lands in a save
    await registry.afterCommit(rt, committed + 1_000_000);
    process.stdout.write(`ack ${next}\n`);
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});

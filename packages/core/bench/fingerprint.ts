/**
 * Graph fingerprint of a LoCoMo ingest (ours; a check for write-path speed-ups): ingests two
 * conversations of ../shared/data/locomo/locomo10-dev.json with the offline defaults and prints the
 * sha256 of every node's extraction, type scores, gate action, novelty and τ (9 digits) and every edge
 * (ends, view, subtype, probability to 9 digits, origin), sorted. Equal hashes = the same graph.
 *
 *   npx tsx --conditions=@mem/source bench/fingerprint.ts            # one add([...]) per session
 *   FP_SINGLE=1 npx tsx --conditions=@mem/source bench/fingerprint.ts # one add per observation
 *
 * Env: FP_CONVS (sample ids, default conv-26,conv-30), FP_OUT (write the sorted lines to a file).
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createWinkEmbedder } from '../src/embed/index.js';
import { createMemory } from '../src/write/memory.js';
import { readLocomo, readLocomoJsonOrExit } from './locomo.js';
import { createSqliteStore } from '../src/store/index.js';
const embedder = createWinkEmbedder();
readLocomoJsonOrExit(); // a clear message (and exit 2) when the data is not there
const sessions = readLocomo();
const convs = (process.env.FP_CONVS ?? 'conv-26,conv-30').split(',');
const store = createSqliteStore({ path: ':memory:' });
const memory = createMemory({ embedder, store });
const t = performance.now();
const scopes = new Map<string, any>();
for (const s of sessions) {
  if (!convs.includes(s.scope.userId)) continue;
  if (process.env.FP_SINGLE) for (const o of s.observations) await memory.add(o);
  else await memory.add(s.observations);
  scopes.set(s.scope.userId, s.scope);
}
const ms = performance.now() - t;
const lines: string[] = [];
for (const sc of scopes.values()) {
  const nodes = await memory.list({ scope: sc, limit: 100000 } as any);
  const txt = new Map(nodes.map((n: any) => [n.id, n.provenance.contentHash.slice(0, 12)]));
  for (const n of nodes as any[]) lines.push(`N ${txt.get(n.id)} ${JSON.stringify([n.entities, n.keywords, n.eventTime, n.types, n.gate?.action, n.gate?.novelty?.toFixed(9), n.gate?.threshold?.toFixed(9), n.obsoleteBy ? txt.get(n.obsoleteBy) : null])}`);
  const rs = await store.relations(await import('../src/scope.js').then(m => m.resolveScope(sc)), { limit: 1e7 });
  for (const r of rs) lines.push(`R ${txt.get(r.from)} ${txt.get(r.to)} ${r.view} ${r.subtype} ${r.probability.toFixed(9)} ${r.origin}`);
}
lines.sort();
const h = createHash('sha256').update(lines.join('\n')).digest('hex');
if (process.env.FP_OUT) writeFileSync(process.env.FP_OUT, lines.join('\n'));
console.log(`fingerprint ${h} lines ${lines.length} ingest ms ${ms.toFixed(0)}`);
const st = await memory.stats();
console.log(Object.fromEntries(Object.entries(st.timings).map(([k, v]) => [k, +(v / st.writes).toFixed(3)])), st.writes);
await memory.close();

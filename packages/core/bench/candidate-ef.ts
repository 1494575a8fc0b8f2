/**
 * Candidate k-NN breadth check (ours; backs MemoryOptions.candidateEfSearch): N synthetic observations
 * (the write bench's sentence generator) embedded by the offline embedder into one HNSW-indexed
 * scope; 200 held-out queries; per-query time and recall@10 against the exact scan at several ef.
 *
 *   npx tsx --conditions=@mem/source bench/candidate-ef.ts        # N = 100000 (about 1 min)
 *   N=10000 npx tsx --conditions=@mem/source bench/candidate-ef.ts
 */
import { createWinkEmbedder } from '../src/embed/index.js';
import { ScopeVectors, ANN_DEFAULTS } from '../src/store/vectors.js';
import { synthetic } from './synthetic.js';
const N = Number(process.env.N ?? 100000);
const e = createWinkEmbedder();
const texts = Array.from({ length: N }, (_, i) => synthetic(i).text);
const vs = await e.embed(texts);
const sv = new ScopeVectors(100, { ...ANN_DEFAULTS, build: 'blocking' });
vs.forEach((v, i) => sv.upsert(i + 1, v));
await sv.buildAnn(0);
const qs = await e.embed(Array.from({ length: 200 }, (_, i) => synthetic(10_000_000 + i).text));
const norm = (v: Float32Array) => { let s = 0; for (const x of v) s += x * x; return v.map((x) => x / Math.sqrt(s)); };
const Q = qs.map(norm);
const truth = Q.map((q) => sv.exact(q, 10).map((h) => h.rid));
let t = performance.now();
for (const q of Q) sv.exact(q, 10);
console.log(`N ${N}: exact scan ${((performance.now() - t) / Q.length).toFixed(3)} ms/query`);
for (const ef of [32, 64, 128, 256]) {
  (sv as any).ann_.efSearch = ef;
  for (const q of Q) sv.search(q, 10);
  t = performance.now(); let hit = 0;
  const res = Q.map((q) => sv.search(q, 10).map((h) => h.rid));
  const dt = (performance.now() - t) / Q.length;
  res.forEach((r, i) => { const s = new Set(truth[i]); hit += r.filter((x) => s.has(x)).length; });
  console.log(`ef ${ef}: ${dt.toFixed(3)} ms/query, recall@10 vs exact ${(hit / (10 * Q.length)).toFixed(4)}`);
}

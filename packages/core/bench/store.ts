/**
 * SQLite store benchmark (one run; not a test). Grows one scope to N = 1k, 10k, 100k synthetic
 * nodes (100-d unit vectors around 400 topic centres, 12-word texts) and measures at each N:
 *  - write p50/p95 of a single-node batch (node + relation + history row), the write path's unit;
 *  - vector k-NN (k = 10) p50 by exact scan and through the HNSW index, and HNSW recall@10 vs exact;
 *  - lexical (BM25) p50 for two-word queries, in the big scope and in a 100-node scope of the same file.
 * Prints ratios against the N = 1k baseline measured in the same run.
 *
 *   cd packages/core && npx tsx --conditions=@mem/source bench/store.ts [maxN] [uniform]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeHistory, makeNode, makeRelation, normalize, seededRandom, testScope, unitVector } from '../src/testing/index.js';
import { createSqliteStore } from '../src/store/sqlite.js';

const DIM = 100;
const maxN = Number(process.argv[2] ?? 100_000);
const CHECKPOINTS = [1_000, 10_000, 100_000].filter((n) => n <= maxN);
const WRITES = 300;
const QUERIES = 100;

const rnd = seededRandom(7);
const vocab = Array.from({ length: 3000 }, (_, i) => `w${i.toString(36)}${'aeiou'[i % 5]}`);
// Sentence embeddings are clustered, not uniform on the sphere: 400 topic centres plus noise (ours).
const centres = Array.from({ length: 400 }, (_, i) => unitVector(DIM, 7_000_000 + i));
// `bench.ts <maxN> uniform`: vectors uniform on the sphere instead (the worst case for HNSW).
const UNIFORM = process.argv[3] === 'uniform';
function embedding(seed: number): Float32Array {
  if (UNIFORM) return unitVector(DIM, seed);
  const c = centres[Math.floor(seededRandom(seed)() * centres.length)];
  const noise = unitVector(DIM, seed);
  return normalize(c.map((x, i) => x + 0.8 * noise[i]));
}
const sentence = () => Array.from({ length: 12 }, () => vocab[Math.floor(rnd() * rnd() * vocab.length)]).join(' ');

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
}
const ms = (x: number) => x.toFixed(3);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mem-store-bench-'));
  const path = join(dir, 'bench.db');
  const scope = testScope('bench');
  const meta = { schemaVersion: 1, embeddingModel: 'bench', dimension: DIM };
  // EF / EFC env vars override ann.efSearch / ann.efConstruction (defaults: the store's).
  const ann = {
    threshold: 5000,
    build: 'blocking' as const,
    ...(process.env.EF ? { efSearch: Number(process.env.EF) } : {}),
    ...(process.env.EFC ? { efConstruction: Number(process.env.EFC) } : {}),
  };
  const store = createSqliteStore({ path, ann });
  const exact = createSqliteStore({ path, ann: false });
  await store.open(meta);
  await exact.open(meta);
  // A small second scope in the same file: its lexical queries should not pay for the big one.
  const small = testScope('bench-small');
  await store.write({ scope: small, nodes: Array.from({ length: 100 }, (_, i) => makeNode(small, sentence(), embedding(5e8 + i))) });
  let n = 0;
  let seed = 1;
  const ids: string[] = [];
  const rows: Record<string, number | string>[] = [];
  try {
    for (const target of CHECKPOINTS) {
      // Bulk-load to (target - WRITES) in batches of 1000 (not timed as single writes).
      const tLoad = performance.now();
      while (n < target - WRITES) {
        const size = Math.min(1000, target - WRITES - n);
        const nodes = Array.from({ length: size }, () => makeNode(scope, sentence(), embedding(seed++)));
        await store.write({ scope, nodes });
        for (const x of nodes) ids.push(x.id);
        n += size;
        // The write path searches as it writes (candidate discovery); so does the bulk load.
        await store.vectorSearch(scope, nodes[0].embedding, 10);
      }
      const loadS = (performance.now() - tLoad) / 1000;
      // Warm the read path (vector cache; HNSW once the scope is above the threshold).
      const tBuild = performance.now();
      await store.vectorSearch(scope, unitVector(DIM, 1), 10);
      const buildS = (performance.now() - tBuild) / 1000;
      // Timed single-node writes.
      const wt: number[] = [];
      for (let i = 0; i < WRITES; i++) {
        const node = makeNode(scope, sentence(), embedding(seed++));
        const other = ids[Math.floor(rnd() * ids.length)];
        const t0 = performance.now();
        await store.write({ scope, nodes: [node], relations: [makeRelation(node.id, other)], history: [makeHistory(scope, 'ADD', node.id)] });
        wt.push(performance.now() - t0);
        ids.push(node.id);
        n++;
      }
      // Searches.
      const qs = Array.from({ length: QUERIES }, (_, i) => embedding(1e9 + i));
      const et: number[] = [];
      const at: number[] = [];
      let agree = 0;
      await exact.vectorSearch(scope, qs[0], 10);
      for (const q of qs) {
        let t0 = performance.now();
        const e = await exact.vectorSearch(scope, q, 10);
        et.push(performance.now() - t0);
        t0 = performance.now();
        const a = await store.vectorSearch(scope, q, 10);
        at.push(performance.now() - t0);
        const ex = new Set(e.map((h) => h.node.id));
        agree += a.filter((h) => ex.has(h.node.id)).length;
      }
      // QUERIES two-word lexical searches of `on` (a frequent word and a rarer one), ms each
      const lexicalTimes = async (on: typeof scope) => {
        const times: number[] = [];
        for (let i = 0; i < QUERIES; i++) {
          const q = `${vocab[Math.floor(rnd() * 300)]} ${vocab[Math.floor(rnd() * 3000)]}`;
          const t0 = performance.now();
          await store.lexicalSearch(on, q, 10);
          times.push(performance.now() - t0);
        }
        return times;
      };
      const lt = await lexicalTimes(scope);
      const st = await lexicalTimes(small);
      const status = store.annStatus(scope).state;
      rows.push({
        N: n,
        'load s': loadS.toFixed(1),
        'write p50 ms': ms(pct(wt, 0.5)),
        'write p95 ms': ms(pct(wt, 0.95)),
        'exact kNN p50 ms': ms(pct(et, 0.5)),
        'store kNN p50 ms': ms(pct(at, 0.5)),
        'store kNN path': status === 'ready' ? 'HNSW' : 'exact',
        'recall@10': (agree / (QUERIES * 10)).toFixed(3),
        'first-search s': buildS.toFixed(2),
        'BM25 p50 ms': ms(pct(lt, 0.5)),
        'BM25 p50 ms, 100-node scope': ms(pct(st, 0.5)),
      });
      console.log(JSON.stringify(rows[rows.length - 1]));
    }
  } finally {
    await store.close();
    await exact.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.table(rows);
  const base = rows[0];
  const last = rows[rows.length - 1];
  const ratio = (k: string) => (Number(last[k]) / Number(base[k])).toFixed(2);
  console.log(`write p50 ratio N=${last.N} / N=${base.N}: ${ratio('write p50 ms')} (target <= 3)`);
  console.log(`store kNN vs exact scan at N=${last.N}: ${(Number(last['exact kNN p50 ms']) / Number(last['store kNN p50 ms'])).toFixed(1)}x faster`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

/**
 * Flat search against its engines' floors (issue 33 point 1; one run, not a test). One scope of N
 * memories (default 10,000): the messages of the BEAM 500K conversations read at run time (never
 * copied), one memory per message (cut at 4,000 characters), embedded with the default GloVe
 * embedder; the queries are the BEAM probing questions. Measured in the same run, p50 / p95 in ms:
 *
 *  - `fts5 floor`: SQLite FTS5 `bm25()` alone on the same file (`MATCH` of the same query words,
 *    `ORDER BY bm25 LIMIT k`, row ids only);
 *  - `hnsw floor`: hnswlib-node `searchKnn` alone on the same vectors (same M / efConstruction /
 *    efSearch as the store's index, the query vector given);
 *  - `store.lexicalSearch`, `store.vectorSearch` (query vector given) and the bm25 / dense / hybrid
 *    retrievers (the query embedded: GloVe, ~0.1 ms);
 *
 * and prints each one's p50 as a multiple of its floor. Without BEAM data it uses synthetic texts.
 *
 *   cd packages/retrieval && nice -n 10 npx tsx --conditions=@mem/source bench/flat.ts [N] [queries]
 *
 * Env: MEM_BEAM_DIR (default ../../../shared/data/beam/500K from this package).
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import hnswlib from 'hnswlib-node';
import { ANN_DEFAULTS, createSqliteStore, createWinkEmbedder, ftsMatchQuery, resolveScope, type MemoryNode } from '@mem/core';
import { createBm25Retriever, createDenseRetriever, createHybridRetriever } from '../src/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const N = Number(process.argv[2] ?? 10_000);
const QUERIES = Number(process.argv[3] ?? 300);
const K = 10;
const beamDir = process.env.MEM_BEAM_DIR ?? path.resolve(here, '../../../../shared/data/beam/500K');

/** Message texts and probing questions of the BEAM conversations (read, never stored in the repo). */
function beamCorpus(): { texts: string[]; questions: string[] } | null {
  if (!existsSync(beamDir)) return null;
  const texts: string[] = [];
  const questions: string[] = [];
  const dirs = readdirSync(beamDir).filter((d) => /^\d+$/.test(d)).sort((a, b) => Number(a) - Number(b));
  for (const d of dirs) {
    const chat = JSON.parse(readFileSync(path.join(beamDir, d, 'chat.json'), 'utf8')) as { turns: { content?: string }[][] }[];
    for (const batch of chat) for (const turn of batch.turns ?? []) for (const m of turn) if (typeof m.content === 'string' && m.content.trim()) texts.push(m.content.slice(0, 4000));
    const q = JSON.parse(readFileSync(path.join(beamDir, d, 'probing_questions.json'), 'utf8')) as Record<string, { question?: string }[]>;
    for (const list of Object.values(q)) for (const x of list) if (typeof x.question === 'string') questions.push(x.question);
  }
  return { texts, questions };
}

function syntheticCorpus(): { texts: string[]; questions: string[] } {
  let s = 7;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const vocab = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`);
  const sentence = (n: number) => Array.from({ length: n }, () => vocab[Math.floor(rnd() * rnd() * vocab.length)]).join(' ');
  return { texts: Array.from({ length: N }, () => sentence(30)), questions: Array.from({ length: 200 }, () => sentence(8)) };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

async function main(): Promise<void> {
  const corpus = beamCorpus() ?? syntheticCorpus();
  const texts: string[] = [];
  while (texts.length < N) texts.push(...corpus.texts.slice(0, N - texts.length));
  const queries = Array.from({ length: QUERIES }, (_, i) => corpus.questions[i % corpus.questions.length]);
  const embedder = createWinkEmbedder();
  const dir = mkdtempSync(path.join(tmpdir(), 'mem-flat-bench-'));
  const file = path.join(dir, 'flat.db');
  const store = createSqliteStore({ path: file, ann: { build: 'blocking' } });
  const meta = { schemaVersion: 1, embeddingModel: embedder.model, dimension: embedder.dimension };
  await store.open(meta);
  const scope = resolveScope({ namespace: 'bench', userId: 'flat' });
  const t0 = performance.now();
  const vectors: Float32Array[] = [];
  for (let at = 0; at < texts.length; at += 500) {
    const chunk = texts.slice(at, at + 500);
    const vs = await embedder.embed(chunk);
    const nodes: MemoryNode[] = chunk.map((text, i) => {
      const n = at + i;
      const when = new Date(Date.UTC(2024, 0, 1) + n * 1000).toISOString();
      vectors.push(vs[i]);
      return {
        id: `m${n}`,
        scope,
        text,
        speaker: n % 2 ? 'assistant' : 'user',
        observedAt: when,
        eventTime: null,
        entities: [],
        keywords: [],
        types: { episodic: 1, semantic: 0, procedural: 0, preference: 0 },
        embedding: vs[i],
        gate: null,
        provenance: { sourceId: `m${n}`, contentHash: `h${n}`, metadata: {} },
        obsoleteBy: null,
        createdAt: when,
      };
    });
    await store.write({ scope, nodes, relations: [], history: [] });
  }
  await store.buildAnnIndex(scope);
  const buildS = (performance.now() - t0) / 1000;

  // Floors: the engines alone, on the same data.
  const raw = new Database(file, { readonly: true });
  const fts = raw.prepare('SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ? ORDER BY bm25(nodes_fts) LIMIT ?');
  const hnsw = new hnswlib.HierarchicalNSW('cosine', embedder.dimension);
  hnsw.initIndex(vectors.length, ANN_DEFAULTS.m, ANN_DEFAULTS.efConstruction, 100);
  vectors.forEach((v, i) => hnsw.addPoint(Array.from(v), i));
  hnsw.setEf(ANN_DEFAULTS.efSearch);
  const qvecs = await embedder.embed(queries);
  const qarrs = qvecs.map((v) => Array.from(v));

  const bm25 = createBm25Retriever({ store });
  const dense = createDenseRetriever({ store, embedder });
  const hybrid = createHybridRetriever({ store, embedder });
  const rows: [string, number[], string][] = [];
  // interleaved per query, so a load spike on the shared machine hits every line alike
  const lines: [string, string, (q: string, i: number) => unknown][] = [
    ['fts5 floor (bm25() alone)', 'fts', (q) => fts.all(`body : (${ftsMatchQuery(q)})`, K)],
    ['hnsw floor (searchKnn alone)', 'hnsw', (_q, i) => hnsw.searchKnn(qarrs[i], K)],
    ['store.lexicalSearch', 'fts', (q) => store.lexicalSearch(scope, q, K)],
    ['store.vectorSearch', 'hnsw', (_q, i) => store.vectorSearch(scope, qvecs[i], K)],
    ['bm25 retriever', 'fts', (q) => bm25.search({ scope, query: q, k: K })],
    ['dense retriever (embeds the query)', 'hnsw', (q) => dense.search({ scope, query: q, k: K })],
    ['hybrid retriever (embeds the query)', 'fts', (q) => hybrid.search({ scope, query: q, k: K })],
  ];
  const samples = new Map<string, number[]>(lines.map(([n]) => [n, []]));
  const ROUNDS = 3;
  for (const [, , fn] of lines) for (let i = 0; i < Math.min(20, queries.length); i++) await fn(queries[i], i); // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < queries.length; i++) {
      for (const [name, , fn] of lines) {
        const t = performance.now();
        await fn(queries[i], i);
        samples.get(name)!.push(performance.now() - t);
      }
    }
  }
  for (const [name, floor] of lines) rows.push([name, samples.get(name)!, floor]);
  const p50 = (name: string) => pct(samples.get(name)!, 0.5);
  const floors: Record<string, number> = { fts: p50(lines[0][0]), hnsw: p50(lines[1][0]) };

  console.log(`flat bench: ${N} memories in one scope (${corpus === null ? 'synthetic' : 'BEAM messages'}), ${queries.length} queries × ${ROUNDS} rounds, k = ${K}, GloVe ${embedder.dimension}-d; build ${buildS.toFixed(1)} s`);
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}; load average ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')} (shared machine: compare ratios, not absolute ms)`);
  console.log('| search | p50 ms | p95 ms | p50 / floor |');
  console.log('|---|---:|---:|---:|');
  for (const [name, xs, floor] of rows) {
    const ratio = name.includes('floor') ? '1.00× (floor)' : `${(pct(xs, 0.5) / floors[floor]).toFixed(2)}× ${floor === 'fts' ? 'fts5' : 'hnsw'}`;
    console.log(`| ${name} | ${pct(xs, 0.5).toFixed(3)} | ${pct(xs, 0.95).toFixed(3)} | ${ratio} |`);
  }
  raw.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();

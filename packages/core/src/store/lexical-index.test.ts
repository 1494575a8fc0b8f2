/** The in-process lexical index (lexical-index.ts) and the SQLite store's two lexical paths. */
import { describe, expect, it } from 'vitest';
import { makeNode, seededRandom, testScope, unitVector } from '../testing/index.js';
import { bm25Term } from './bm25.js';
import { ScopeTerms } from './lexical-index.js';
import { createSqliteStore } from './sqlite.js';
import { docTokens, searchTokens } from './text.js';

const META = { schemaVersion: 1, embeddingModel: 'test', dimension: 16 };
const A = testScope('alice');
const B = testScope('bob');
const WORDS = 'tea coffee river stone paint dog cat blue red green walk run the a of'.split(' ');

function texts(n: number, seed: number): string[] {
  const rnd = seededRandom(seed);
  return Array.from({ length: n }, () => Array.from({ length: 2 + Math.floor(rnd() * 12) }, () => WORDS[Math.floor(rnd() * rnd() * WORDS.length)]).join(' '));
}

/** Okapi BM25 of every document by brute force (the definition), best first, ties by lower id. */
function bruteForce(docs: Map<number, string>, query: string, k: number): { rid: number; score: number }[] {
  const terms = searchTokens(query);
  const toks = new Map([...docs].map(([rid, t]) => [rid, docTokens(t)]));
  const n = toks.size;
  const avg = [...toks.values()].reduce((s, t) => s + t.length, 0) / n;
  const out: { rid: number; score: number }[] = [];
  for (const [rid, t] of toks) {
    let score = 0;
    let hit = false;
    for (const q of terms) {
      const tf = t.filter((x) => x === q).length;
      if (!tf) continue;
      hit = true;
      const df = [...toks.values()].filter((d) => d.includes(q)).length;
      score += bm25Term(tf, df, t.length, avg, n);
    }
    if (hit) out.push({ rid, score });
  }
  return out.sort((a, b) => b.score - a.score || a.rid - b.rid).slice(0, k);
}

describe('ScopeTerms', () => {
  it('scores every document as Okapi BM25 with the scope statistics, also after removals and re-adds', () => {
    const docs = new Map(texts(120, 3).map((t, i) => [i + 1, t]));
    const index = new ScopeTerms();
    for (const [rid, t] of docs) index.add(rid, docTokens(t));
    const queries = ['tea river', 'the dog of the cat', 'green', 'nothing here', 'walk walk run'];
    const check = () => {
      for (const q of queries) {
        const got = index.search(searchTokens(q), 7);
        const want = bruteForce(docs, q, 7);
        expect(got.map((h) => h.rid)).toEqual(want.map((h) => h.rid));
        got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i].score, 9));
      }
    };
    check();
    for (const rid of [5, 6, 50, 119, 120]) {
      index.remove(rid, docTokens(docs.get(rid)!));
      docs.delete(rid);
    }
    check();
    docs.set(500, 'tea tea tea river');
    index.add(500, docTokens('tea tea tea river'));
    check();
    expect(index.size).toBe(docs.size);
    expect(() => index.add(500, ['x'])).toThrow(/already indexed/);
  });
});

describe('SqliteStore lexical search: in-process index vs FTS5 candidates', () => {
  it('returns the same hits and scores as re-scoring FTS5 candidates when the pool holds the whole scope', async () => {
    const fast = createSqliteStore({ path: ':memory:' });
    await fast.open(META);
    const ts = texts(150, 9);
    const nodes = ts.map((t, i) => makeNode(A, t, unitVector(16, i + 1)));
    await fast.write({ scope: A, nodes, relations: [], history: [] });
    await fast.write({ scope: B, nodes: texts(40, 10).map((t, i) => makeNode(B, t, unitVector(16, 900 + i))), relations: [], history: [] });
    // the same file content through a store whose index never fits: FTS5 candidates (pool 200 ≥ 150 nodes)
    const file = `${process.env.TMPDIR ?? '/tmp'}/mem-lexidx-${process.pid}-${Date.now()}.db`;
    const a = createSqliteStore({ path: file });
    const b = createSqliteStore({ path: file, lexicalCacheMB: 0 });
    await a.open(META);
    await b.open(META);
    await a.write({ scope: A, nodes, relations: [], history: [] });
    for (const q of ['tea river', 'the dog of the cat', 'green', 'walk run stone']) {
      const x = await a.lexicalSearch(A, q, 10);
      const y = await b.lexicalSearch(A, q, 10);
      expect(x.map((h) => h.node.id)).toEqual(y.map((h) => h.node.id));
      x.forEach((h, i) => expect(h.score).toBeCloseTo(y[i].score, 9));
      expect((await fast.lexicalSearchIds(A, q, 10)).map((h) => h.id)).toEqual(x.map((h) => h.node.id));
    }
    await Promise.all([fast.close(), a.close(), b.close()]);
  });

  it('keeps the index in step with its own writes, upserts and forgets, and drops it when another connection writes', async () => {
    const file = `${process.env.TMPDIR ?? '/tmp'}/mem-lexidx2-${process.pid}-${Date.now()}.db`;
    const one = createSqliteStore({ path: file });
    const two = createSqliteStore({ path: file });
    await one.open(META);
    await two.open(META);
    const n1 = makeNode(A, 'the otter swims in the river', unitVector(16, 1));
    const n2 = makeNode(A, 'a heron waits by the river', unitVector(16, 2));
    await one.write({ scope: A, nodes: [n1, n2], relations: [], history: [] });
    expect((await one.lexicalSearch(A, 'otter', 5)).map((h) => h.node.id)).toEqual([n1.id]); // index built
    // upsert: the old words leave the index, the new ones come in
    await one.write({ scope: A, nodes: [{ ...n1, text: 'the beaver builds a dam' }], relations: [], history: [] });
    expect(await one.lexicalSearch(A, 'otter', 5)).toEqual([]);
    expect((await one.lexicalSearch(A, 'beaver', 5)).map((h) => h.node.id)).toEqual([n1.id]);
    await one.forget(A, n2.id);
    expect(await one.lexicalSearch(A, 'heron', 5)).toEqual([]);
    // another connection's write is seen (the index is rebuilt)
    const n3 = makeNode(A, 'a kingfisher dives into the river', unitVector(16, 3));
    await two.write({ scope: A, nodes: [n3], relations: [], history: [] });
    expect((await one.lexicalSearch(A, 'kingfisher', 5)).map((h) => h.node.id)).toEqual([n3.id]);
    const viaIndex = await one.lexicalSearch(A, 'the river dam', 5);
    const viaFts = await createSqliteStore({ path: file, lexicalCacheMB: 0 });
    await viaFts.open(META);
    expect(viaIndex.map((h) => h.node.id)).toEqual((await viaFts.lexicalSearch(A, 'the river dam', 5)).map((h) => h.node.id));
    await Promise.all([one.close(), two.close(), viaFts.close()]);
  });
});

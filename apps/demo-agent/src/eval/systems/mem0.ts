/**
 * `mem0` in the LoCoMo evaluation (issue 7): the real `mem0ai` OSS `Memory` (3.3.1) as a peer
 * baseline, offline, beside the @mem systems in one run (ours: the wiring; mem0's retrieval is its own).
 *
 * Configuration — every choice is what makes mem0 run offline and comparably:
 * - `infer: false`: raw messages are stored (one mem0 memory per LoCoMo turn), no LLM extraction.
 *   The OpenAI client mem0 still constructs points at a loopback address and is never called.
 * - `MEM0_TELEMETRY=false` is set BEFORE `mem0ai/oss` is imported (dynamic import below): mem0 reads
 *   it at module load, and otherwise awaits telemetry calls to an outside host inside add/search.
 * - `MEM0_DIR` is a fresh temporary folder (mem0 keeps its telemetry id/config there).
 * - Embedder: provider `langchain` with an object exposing `embedQuery` / `embedDocuments`,
 *   backed by core's offline wink embedder (the same 100-d vectors the @mem systems use).
 * - Vector store `memory` (mem0's SQLite store) with `dbPath: ':memory:'`, `dimension: 100`;
 *   history in SQLite `:memory:` too (mem0's default history stays on, as in its default add path).
 * - Message content `"<speaker>: <text>"`, the format of mem0's own LoCoMo evaluation scripts;
 *   the dialogue id is kept in metadata (`source_id`) and read back from the search results.
 * - Search: mem0's default `search` (vector top max(4k, 60), BM25 re-scoring of those candidates,
 *   entity boost) with `filters: { user_id }`, `topK: k` and `threshold: 0` (mem0's default 0.1
 *   would drop low-scoring evidence, which would be unfair to it at recall@k).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveScope, type Embedder, type MemoryNode } from '@mem/core';
import { toContext } from '@mem/retrieval';
import type { EvalObservation } from '../locomo.js';
import { runEmbedder } from './embedder.js';
import type { EvalSystem, EvalSystemContext, EvalSystemFactory } from '../types.js';

type Mem0Module = typeof import('mem0ai/oss');

/** Loopback address the (never called) OpenAI client of mem0 is pointed at. */
const LOOPBACK_LLM = 'http://127.0.0.1:9/v1';

/** Import `mem0ai/oss` once per process, after making it offline. */
async function loadMem0(ctx: EvalSystemContext): Promise<Mem0Module> {
  let p = ctx.runShared.get('mem0:module') as Promise<Mem0Module> | undefined;
  if (!p) {
    p = (async () => {
      process.env.MEM0_TELEMETRY = 'false';
      const dir = await mkdtemp(join(tmpdir(), 'mem-eval-mem0-'));
      process.env.MEM0_DIR = dir;
      process.once('exit', () => {
        void rm(dir, { recursive: true, force: true });
      });
      return await import('mem0ai/oss');
    })();
    ctx.runShared.set('mem0:module', p);
  }
  return p;
}


/** A LangChain-`Embeddings`-shaped adapter (`embedQuery`, `embedDocuments`) over an @mem `Embedder`. */
export function toLangchainEmbeddings(embedder: Embedder): {
  embedQuery(text: string): Promise<number[]>;
  embedDocuments(texts: string[]): Promise<number[][]>;
} {
  return {
    async embedQuery(text) {
      const [v] = await embedder.embed([text]);
      return Array.from(v);
    },
    async embedDocuments(texts) {
      return (await embedder.embed(texts)).map((v) => Array.from(v));
    },
  };
}

/** A dialogue turn as a MemoryNode, only for rendering context (never stored in an @mem store). */
function asNode(o: EvalObservation, scope: MemoryNode['scope']): MemoryNode {
  return {
    id: o.sourceId,
    scope,
    text: o.text,
    speaker: o.speaker,
    observedAt: o.observedAt,
    eventTime: null,
    entities: [],
    keywords: [],
    types: { episodic: 0, semantic: 0, procedural: 0, preference: 0 },
    embedding: new Float32Array(0),
    gate: null,
    provenance: { sourceId: o.sourceId, contentHash: '', metadata: { session: o.session, turn: o.turn } },
    createdAt: o.observedAt,
  };
}

/** Factory registered as `mem0` in `systems/index.ts`. One mem0 `Memory` per conversation. */
export const mem0System: EvalSystemFactory = async (ctx) => {
  const { Memory } = await loadMem0(ctx);
  const embedder = runEmbedder(ctx); // the run's embedder, the same as the @mem systems'
  const memory = new Memory({
    version: 'v1.1',
    embedder: { provider: 'langchain', config: { model: toLangchainEmbeddings(embedder), embeddingDims: embedder.dimension } },
    vectorStore: { provider: 'memory', config: { collectionName: `locomo_${ctx.conversation}`, dimension: embedder.dimension, dbPath: ':memory:' } },
    llm: { provider: 'openai', config: { baseURL: LOOPBACK_LLM, apiKey: 'offline-unused', model: 'offline-unused' } },
    historyStore: { provider: 'sqlite', config: { historyDbPath: ':memory:' } },
  });
  const userId = `locomo-${ctx.conversation}`;
  const scope = resolveScope({ userId });
  /** The dialogue turns by id, to render mem0's hits in the same context format as the @mem systems. */
  const turns = new Map<string, MemoryNode>();

  const system: EvalSystem = {
    name: ctx.name,
    async build(observations: EvalObservation[]) {
      let stored = 0;
      for (const o of observations) {
        turns.set(o.sourceId, asNode(o, scope));
        const res = await memory.add([{ role: 'user', content: `${o.speaker}: ${o.text}` }], {
          userId,
          infer: false,
          metadata: { source_id: o.sourceId },
        });
        stored += res.results.length;
      }
      return { observations: stored, gate: { add: 0, update: 0, noop: 0 } };
    },
    async search(question, k, { budgetTokens }) {
      const res = await memory.search(question, { filters: { user_id: userId }, topK: k, threshold: 0 });
      const ids: string[] = [];
      const scores: number[] = [];
      for (const item of res.results) {
        const id = item.metadata?.source_id;
        if (typeof id === 'string' && !ids.includes(id)) {
          ids.push(id);
          scores.push(item.score ?? 0);
        }
        if (ids.length >= k) break;
      }
      const evidence = ids.flatMap((id, i) => (turns.has(id) ? [{ node: turns.get(id)!, score: scores[i], path: [] }] : []));
      return { ids, controllerCalls: 0, context: () => toContext({ evidence }, { tokenBudget: budgetTokens }).text };
    },
    async close() {
      // mem0's OSS Memory has no close(); its SQLite databases are in memory and go with it.
    },
  };
  return system;
};

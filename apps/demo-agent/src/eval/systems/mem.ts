/**
 * @mem systems for the LoCoMo evaluation (ours): one `createMemory` per conversation (SQLite in
 * memory, offline wink embedder, offline System One, SAGE gate, Jev write path), shared by every
 * @mem retriever evaluated on that conversation, so jev and the flat baselines read the same memory.
 */
import { MemValidationError, createMemory, createSqliteStore, resolveScope } from '@mem/core';
import { runEmbedder } from './embedder.js';
import type { Embedder, Memory, ResolvedScope, Retriever } from '@mem/core';
import { createOfflineBackend, createSystemOne } from '@mem/system-one';
import { createNoveltyGate } from '@mem/gate-vmf';
import {
  createBm25Retriever,
  createDenseRetriever,
  createHybridRetriever,
  createJevRetriever,
  toContext,
  type JevRetrieverOptions,
  type SystemOneLike,
} from '@mem/retrieval';
import type { EvalObservation } from '../locomo.js';
import type { EvalBuildStats, EvalSystem, EvalSystemContext, EvalSystemFactory } from '../types.js';

interface SharedMemory {
  memory: Memory;
  scope: ResolvedScope;
  systemOne: SystemOneLike;
  embedder: Embedder;
  /** Latest observation time: the `now` of every query (recency is relative to the conversation's end). */
  now: string;
  stats: EvalBuildStats;
}

const sharedEmbedder = runEmbedder;

/**
 * The offline System One the eval measures (ours): `createOfflineBackend({ embed })` with the same wink
 * embedder as the memory, so questions without a precomputed cosine (typing, routing, stopping) are
 * answered from embedding similarity instead of lexical overlap. The demo stack
 * (`apps/demo-agent/src/stack.ts`) builds its offline System One the same way.
 * `embed: false` gives the lexical-only backend (for comparison runs).
 */
export function createEvalSystemOne(embedder: Embedder, options: { embed?: boolean } = {}): SystemOneLike {
  const backend = options.embed === false ? createOfflineBackend() : createOfflineBackend({ embed: (texts) => embedder.embed(texts) });
  return createSystemOne({ backend }) as unknown as SystemOneLike;
}

/** Options of the shared memory (ours). */
export interface SharedMemoryOptions {
  /** Give the offline System One the wink embedder. Default true. */
  systemOneEmbed?: boolean;
}

/** Build (once per conversation and memory configuration) the memory every @mem retriever reads. */
async function sharedMemory(ctx: EvalSystemContext, observations: EvalObservation[], options: SharedMemoryOptions = {}): Promise<SharedMemory> {
  const embed = options.systemOneEmbed ?? true;
  const storeKind = ctx.store ?? 'sqlite';
  const key = `${embed ? 'mem' : 'mem-lexical-s1'}@${storeKind}`;
  let p = ctx.shared.get(key) as Promise<SharedMemory> | undefined;
  if (!p) {
    p = (async () => {
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const embedder = sharedEmbedder(ctx);
      const systemOne = createEvalSystemOne(embedder, { embed });
      // a run id keeps this run's memories apart from earlier runs in a persistent (Neo4j) database
      const scope = resolveScope({ userId: `locomo-${ctx.conversation}`, ...(storeKind === 'neo4j' ? { runId: `eval-${process.pid}-${Date.now()}` } : {}) });
      const memory = createMemory({
        store: storeKind === 'neo4j' ? await evalNeo4jStore() : createSqliteStore({ path: ':memory:' }),
        embedder,
        systemOne: systemOne as any,
        gate: () => createNoveltyGate() as any,
      });
      ctx.defer(async () => {
        // Neo4j keeps what was written: remove this run's memories (one forget per node; ours)
        try {
          if (storeKind === 'neo4j') for (const n of await memory.store.list(scope)) await memory.store.forget(scope, n.id);
        } catch {
          // never opened (the build failed and its error is what the run reports) or the server is gone
        }
        await memory.close();
      });
      const results = await memory.add(
        observations.map((o) => ({
          text: o.text,
          speaker: o.speaker,
          observedAt: o.observedAt,
          sourceId: o.sourceId,
          scope,
          metadata: { ...o.metadata, session: o.session, turn: o.turn },
        })),
      );
      // the retrievers read `memory.store` directly: open it even when nothing was written (an empty
      // conversation), so they answer with no evidence instead of STORE_ERROR "call store.open"
      await memory.list({ scope, limit: 1 });
      const gate = { add: 0, update: 0, noop: 0 };
      let stored = 0;
      for (const r of results) {
        if (r.action === 'add' || r.action === 'update' || r.action === 'noop') gate[r.action]++;
        if (r.stored) stored++;
      }
      const now = observations.reduce((m, o) => (o.observedAt > m ? o.observedAt : m), '1970-01-01T00:00:00.000Z');
      const cpu = process.cpuUsage(cpu0);
      return { memory, scope, systemOne, embedder, now, stats: { observations: stored, gate, seconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 } };
    })();
    ctx.shared.set(key, p);
  }
  return p;
}

/** The Neo4j store of `--store neo4j` / `--stores …,neo4j`: MEM_NEO4J_URI / MEM_NEO4J_USER / MEM_NEO4J_PASSWORD (loaded on demand). */
async function evalNeo4jStore() {
  const uri = process.env.MEM_NEO4J_URI;
  if (!uri) throw new MemValidationError('INVALID_INPUT', 'the neo4j store needs MEM_NEO4J_URI (e.g. run the eval under `node tools/neo4j-test-server/with-server.mjs`)');
  const { createNeo4jStore } = await import('@mem/graph-neo4j');
  return createNeo4jStore({ uri, user: process.env.MEM_NEO4J_USER ?? 'neo4j', password: process.env.MEM_NEO4J_PASSWORD ?? '' });
}

type RetrieverFactory = (m: SharedMemory) => Retriever;

/** An EvalSystem reading the shared @mem memory through `makeRetriever`. */
export function memSystem(makeRetriever: RetrieverFactory, memoryOptions: SharedMemoryOptions = {}): EvalSystemFactory {
  return (ctx) => {
    let mem: SharedMemory | null = null;
    let retriever: Retriever | null = null;
    const system: EvalSystem = {
      name: ctx.name,
      async build(observations) {
        mem = await sharedMemory(ctx, observations, memoryOptions);
        retriever = makeRetriever(mem);
        return mem.stats;
      },
      async search(question, k, { budgetTokens }) {
        if (!mem || !retriever) throw new Error('build() first');
        const res = await retriever.search({ scope: mem.scope, query: question, k, now: mem.now });
        const trace = res.trace as { controllerCalls?: number } | undefined;
        return {
          ids: res.evidence.map((e) => e.node.provenance.sourceId ?? e.node.id),
          controllerCalls: trace?.controllerCalls ?? 0,
          context: () => toContext(res, { tokenBudget: budgetTokens }).text,
        };
      },
      async close() {},
    };
    return system;
  };
}

/** Jev with options (ablations are registered as variants). */
export function jevSystem(
  options: Partial<Omit<JevRetrieverOptions, 'store' | 'systemOne' | 'embedder'>> = {},
  memoryOptions: SharedMemoryOptions = {},
): EvalSystemFactory {
  return memSystem((m) => createJevRetriever({ store: m.memory.store, systemOne: m.systemOne, embedder: m.embedder, ...options }), memoryOptions);
}

export const bm25System = memSystem((m) => createBm25Retriever({ store: m.memory.store }));
export const denseSystem = memSystem((m) => createDenseRetriever({ store: m.memory.store, embedder: m.embedder }));
export const hybridSystem = memSystem((m) => createHybridRetriever({ store: m.memory.store, embedder: m.embedder }));
/** The flat baselines before issue 38: the query embedded as given, speakers' names included (for comparison runs). */
export const denseQueryNamesSystem = memSystem((m) => createDenseRetriever({ store: m.memory.store, embedder: m.embedder, stripQueryNames: false }));
export const hybridQueryNamesSystem = memSystem((m) => createHybridRetriever({ store: m.memory.store, embedder: m.embedder, stripQueryNames: false }));

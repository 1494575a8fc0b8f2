/**
 * Small stand-ins for the write path's unit tests (not exported from the package). The real
 * SQLite store, gate, embedder and offline controller are used wherever a test does not need to
 * force a specific behaviour.
 */
import type { Embedder, MemoryStore, WriteBatch } from '../types.js';
import type { ControllerAnswer, ControllerQuestion, Extractor, WriteController, WriteGate } from './ports.js';

/** Extraction stand-in: capitalised words as entities, words ≥ 4 letters as keywords, no event time. */
export const simpleExtractor: Extractor = {
  extract: (t) => ({
    entities: [...new Set(t.match(/\b\p{Lu}\p{Ll}+\b/gu) ?? [])],
    keywords: [...new Set(t.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 3))],
    eventTime: null,
  }),
};

/** A controller answering every question by `answer(key, question)`; counts calls and questions. */
export function scriptedController(answer: (key: string, q: ControllerQuestion, state: Record<string, unknown>) => ControllerAnswer) {
  const stats = { calls: 0, questions: 0, keys: [] as string[] };
  const controller: WriteController = {
    async ask(state, questions) {
      stats.calls++;
      const answers: Record<string, ControllerAnswer> = {};
      for (const [k, q] of Object.entries(questions)) {
        stats.questions++;
        stats.keys.push(k);
        answers[k] = answer(k, q, state);
      }
      return { answers };
    },
  };
  return { controller, stats };
}

/** Wrap a controller so that its `n`-th call (1-based) throws. */
export function failingController(inner: WriteController, failOnCall: number, when?: (qs: Record<string, ControllerQuestion>) => boolean): WriteController {
  let n = 0;
  return {
    async ask(state, questions) {
      if (!when || when(questions)) {
        n++;
        if (n === failOnCall) throw new Error('controller down');
      }
      return inner.ask(state, questions);
    },
  };
}

/** Wrap an embedder so that its `n`-th call throws. */
export function failingEmbedder(inner: Embedder, failOnCall: number): Embedder {
  let n = 0;
  return {
    model: inner.model,
    dimension: inner.dimension,
    async embed(texts) {
      n++;
      if (n === failOnCall) throw new Error('embedder down');
      return inner.embed(texts);
    },
  };
}

/** Wrap a store so that `write` throws while `fail.on` is true. */
export function flakyStore(inner: MemoryStore): { store: MemoryStore; fail: { on: boolean }; writes: WriteBatch[] } {
  const fail = { on: false };
  const writes: WriteBatch[] = [];
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'write') {
        return async (batch: WriteBatch) => {
          if (fail.on) throw new Error('disk full');
          writes.push(batch);
          return target.write(batch);
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { store, fail, writes };
}

/** A gate that routes by a script over the n-th route call of a scope (for forcing Update / Noop), remembering commits. */
export function scriptedGate(route: (n: number) => 'add' | 'update' | 'noop'): WriteGate & { members: Map<string, string[]> } {
  const members = new Map<string, string[]>();
  const routed = new Map<string, number>();
  return {
    members,
    route(scope) {
      const ids = members.get(scope) ?? [];
      const n = routed.get(scope) ?? 0;
      routed.set(scope, n + 1);
      const action = ids.length === 0 ? 'add' : route(n);
      return {
        action,
        novelty: 0.5,
        score: 0,
        threshold: 0.1,
        kappa: 1,
        density: 1,
        nearest: ids.length ? { id: ids[ids.length - 1]!, cosine: 0.9 } : null,
      };
    },
    commit(scope, id) {
      const ids = members.get(scope) ?? [];
      ids.push(id);
      members.set(scope, ids);
    },
    remove(scope, id) {
      const ids = members.get(scope) ?? [];
      const i = ids.indexOf(id);
      if (i >= 0) ids.splice(i, 1);
      return i >= 0;
    },
    size(scope) {
      return members.get(scope)?.length ?? 0;
    },
  };
}

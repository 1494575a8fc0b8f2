// Small in-test stand-ins (not exported): an in-memory MemoryStore subset, a hashing embedder and a
// scripted System-One. Texts are our own.
import type { Embedder, MemoryNode, MemoryStore, Neighbor, Relation, RelationSubtype, ResolvedScope, ScoredNode } from '@mem/core';
import { RELATION_SUBTYPES, checkNeighborQuery, scopeKey } from '@mem/core';
import type { Answer, Question, SystemOneLike } from '../controller.js';

export const SCOPE: ResolvedScope = { namespace: 'default', userId: 'u1', agentId: '', runId: '' };
export const OTHER: ResolvedScope = { namespace: 'default', userId: 'u2', agentId: '', runId: '' };

const words = (t: string) => t.toLowerCase().match(/[a-z0-9]+/g) ?? [];

export function hashEmbedder(dimension = 64): Embedder {
  return {
    model: 'hash-test',
    dimension,
    async embed(texts) {
      return texts.map((t) => {
        const v = new Float32Array(dimension);
        for (const w of words(t)) {
          let h = 2166136261;
          for (const c of w) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
          v[Math.abs(h) % dimension] += 1;
        }
        const n = Math.hypot(...v) || 1;
        return v.map((x) => x / n);
      });
    },
  };
}

export async function makeNode(embedder: Embedder, id: string, text: string, opts: Partial<MemoryNode> = {}): Promise<MemoryNode> {
  const [embedding] = await embedder.embed([text]);
  return {
    id,
    scope: SCOPE,
    text,
    speaker: null,
    observedAt: '2024-05-14T10:00:00.000Z',
    eventTime: null,
    entities: [],
    keywords: [],
    types: { episodic: 0.5, semantic: 0.5, procedural: 0, preference: 0 },
    embedding,
    gate: null,
    provenance: { sourceId: id, contentHash: id, metadata: {} },
    createdAt: '2024-05-14T10:00:00.000Z',
    ...opts,
  };
}

export function rel(from: string, to: string, subtype: RelationSubtype, probability = 1): Relation {
  return { id: `${from}-${subtype}-${to}`, from, to, view: RELATION_SUBTYPES[subtype], subtype, probability, origin: 'rule', createdAt: '2024-01-01T00:00:00.000Z' };
}

/** In-memory store: cosine vector search, term-overlap "BM25", neighbours; counts calls. */
export function memoryStore(nodes: MemoryNode[], relations: Relation[] = []): MemoryStore & { calls: Record<string, number> } {
  const calls: Record<string, number> = { vectorSearch: 0, lexicalSearch: 0, neighbors: 0 };
  const inScope = (s: ResolvedScope) => nodes.filter((n) => scopeKey(n.scope) === scopeKey(s));
  const notImpl = async (): Promise<never> => {
    throw new Error('not in stand-in');
  };
  return {
    kind: 'memory-test',
    calls,
    open: async () => {},
    meta: async () => null,
    write: notImpl,
    get: async (s, id) => inScope(s).find((n) => n.id === id) ?? null,
    getMany: async (s, ids) => inScope(s).filter((n) => ids.includes(n.id)),
    list: async (s) => inScope(s),
    count: async (s) => inScope(s).length,
    findByContentHash: async () => null,
    async vectorSearch(s, v, k): Promise<ScoredNode[]> {
      calls.vectorSearch++;
      return inScope(s)
        .map((node) => ({ node, score: node.embedding.reduce((a, x, i) => a + x * v[i], 0) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, k);
    },
    async lexicalSearch(s, q, k): Promise<ScoredNode[]> {
      calls.lexicalSearch++;
      const qw = new Set(words(q));
      return inScope(s)
        .map((node) => ({ node, score: words(node.text).filter((w) => qw.has(w)).length }))
        .filter((h) => h.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, k);
    },
    async neighbors(s, ids, q = {}): Promise<Neighbor[]> {
      calls.neighbors++;
      checkNeighborQuery(q); // the same closed-enum check as the real adapters
      const map = new Map(inScope(s).map((n) => [n.id, n]));
      const out: Neighbor[] = [];
      for (const r of relations) {
        if (q.views && !q.views.includes(r.view)) continue;
        if (map.has(r.from) && ids.includes(r.from) && q.direction !== 'in' && map.has(r.to)) out.push({ relation: r, node: map.get(r.to)!, fromId: r.from });
        if (map.has(r.to) && ids.includes(r.to) && q.direction !== 'out' && map.has(r.from)) out.push({ relation: r, node: map.get(r.from)!, fromId: r.to });
      }
      return out.slice(0, q.limit ?? out.length);
    },
    relations: async () => relations,
    forget: notImpl,
    history: async () => [],
    scopes: async () => [SCOPE],
    close: async () => {},
  };
}

export interface ScriptedSystemOne extends SystemOneLike {
  calls: { state: Record<string, unknown>; questions: Record<string, Question> }[];
}

/**
 * Scripted controller: routing answers from `routing`; candidate relevance = the candidate's
 * precomputed cosine (clipped); other scoring Nouls 0.5; stopping from `stopping` (per call index).
 */
export function scriptedSystemOne(
  routing: Record<string, number>,
  stopping: (depth: number) => Record<string, number> = () => ({ evidence_sufficient: 0.1, continue_useful: 0.9, missing_evidence: 0.9, contradiction: 0 }),
): ScriptedSystemOne {
  const calls: ScriptedSystemOne['calls'] = [];
  return {
    calls,
    async ask(state, questions) {
      calls.push({ state, questions });
      const answers: Record<string, Answer> = {};
      for (const [id, q] of Object.entries(questions)) {
        if (!q.kind) throw new Error(`question ${id} has no kind`);
        if (id in routing) answers[id] = routing[id];
        const m = /^candidate_(\d+)_(.*)$/.exec(id);
        if (m) {
          const cand = (state.candidates as any[])[Number(m[1])];
          answers[id] = m[2] === 'relevance' ? Math.max(0, cand.cosine) : 0.5;
        }
        if (q.kind.startsWith('stopping.')) answers[id] = stopping(state.depth as number)[id] ?? 0.5;
      }
      return { answers };
    },
  };
}

/** `inner`, recording every text it is asked to embed (in call order) in `seen`. */
export function recording(inner: Embedder): Embedder & { seen: string[] } {
  const seen: string[] = [];
  return { model: inner.model, dimension: inner.dimension, seen, embed: async (texts) => (seen.push(...texts), inner.embed(texts)) };
}

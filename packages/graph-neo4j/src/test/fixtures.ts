// Test fixtures (ours): model objects with hostile strings, and a recording QueryRunner that
// captures the Cypher and parameters each store method sends. It does not imitate Neo4j: it answers
// with rows the test supplies, so these tests check queries and store logic only.
import type { MemoryNode, Relation, ResolvedScope } from '@mem/store-spec';
import type { CypherQuery } from '../queries.js';
import type { QueryRunner, Row } from '../runner.js';

export const HOSTILE = [
  "O'Brien said \"hi\"",
  'back`tick`) DETACH DELETE (n',
  'state-of-the-art — hyphen-ated',
  '東京タワーで会いましょう',
  '$scopeKey } RETURN 1 //',
];

export const scopeA: ResolvedScope = { namespace: 'default', userId: "alice'`-東京", agentId: '', runId: '' };
export const scopeB: ResolvedScope = { namespace: 'default', userId: 'bob', agentId: '', runId: '' };

export function unit(dim: number, seed: number): Float32Array {
  const v = new Float32Array(dim);
  let norm = 0;
  for (let i = 0; i < dim; i++) {
    v[i] = Math.sin(seed * 7.1 + i * 1.3);
    norm += v[i] * v[i];
  }
  for (let i = 0; i < dim; i++) v[i] /= Math.sqrt(norm);
  return v;
}

export function makeNode(id: string, text: string, scope: ResolvedScope = scopeA, dim = 4): MemoryNode {
  return {
    id,
    scope,
    text,
    speaker: 'Ann "the" `coder`',
    observedAt: '2024-05-01T10:00:00.000Z',
    eventTime: { start: '2024-04-30T00:00:00.000Z', end: null, expression: 'yesterday' },
    entities: ["O'Brien", '東京'],
    keywords: ['state-of-the-art'],
    types: { episodic: 0.9, semantic: 0.1, procedural: 0, preference: 0.2 },
    embedding: unit(dim, id.length + text.length),
    gate: { action: 'add', novelty: 0.4, score: 0.2, threshold: 0.1, kappa: 50, density: 1, nearest: null },
    provenance: { sourceId: 'D1:3', contentHash: 'hash-' + id, metadata: { note: text } },
    obsoleteBy: null,
    createdAt: '2024-05-01T10:00:01.000Z',
  };
}

export function makeRelation(id: string, from: string, to: string, subtype: Relation['subtype'] = 'RELATED_TO'): Relation {
  const view = ({ RELATED_TO: 'semantic', LEADS_TO: 'causal', PRECEDES: 'temporal', SAME_ENTITY: 'entity' } as Record<string, Relation['view']>)[subtype] ?? 'semantic';
  return { id, from, to, view, subtype, probability: 0.8, origin: 'controller', createdAt: '2024-05-01T10:00:02.000Z' };
}

export interface Recorded {
  mode: 'schema' | 'read' | 'write' | 'verify' | 'hold';
  /** Index of the write transaction this query ran in (-1 outside transactions). */
  tx: number;
  query?: CypherQuery;
}

/** A QueryRunner that records every query and answers with `respond(query)` rows. */
export function recordingRunner(respond: (q: CypherQuery) => Row[] = () => []): QueryRunner & { log: Recorded[]; closed: boolean; committed: number; rolledBack: number } {
  let txCount = 0;
  const self = {
    log: [] as Recorded[],
    closed: false,
    committed: 0,
    rolledBack: 0,
    async verify() {
      self.log.push({ mode: 'verify', tx: -1 });
    },
    async schema(query: CypherQuery) {
      self.log.push({ mode: 'schema', tx: -1, query });
      return respond(query);
    },
    async read(query: CypherQuery) {
      self.log.push({ mode: 'read', tx: -1, query });
      return respond(query);
    },
    async write<T>(work: (tx: { run(q: CypherQuery): Promise<Row[]> }) => Promise<T>): Promise<T> {
      const tx = txCount++;
      try {
        const out = await work({
          run: async (query) => {
            self.log.push({ mode: 'write', tx, query });
            return respond(query);
          },
        });
        self.committed++;
        return out;
      } catch (e) {
        self.rolledBack++;
        throw e;
      }
    },
    /** Records the lock query as its own transaction; `release()` counts as a rollback. */
    async hold(query: CypherQuery, _timeoutMs: number) {
      const tx = txCount++;
      self.log.push({ mode: 'hold', tx, query });
      respond(query);
      return {
        release: async () => {
          self.rolledBack++;
        },
      };
    },
    async close() {
      self.closed = true;
    },
  };
  return self;
}

/** Labels and relationship types used in a Cypher string: `(x:Label`, `[e:TYPE|TYPE2`. */
export function schemaNamesIn(cypher: string): string[] {
  const out: string[] = [];
  for (const m of cypher.matchAll(/[([]\s*\w*\s*:\s*([A-Za-z_|]+)/g)) out.push(...m[1].split('|'));
  return out;
}

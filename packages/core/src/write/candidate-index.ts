/**
 * In-memory entity / keyword index of one scope for candidate discovery (ours). It replaces a
 * per-write full-text query: the entity and keyword signals of the four-signal score only need
 * exact normalized overlaps, which a posting list answers in O(1) per term. Each posting list keeps
 * the `cap` most recent memories of its term (default 64), so a write never does O(N) work even for
 * a term every memory shares; the index is rebuilt from the store with the gate (gates.ts).
 */
import { normalizeEntity } from '../extract/index.js';
import type { MemoryNode } from '../types.js';
import { normalizeKeyword } from './signals.js';

/** What candidate scoring needs of a memory besides its embedding. */
export interface IndexedMemory {
  id: string;
  observedAtMs: number;
  entities: Set<string>;
  keywords: Set<string>;
}

export const DEFAULT_POSTING_CAP = 64;

export function indexedMemory(node: Pick<MemoryNode, 'id' | 'observedAt' | 'entities' | 'keywords'>): IndexedMemory {
  return {
    id: node.id,
    observedAtMs: Date.parse(node.observedAt),
    entities: new Set(node.entities.map(normalizeEntity).filter(Boolean)),
    keywords: new Set(node.keywords.map(normalizeKeyword).filter(Boolean)),
  };
}

export class CandidateIndex {
  private readonly postings = new Map<string, string[]>();
  private readonly records = new Map<string, IndexedMemory>();

  constructor(private readonly cap: number = DEFAULT_POSTING_CAP) {}

  get size(): number {
    return this.records.size;
  }

  get(id: string): IndexedMemory | undefined {
    return this.records.get(id);
  }

  /** Add a memory (in write order). */
  add(m: IndexedMemory): void {
    this.records.set(m.id, m);
    for (const e of m.entities) this.post(`e\u0000${e}`, m.id);
    for (const k of m.keywords) this.post(`k\u0000${k}`, m.id);
  }

  private post(term: string, id: string): void {
    let list = this.postings.get(term);
    if (!list) this.postings.set(term, (list = []));
    list.push(id);
    if (list.length >= 2 * this.cap) list.splice(0, list.length - this.cap);
  }

  /** Memories sharing an entity or a keyword with the given sets (the `cap` most recent per term). */
  lookup(entities: ReadonlySet<string>, keywords: ReadonlySet<string>): IndexedMemory[] {
    const out = new Map<string, IndexedMemory>();
    const take = (term: string) => {
      const list = this.postings.get(term);
      if (!list) return;
      for (let i = Math.max(0, list.length - this.cap); i < list.length; i++) {
        const r = this.records.get(list[i]!);
        if (r) out.set(r.id, r);
      }
    };
    for (const e of entities) take(`e\u0000${e}`);
    for (const k of keywords) take(`k\u0000${k}`);
    return [...out.values()];
  }
}

/** Default capacity of a scope's {@link NodeCache} (ours). */
export const DEFAULT_NODE_CACHE = 4096;

/**
 * A scope's recently written or read nodes, least recently used evicted first (ours). Candidate
 * discovery takes its candidates' full nodes from here instead of reading rows back from the store
 * (a candidate is usually a recent memory of the same conversation); a miss reads the store. Holds
 * copies (top level, embedding, entities, keywords), so a caller mutating a returned node cannot
 * change what the write path sees.
 */
export class NodeCache {
  private readonly map = new Map<string, MemoryNode>();

  constructor(readonly capacity: number = DEFAULT_NODE_CACHE) {}

  get size(): number {
    return this.map.size;
  }

  get(id: string): MemoryNode | undefined {
    const n = this.map.get(id);
    if (n !== undefined) {
      this.map.delete(id);
      this.map.set(id, n);
    }
    return n;
  }

  put(node: MemoryNode): void {
    if (this.capacity <= 0) return;
    this.map.delete(node.id);
    // the arrays the write path reads are copied too: a caller mutating a returned node's
    // embedding / entities / keywords / event time must not change later candidate scores
    // (adversarial.test.ts); partial nodes (tests) are copied as they are
    const copy: MemoryNode = { ...node };
    if (node.embedding) copy.embedding = node.embedding.slice();
    if (node.entities) copy.entities = node.entities.slice();
    if (node.keywords) copy.keywords = node.keywords.slice();
    if (node.eventTime) copy.eventTime = { ...node.eventTime };
    if (node.provenance) copy.provenance = { ...node.provenance, metadata: { ...node.provenance.metadata } };
    this.map.set(node.id, copy);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
  }

  /** Record an obsolescence the store acknowledged (no-op when the node is not cached). */
  markObsolete(id: string, by: string): void {
    const n = this.map.get(id);
    if (n) n.obsoleteBy = by;
  }
}

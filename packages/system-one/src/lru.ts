/**
 * LRU answer cache (ours), two-level: referenced-state key -> (question key -> answer). Questions of
 * one batch that read the same state values (e.g. the six routing questions on one query) share one
 * outer lookup. `maxSize` bounds the number of answers; the least recently used state key is evicted
 * with all its answers.
 *
 * Recency is a doubly linked list over the state keys (O(1) touch and eviction): a `Map` kept in
 * insertion order and evicted from its front slows down as deleted slots pile up at the front.
 */
interface Entry<V> {
  key: string;
  inner: Map<string, V>;
  prev: Entry<V> | null;
  next: Entry<V> | null;
}

export class AnswerCache<V> {
  private readonly map = new Map<string, Entry<V>>();
  /** Least recently used first. */
  private head: Entry<V> | null = null;
  private tail: Entry<V> | null = null;
  private count = 0;
  /** The entry of the previous `put` (consecutive puts usually share a state key); never an evicted one. */
  private lastKey: string | undefined;
  private lastEntry: Entry<V> | undefined;
  constructor(readonly maxSize: number) {}

  private unlink(e: Entry<V>): void {
    if (e.prev) e.prev.next = e.next;
    else this.head = e.next;
    if (e.next) e.next.prev = e.prev;
    else this.tail = e.prev;
    e.prev = e.next = null;
  }

  private append(e: Entry<V>): void {
    e.prev = this.tail;
    e.next = null;
    if (this.tail) this.tail.next = e;
    else this.head = e;
    this.tail = e;
  }

  /** The answers cached for a state key; marks it most recently used. */
  get(stateKey: string): Map<string, V> | undefined {
    const e = this.map.get(stateKey);
    if (e === undefined) return undefined;
    if (e !== this.tail) {
      this.unlink(e);
      this.append(e);
    }
    return e.inner;
  }

  /** Cache an answer (a new state key becomes the most recently used), then evict while over `maxSize`. */
  put(stateKey: string, questionKey: string, v: V): void {
    // the previous put's entry is still cached: only a put of another key evicts, and that put replaces lastKey
    let e = stateKey === this.lastKey ? this.lastEntry : this.map.get(stateKey);
    if (e === undefined) {
      e = { key: stateKey, inner: new Map(), prev: null, next: null };
      this.map.set(stateKey, e);
      this.append(e);
    }
    this.lastKey = stateKey;
    this.lastEntry = e;
    if (!e.inner.has(questionKey)) this.count++;
    e.inner.set(questionKey, v);
    while (this.count > this.maxSize && this.map.size > 1) {
      const oldest = this.head!;
      if (oldest === e) break;
      this.count -= oldest.inner.size;
      this.unlink(oldest);
      this.map.delete(oldest.key);
    }
  }

  /** Number of cached answers. */
  get size(): number {
    return this.count;
  }

  clear(): void {
    this.map.clear();
    this.head = this.tail = null;
    this.lastKey = this.lastEntry = undefined;
    this.count = 0;
  }
}

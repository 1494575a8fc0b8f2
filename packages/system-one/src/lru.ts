/**
 * LRU answer cache (ours), two-level: referenced-state key -> (question key -> answer). Questions of
 * one batch that read the same state values (e.g. the six routing questions on one query) share one
 * outer lookup. `maxSize` bounds the number of answers; the least recently used state key is evicted
 * with all its answers.
 *
 * A state key is either one string (`get` / `put`) or a pair of value keys (`getPair` / `putPair`,
 * the questions that read two paths, e.g. `new_memory` and `candidates.i`): the pair (a, b) is the
 * same state key as the string `a + '\u0001' + b` would be, stored in nested maps so that no joined
 * string is built and hashed (callers never put a raw U+0001 inside a value key). Recency is one doubly
 * linked list over all state keys (O(1) touch and eviction; a `Map` kept in insertion order and
 * evicted from its front slows down as deleted slots pile up at the front).
 */
interface Entry<V> {
  /** The string key, or the second key of a pair (then `parent` is the pair's inner map). */
  key: string;
  /** The first key of a pair. */
  first: string | undefined;
  parent: Map<string, Entry<V>> | undefined;
  inner: Map<string, V>;
  prev: Entry<V> | null;
  next: Entry<V> | null;
}

export class AnswerCache<V> {
  private readonly map = new Map<string, Entry<V>>();
  private readonly pairs = new Map<string, Map<string, Entry<V>>>();
  /** Least recently used first. */
  private head: Entry<V> | null = null;
  private tail: Entry<V> | null = null;
  private count = 0;
  private entries = 0;
  /** The entry of the previous put (consecutive puts usually share a state key); never an evicted one. */
  private last: Entry<V> | undefined;
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

  private touch(e: Entry<V> | undefined): Map<string, V> | undefined {
    if (e === undefined) return undefined;
    if (e !== this.tail) {
      this.unlink(e);
      this.append(e);
    }
    return e.inner;
  }

  /** The answers cached for a state key; marks it most recently used. */
  get(stateKey: string): Map<string, V> | undefined {
    return this.touch(this.map.get(stateKey));
  }

  /** `get` of the pair state key (a, b). */
  getPair(a: string, b: string): Map<string, V> | undefined {
    return this.touch(this.pairs.get(a)?.get(b));
  }

  /** Cache an answer (a new state key becomes the most recently used), then evict while over `maxSize`. */
  put(stateKey: string, questionKey: string, v: V): void {
    const l = this.last;
    let e = l !== undefined && l.first === undefined && l.key === stateKey ? l : this.map.get(stateKey);
    if (e === undefined) {
      e = { key: stateKey, first: undefined, parent: undefined, inner: new Map(), prev: null, next: null };
      this.map.set(stateKey, e);
      this.add(e);
    }
    this.store(e, questionKey, v);
  }

  /** `put` under the pair state key (a, b). */
  putPair(a: string, b: string, questionKey: string, v: V): void {
    const l = this.last;
    let e = l !== undefined && l.first === a && l.key === b ? l : this.pairs.get(a)?.get(b);
    if (e === undefined) {
      let m = this.pairs.get(a);
      if (m === undefined) this.pairs.set(a, (m = new Map()));
      e = { key: b, first: a, parent: m, inner: new Map(), prev: null, next: null };
      m.set(b, e);
      this.add(e);
    }
    this.store(e, questionKey, v);
  }

  private add(e: Entry<V>): void {
    this.entries++;
    this.append(e);
  }

  private store(e: Entry<V>, questionKey: string, v: V): void {
    this.last = e;
    if (!e.inner.has(questionKey)) this.count++;
    e.inner.set(questionKey, v);
    while (this.count > this.maxSize && this.entries > 1) {
      const oldest = this.head!;
      if (oldest === e) break;
      this.count -= oldest.inner.size;
      this.unlink(oldest);
      this.entries--;
      if (oldest.first === undefined) this.map.delete(oldest.key);
      else {
        oldest.parent!.delete(oldest.key);
        if (oldest.parent!.size === 0) this.pairs.delete(oldest.first);
      }
    }
  }

  /** Number of cached answers. */
  get size(): number {
    return this.count;
  }

  clear(): void {
    this.map.clear();
    this.pairs.clear();
    this.head = this.tail = null;
    this.count = 0;
    this.entries = 0;
    this.last = undefined;
  }
}

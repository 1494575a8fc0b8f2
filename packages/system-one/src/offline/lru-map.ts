/**
 * A `Map` bounded to `capacity` entries, least recently used evicted first (ours; issue 33: a
 * long-running `mem serve` kept every text it had scored). `get` of a present key moves it to the
 * end of the map's insertion order; `set` of a new key beyond `capacity` deletes the first (least
 * recently used) key. Memoisation only: an evicted entry is recomputed on its next use.
 */
export class LruMap<K, V> {
  private readonly map = new Map<K, V>();

  /** @param capacity max entries kept, an integer ≥ 1 */
  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`LruMap: capacity must be an integer >= 1, got ${capacity}`);
  }

  get size(): number {
    return this.map.size;
  }

  /** The value of `key` (now the most recently used), or undefined. */
  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  /** Whether `key` is present (does not count as a use). */
  has(key: K): boolean {
    return this.map.has(key);
  }

  /** Store `value` under `key` as the most recently used; evicts the least recently used beyond `capacity`. */
  set(key: K, value: V): this {
    if (this.map.has(key)) this.map.delete(key);
    else if (this.map.size >= this.capacity) this.map.delete(this.map.keys().next().value as K);
    this.map.set(key, value);
    return this;
  }

  clear(): void {
    this.map.clear();
  }
}

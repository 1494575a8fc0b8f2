// Frozen reference copy (commit c913a58) of the code before the per-question speed-up: used only by the identity
// tests (src/identity.test.ts) and as the same-run baseline of `pnpm bench`. Not exported, not built. Do not edit.
/**
 * LRU answer cache (ours), two-level: referenced-state key -> (question key -> answer). Questions of
 * one batch that read the same state values (e.g. the six routing questions on one query) share one
 * outer lookup. `maxSize` bounds the number of answers; the least recently used state key is evicted
 * with all its answers.
 */
export class AnswerCache<V> {
  private readonly map = new Map<string, Map<string, V>>();
  private count = 0;
  constructor(readonly maxSize: number) {}

  get(stateKey: string): Map<string, V> | undefined {
    const inner = this.map.get(stateKey);
    if (inner !== undefined) {
      this.map.delete(stateKey);
      this.map.set(stateKey, inner);
    }
    return inner;
  }

  put(stateKey: string, questionKey: string, v: V): void {
    let inner = this.map.get(stateKey);
    if (!inner) {
      inner = new Map();
      this.map.set(stateKey, inner);
    }
    if (!inner.has(questionKey)) this.count++;
    inner.set(questionKey, v);
    while (this.count > this.maxSize && this.map.size > 1) {
      const oldest = this.map.keys().next().value as string;
      if (oldest === stateKey) break;
      this.count -= this.map.get(oldest)!.size;
      this.map.delete(oldest);
    }
  }

  /** Number of cached answers. */
  get size(): number {
    return this.count;
  }

  clear(): void {
    this.map.clear();
    this.count = 0;
  }
}

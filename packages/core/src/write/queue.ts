/**
 * Per-key serialisation (ours): writes to one scope run one after another, writes to different
 * scopes run concurrently. `run(keys, fn)` takes every key at once (registration is synchronous),
 * so a multi-scope batch can never deadlock with single-scope writes.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();

  /** Run `fn` once every earlier task holding any of `keys` has settled. */
  run<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
    const unique = [...new Set(keys)];
    const before = unique.map((k) => this.tails.get(k) ?? Promise.resolve());
    let release!: () => void;
    const done = new Promise<void>((r) => (release = r));
    for (const k of unique) this.tails.set(k, done);
    const result = Promise.all(before).then(fn);
    void result.then(release, release).then(() => {
      for (const k of unique) if (this.tails.get(k) === done) this.tails.delete(k);
    });
    return result;
  }

  /** Resolves when every task queued so far has settled. */
  async idle(): Promise<void> {
    await Promise.all([...this.tails.values()]);
  }

  /** Number of keys with a pending task. */
  get size(): number {
    return this.tails.size;
  }
}

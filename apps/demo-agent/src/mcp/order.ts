/**
 * Per-scope ordering of MCP tool calls (ours; break-it point 4). A client may pipeline calls (send
 * `recall` right after `remember` without awaiting it); the SDK runs every request's handler as soon
 * as it arrives, so without this a read could run before the write sent before it was stored.
 *
 * Each call is queued, in the order the calls arrived, on the key of its scope: a read (`recall`,
 * `history`, `stats`) waits for every write queued before it on that key; a write (`remember`,
 * `forget`, and any other tool) waits for every call queued before it on that key. Reads queued
 * between two writes run together; calls on different scopes do not wait for each other. A call
 * that fails (or throws) releases the ones behind it as a success does.
 */

/** The tools that only read: they may run together; every other tool is a write. */
export const READ_TOOLS: ReadonlySet<string> = new Set(['recall', 'history', 'stats']);

interface KeyState {
  /** Settles when the last write queued on the key has finished (never rejects). */
  lastWrite: Promise<void>;
  /** Reads queued since that write, until each finishes (never reject). */
  reads: Set<Promise<void>>;
  /** Calls queued and not finished. */
  pending: number;
}

export interface ScopeOrder {
  /**
   * Queue `fn` on `key` now (synchronously: the order of `run` calls is the order kept) as a read or
   * a write; returns what `fn` returns or throws, once it ran.
   */
  run<T>(key: string, kind: 'read' | 'write', fn: () => Promise<T>): Promise<T>;
  /** Keys with calls queued or running (for tests: 0 when idle). */
  readonly busyKeys: number;
}

/** A fresh per-key queue (one per MCP connection; `mem serve` shares one across its /mcp requests). */
export function createScopeOrder(): ScopeOrder {
  const keys = new Map<string, KeyState>();
  const done = () => undefined;
  return {
    run<T>(key: string, kind: 'read' | 'write', fn: () => Promise<T>): Promise<T> {
      let st = keys.get(key);
      if (!st) keys.set(key, (st = { lastWrite: Promise.resolve(), reads: new Set(), pending: 0 }));
      const state = st;
      state.pending++;
      const gate = kind === 'read' ? state.lastWrite : Promise.all([state.lastWrite, ...state.reads]).then(done);
      const result = gate.then(fn);
      const settled = result.then(done, done);
      if (kind === 'read') {
        state.reads.add(settled);
        void settled.then(() => state.reads.delete(settled));
      } else {
        state.lastWrite = settled;
        state.reads = new Set();
      }
      void settled.then(() => {
        if (--state.pending === 0 && keys.get(key) === state) keys.delete(key);
      });
      return result;
    },
    get busyKeys() {
      return keys.size;
    },
  };
}

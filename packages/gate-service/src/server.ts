/**
 * `startGateServer` — the process behind `mem-gate serve` and `mem gate serve` (ours): restores the gate from
 * `statePath` (if the file exists), serves `createGateApp` on 127.0.0.1 by default. On start it
 * removes the temporary state files a killed earlier run left next to `statePath` (see
 * `removeStaleTempFiles`) and says so on stderr.
 */
import { createNoveltyGate, type GateOptions, type NoveltyGate } from '@mem/gate-vmf';
import { createGateApp, type GateApp, type TextEmbedder } from './app.js';
import { readState, removeStaleTempFiles } from './state.js';
import { listenJson } from './http.js';

export interface GateServerOptions {
  /** Default 127.0.0.1 (loopback only). */
  host?: string;
  /** 0 = a free port. Default 8788. */
  port?: number;
  /** JSON state file; restored on start, rewritten atomically after every mutation. Omitted = in-memory. */
  statePath?: string;
  /** Gate options for a new state (ignored when a state file is restored: it carries its options). Default `{ normalize: true }`. */
  gateOptions?: GateOptions;
  /** Embedder for `text` requests (e.g. @mem/core's offline `createWinkEmbedder()`); omitted or null = vectors only. */
  embedder?: TextEmbedder | null;
  bodyLimit?: number;
  /** Start-up notices (stale temporary files removed). Default: a line on stderr. */
  log?: (line: string) => void;
  /** Whether a pid is a running process (for the stale temporary files); for tests. */
  isProcessRunning?: (pid: number) => boolean;
}

export interface RunningGateServer {
  url: string;
  host: string;
  port: number;
  app: GateApp;
  /** The gate being served (after a restore: the restored one). */
  readonly gate: NoveltyGate;
  /** True when the state came from `statePath`. */
  restored: boolean;
  close(): Promise<void>;
}

export async function startGateServer(options: GateServerOptions = {}): Promise<RunningGateServer> {
  if (options.statePath) {
    const log = options.log ?? ((line: string) => console.error(line));
    const removed = await removeStaleTempFiles(options.statePath, { isRunning: options.isProcessRunning });
    for (const file of removed) log(`[mem gate] removed the stale temporary state file ${file} (left by a writer that is no longer running)`);
  }
  const state = options.statePath ? await readState(options.statePath) : null;
  const gate = state ? createNoveltyGate({ state }) : createNoveltyGate({ normalize: true, ...(options.gateOptions ?? {}) });
  const embedder = options.embedder ?? undefined;
  const app = createGateApp({ gate, embedder, statePath: options.statePath, bodyLimit: options.bodyLimit });
  const host = options.host ?? '127.0.0.1';
  const { server, port, url } = await listenJson(app.fetch, host, options.port ?? 8788);
  return {
    url,
    host,
    port,
    app,
    get gate() {
      return app.gate;
    },
    restored: state !== null,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as any).closeAllConnections?.();
      });
      await app.flush();
    },
  };
}

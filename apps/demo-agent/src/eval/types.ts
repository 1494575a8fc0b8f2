/**
 * The plug-in interface of the LoCoMo evaluation (ours): any memory system that can ingest
 * observations and return dialogue ids for a question is evaluated the same way. Register a system
 * in `systems/index.ts` with one line.
 */
import type { EvalObservation } from './locomo.js';

export interface EvalBuildStats {
  /** Observations stored. */
  observations: number;
  /** SAGE gate decisions during the build (zeros when the system has no gate). */
  gate: { add: number; update: number; noop: number };
  /**
   * Seconds of the build when it differs from the wall time the engine measured (e.g. several
   * systems sharing one memory report the shared build's time). Optional.
   */
  seconds?: number;
  /**
   * CPU seconds of the build (user + system of this process, `process.cpuUsage`), which a loaded
   * machine inflates far less than wall time. Optional.
   */
  cpuSeconds?: number;
}

export interface EvalSearchResult {
  /** Dialogue ids (observation `sourceId`s) in rank order, at most k. */
  ids: string[];
  /** System-One controller calls this query made (0 for flat retrievers). */
  controllerCalls?: number;
  /** The context System Two would read, packed within `budgetTokens`; computed after timing. */
  context?: () => string;
}

/** One system under test, for one conversation ("one memory per conversation"). */
export interface EvalSystem {
  readonly name: string;
  build(observations: EvalObservation[]): Promise<EvalBuildStats>;
  search(question: string, k: number, options: { budgetTokens: number }): Promise<EvalSearchResult>;
  close(): Promise<void>;
}

/** What a factory gets. */
export interface EvalSystemContext {
  /** The registered name the system runs under. */
  name: string;
  conversation: number;
  /** Lives for one conversation: systems may share a built memory here (e.g. key `mem`). */
  shared: Map<string, unknown>;
  /** Lives for the whole run: e.g. a loaded embedder. */
  runShared: Map<string, unknown>;
  /** Register cleanup to run after every system of the conversation finished. */
  defer(cleanup: () => Promise<void> | void): void;
  /** The store the @mem systems keep their memory in (`--store` / `--stores`); default `sqlite` (in memory). */
  store?: EvalStoreKind;
}

/** Store backends an eval can run the @mem systems on (ours): SQLite in memory, or Neo4j at MEM_NEO4J_URI. */
export type EvalStoreKind = 'sqlite' | 'neo4j';

export type EvalSystemFactory = (ctx: EvalSystemContext) => EvalSystem | Promise<EvalSystem>;

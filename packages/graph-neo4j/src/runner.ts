/**
 * The seam between the store's logic and the driver (ours): a `QueryRunner` executes
 * `{ cypher, params }` pairs. The driver-backed runner is the only production implementation;
 * unit tests substitute a recording runner to check the queries and parameters each method sends.
 */
import neo4j, { type Driver } from 'neo4j-driver';
import type { CypherQuery } from './queries.js';

export type Row = Record<string, unknown>;

export interface TxRunner {
  run(query: CypherQuery): Promise<Row[]>;
}

export interface QueryRunner {
  /** Check that the server is reachable and the credentials are accepted. */
  verify(): Promise<void>;
  /** Run a schema statement in its own auto-commit transaction. */
  schema(query: CypherQuery): Promise<Row[]>;
  /** Run a read query in a read transaction. */
  read(query: CypherQuery): Promise<Row[]>;
  /** Run `work` in ONE write transaction: committed when it resolves, rolled back when it throws. */
  write<T>(work: (tx: TxRunner) => Promise<T>): Promise<T>;
  /**
   * Open a write transaction, run `query` in it (taking the locks it writes) and keep it open:
   * `release()` rolls it back, so nothing it wrote is stored and its locks are freed (ours; the
   * store's `lockScopes`). `timeoutMs` bounds the transaction on the server, waiting included.
   * Not retried (a retried lock could be taken twice) and outside the session queue (a holder must
   * not wait behind the calls it is holding the lock for).
   */
  hold(query: CypherQuery, timeoutMs: number): Promise<{ release(): Promise<void> }>;
  close(): Promise<void>;
}

export interface DriverRunnerOptions {
  uri: string;
  user: string;
  password: string;
  database?: string;
  /** Bounds connecting, acquiring a pooled connection and the driver's transaction retries (ms). */
  connectionTimeoutMs: number;
  /** Extra `neo4j-driver` config (merged last). */
  driverConfig?: Record<string, unknown>;
  /**
   * Sessions in flight at once; further calls wait in this runner's queue (not in the driver's pool,
   * whose acquisition timeout would fail them). Default 32, below the driver's pool of 100: core's
   * batch `add` looks up every observation's content hash at once (419 at once in a LoCoMo
   * conversation exhausted the pool on a real server).
   */
  maxConcurrentSessions?: number;
}

/** A `QueryRunner` over `neo4j-driver` 5; each call opens a session and closes it in `finally`. */
export function createDriverRunner(options: DriverRunnerOptions): QueryRunner & { driver: Driver } {
  const t = options.connectionTimeoutMs;
  const driver = neo4j.driver(options.uri, neo4j.auth.basic(options.user, options.password), {
    connectionTimeout: t,
    connectionAcquisitionTimeout: t,
    // retries of a failed transaction stop after t/4, so with the ~1 s back-off of the driver a dead
    // server fails a call within t (measured on a real server killed mid-ingest: t = 3 s gave 7.4 s
    // when the retries were allowed the whole t)
    maxTransactionRetryTime: Math.floor(t / 4),
    disableLosslessIntegers: true,
    userAgent: '@mem/graph-neo4j',
    ...(options.driverConfig ?? {}),
  });
  const limit = Math.max(1, options.maxConcurrentSessions ?? 32);
  let active = 0;
  const waiting: (() => void)[] = [];
  /** Run `fn` when fewer than `limit` sessions are in flight (FIFO). */
  async function slot<T>(fn: () => Promise<T>): Promise<T> {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else active++;
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  }
  const toRows = (records: { toObject(): Row }[]): Row[] => records.map((r) => r.toObject());
  const session = (mode: 'READ' | 'WRITE') =>
    driver.session({ database: options.database, defaultAccessMode: mode === 'READ' ? neo4j.session.READ : neo4j.session.WRITE });
  /** `work` on a session of `mode`, in a concurrency slot; the session is closed whatever `work` does. */
  const withSession = <T>(mode: 'READ' | 'WRITE', work: (s: ReturnType<typeof session>) => Promise<T>): Promise<T> =>
    slot(async () => {
      const s = session(mode);
      try {
        return await work(s);
      } finally {
        await s.close();
      }
    });

  return {
    driver,
    async verify() {
      await driver.verifyConnectivity({ database: options.database });
    },
    schema: (query) => withSession('WRITE', async (s) => toRows((await s.run(query.cypher, query.params)).records as any)),
    read: (query) => withSession('READ', (s) => s.executeRead(async (tx) => toRows((await tx.run(query.cypher, query.params)).records as any))),
    write: (work) => withSession('WRITE', (s) => s.executeWrite((tx) => work({ run: async (query) => toRows((await tx.run(query.cypher, query.params)).records as any) }))),
    async hold(query, timeoutMs) {
      const s = session('WRITE');
      const tx = s.beginTransaction({ timeout: timeoutMs });
      const release = async () => {
        try {
          if (tx.isOpen()) await tx.rollback();
        } finally {
          await s.close();
        }
      };
      try {
        await tx.run(query.cypher, query.params);
      } catch (e) {
        await release().catch(() => undefined);
        throw e;
      }
      return { release };
    },
    async close() {
      await driver.close();
    },
  };
}

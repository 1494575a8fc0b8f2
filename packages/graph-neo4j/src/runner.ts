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
  const toRows = (records: { toObject(): Row }[]): Row[] => records.map((r) => r.toObject());
  const session = (mode: 'READ' | 'WRITE') =>
    driver.session({ database: options.database, defaultAccessMode: mode === 'READ' ? neo4j.session.READ : neo4j.session.WRITE });

  return {
    driver,
    async verify() {
      await driver.verifyConnectivity({ database: options.database });
    },
    async schema(query) {
      const s = session('WRITE');
      try {
        const res = await s.run(query.cypher, query.params);
        return toRows(res.records as any);
      } finally {
        await s.close();
      }
    },
    async read(query) {
      const s = session('READ');
      try {
        return await s.executeRead(async (tx) => toRows((await tx.run(query.cypher, query.params)).records as any));
      } finally {
        await s.close();
      }
    },
    async write(work) {
      const s = session('WRITE');
      try {
        return await s.executeWrite((tx) => work({ run: async (query) => toRows((await tx.run(query.cypher, query.params)).records as any) }));
      } finally {
        await s.close();
      }
    },
    async close() {
      await driver.close();
    },
  };
}

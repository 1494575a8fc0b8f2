// Helpers shared by the Neo4j integration tests (test tooling, not library code).
import neo4j from 'neo4j-driver';
import { INDEX_NAMES } from '../src/schema.js';

export const URI = process.env.MEM_NEO4J_URI;
export const USER = process.env.MEM_NEO4J_USER ?? 'neo4j';
export const PASSWORD = process.env.MEM_NEO4J_PASSWORD ?? 'mem-password';
export const DATABASE = process.env.MEM_NEO4J_DATABASE || undefined;

/** Print why a Neo4j integration file is skipped (never a silent pass). */
export function logSkip(file: string): void {
  if (URI) return;
  console.log(
    `[graph-neo4j] ${file} SKIPPED: ${process.env.MEM_NEO4J_SKIP_REASON ?? 'MEM_NEO4J_URI is not set'}. ` +
      'Run `pnpm --filter @mem/graph-neo4j test:integration` (starts an embedded Neo4j 5.26 from Maven Central; needs Java 17+ and Maven), or set MEM_NEO4J_URI to your server.',
  );
}

type Session = ReturnType<ReturnType<typeof neo4j.driver>['session']>;

/** Run `fn` in a fresh driver session on the server under test. */
export async function withSession<T>(fn: (s: Session) => Promise<T>, uri = URI!): Promise<T> {
  const driver = neo4j.driver(uri, neo4j.auth.basic(USER, PASSWORD), { disableLosslessIntegers: true });
  const session = driver.session({ database: DATABASE });
  try {
    return await fn(session);
  } finally {
    await session.close();
    await driver.close();
  }
}

/**
 * Remove everything the store writes. The vector index is dropped only when its dimension differs
 * from the next test's (a new dimension needs a new index); the other indexes stay (open() is idempotent).
 */
export async function resetDatabase(dimension?: number, uri = URI!): Promise<void> {
  await withSession(async (session) => {
    await session.run('MATCH (n) WHERE n:Memory OR n:MemoryHistory OR n:MemoryMeta OR n:MemoryState CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS');
    const rows = (await session.run('SHOW VECTOR INDEXES YIELD name, options WHERE name = $name RETURN options', { name: INDEX_NAMES.vector })).records;
    const dim = rows.length ? Number(rows[0].get('options')?.indexConfig?.['vector.dimensions']) : undefined;
    if (rows.length && dim !== dimension) await session.run(`DROP INDEX ${INDEX_NAMES.vector} IF EXISTS`);
  }, uri);
}

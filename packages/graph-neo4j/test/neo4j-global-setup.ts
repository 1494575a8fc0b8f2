// Vitest global setup of the integration tier (`pnpm --filter @mem/graph-neo4j test:integration`):
// starts the Neo4j test server of tools/neo4j-test-server (an embedded Neo4j 5.26 from Maven
// Central, Bolt on 127.0.0.1 and a free port, generated password, temporary data folder), exports
// MEM_NEO4J_URI / MEM_NEO4J_USER / MEM_NEO4J_PASSWORD to the test workers, and stops it by PID.
// With MEM_NEO4J_URI already set, that server is used and nothing is started.
// Without Java 17+ / Maven the tests skip with the reason, unless MEM_NEO4J_REQUIRED=1 (CI): then it fails.
// @ts-expect-error plain ESM helper without type declarations
import { missingPrerequisite, startServer } from '../../../tools/neo4j-test-server/server.mjs';

export default async function setup(): Promise<(() => Promise<void>) | void> {
  if (process.env.MEM_NEO4J_URI) {
    console.log(`[graph-neo4j] integration tier: using MEM_NEO4J_URI=${process.env.MEM_NEO4J_URI}`);
    return;
  }
  const missing: string | null = missingPrerequisite();
  if (missing) {
    const msg = `[graph-neo4j] integration tier: cannot start the Neo4j test server: ${missing}`;
    if (process.env.MEM_NEO4J_REQUIRED === '1') throw new Error(msg);
    console.log(`${msg}. The Neo4j tests are SKIPPED.`);
    process.env.MEM_NEO4J_SKIP_REASON = missing;
    return;
  }
  const started = Date.now();
  const server = await startServer();
  console.log(`[graph-neo4j] Neo4j ${server.version} (Java ${server.java}) at ${server.uri}, pid ${server.pid}, ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.env.MEM_NEO4J_URI = server.uri;
  process.env.MEM_NEO4J_USER = server.user;
  process.env.MEM_NEO4J_PASSWORD = server.password;
  process.env.MEM_NEO4J_VERSION = server.version;
  return async () => {
    await server.stop();
  };
}

// Run one command with a Neo4j test server (server.mjs) started for it:
//   node tools/neo4j-test-server/with-server.mjs <command> [args…]
// The command gets MEM_NEO4J_URI, MEM_NEO4J_USER, MEM_NEO4J_PASSWORD in its environment; the server
// (temporary data folder) is stopped when it exits, and its exit code is passed on.
import { spawn } from 'node:child_process';
import { startServer } from './server.mjs';

const [cmd, ...args] = process.argv.slice(2);
if (!cmd) {
  console.error('usage: with-server.mjs <command> [args…]');
  process.exit(2);
}
const server = await startServer();
console.error(`[neo4j-test-server] Neo4j ${server.version} (Java ${server.java}) at ${server.uri}, pid ${server.pid}`);
const child = spawn(cmd, args, {
  stdio: 'inherit',
  env: { ...process.env, MEM_NEO4J_URI: server.uri, MEM_NEO4J_USER: server.user, MEM_NEO4J_PASSWORD: server.password },
});
const code = await new Promise((resolve) => child.once('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
await server.stop();
process.exit(code);

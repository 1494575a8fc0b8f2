// Build and run the Neo4j test server (Main.java next to this file) for @mem/graph-neo4j's
// integration tier (issue #14). Test tooling only: nothing in a published package imports it.
//
//   node tools/neo4j-test-server/server.mjs build   # fetch org.neo4j:neo4j from Maven Central (~125 MB, once) and compile
//   node tools/neo4j-test-server/server.mjs start   # build if needed, start, print the READY line, stop on Ctrl-C
//
// Cache: $MEM_NEO4J_SERVER_CACHE, else ~/.cache/mem/neo4j-test-server/<hash of pom.xml + Main.java>.
// Java: $JAVA_HOME/bin/java (else `java` on PATH), major version >= 17; Maven: `mvn` on PATH.
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const POM = join(HERE, 'pom.xml');
const MAIN = join(HERE, 'src/main/java/mem/testserver/Main.java');

/** `$JAVA_HOME/bin/<tool>` when JAVA_HOME is set, else the bare tool name (PATH). */
function jdkTool(tool) {
  return process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', tool) : tool;
}

/**
 * Why the server cannot be built here (no Java 17+, no javac, no Maven), or null when it can.
 * @returns {string | null}
 */
export function missingPrerequisite() {
  const java = spawnSync(jdkTool('java'), ['-version'], { encoding: 'utf8' });
  if (java.error || java.status !== 0) return `no Java found (${jdkTool('java')}); install a JDK 17+ (Debian: apt-get install openjdk-17-jdk-headless) or set JAVA_HOME`;
  const m = /version "(\d+)(?:\.(\d+))?/.exec(java.stderr ?? '');
  const major = m ? (m[1] === '1' ? Number(m[2]) : Number(m[1])) : 0;
  if (major < 17) return `Java ${major || '?'} found; Neo4j 5.26 needs Java 17 or later (set JAVA_HOME)`;
  const javac = spawnSync(jdkTool('javac'), ['-version'], { encoding: 'utf8' });
  if (javac.error || javac.status !== 0) return 'no javac found (a JDK, not only a JRE, is needed)';
  const mvn = spawnSync('mvn', ['-v'], { encoding: 'utf8' });
  if (mvn.error || mvn.status !== 0) return 'no Maven (mvn) found; install it (Debian: apt-get install maven)';
  return null;
}

/** The cache folder for the current pom.xml + Main.java (a change rebuilds into a new folder). */
export function cacheDir() {
  if (process.env.MEM_NEO4J_SERVER_CACHE) return process.env.MEM_NEO4J_SERVER_CACHE;
  const hash = createHash('sha256').update(readFileSync(POM)).update(readFileSync(MAIN)).digest('hex').slice(0, 12);
  return join(homedir(), '.cache', 'mem', 'neo4j-test-server', hash);
}

function run(cmd, args, what) {
  const r = spawnSync(cmd, args, { cwd: HERE, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.error || r.status !== 0) throw new Error(`neo4j-test-server: ${what} failed (${cmd} ${args.join(' ')}): ${r.error?.message ?? `exit ${r.status}`}`);
}

/**
 * Fetch the classpath once (`mvn dependency:copy-dependencies`) and compile Main.java; a no-op when
 * the cache folder is complete. Throws when a prerequisite is missing or a step fails.
 * @returns {{ dir: string, classpath: string }}
 */
export function buildServer() {
  const dir = cacheDir();
  const classpath = `${join(dir, 'classes')}:${join(dir, 'lib', '*')}`;
  const stamp = join(dir, 'BUILT');
  if (existsSync(stamp)) return { dir, classpath };
  const missing = missingPrerequisite();
  if (missing) throw new Error(`neo4j-test-server: ${missing}`);
  mkdirSync(dir, { recursive: true });
  rmSync(join(dir, 'classes'), { recursive: true, force: true });
  run('mvn', ['-B', '-q', '-f', POM, 'dependency:copy-dependencies', `-DoutputDirectory=${join(dir, 'lib')}`, '-DincludeScope=runtime'], 'fetching org.neo4j:neo4j from Maven Central');
  run(jdkTool('javac'), ['--release', '17', '-nowarn', '-d', join(dir, 'classes'), '-cp', join(dir, 'lib', '*'), MAIN], 'compiling Main.java');
  writeFileSync(stamp, new Date().toISOString() + '\n');
  return { dir, classpath };
}

/**
 * @typedef {object} Neo4jTestServer
 * @property {string} uri       bolt://127.0.0.1:PORT
 * @property {number} port
 * @property {string} user      always `neo4j`
 * @property {string} password  generated (or the one passed in)
 * @property {string} version   Neo4j version, e.g. 5.26.30
 * @property {string} java      Java runtime version
 * @property {string} dataDir   the database folder
 * @property {number} pid
 * @property {(signal?: NodeJS.Signals) => Promise<void>} stop  SIGTERM (clean shutdown) by default; SIGKILL after 60 s
 */

/**
 * Start a server (building it first if needed) and resolve once it prints READY.
 * @param {{ port?: number, dataDir?: string, password?: string, readyTimeoutMs?: number, heapMb?: number }} [opts]
 *   `port` 0 = a free port; `dataDir` keeps the data across restarts (else a temp folder, deleted on stop).
 * @returns {Promise<Neo4jTestServer>}
 */
export async function startServer(opts = {}) {
  const { classpath } = buildServer();
  const password = opts.password ?? randomBytes(12).toString('hex');
  const args = [`-Xmx${opts.heapMb ?? 768}m`, '-XX:+UseSerialGC', '-cp', classpath, 'mem.testserver.Main', '--port', String(opts.port ?? 0), '--exit-on-stdin-eof'];
  if (opts.dataDir) args.push('--data', opts.dataDir);
  const child = spawn(jdkTool('java'), args, { cwd: HERE, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, MEM_NEO4J_TEST_PASSWORD: password } });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const ready = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`neo4j-test-server did not print READY within ${opts.readyTimeoutMs ?? 240_000} ms\n${stderr}`));
    }, opts.readyTimeoutMs ?? 240_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /READY (bolt:\/\/127\.0\.0\.1:(\d+)) neo4j=(\S+) java=(\S+) data=(.+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ uri: m[1], port: Number(m[2]), version: m[3], java: m[4], dataDir: m[5].trim() });
      }
    });
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`neo4j-test-server exited before READY (code ${code}, signal ${signal})\n${stderr}`));
    });
  });
  child.stdout.resume();
  return {
    ...ready,
    user: 'neo4j',
    password,
    pid: child.pid,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

// CLI
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const cmd = process.argv[2] ?? 'start';
  if (cmd === 'build') {
    const { dir } = buildServer();
    console.log(`neo4j-test-server built in ${dir}`);
  } else if (cmd === 'check') {
    const missing = missingPrerequisite();
    console.log(missing ?? 'ok');
    process.exitCode = missing ? 1 : 0;
  } else if (cmd === 'start') {
    const server = await startServer();
    console.log(`READY ${server.uri} neo4j=${server.version} java=${server.java} user=neo4j password=${server.password} pid=${server.pid}`);
    const stop = () => server.stop().then(() => process.exit(0));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  } else {
    console.error('usage: server.mjs build | check | start');
    process.exitCode = 2;
  }
}

/**
 * `mem serve` under load (issue 33 point 5; a script, not a test). Starts `mem serve` as its own
 * process on 127.0.0.1 (a fresh SQLite file, GloVe), then:
 *
 *  1. `--adds N` (default 0 = skip): N small adds, one observation per request, 8 in flight; the
 *     server's RSS (/proc/<pid>/status VmRSS) printed every N/10 adds and at the end.
 *  2. the mix: autocannon with `--connections` clients (default 32) for `--duration` s (default 60),
 *     at most `--amount` requests (default 200,000): 80% POST /v1/search, 20% POST /v1/observations
 *     (one small observation each, unique text). Prints p50 / p99 latency, requests, non-2xx and
 *     socket errors, timeouts, the adds the server acknowledged (200 with a created memory) against
 *     the memories stored afterwards (GET /v1/stats), and RSS.
 *
 * Exit code 1 on any error, non-2xx, timeout, lost acknowledged add or (with `--max-rss-mb`) an
 * RSS above the bound: the CI tier runs a short version (`--duration 10 --adds 2000`).
 *
 *   nice -n 10 npx tsx apps/demo-agent/bench/load.ts [--duration 60] [--connections 32] [--adds 10000] [--retriever jev] [--server-node-args=--max-semi-space-size=8] [--bin]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    connections: { type: 'string', default: '32' },
    amount: { type: 'string', default: '200000' },
    adds: { type: 'string', default: '0' },
    retriever: { type: 'string', default: 'jev' },
    'max-rss-mb': { type: 'string' },
    'add-share': { type: 'string', default: '0.2' },
    // extra node arguments for the server process (space-separated; give it as --server-node-args=--flag)
    'server-node-args': { type: 'string', default: '' },
    // run the built CLI (bin/mem.js → dist/cli.js, `pnpm build`) as users do, not the sources through tsx
    bin: { type: 'boolean', default: false },
  },
});
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const AMOUNT = Number(values.amount);
const ADDS = Number(values.adds);
const ADD_SHARE = Number(values['add-share']);

const WORDS = 'coffee tea hiking Paris Berlin dog cat sister brother guitar piano marathon job office garden book movie concert beach birthday dinner recipe train flight doctor school project meeting'.split(' ');
const NAMES = ['Maya', 'Leo', 'Ana', 'Sam', 'Priya', 'Tom'];
let serial = 0;
/** A small observation of our own (unique text). */
function observation(): string {
  const n = serial++;
  const w = (i: number) => WORDS[(n * 7 + i * 13) % WORDS.length];
  return JSON.stringify({ observations: [{ text: `${NAMES[n % NAMES.length]} talked about the ${w(1)} and the ${w(2)} on day ${n} (note ${n}).`, speaker: NAMES[(n + 1) % NAMES.length] }] });
}
const QUERIES = ['What does Maya drink in the morning?', 'Where did Leo travel?', 'Who plays the piano?', 'When was the concert?', 'What happened at the office meeting?', 'Which book did Ana read?'];

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function startServe(db: string): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const cli = path.resolve(here, '../src/cli.ts');
  const nodeArgs = values['server-node-args']!.split(/\s+/).filter(Boolean);
  const entry = values.bin ? [path.resolve(here, '../bin/mem.js')] : ['--import', 'tsx', '--conditions=@mem/source', cli];
  const child = spawn(process.execPath, [...nodeArgs, ...entry, '--db', db, '--user', 'load', '--retriever', values.retriever!, '--json', 'serve', '--port', '0'], {
    cwd: path.resolve(here, '..'),
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, MEM_EMBEDDER: 'glove' },
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"url"\s*:\s*"([^"]+)"/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`mem serve exited with ${code}: ${out}`)));
  });
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function post(url: string, body: string): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
}

async function storedCount(url: string): Promise<number> {
  const r = (await (await fetch(`${url}/v1/stats`)).json()) as Record<string, unknown>;
  const n = (r.nodes ?? r.memories ?? r.count) as number | { total?: number } | undefined;
  return typeof n === 'number' ? n : (n?.total ?? NaN);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mem-load-'));
  const server = await startServe(path.join(dir, 'load.db'));
  let failed = false;
  console.log(`load: mem serve ${server.url} (pid ${server.pid}, retriever ${values.retriever}, GloVe); ${cpus().length} × ${cpus()[0]?.model ?? '?'}, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} (shared machine)`);
  console.log(`RSS at start: ${rssMb(server.pid).toFixed(0)} MB`);
  try {
    if (ADDS > 0) {
      const t0 = performance.now();
      let next = 0;
      let errors = 0;
      const worker = async () => {
        while (next < ADDS) {
          next++;
          try {
            const r = await post(`${server.url}/v1/observations`, observation());
            if (r.ok) await r.json();
            else {
              errors++;
              await r.text();
            }
          } catch (e) {
            // a transport failure (e.g. a keep-alive socket the server closed): counted, not fatal
            errors++;
            console.log(`  add ${next}: ${(e as Error).message} ${((e as Error).cause as Error | undefined)?.message ?? ''}`);
          }
          if (next % Math.max(1, Math.floor(ADDS / 10)) === 0) console.log(`  ${next} adds: RSS ${rssMb(server.pid).toFixed(0)} MB, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      const rss = rssMb(server.pid);
      console.log(`RSS after ${ADDS} adds: ${rss.toFixed(0)} MB (${errors} errors, ${((ADDS / (performance.now() - t0)) * 1000).toFixed(0)} adds/s)`);
      if (errors) failed = true;
      if (values['max-rss-mb'] && rss > Number(values['max-rss-mb'])) {
        console.log(`FAIL: RSS ${rss.toFixed(0)} MB > ${values['max-rss-mb']} MB`);
        failed = true;
      }
    }
    if (DURATION > 0) {
      const before = await storedCount(server.url);
      let mixAcked = 0;
      let addsSent = 0;
      // bounded in time (`duration`) and in count: stopped after AMOUNT responses (autocannon's own
      // `amount` would override `duration`)
      let responses = 0;
      const instance = autocannon({
        url: server.url,
        connections: CONNECTIONS,
        duration: DURATION,
        timeout: 30,
        requests: [
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            setupRequest: (req: Record<string, unknown>) => {
              const add = Math.random() < ADD_SHARE;
              if (add) addsSent++;
              return { ...req, path: add ? '/v1/observations' : '/v1/search', body: add ? observation() : JSON.stringify({ query: QUERIES[serial++ % QUERIES.length], k: 10 }) };
            },
            onResponse: (status: number, body: string) => {
              if (++responses === AMOUNT) instance.stop();
              if (status !== 200) return;
              // every observation of a 200 is stored (the gate decides the write work, not whether it is kept)
              if (body.startsWith('{"added"')) mixAcked += ((JSON.parse(body) as { added: unknown[] }).added ?? []).length;
            },
          },
        ],
      } as autocannon.Options);
      const result = await instance;
      const after = await storedCount(server.url);
      const lost = before + mixAcked - after;
      const errors = result.errors + result.timeouts + result.non2xx;
      console.log(`\n| load (${CONNECTIONS} clients, ${DURATION} s, ${Math.round(ADD_SHARE * 100)}% add) | value |\n|---|---:|`);
      console.log(`| requests | ${result.requests.total} (${result.requests.average.toFixed(0)}/s) |`);
      console.log(`| latency p50 / p90 / p99 / max ms | ${result.latency.p50} / ${result.latency.p90} / ${result.latency.p99} / ${result.latency.max} |`);
      console.log(`| errors / timeouts / non-2xx | ${result.errors} / ${result.timeouts} / ${result.non2xx} |`);
      console.log(`| adds sent / acknowledged (200) | ${addsSent} / ${mixAcked} |`);
      console.log(`| stored before / after (GET /v1/stats) | ${before} / ${after} |`);
      console.log(`| acknowledged adds lost (acknowledged but not stored) | ${Math.max(0, lost)} |`);
      console.log(`| stored without an acknowledgement (in flight when the run stopped) | ${Math.max(0, -lost)} |`);
      const rssAfter = rssMb(server.pid);
      console.log(`| server RSS after | ${rssAfter.toFixed(0)} MB |`);
      if (errors > 0 || lost > 0) failed = true;
      if (values['max-rss-mb'] && rssAfter > Number(values['max-rss-mb'])) failed = true;
    }
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  if (failed) {
    console.log('load: FAILED (errors, lost adds or RSS above the bound)');
    process.exit(1);
  }
}

await main();

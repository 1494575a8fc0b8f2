#!/usr/bin/env node
/**
 * The newcomer test (issue 36; ours): follows README.md's front door on this clone and checks that
 * what the README shows is what a newcomer gets.
 *
 *   pnpm newcomer            (after `pnpm install`; CI runs it on a clean clone, ~1 min)
 *
 * 1. The quick start: the README's ```js block is examples/quickstart/quickstart.mjs verbatim, and
 *    `pnpm -s quickstart` prints exactly the ```text block under "It prints:".
 * 2. The demo: `pnpm -s demo` prints the "Summary:" line the README quotes, and every other line the
 *    README's demo block quotes (its misses).
 * 3. The CLI block: every command runs and exits 0, against a fresh data folder (XDG_DATA_HOME in
 *    a temporary directory, so nothing of the user's is read or written); a ```text block after it
 *    is the exact output of its `ask` line (memory ids, random, compared as placeholders).
 * 4. The HTTP block: its `serve` line, on a free port (`--port 0`), serves the playground (/, /app.js,
 *    /wording.js) and its `curl` lines (localhost:8787 → that port) answer with JSON, exit 0.
 * Prints what it compared; exits 1 after all checks when one failed, with both sides.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const data = mkdtempSync(join(tmpdir(), 'mem-newcomer-'));
const env = { ...process.env, XDG_DATA_HOME: data, NO_COLOR: '1', FORCE_COLOR: '0' };
for (const k of ['MEM_LLM_BASE_URL', 'MEM_LLM_API_KEY', 'MEM_LLM_MODEL', 'MEM_USER', 'MEM_EMBEDDER', 'MEM_SYSTEM_ONE', 'MEM_TIME_ZONE']) delete env[k];
let failed = false;

/** The fenced blocks of a section (`## title` up to the next `## `), each `{ lang, body }`. */
function blocks(title) {
  const start = readme.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README.md has no section "## ${title}"`);
  const end = readme.indexOf('\n## ', start + 4);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], body: m[2] }));
}
function run(cmd) {
  const r = spawnSync('bash', ['-c', cmd], { cwd: root, env, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) fail(`\`${cmd}\` exited ${r.status}\n${r.stderr}`);
  return r.stdout;
}
function fail(why) {
  console.log(`newcomer: FAIL — ${why}`);
  failed = true;
}
/** Memory ids differ from run to run (random UUIDs): compare their 8-character short form as a placeholder. */
const ids = (t) => t.replace(/\b[0-9a-f]{8}\b/g, '<id>');
function same(what, expected, actual) {
  const e = expected.trimEnd();
  const a = actual.trimEnd();
  if (ids(e) === ids(a)) return void console.log(`newcomer: ok — ${what}`);
  fail(`${what} differs from the README\n--- README\n${e}\n--- actual\n${a}`);
}

try {
  // 1. quick start
  const qs = blocks('Quick start (library)');
  const code = qs.find((b) => b.lang === 'js');
  const printed = qs.find((b) => b.lang === 'text');
  if (!code || !printed) fail('the quick start needs a ```js block and a ```text block of its output');
  else {
    same('the quick start code is examples/quickstart/quickstart.mjs', code.body, readFileSync(join(root, 'examples/quickstart/quickstart.mjs'), 'utf8'));
    same('`pnpm -s quickstart` prints the README\'s output', printed.body, run('pnpm -s quickstart'));
  }

  // 2. the demo
  const demoBlock = blocks('The two commands').find((b) => b.lang === 'text');
  if (!demoBlock) fail('"The two commands" needs a ```text block quoting the demo');
  else {
    const out = run('pnpm -s demo').split('\n').map((l) => l.trimEnd());
    for (const line of demoBlock.body.split('\n').map((l) => l.trimEnd()).filter(Boolean)) {
      if (out.includes(line)) console.log(`newcomer: ok — the demo prints "${line.slice(0, 80)}${line.length > 80 ? '…' : ''}"`);
      else fail(`the demo does not print the README's line\n  ${line}\n--- its summary:\n${out.filter((l) => /Summary|miss/i.test(l)).join('\n')}`);
    }
  }

  // 3. the CLI block
  const cli = blocks('CLI');
  const commands = (cli.find((b) => b.lang === 'bash')?.body ?? '').split('\n').map((l) => l.replace(/\s+#\s.*$/, '').trim()).filter(Boolean);
  if (!commands.length) fail('the CLI section needs a ```bash block');
  const askShown = cli.find((b) => b.lang === 'text');
  for (const cmd of commands) {
    const out = run(cmd);
    console.log(`newcomer: ok — \`${cmd}\` exits 0`);
    if (askShown && /\bask "/.test(cmd) && !/--trace|--json|--help/.test(cmd)) same(`\`${cmd}\` prints the README's answer`, askShown.body, out);
  }

  // 4. the HTTP block
  const http = (blocks('HTTP API and playground').find((b) => b.lang === 'bash')?.body ?? '').split('\n').map((l) => l.replace(/\s+#\s.*$/, '').trim()).filter(Boolean);
  const serveLine = http.find((l) => /\bmem\b.*\bserve\b/.test(l));
  if (!serveLine) fail('the HTTP section needs a `mem … serve` line');
  else {
    const child = spawn('bash', ['-c', `exec ${serveLine} --port 0`], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise((resolveUrl, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`no URL from \`${serveLine}\` in 300 s: ${out}`)), 300_000);
        child.stdout.on('data', (d) => {
          out += d;
          const m = /playground (http:\/\/[^\s/]+)\//.exec(out);
          if (m) {
            clearTimeout(timer);
            resolveUrl(m[1]);
          }
        });
        child.on('exit', (code) => reject(new Error(`\`${serveLine}\` exited ${code}: ${out}`)));
      });
      for (const file of ['/', '/app.js', '/wording.js']) {
        const res = await fetch(`${url}${file}`);
        if (res.status === 200) console.log(`newcomer: ok — the playground serves ${file}`);
        else fail(`GET ${file} of the playground: ${res.status}`);
      }
      for (const line of http.filter((l) => l.startsWith('curl '))) {
        const cmd = line.replaceAll('localhost:8787', url.replace('http://', ''));
        const out = run(cmd);
        try {
          JSON.parse(out);
          console.log(`newcomer: ok — \`${line.slice(0, 70)}…\` answers with JSON`);
        } catch {
          fail(`\`${line}\` did not answer with JSON: ${out.slice(0, 200)}`);
        }
      }
    } catch (e) {
      fail(String(e.message ?? e));
    } finally {
      child.kill('SIGTERM');
    }
  }
} finally {
  rmSync(data, { recursive: true, force: true });
}
if (failed) process.exit(1);
console.log('newcomer: the README front door holds on this clone');

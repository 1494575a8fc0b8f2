#!/usr/bin/env node
// `pnpm mem …`: run the built `mem` bin (apps/demo-agent/dist/cli.js, which bundles the packages' dist/), after
// rebuilding through turbo when a source, package.json or tsup config changed since the last build
// this script ran (an mtime check against a stamp file; turbo is skipped when nothing changed). Turbo's output is shown only when the
// build fails, so `pnpm -s mem --json …` prints only the command's JSON.
// `pnpm mem:dev …` runs the TypeScript sources instead (no build).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// what the CLI bundle loads: every package it imports (ai-sdk is not one of them)
const dirs = ['packages/gate-vmf', 'packages/system-one', 'packages/core', 'packages/retrieval', 'packages/graph-neo4j', 'apps/demo-agent'];

/** Newest mtime (ms) of the files under `p` (a file or a folder), skipping tests; 0 when absent. */
function newest(p) {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return /\.test\.ts$/.test(p) ? 0 : st.mtimeMs;
  let m = 0;
  for (const e of readdirSync(p)) m = Math.max(m, newest(path.join(p, e)));
  return m;
}

// turbo's cache restores outputs without touching unchanged files: the stamp records when the last
// successful build through this script started
const stamp = path.join(root, 'node_modules', '.cache', 'mem-cli-built');
const builtAt = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
const stale =
  builtAt === 0 ||
  dirs.some((d) => {
    const abs = path.join(root, d);
    // public/wording.js is bundled into the CLI (the plain words it shares with the playground)
    return !existsSync(path.join(abs, 'dist')) || Math.max(newest(path.join(abs, 'src')), newest(path.join(abs, 'public')), newest(path.join(abs, 'package.json')), newest(path.join(abs, 'tsup.config.ts'))) > builtAt;
  });
if (stale) {
  const started = new Date();
  // on stderr: `--json` output on stdout stays clean
  process.stderr.write('mem: building the CLI and the packages it loads (turbo, cached; the first build takes a minute or two)…\n');
  const turbo = path.join(root, 'node_modules', '.bin', 'turbo');
  const build = spawnSync(turbo, ['run', 'build', '--filter=@mem/demo-agent...', '--output-logs=errors-only'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' },
  });
  if (build.status !== 0) {
    process.stderr.write(`${build.stdout ?? ''}${build.stderr ?? ''}mem: building the CLI failed (above); \`pnpm mem:dev …\` runs the sources without a build.\n`);
    process.exit(build.status ?? 1);
  }
  mkdirSync(path.dirname(stamp), { recursive: true });
  writeFileSync(stamp, '');
  utimesSync(stamp, started, started);
}
await import('../apps/demo-agent/bin/mem.js');

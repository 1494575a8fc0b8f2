#!/usr/bin/env node
/**
 * `pnpm pack:all [--out <dir>] [--check]`: build every publishable @mem package (turbo, cached) and
 * write its npm tarball to one folder (default `packs/`, gitignored; emptied of old tarballs first),
 * as the registry would serve it (`workspace:` ranges rewritten to versions, only `dist/` and the
 * README). A user installs them with `npm install ./packs/*.tgz` (docs/install.md).
 *
 * --check: also lint each tarball with publint (--strict: warnings fail) and
 * @arethetypeswrong/cli (profile esm-only: the packages are ESM only, so the CommonJS rows are not
 * checked); exits 1 on any problem. CI runs `pnpm pack:all --check`.
 *
 * Publishable = every packages/* whose package.json is not private.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { out: { type: 'string', default: 'packs' }, check: { type: 'boolean', default: false } } });
const out = path.resolve(process.env.INIT_CWD ?? process.cwd(), values.out);
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

function run(cmd, args, cwd = root) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' } });
  return { ok: r.status === 0, text: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

const packages = readdirSync(path.join(root, 'packages'))
  .map((d) => ({ dir: path.join(root, 'packages', d), manifest: JSON.parse(readFileSync(path.join(root, 'packages', d, 'package.json'), 'utf8')) }))
  .filter((p) => !p.manifest.private);

const build = run(bin('turbo'), ['run', 'build', '--output-logs=errors-only', ...packages.map((p) => `--filter=${p.manifest.name}`)]);
if (!build.ok) {
  process.stderr.write(`${build.text}pack:all: the build failed\n`);
  process.exit(1);
}

mkdirSync(out, { recursive: true });
for (const f of readdirSync(out)) if (f.endsWith('.tgz')) rmSync(path.join(out, f));
for (const p of packages) {
  // dist/ was just built by turbo: the prepack hook (tsup, for a lone `pnpm pack`) is skipped
  const r = run('pnpm', ['--config.ignore-scripts=true', 'pack', '--pack-destination', out], p.dir);
  if (!r.ok) {
    process.stderr.write(`${r.text}pack:all: packing ${p.manifest.name} failed\n`);
    process.exit(1);
  }
}
const tarballs = readdirSync(out).filter((f) => f.endsWith('.tgz')).sort();
console.log(`pack:all: ${tarballs.length} tarballs in ${path.relative(process.cwd(), out) || '.'}/`);
for (const t of tarballs) console.log(`  ${t}`);

if (values.check) {
  let failed = 0;
  for (const t of tarballs) {
    const file = path.join(out, t);
    const lint = run(bin('publint'), ['run', file, '--strict']);
    const types = run(bin('attw'), [file, '--profile', 'esm-only', '--format', 'ascii', '--no-color']);
    const ok = lint.ok && types.ok;
    if (!ok) failed += 1;
    console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${t}: publint ${lint.ok ? 'clean' : 'problems'}, attw ${types.ok ? 'clean' : 'problems'}`);
    if (!lint.ok) process.stdout.write(lint.text.replace(/^/gm, '      '));
    if (!types.ok) process.stdout.write(types.text.replace(/^/gm, '      '));
  }
  if (failed) {
    console.log(`pack:all --check: ${failed} of ${tarballs.length} tarballs have problems (above)`);
    process.exit(1);
  }
  console.log(`pack:all --check: publint --strict and attw (esm-only) clean on all ${tarballs.length}`);
}

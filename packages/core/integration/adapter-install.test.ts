/**
 * Issue 35, "a store contract adapters can depend on without native modules": a Neo4j user installs
 * `@mem/graph-neo4j` with its peer `@mem/store-spec` (and what that brings, `@mem/gate-vmf`) from
 * the tarballs `pnpm pack:all` writes, with npm, into an empty folder. No native module is built:
 * npm runs no install script (the lockfile marks none `hasInstallScript`), no `.node` file or
 * node-gyp `build/` folder lands in node_modules, and neither better-sqlite3, hnswlib-node nor
 * `@mem/core` is installed. Then the installed store runs: it lists its capabilities, and opening
 * it against a closed port fails with a `StoreUnavailableError` that `@mem/store-spec`'s
 * `isInstance` recognises.
 *
 * Integration tier (`pnpm test:integration`, run by .ci/run after the build): needs the npm registry
 * for neo4j-driver and zod. 3.5 min measured on the loaded 2-core machine (pack:all, npm install).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const NATIVE = ['better-sqlite3', 'hnswlib-node'];

/** Every file below `dir` (node_modules included), as paths relative to it. */
function walk(dir: string, rel = ''): string[] {
  return readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const p = path.join(rel, e.name);
    return e.isDirectory() ? walk(dir, p) : [p];
  });
}

describe('@mem/graph-neo4j installed with its peer from the tarballs into an empty folder', () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'mem-adapter-install-'));
  afterAll(() => rm(work, { recursive: true, force: true }), 120_000);

  it('builds no native module and brings neither @mem/core, better-sqlite3 nor hnswlib-node; the store runs', () => {
    const tarballs = path.join(work, 'tarballs');
    execFileSync('node', [path.join(ROOT, 'scripts', 'pack-all.mjs'), '--out', tarballs], { cwd: ROOT, stdio: 'pipe', timeout: 900_000 });
    const byName = new Map(
      readdirSync(tarballs).map((f) => [JSON.parse(execFileSync('tar', ['xzf', path.join(tarballs, f), '-O', 'package/package.json'], { encoding: 'utf8' })).name as string, path.join(tarballs, f)]),
    );
    const neo = JSON.parse(execFileSync('tar', ['xzf', byName.get('@mem/graph-neo4j')!, '-O', 'package/package.json'], { encoding: 'utf8' }));
    // what the adapter declares: the spec as its peer, nothing of core
    expect(Object.keys(neo.peerDependencies ?? {})).toEqual(['@mem/store-spec']);
    expect(Object.keys({ ...neo.dependencies, ...neo.peerDependencies })).not.toContain('@mem/core');

    // the @mem packages come from their tarballs (gate-vmf too: store-spec depends on it)
    const wanted = ['@mem/graph-neo4j', '@mem/store-spec', '@mem/gate-vmf'].map((n) => {
      expect(byName.get(n), `${n} tarball`).toBeDefined();
      return byName.get(n)!;
    });
    const app = path.join(work, 'app');
    mkdirSync(app);
    writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'neo4j-user', private: true, type: 'module' }, null, 2));
    const install = spawnSync('npm', ['install', ...wanted, '--prefer-offline', '--no-audit', '--no-fund', '--foreground-scripts'], { cwd: app, encoding: 'utf8', timeout: 600_000 });
    expect(install.status, install.stderr).toBe(0);
    const output = `${install.stdout}\n${install.stderr}`;
    expect(output, 'npm ran node-gyp / prebuild').not.toMatch(/node-gyp|gyp info|prebuild-install/);

    const lock = JSON.parse(readFileSync(path.join(app, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean; resolved?: string }> };
    const installed = Object.keys(lock.packages).filter((k) => k.startsWith('node_modules/')).map((k) => k.slice('node_modules/'.length));
    expect(installed).toEqual(expect.arrayContaining(['@mem/graph-neo4j', '@mem/store-spec', '@mem/gate-vmf', 'neo4j-driver', 'zod']));
    for (const n of [...NATIVE, '@mem/core']) expect(installed.some((p) => p === n || p.endsWith(`/node_modules/${n}`)), `${n} installed`).toBe(false);
    expect(Object.entries(lock.packages).filter(([, v]) => v.hasInstallScript).map(([k]) => k), 'packages with an install script').toEqual([]);
    for (const n of ['@mem/graph-neo4j', '@mem/store-spec', '@mem/gate-vmf']) expect(lock.packages[`node_modules/${n}`]?.resolved ?? '', n).toMatch(/^file:/);

    const files = walk(path.join(app, 'node_modules'));
    expect(files.length).toBeGreaterThan(100);
    expect(files.filter((f) => f.endsWith('.node')), '.node binaries').toEqual([]);
    expect(files.filter((f) => /(^|\/)build\/(Release|Debug)\//.test(f)), 'node-gyp build folders').toEqual([]);
    for (const n of NATIVE) expect(existsSync(path.join(app, 'node_modules', n)), n).toBe(false);

    // the installed adapter runs: capabilities listed, a typed error from the spec across packages
    writeFileSync(
      path.join(app, 'smoke.mjs'),
      `import { createNeo4jStore } from '@mem/graph-neo4j';
import { StoreUnavailableError, implementedCapabilities } from '@mem/store-spec';
const store = createNeo4jStore({ uri: 'neo4j://127.0.0.1:1', password: 'x', connectionTimeoutMs: 1500 });
let error = null;
try {
  await store.open({ schemaVersion: 1, embeddingModel: 'm', dimension: 8 });
} catch (e) {
  error = { unavailable: StoreUnavailableError.isInstance(e), code: e.code };
}
await store.close();
console.log(JSON.stringify({ kind: store.kind, listed: store.capabilities, implemented: implementedCapabilities(store), error }));
`,
    );
    const out = JSON.parse(execFileSync('node', ['smoke.mjs'], { cwd: app, encoding: 'utf8', timeout: 60_000 }).trim().split('\n').pop()!);
    expect(out.kind).toBe('neo4j');
    expect([...out.listed].sort()).toEqual([...out.implemented].sort());
    expect(out.error).toEqual({ unavailable: true, code: 'STORE_UNAVAILABLE' });
  }, 1_200_000);
});

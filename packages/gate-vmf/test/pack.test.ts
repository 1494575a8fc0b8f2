/**
 * The package as a user gets it: build with tsup, `pnpm pack`, install the tarball into an empty
 * folder outside the workspace (npm, with zod from the registry), and route there with plain node.
 * Set GATE_SKIP_PACK_TEST=1 to skip (it needs the npm registry).
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const skip = process.env.GATE_SKIP_PACK_TEST === '1';
if (skip) console.log('pack test skipped: GATE_SKIP_PACK_TEST=1');

describe.skipIf(skip)('packed tarball', () => {
  it('installs into an empty folder outside the workspace and routes with plain node', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-vmf-pack-'));
    try {
      const run = (cmd: string, args: string[], cwd: string) =>
        execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_loglevel: 'error' } });
      run('npx', ['tsup', '--silent'], pkgDir);
      run('pnpm', ['pack', '--pack-destination', tmp], pkgDir);
      const tarball = fs.readdirSync(tmp).find((f) => f.endsWith('.tgz'));
      expect(tarball).toBeDefined();
      const app = path.join(tmp, 'app');
      fs.mkdirSync(app);
      fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', type: 'module', private: true }));
      run('npm', ['install', '--no-audit', '--no-fund', path.join(tmp, tarball!)], app);
      fs.writeFileSync(
        path.join(app, 'main.mjs'),
        `import { createNoveltyGate, createNoopFilter, GateError } from '@mem/gate-vmf';
import { withNoveltyGate } from '@mem/gate-vmf/mem0';
const gate = createNoveltyGate();
const out = [gate.route('u', [1, 0, 0]).action];
gate.commit('u', 'a', [1, 0, 0]);
out.push(gate.route('u', [1, 0, 0]).action, gate.route('u', [0, 1, 0]).action);
const restored = createNoveltyGate({ state: JSON.parse(JSON.stringify(gate.serialize())) });
out.push(restored.route('u', [1, 0, 0]).action);
try { gate.commit('u', 'b', [0, 0, 0]); } catch (e) { out.push(GateError.isInstance(e) ? e.code : 'other'); }
out.push(createNoopFilter().tauNoop, typeof withNoveltyGate);
console.log(JSON.stringify(out));
`,
      );
      const printed = run('node', ['main.mjs'], app).trim();
      expect(JSON.parse(printed)).toEqual(['add', 'noop', 'add', 'noop', 'ZERO_VECTOR', 0.572, 'function']);
      // only zod came along as a runtime dependency
      const installed = fs.readdirSync(path.join(app, 'node_modules')).filter((n) => !n.startsWith('.'));
      expect(installed.sort()).toEqual(['@mem', 'zod']);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }, 120_000);
});

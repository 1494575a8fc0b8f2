#!/usr/bin/env node
// The `mem` bin: runs the tsup-built bundle (dist/cli.js, `pnpm build`). For the TypeScript sources
// (no build step) use `pnpm mem:dev`. `mem --version` is answered here, before any module loads.
import { existsSync, readFileSync } from 'node:fs';
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
  process.exit(0);
}
const bundle = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(bundle)) {
  process.stderr.write('mem: the CLI is not built (no apps/demo-agent/dist/cli.js). Run `pnpm build` (or `pnpm mem …`, which builds first), or `pnpm mem:dev …` to run the sources.\n');
  process.exit(1);
}
const { runCli } = await import(bundle.href);
await runCli();

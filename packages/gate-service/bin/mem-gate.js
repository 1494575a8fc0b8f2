#!/usr/bin/env node
// The `mem-gate` bin: runs the tsup-built dist/cli.js (in a checkout, build it first: `pnpm --filter @mem/gate-service build`).
import { existsSync } from 'node:fs';
const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('mem-gate: not built (no dist/cli.js). In a checkout run `pnpm --filter @mem/gate-service build`, or run the sources with `node --import tsx --conditions=@mem/source packages/gate-service/src/cli.ts serve`.\n');
  process.exit(1);
}
await import(cli.href);

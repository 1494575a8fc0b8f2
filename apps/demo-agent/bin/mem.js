#!/usr/bin/env node
// Thin launcher: runs the TypeScript CLI through tsx with workspace sources (works from any directory).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
const here = dirname(fileURLToPath(import.meta.url));
const tsx = import.meta.resolve('tsx');
const r = spawnSync(process.execPath, ['--import', tsx, '--conditions=@mem/source', join(here, '..', 'src', 'cli.ts'), ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(r.status ?? 1);

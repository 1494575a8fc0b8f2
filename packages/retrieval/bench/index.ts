/**
 * `pnpm bench` (in packages/retrieval): jev against the flat baselines (bm25, dense, hybrid) and the
 * jev ablations on the LoCoMo dev conversations, one run, with latency p50/p95 and the issue-5 target
 * ratios. The LoCoMo engine lives in apps/demo-agent/src/eval (this package may not import it —
 * layering — so it is run as a script).
 *
 * Data: env MEM_LOCOMO_PATH, default ../../../shared/data/locomo/locomo10-dev.json (from this package).
 * Extra arguments are passed on (e.g. `pnpm bench -- --conversations 0,1`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const data = process.env.MEM_LOCOMO_PATH ?? process.env.MEM_LOCOMO ?? path.resolve(root, '../shared/data/locomo/locomo10-dev.json');
if (!existsSync(data)) {
  console.log(`bench skipped: LoCoMo data not found at ${data} (set MEM_LOCOMO_PATH)`);
  process.exit(0);
}
const args = [
  '--conditions=@mem/source',
  path.join(root, 'apps/demo-agent/scripts/locomo-eval.ts'),
  '--data', data,
  '--systems', 'jev,bm25,dense,hybrid',
  '--k', '5,10,20',
  '--per-conversation',
  '--ablations',
  ...process.argv.slice(2).filter((a) => a !== '--'),
];
const r = spawnSync(process.execPath, ['--import', 'tsx', ...args], { stdio: 'inherit', cwd: root });
process.exit(r.status ?? 1);

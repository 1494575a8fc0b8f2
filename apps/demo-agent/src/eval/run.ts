/**
 * Run the LoCoMo evaluation directly (until/besides `mem eval locomo`):
 *   npx tsx --conditions=@mem/source apps/demo-agent/src/eval/run.ts --data ../shared/data/locomo/locomo10-dev.json \
 *     --systems jev,bm25,dense,hybrid --k 5,10,20 [--budget-tokens 1000] [--conversations 0,3] [--audit errors.json] \
 *     [--out report.json] [--dump rows.jsonl] [--per-conversation] [--ablations]
 * Prints the markdown table (and, with --per-conversation, recall@10 per conversation) to stdout.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { formatLocomoMarkdown, recallByConversation, runLocomoEval, type DumpRow } from './engine.js';
import { JEV_ABLATIONS } from './systems/index.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    systems: { type: 'string', default: 'jev,bm25,dense,hybrid' },
    k: { type: 'string', default: '5,10,20' },
    'budget-tokens': { type: 'string', default: '1000' },
    conversations: { type: 'string' },
    audit: { type: 'string' },
    out: { type: 'string' },
    dump: { type: 'string' },
    'per-conversation': { type: 'boolean', default: false },
    ablations: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
  },
});

if (!values.data) {
  console.error('--data <locomo.json> is required');
  process.exit(2);
}
const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean);
const systems = list(values.systems!);
if (values.ablations) for (const a of JEV_ABLATIONS) if (!systems.includes(a)) systems.push(a);
const rows: DumpRow[] = [];
let dumpFile: ((r: DumpRow) => void) | null = null;
if (values.dump) {
  const { createWriteStream } = await import('node:fs');
  const ws = createWriteStream(values.dump);
  dumpFile = (r) => void ws.write(JSON.stringify(r) + '\n');
  process.on('beforeExit', () => ws.end());
}
const t0 = performance.now();
const report = await runLocomoEval({
  data: values.data,
  systems,
  ks: list(values.k!).map(Number),
  budgetTokens: Number(values['budget-tokens']),
  conversations: values.conversations ? list(values.conversations).map(Number) : undefined,
  audit: values.audit,
  dump: (r) => {
    rows.push(r);
    dumpFile?.(r);
  },
  onProgress: values.quiet
    ? undefined
    : (e) => {
        if (e.phase === 'built') process.stderr.write(`conv ${e.conversation} ${e.system}: built in ${e.seconds.toFixed(1)} s\n`);
        if (e.phase === 'query' && e.done === e.total) process.stderr.write(`conv ${e.conversation} ${e.system}: ${e.total} questions\n`);
      },
});
if (values.out) writeFileSync(values.out, JSON.stringify(report, null, 2) + '\n');
console.log(formatLocomoMarkdown(report));
if (values['per-conversation']) {
  const k = report.config.ks.includes(10) ? 10 : report.config.ks[0];
  const by = recallByConversation(rows, k);
  const convs = report.config.conversations;
  console.log(`\nEvidence recall@${k} per conversation (all five categories)\n`);
  console.log(`| system | ${convs.map((c) => `conv ${c}`).join(' | ')} |`);
  console.log(`|---|${convs.map(() => '---:').join('|')}|`);
  for (const [s, m] of by) console.log(`| ${s} | ${convs.map((c) => (m.get(c) ?? NaN).toFixed(3)).join(' | ')} |`);
}
console.error(`total ${((performance.now() - t0) / 1000).toFixed(1)} s`);

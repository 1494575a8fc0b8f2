/**
 * Run the LoCoMo evaluation directly (until/besides `mem eval locomo`):
 *   npx tsx --conditions=@mem/source apps/demo-agent/scripts/locomo-eval.ts --data ../shared/data/locomo/locomo10-dev.json \
 *     --systems jev,bm25,dense,hybrid --k 5,10,20 [--budget-tokens 1000] [--conversations 0,3] [--audit errors.json] \
 *     [--out report.json] [--dump rows.jsonl] [--per-conversation] [--ablations] [--embedder glove|minilm|openai]
 * Prints the markdown tables, the issue-5 target comparisons, the ablation table (with --ablations)
 * and, with --per-conversation, recall@10 per conversation. `--from report.json [--dump rows.jsonl]`
 * re-prints them from a finished run without running it again.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { formatLocomoMarkdown, recallByConversation, runLocomoEval, type DumpRow, type LocomoReport } from '../src/eval/engine.js';
import { JEV_ABLATIONS } from '../src/eval/systems/index.js';
import { resolveEmbedderKind } from '../src/embedder.js';

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
    from: { type: 'string' },
    embedder: { type: 'string' },
  },
});

if (!values.data && !values.from) {
  console.error('--data <locomo.json> is required');
  process.exit(2);
}
const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean);
const systems = list(values.systems!);
if (values.ablations) for (const a of JEV_ABLATIONS) if (!systems.includes(a)) systems.push(a);
const rows: DumpRow[] = [];
let dumpFile: ((r: DumpRow) => void) | null = null;
if (values.dump && !values.from) {
  const { createWriteStream } = await import('node:fs');
  const ws = createWriteStream(values.dump);
  dumpFile = (r) => void ws.write(JSON.stringify(r) + '\n');
  process.on('beforeExit', () => ws.end());
}
const t0 = performance.now();
if (values.from && values.dump) {
  const { readFileSync } = await import('node:fs');
  for (const line of readFileSync(values.dump, 'utf8').split('\n')) if (line.trim()) rows.push(JSON.parse(line));
  dumpFile = null;
}
const report: LocomoReport = values.from
  ? JSON.parse((await import('node:fs')).readFileSync(values.from, 'utf8'))
  : await runLocomoEval({
  data: values.data,
  systems,
  ks: list(values.k!).map(Number),
  budgetTokens: Number(values['budget-tokens']),
  conversations: values.conversations ? list(values.conversations).map(Number) : undefined,
  audit: values.audit,
  embedder: resolveEmbedderKind(values.embedder),
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
if (values.out && !values.from) writeFileSync(values.out, JSON.stringify(report, null, 2) + '\n');
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
// Ratios against the flat baselines measured in this run (issue 5 targets).
const sys = report.systems;
if (sys.jev && sys.hybrid) {
  const k = report.config.ks.includes(10) ? '10' : String(report.config.ks[0]);
  const flat = ['bm25', 'dense', 'hybrid'].filter((n) => sys[n]);
  console.log(`\nTargets (recall@${k}, all five categories):`);
  console.log(`- jev ${sys.jev.recall_at_k.overall[k]?.toFixed(3)} vs hybrid ${sys.hybrid.recall_at_k.overall[k]?.toFixed(3)}: difference ${(sys.jev.recall_at_k.overall[k] - sys.hybrid.recall_at_k.overall[k]).toFixed(3)}`);
  for (const g of ['multi-hop', 'temporal', 'open-domain', 'single-hop', 'adversarial']) {
    const best = Math.max(...flat.map((n) => sys[n].recall_at_k[g]?.[k] ?? 0));
    console.log(`- ${g}: jev ${sys.jev.recall_at_k[g]?.[k]?.toFixed(3)} vs best flat ${best.toFixed(3)} (difference ${((sys.jev.recall_at_k[g]?.[k] ?? 0) - best).toFixed(3)})`);
  }
  console.log(`- query p50: jev ${sys.jev.query_latency_ms.p50} ms / hybrid ${sys.hybrid.query_latency_ms.p50} ms = ${(sys.jev.query_latency_ms.p50 / sys.hybrid.query_latency_ms.p50).toFixed(2)}×`);
}
const abl = Object.keys(sys).filter((n) => n.startsWith('jev-'));
if (sys.jev && abl.length) {
  const k = report.config.ks.includes(10) ? '10' : String(report.config.ks[0]);
  console.log(`\nAblations (recall@${k}; difference to jev)\n`);
  console.log('| variant | overall | Δ | multi-hop | temporal | open-domain | single-hop | adversarial | p50 ms |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const n of ['jev', ...abl]) {
    const r = sys[n].recall_at_k;
    console.log(`| ${n} | ${r.overall[k].toFixed(3)} | ${(r.overall[k] - sys.jev.recall_at_k.overall[k]).toFixed(3)} | ${['multi-hop', 'temporal', 'open-domain', 'single-hop', 'adversarial'].map((g) => r[g]?.[k]?.toFixed(3) ?? '–').join(' | ')} | ${sys[n].query_latency_ms.p50} |`);
  }
}
console.error(`total ${((performance.now() - t0) / 1000).toFixed(1)} s`);

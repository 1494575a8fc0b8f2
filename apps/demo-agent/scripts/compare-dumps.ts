/**
 * Compare the retrieved ids of two `mem eval … --dump` files, question by question (ours; issue 33:
 * "top-20 ids unchanged"). Per system: questions compared, how many have the identical top-k list,
 * the identical top-k set, the mean size of the overlap, and recall@10 of both runs over questions
 * with evidence. Exit code 1 when a system's lists differ and `--strict` is given.
 *
 *   npx tsx apps/demo-agent/scripts/compare-dumps.ts --before before.jsonl --after after.jsonl [--k 20] [--strict] [--show 3]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface Row {
  system: string;
  conversation: number | string;
  qa_index: number;
  evidence: string[];
  retrieved: string[];
}

const { values } = parseArgs({
  options: { before: { type: 'string' }, after: { type: 'string' }, k: { type: 'string', default: '20' }, strict: { type: 'boolean', default: false }, show: { type: 'string', default: '0' } },
});
if (!values.before || !values.after) throw new Error('--before and --after are required');
const K = Number(values.k);
const read = (file: string) =>
  new Map(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Row)
      .map((r) => [`${r.system}|${r.conversation}|${r.qa_index}`, r]),
  );
const before = read(values.before);
const after = read(values.after);
const recall = (r: Row, k: number) => (r.evidence.length ? r.evidence.filter((e) => r.retrieved.slice(0, k).includes(e)).length / r.evidence.length : null);

interface Acc { n: number; list: number; set: number; overlap: number; rb: number[]; ra: number[]; missing: number; diffs: string[] }
const bySystem = new Map<string, Acc>();
for (const [key, b] of before) {
  let acc = bySystem.get(b.system);
  if (!acc) bySystem.set(b.system, (acc = { n: 0, list: 0, set: 0, overlap: 0, rb: [], ra: [], missing: 0, diffs: [] }));
  const a = after.get(key);
  if (!a) {
    acc.missing++;
    continue;
  }
  acc.n++;
  const tb = b.retrieved.slice(0, K);
  const ta = a.retrieved.slice(0, K);
  if (tb.length === ta.length && tb.every((x, i) => x === ta[i])) acc.list++;
  const sb = new Set(tb);
  const common = ta.filter((x) => sb.has(x)).length;
  if (common === sb.size && ta.length === tb.length) acc.set++;
  else acc.diffs.push(`${key}: before ${tb.join(',')} | after ${ta.join(',')}`);
  acc.overlap += common / Math.max(1, tb.length);
  const x = recall(b, 10);
  const y = recall(a, 10);
  if (x !== null && y !== null) {
    acc.rb.push(x);
    acc.ra.push(y);
  }
}
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
console.log(`top-${K} ids: ${values.before} → ${values.after}`);
console.log(`| system | questions | identical list | identical set | mean overlap | recall@10 before | after |`);
console.log('|---|---:|---:|---:|---:|---:|---:|');
let differs = false;
for (const [system, a] of bySystem) {
  if (a.list !== a.n || a.missing) differs = true;
  console.log(`| ${system} | ${a.n}${a.missing ? ` (${a.missing} missing)` : ''} | ${a.list} | ${a.set} | ${(a.overlap / Math.max(1, a.n)).toFixed(4)} | ${mean(a.rb).toFixed(4)} | ${mean(a.ra).toFixed(4)} |`);
  for (const d of a.diffs.slice(0, Number(values.show))) console.log(`    ${d}`);
}
if (values.strict && differs) process.exit(1);

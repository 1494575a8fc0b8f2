/**
 * Extraction output hash and cost on LoCoMo (a script, not a test):
 *   cd packages/core && npx tsx --conditions=@mem/source bench/extract-check-locomo.ts [path/to/locomo10-dev.json] [--rounds N]
 *
 * Runs `extract(text, observedAt)` over every LoCoMo dialogue turn, twice per turn: the turn text
 * alone and the text with its image caption appended as the write-path bench ingests it
 * (`"<text> [image: <caption>]"`), each against its session's date-time read as UTC. Prints one
 * sha256 over all outputs (JSON, in data order): a change to extraction that is meant to be a pure
 * speed-up must leave it unchanged. Then times `extract()` per observation (the captioned texts,
 * best of `--rounds` passes, default 3; wink's parse cache holds 256 texts, so later passes parse
 * almost every text again) and prints CPU ms per observation. Data is read at run time, never
 * copied into the repo. Also checks, on every text, that the gated chrono parse (chrono-gate.ts)
 * returns exactly what `chrono.parse` returns, and how many of chrono's parsers it runs.
 *
 * `--compare <dir>`: also load `<dir>/extract.ts` (another version of this folder, e.g. an older
 * commit unpacked with `git archive <commit> packages/core/src | tar -x -C /tmp/before` and
 * `ln -s $PWD/node_modules /tmp/before/packages/core/node_modules`), check that it gives the same
 * output hash, and time both in interleaved passes (same machine load) with their ratio.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as chrono from 'chrono-node';
import { gatedChronoParse, possibleParsers } from '../src/extract/chrono-gate.js';
import { extract } from '../src/extract/extract.js';
import { locomoPath, readLocomoJsonOrExit } from './locomo.js';

const args = process.argv.slice(2);
const roundsAt = args.indexOf('--rounds');
const rounds = roundsAt >= 0 ? Number(args[roundsAt + 1]) : 3;
const compareAt = args.indexOf('--compare');
const compareDir = compareAt >= 0 ? args[compareAt + 1] : undefined;
const positional = args.filter((a, i) => !a.startsWith('--') && (roundsAt < 0 || i !== roundsAt + 1) && (compareAt < 0 || i !== compareAt + 1));
const file = positional[0] ?? process.env.MEM_LOCOMO_PATH ?? locomoPath();
const data = readLocomoJsonOrExit(file) as { conversation: Record<string, unknown> }[];

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** "1:56 pm on 8 May, 2023" → ISO UTC (LoCoMo gives no zone). */
function sessionTime(s: string): string {
  const m = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(s);
  if (!m) throw new Error(`unparsed LoCoMo date "${s}"`);
  const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === 'pm' ? 12 : 0);
  const month = MONTHS.indexOf(m[5]!.toLowerCase().slice(0, 3));
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]))).toISOString();
}

const plain: [string, string][] = [];
const captioned: [string, string][] = [];
for (const sample of data) {
  const conv = sample.conversation;
  const sessions = Object.keys(conv)
    .map((k) => /^session_(\d+)$/.exec(k)?.[1])
    .filter((n): n is string => n !== undefined)
    .sort((a, b) => Number(a) - Number(b));
  for (const n of sessions) {
    const turns = conv[`session_${n}`];
    if (!Array.isArray(turns)) continue;
    const obs = sessionTime(String(conv[`session_${n}_date_time`]));
    for (const t of turns as { text: string; blip_caption?: string }[]) {
      plain.push([String(t.text), obs]);
      captioned.push([t.blip_caption ? `${t.text} [image: ${t.blip_caption}]` : String(t.text), obs]);
    }
  }
}

type ExtractFn = typeof extract;
function outputHash(fn: ExtractFn): { hex: string; withTime: number } {
  const hash = createHash('sha256');
  let withTime = 0;
  for (const [text, obs] of [...plain, ...captioned]) {
    const r = fn(text, obs);
    if (r.eventTime) withTime++;
    hash.update(JSON.stringify(r));
    hash.update('\n');
  }
  return { hex: hash.digest('hex'), withTime };
}
const current = outputHash(extract);
console.log(`texts ${plain.length + captioned.length} (${plain.length} turns × plain/captioned), with an event time ${current.withTime}`);
console.log(`sha256 ${current.hex}`);
const other = compareDir
  ? ((await import(pathToFileURL(path.resolve(compareDir, 'extract.ts')).href)) as { extract: ExtractFn }).extract
  : null;
if (other) console.log(`sha256 ${outputHash(other).hex} (${compareDir})`);

// Gated chrono parse vs chrono.parse on every text (as time.ts calls it).
const dumpChrono = (rs: chrono.ParsedResult[]) =>
  JSON.stringify(rs.map((r) => [r.index, r.text, r.start.date().toISOString(), [...r.start.tags()], r.end?.date().toISOString() ?? null]));
let gateDiffs = 0;
let skipped = 0;
let parsersRun = 0;
for (const [text, obs] of [...plain, ...captioned]) {
  const ref = { instant: new Date(obs), timezone: 0 };
  if (dumpChrono(gatedChronoParse(text, ref)) !== dumpChrono(chrono.parse(text, ref))) gateDiffs++;
  const mask = possibleParsers(text);
  if (mask === 0) skipped++;
  parsersRun += mask.toString(2).replace(/0/g, '').length;
}
const n = plain.length + captioned.length;
console.log(`gated chrono: ${gateDiffs} texts differ from chrono.parse; chrono skipped on ${skipped} of ${n}; parsers run per text ${(parsersRun / n).toFixed(2)} of ${chrono.casual.parsers.length}`);

/** CPU ms per observation of one pass of `fn` over the captioned turns. */
function pass(fn: ExtractFn): number {
  const c0 = process.cpuUsage();
  for (const [text, obs] of captioned) fn(text, obs);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000 / captioned.length;
}
if (rounds > 0) {
  let best = Infinity;
  let bestOther = Infinity;
  for (let r = 0; r < rounds; r++) {
    best = Math.min(best, pass(extract));
    if (other) bestOther = Math.min(bestOther, pass(other));
  }
  console.log(`extract() CPU per observation: ${best.toFixed(4)} ms (best of ${rounds} passes over ${captioned.length} captioned turns)`);
  if (other) console.log(`${compareDir}: ${bestOther.toFixed(4)} ms; this / that = ${(best / bestOther).toFixed(3)}`);
}

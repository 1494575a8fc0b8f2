/**
 * What each encoder sees (issue 38 point 3; ours): for every LoCoMo turn, BEAM message and question,
 * the exact string `mem eval` embeds, its length in all-MiniLM-L6-v2 word pieces (truncated at 256),
 * and the word tokens the GloVe SIF embedder (wink) weighs, with the share it has no vector for.
 * Prints a markdown table per dataset (docs/embedding.md); `--show N` also prints the N-th turn /
 * message / question of each dataset as each encoder receives it (dataset text: on the terminal only,
 * never into the repository).
 *
 *   npx tsx --conditions=@mem/source apps/demo-agent/scripts/embedding-input.ts \
 *     --locomo ../shared/data/locomo/locomo10-dev.json --beam ../shared/data/beam/500K [--show 0]
 *
 * Strings, as the eval builds them (src/eval/locomo.ts, src/eval/beam.ts) and as the retrievers embed them:
 * - a stored turn / message: its text only (the speaker is a separate field, never embedded); a
 *   LoCoMo turn that shared an image gets ` [image: <caption>; <search query>]` appended; BEAM's
 *   "->-> b,t" marker is removed from user messages; messages over 64 KiB are split.
 * - a question: BM25 reads it as given; jev's vector anchor and the dense / hybrid baselines embed it
 *   without the names of the scope's speakers (`queryWithoutSpeakerNames`; BEAM's `user` /
 *   `assistant` are roles, not names, so BEAM questions are embedded as given).
 * MiniLM needs the model folder of `pnpm models:fetch`; without it the MiniLM columns are left out.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createWinkEmbedder, defaultModelsDir, MINILM_FOLDER } from '@mem/core';
import { queryWithoutSpeakerNames } from '@mem/retrieval';
import { loadCorpus, type Dataset } from './read-path/corpus.js';

const { values } = parseArgs({
  options: {
    locomo: { type: 'string' },
    beam: { type: 'string' },
    show: { type: 'string' },
    'max-tokens': { type: 'string', default: '256' },
  },
});
const MAX = Number(values['max-tokens']);
const corpus = loadCorpus({ locomo: values.locomo, beam: values.beam });
if (corpus.length === 0) {
  console.error('pass --locomo <locomo10-dev.json> and/or --beam <BEAM 500K folder>');
  process.exit(2);
}

const wink = createWinkEmbedder();
const folder = process.env.MEM_MINILM_PATH ?? path.join(defaultModelsDir(), MINILM_FOLDER);
let pieces: ((text: string) => number[]) | null = null;
if (existsSync(path.join(folder, 'tokenizer.json'))) {
  // @huggingface/transformers is @mem/core's optional peer, not this app's dependency: resolve it from core
  const core = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'packages', 'core', 'package.json');
  const tf: any = await import(pathToFileURL(createRequire(core).resolve('@huggingface/transformers')).href);
  tf.env.allowRemoteModels = false;
  const tok = await tf.AutoTokenizer.from_pretrained(folder, { local_files_only: true });
  pieces = (text: string) => tok.encode(text) as number[];
} else console.error(`no MiniLM tokenizer at ${folder}: MiniLM columns left out (run \`pnpm models:fetch\`)`);

interface Seen {
  /** Word pieces with [CLS]/[SEP], before truncation. */
  wp: number;
  glove: number;
  oov: number;
}
async function see(text: string): Promise<Seen> {
  const ex = await wink.explain(text);
  return { wp: pieces ? pieces(text).length : 0, glove: ex.length, oov: ex.filter((t) => !t.known).length };
}

const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))]! : 0;
};
const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)}%` : '–');

interface Group {
  label: string;
  seen: Seen[];
  extra: Record<string, [number, number]>;
}
const groups = new Map<string, Group>();
const group = (label: string) => {
  let g = groups.get(label);
  if (!g) groups.set(label, (g = { label, seen: [], extra: {} }));
  return g;
};
const count = (g: Group, key: string, hit: boolean) => {
  const c = (g.extra[key] ??= [0, 0]);
  if (hit) c[0]++;
  c[1]++;
};

const show = values.show === undefined ? null : Number(values.show);
const shown = new Set<Dataset>();
for (const conv of corpus) {
  const speakers = [...new Set(conv.observations.map((o) => o.speaker).filter((s): s is string => !!s))];
  const nameTokens = new Set(speakers.filter((s) => /^\p{Lu}/u.test(s)).flatMap((s) => s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean)));
  const texts = group(`${conv.dataset} ${conv.dataset === 'locomo' ? 'turn' : 'message'}`);
  for (const o of conv.observations) {
    texts.seen.push(await see(o.text));
    if (conv.dataset === 'locomo') count(texts, 'with an image caption', o.text.includes('[image: '));
    count(texts, "naming a speaker (a token of a speaker's name)", (o.text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).some((w) => nameTokens.has(w)));
  }
  const qs = group(`${conv.dataset} question`);
  for (const x of conv.questions) {
    const embedded = queryWithoutSpeakerNames(x.question, speakers);
    qs.seen.push(await see(embedded));
    count(qs, 'embedded without a speaker name (changed by the name removal)', embedded !== x.question);
  }
  if (show !== null && !shown.has(conv.dataset)) {
    shown.add(conv.dataset);
    const o = conv.observations[Math.min(show, conv.observations.length - 1)]!;
    const x = conv.questions[Math.min(show, conv.questions.length - 1)]!;
    const eq = queryWithoutSpeakerNames(x.question, speakers);
    console.log(`\n--- ${conv.dataset} conversation ${conv.index}, observation ${o.sourceId} (speaker field: ${o.speaker}) — the string every encoder embeds:\n${JSON.stringify(o.text)}`);
    const so = await see(o.text);
    console.log(`MiniLM: ${so.wp} word pieces${so.wp > MAX ? ` → truncated to ${MAX}` : ''}; GloVe: ${so.glove} tokens, ${so.oov} without a vector`);
    console.log(`--- question ${x.qaIndex}: bm25 reads ${JSON.stringify(x.question)}\n    dense / hybrid / jev embed ${JSON.stringify(eq)}`);
  }
}

const mini = !!pieces;
console.log(`\nWhat each encoder sees (MiniLM: word pieces with [CLS]/[SEP], truncated at ${MAX}; GloVe: wink word tokens, SIF-weighted, "OOV" = no GloVe vector, hashed)\n`);
console.log(
  `| input | n |${mini ? ` MiniLM word pieces p50 / p95 / max | over 128 | over ${MAX} (truncated) | word pieces cut |` : ''} GloVe tokens p50 / p95 / max | GloVe OOV tokens | other |`,
);
console.log(`|---|---:|${mini ? '---:|---:|---:|---:|' : ''}---:|---:|---|`);
for (const g of groups.values()) {
  const wp = g.seen.map((s) => s.wp);
  const over = (n: number) => wp.filter((x) => x > n).length;
  const cut = wp.reduce((a, x) => a + Math.max(0, x - MAX), 0);
  const gl = g.seen.map((s) => s.glove);
  const oov = g.seen.reduce((a, s) => a + s.oov, 0);
  const tot = gl.reduce((a, x) => a + x, 0);
  const other = Object.entries(g.extra).map(([k, [h, n]]) => `${k}: ${pct(h, n)}`).join('; ');
  console.log(
    `| ${g.label} | ${g.seen.length} |${mini ? ` ${q(wp, 0.5)} / ${q(wp, 0.95)} / ${Math.max(...wp)} | ${pct(over(128), wp.length)} | ${pct(over(MAX), wp.length)} | ${pct(cut, wp.reduce((a, x) => a + x, 0))} |` : ''} ${q(gl, 0.5)} / ${q(gl, 0.95)} / ${Math.max(...gl)} | ${pct(oov, tot)} | ${other || '–'} |`,
  );
}

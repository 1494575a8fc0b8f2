/**
 * Why flat dense retrieval on LoCoMo gets worse with all-MiniLM-L6-v2 than with the GloVe SIF
 * embedder (a script, not a test; ours):
 *   cd packages/core && npx tsx --conditions=@mem/source bench/dense-embedders-locomo.ts \
 *     [--data path/to/locomo10-dev.json] [--conversations 0,1,…] [--embedders glove,minilm] [--variants raw,query-no-names,speaker,no-names] \
 *     [--cache-dir /tmp/mem-embed-cache]   (createCachedEmbedder: a second run does not embed again)
 *
 * Everything is in one run, without a store, a gate or an index: each conversation's turns and
 * questions are embedded, turns are ranked by exact cosine, and evidence recall@10 (share of a
 * question's evidence turns among the top 10, every question with evidence, all five categories —
 * the definition of `mem eval locomo`'s `overall`) is reported per conversation for each embedder
 * and text variant:
 * - `raw`: the turn text as `mem eval locomo` stores it (utterance, then `[image: caption; query]`);
 * - `speaker`: `"<speaker>: <text>"` (the format of mem0's LoCoMo scripts);
 * - `no-names`: the two speakers' names removed from turns and questions;
 * - `query-no-names`: the turns as stored, the names removed from the questions only — what jev's
 *   vector anchor and, since issue 38, the dense and hybrid baselines embed.
 * It also prints, for MiniLM: batched vs one-by-one cosines of the same turns (a padding bug in mean
 * pooling would show here), turn lengths in word pieces (truncation at 128 / 256 / 512), and where the
 * top-10 slots go: the share of top-10 slots taken by turns that name a speaker, against that share
 * among all turns and among evidence turns ("name hubs").
 * LoCoMo is read at run time (never copied into the repository).
 */
import { parseArgs } from 'node:util';
import path from 'node:path';
import { createMiniLmEmbedder, defaultModelsDir, MINILM_FOLDER } from '../src/embed/minilm.js';
import { createWinkEmbedder } from '../src/embed/wink.js';
import { createCachedEmbedder } from '../src/embed/cache.js';
import type { Embedder } from '../src/types.js';
import { locomoPath, readLocomoJsonOrExit } from './locomo.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    conversations: { type: 'string' },
    embedders: { type: 'string', default: 'glove,minilm' },
    variants: { type: 'string', default: 'raw,query-no-names,speaker,no-names' },
    k: { type: 'string', default: '10' },
    'cache-dir': { type: 'string' },
  },
});
const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean);
const K = Number(values.k);
const data = readLocomoJsonOrExit(values.data ?? locomoPath()) as Sample[];
const convs = values.conversations ? list(values.conversations).map(Number) : data.map((_, i) => i);
const VARIANTS = list(values.variants!) as Variant[];
type Variant = 'raw' | 'speaker' | 'no-names' | 'query-no-names';

interface LocomoTurnRaw { speaker: string; dia_id: string; text?: string; blip_caption?: string; query?: string }
interface Sample { conversation: Record<string, unknown>; qa: { question: string; evidence?: unknown[]; category: number }[] }
interface Turn { id: string; speaker: string; text: string }
interface Question { text: string; evidence: string[] }

/** Turn text as `mem eval locomo` stores it: the utterance, then `[image: caption; query]`. */
function turnText(t: LocomoTurnRaw): string {
  const parts = [t.blip_caption, t.query].filter((x): x is string => typeof x === 'string' && x.trim() !== '');
  const base = (t.text ?? '').trim();
  return parts.length ? `${base}${base ? ' ' : ''}[image: ${parts.join('; ')}]` : base;
}

/** Evidence ids as `mem eval locomo` normalises them (`"D8:6; D9:17"` split, `D:11:26` repaired). */
function evidenceIds(raw: unknown[] | undefined): string[] {
  const out: string[] = [];
  for (const r of raw ?? []) {
    for (const piece of String(r).split(/[;,\s]+/)) {
      const m = /^D:?(\d+):(\d+)$/i.exec(piece.trim());
      if (!m) continue;
      const id = `D${Number(m[1])}:${Number(m[2])}`;
      if (!out.includes(id)) out.push(id);
    }
  }
  return out;
}

function load(sample: Sample): { turns: Turn[]; questions: Question[]; speakers: string[] } {
  const c = sample.conversation;
  const sessions = Object.keys(c)
    .map((k) => /^session_(\d+)$/.exec(k))
    .filter((m): m is RegExpExecArray => !!m && Array.isArray(c[m[0]]))
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  const turns: Turn[] = [];
  for (const s of sessions) {
    for (const t of c[`session_${s}`] as LocomoTurnRaw[]) {
      const text = turnText(t);
      if (text) turns.push({ id: t.dia_id, speaker: t.speaker, text });
    }
  }
  const questions = sample.qa.map((q) => ({ text: String(q.question), evidence: evidenceIds(q.evidence) })).filter((q) => q.evidence.length > 0);
  const speakers = [...new Set(turns.map((t) => t.speaker))];
  return { turns, questions, speakers };
}

function nameRegex(speakers: string[]): RegExp {
  const names = speakers.flatMap((s) => s.split(/\s+/)).filter((n) => n.length > 1);
  return new RegExp(`\\b(${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})('s)?\\b`, 'gi');
}

function variantTexts(v: Variant, turns: Turn[], questions: Question[], names: RegExp): { t: string[]; q: string[] } {
  const strip = (s: string) => {
    const r = s.replace(names, '').replace(/\s+([,.!?])/g, '$1').replace(/\s{2,}/g, ' ').trim();
    return r.length ? r : '(empty)';
  };
  if (v === 'raw') return { t: turns.map((t) => t.text), q: questions.map((q) => q.text) };
  if (v === 'speaker') return { t: turns.map((t) => `${t.speaker}: ${t.text}`), q: questions.map((q) => q.text) };
  if (v === 'query-no-names') return { t: turns.map((t) => t.text), q: questions.map((q) => strip(q.text)) };
  return { t: turns.map((t) => strip(t.text)), q: questions.map((q) => strip(q.text)) };
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Indices of the k turns with the highest cosine to `q` (ties: earlier turn first). */
function topK(tv: Float32Array[], q: Float32Array, k: number): number[] {
  return tv
    .map((v, i) => [dot(v, q), i] as const)
    .sort((a, b) => b[0] - a[0] || a[1] - b[1])
    .slice(0, k)
    .map(([, i]) => i);
}

function makeEmbedder(name: string): Embedder {
  const dir = values['cache-dir'];
  const cached = (e: Embedder) => (dir ? createCachedEmbedder(e, { dir }) : e);
  if (name === 'glove') return createWinkEmbedder();
  if (name === 'minilm') return cached(createMiniLmEmbedder());
  if (name === 'minilm-q8') return cached(createMiniLmEmbedder({ quantized: true }));
  throw new Error(`--embedders: glove, minilm or minilm-q8, got "${name}"`);
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, x) => a + x, 0) / xs.length : NaN);
const f3 = (x: number) => x.toFixed(3);
const loaded = convs.map((c) => ({ c, ...load(data[c]!) }));

console.log(`# Exact-cosine dense recall@${K} on LoCoMo (conversations ${convs.join(',')}; ${loaded.reduce((a, l) => a + l.questions.length, 0)} questions with evidence)\n`);
console.log(`| embedder | text | overall | ${convs.map((c) => `conv ${c}`).join(' | ')} | name hubs: top-${K} slots naming a speaker | distinct turns in all top-${K}s |`);
console.log(`|---|---|---:|${convs.map(() => '---:').join('|')}|---:|---:|`);
const allNamed = { turns: 0, total: 0, ev: 0, evTotal: 0 };
for (const name of list(values.embedders!)) {
  const embedder = makeEmbedder(name);
  for (const v of VARIANTS) {
    const perConv: number[] = [];
    const all: number[] = [];
    let slots = 0;
    let named = 0;
    let distinct = 0;
    let turnsTotal = 0;
    for (const { turns, questions, speakers } of loaded) {
      const names = nameRegex(speakers);
      const { t, q } = variantTexts(v, turns, questions, names);
      const tv = await embedder.embed(t);
      const qv = await embedder.embed(q);
      const rs: number[] = [];
      const seen = new Set<number>();
      const isNamed = turns.map((x) => new RegExp(names.source, 'i').test(x.text));
      questions.forEach((qq, i) => {
        const top = topK(tv, qv[i]!, K);
        const ids = new Set(top.map((j) => turns[j]!.id));
        rs.push(qq.evidence.filter((e) => ids.has(e)).length / qq.evidence.length);
        for (const j of top) {
          seen.add(j);
          slots++;
          if (isNamed[j]) named++;
        }
      });
      if (name === list(values.embedders!)[0] && v === VARIANTS[0]) {
        const evSet = new Set(questions.flatMap((qq) => qq.evidence));
        allNamed.turns += isNamed.filter(Boolean).length;
        allNamed.total += turns.length;
        turns.forEach((x, j) => {
          if (evSet.has(x.id)) {
            allNamed.evTotal++;
            if (isNamed[j]) allNamed.ev++;
          }
        });
      }
      distinct += seen.size;
      turnsTotal += turns.length;
      perConv.push(mean(rs));
      all.push(...rs);
    }
    console.log(`| ${embedder.model} | ${v} | ${f3(mean(all))} | ${perConv.map(f3).join(' | ')} | ${f3(named / slots)} | ${f3(distinct / turnsTotal)} |`);
  }
}
console.log(`\nTurns naming a speaker: ${f3(allNamed.turns / allNamed.total)} of all turns, ${f3(allNamed.ev / allNamed.evTotal)} of evidence turns.`);

if (list(values.embedders!).includes('minilm')) {
  // batched vs one by one, and lengths in word pieces
  const texts = loaded.flatMap((l) => l.turns.map((t) => t.text));
  const sample = texts.slice(0, 256);
  const batched = await createMiniLmEmbedder({ batchSize: 32 }).embed(sample);
  const single = createMiniLmEmbedder({ batchSize: 1 });
  const cos: number[] = [];
  for (let i = 0; i < sample.length; i++) cos.push(dot(batched[i]!, (await single.embed([sample[i]!]))[0]!));
  console.log(`\nMiniLM fp32, ${sample.length} turns: cosine of batched (32) to one-by-one embeddings min ${Math.min(...cos).toFixed(6)}, mean ${mean(cos).toFixed(6)}.`);
  const tf = (await import('@huggingface/transformers')) as any;
  tf.env.allowRemoteModels = false;
  const tok = await tf.AutoTokenizer.from_pretrained(path.join(process.env.MEM_MINILM_PATH ?? path.join(defaultModelsDir(), MINILM_FOLDER)), { local_files_only: true });
  const lens = texts.map((t) => (tok.encode(t) as number[]).length).sort((a, b) => a - b);
  const over = (n: number) => lens.filter((l) => l > n).length;
  console.log(
    `Turn lengths in word pieces (with [CLS]/[SEP]), ${lens.length} turns: median ${lens[lens.length >> 1]}, p99 ${lens[Math.floor(lens.length * 0.99)]}, max ${lens[lens.length - 1]}; longer than 128: ${over(128)}, than 256: ${over(256)}, than 512: ${over(512)}.`,
  );
}

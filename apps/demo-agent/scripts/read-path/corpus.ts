/**
 * The read-path training corpus (ours): LoCoMo dev and BEAM 500K conversations as memories, built
 * once through the same write path as `mem eval` (offline wink embedder, offline System One, SAGE
 * gate) and cached as SQLite files, so training and analysis do not rebuild them.
 *
 * Splits are fixed up front and never tuned on: LoCoMo conversations 0–3 train / 4–7 held out;
 * BEAM 1–5 train / 6–10 held out.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { MEMORY_SCHEMA_VERSION, createMemory, createSqliteStore, resolveScope, type Embedder, type MemoryStore, type ResolvedScope } from '@mem/core';
import { createNoveltyGate } from '@mem/gate-vmf';
import type { SystemOneLike } from '@mem/retrieval';
import { prepareBeam } from '../../src/eval/beam.js';
import { checkLocomo, conversationObservations, conversationQuestions } from '../../src/eval/locomo.js';
import { groupsOf } from '../../src/eval/metrics.js';
import type { PreparedConversation } from '../../src/eval/engine.js';
import { readFileSync } from 'node:fs';

export type Dataset = 'locomo' | 'beam';

/** The `parseArgs` options every script that builds memories from the corpus takes (the embedder, the data files, the cache folder). */
export const CORPUS_OPTIONS = { embedder: { type: 'string' }, locomo: { type: 'string' }, beam: { type: 'string' }, cache: { type: 'string' } } as const;

/** The fixed train / held-out split (decided before any training; never tuned). */
export const TRAIN: Record<Dataset, ReadonlySet<number>> = { locomo: new Set([0, 1, 2, 3]), beam: new Set([1, 2, 3, 4, 5]) };

export interface CorpusConversation extends PreparedConversation {
  dataset: Dataset;
  split: 'train' | 'held';
}

/** LoCoMo (8 dev conversations) and BEAM 500K (1–10) prepared like `mem eval` does. */
export function loadCorpus(opts: { locomo?: string; beam?: string; datasets?: Dataset[] }): CorpusConversation[] {
  const out: CorpusConversation[] = [];
  const want = new Set(opts.datasets ?? ['locomo', 'beam']);
  if (want.has('locomo') && opts.locomo) {
    const data = checkLocomo(JSON.parse(readFileSync(opts.locomo, 'utf8')));
    data.forEach((conv, c) => {
      const questions = conversationQuestions(conv, c).map((q) => ({
        qaIndex: q.qaIndex,
        category: q.category,
        groups: groupsOf(q.category) as string[],
        answerGroups: [],
        question: q.question,
        answer: q.answer,
        evidence: q.evidence,
      }));
      out.push({ dataset: 'locomo', split: TRAIN.locomo.has(c) ? 'train' : 'held', index: c, observations: conversationObservations(conv, c), questions });
    });
  }
  if (want.has('beam') && opts.beam) {
    for (const p of prepareBeam({ data: opts.beam }).prepared) out.push({ ...p, dataset: 'beam', split: TRAIN.beam.has(p.index) ? 'train' : 'held' });
  }
  return out;
}

export interface BuiltMemory {
  store: MemoryStore;
  scope: ResolvedScope;
  now: string;
  close(): Promise<void>;
}

/**
 * The memory of one conversation: opened from `<cache>/<dataset>-<index>.sqlite` when present, else
 * built through `createMemory` (the eval's configuration) into that file first.
 */
export async function memoryOf(conv: CorpusConversation, cache: string, embedder: Embedder, systemOne: SystemOneLike, log = (s: string) => process.stderr.write(`${s}\n`)): Promise<BuiltMemory> {
  mkdirSync(cache, { recursive: true });
  const file = path.join(cache, `${conv.dataset}-${conv.index}.sqlite`);
  const scope = resolveScope({ userId: `${conv.dataset}-${conv.index}` });
  const now = conv.observations.reduce((m, o) => (o.observedAt > m ? o.observedAt : m), '1970-01-01T00:00:00.000Z');
  if (!existsSync(file)) {
    const t0 = performance.now();
    const tmp = `${file}.partial`;
    rmSync(tmp, { force: true });
    const memory = createMemory({ store: createSqliteStore({ path: tmp }), embedder, systemOne: systemOne as any, gate: () => createNoveltyGate() as any });
    await memory.add(conv.observations.map((o) => ({ text: o.text, speaker: o.speaker, observedAt: o.observedAt, sourceId: o.sourceId, scope, metadata: { ...o.metadata, session: o.session, turn: o.turn } })));
    await memory.close();
    renameSync(tmp, file);
    log(`${conv.dataset} ${conv.index}: built ${conv.observations.length} observations in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  const store = createSqliteStore({ path: file });
  await store.open({ schemaVersion: MEMORY_SCHEMA_VERSION, embeddingModel: embedder.model, dimension: embedder.dimension });
  return { store, scope, now, close: async () => store.close() };
}

/** A question's type for per-type tables: LoCoMo's category group (single-hop, multi-hop, …), BEAM's question type. */
export function questionType(conv: CorpusConversation, q: CorpusConversation['questions'][number]): string {
  return conv.dataset === 'locomo' ? q.groups.filter((g) => g !== 'overall' && g !== 'overall_1_4')[0] ?? String(q.category) : String(q.category);
}

/** The key fields of a dumped question row (table.ts DumpedQuestion), `type` as given. */
export function dumpedQuestion(conv: CorpusConversation, q: CorpusConversation['questions'][number], type: string) {
  return { dataset: conv.dataset, conversation: conv.index, split: conv.split, qa: q.qaIndex, type, evidence: q.evidence };
}

/** Keeps the conversations of `split` (train | held | all) and, when given, those named in `conversations` ("beam:6,locomo:4"). */
export function selectConversations(corpus: CorpusConversation[], split: string | undefined, conversations?: string): CorpusConversation[] {
  const pick = conversations ? new Set(conversations.split(',')) : null;
  return corpus.filter((c) => (!split || split === 'all' || c.split === split) && (!pick || pick.has(`${c.dataset}:${c.index}`)));
}

/** Memory id → the observation's sourceId (the id the datasets' evidence lists use). */
export async function sourceIdsOf(m: BuiltMemory): Promise<Map<string, string>> {
  const nodes = await m.store.list(m.scope, { limit: 100_000 });
  return new Map(nodes.map((n) => [n.id, n.provenance.sourceId ?? n.id]));
}

/**
 * Opens each conversation's cached memory (built on first use) with a fresh eval System One, runs `fn`,
 * reports the conversation's question count and seconds on stderr (plus `fn`'s note), and closes it.
 */
export async function forEachMemory(
  corpus: CorpusConversation[],
  opts: { cache: string; embedder: Embedder; systemOne: () => SystemOneLike },
  fn: (conv: CorpusConversation, m: BuiltMemory, systemOne: SystemOneLike) => Promise<string | void>,
): Promise<void> {
  for (const conv of corpus) {
    const systemOne = opts.systemOne();
    const m = await memoryOf(conv, opts.cache, opts.embedder, systemOne);
    const t0 = performance.now();
    try {
      const note = await fn(conv, m, systemOne);
      process.stderr.write(`${conv.dataset} ${conv.index}: ${conv.questions.length} questions${note ? `, ${note}` : ''} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    } finally {
      await m.close();
    }
  }
}


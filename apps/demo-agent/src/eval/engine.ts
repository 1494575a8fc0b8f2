/**
 * The offline evaluation engine (docs/design.md "Evaluation protocol"; report shape: issue 8), shared by
 * `mem eval locomo` and `mem eval beam`: one memory per conversation and system; every turn an
 * observation (`sourceId` = the dataset's turn id); evidence recall@k per question group, answer-token
 * recall in the packed context, build seconds, query latency p50/p95, controller calls per query, gate
 * counts. `runEval` runs prepared conversations; `runLocomoEval` prepares LoCoMo (beam.ts: BEAM).
 */
import { createWriteStream, existsSync, renameSync, rmSync, statSync, writeFileSync, type WriteStream } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MemError, MemValidationError } from '@mem/core';
import {
  checkLocomo,
  conversationObservations,
  conversationQuestions,
  parseAudit,
  type AuditEntry,
  type LocomoConversation,
} from './locomo.js';
import { GROUPS, MeanAccumulator, answerTokenRecall, costTable, groupsOf, loadAverageLines, percentile, r4, recallAtK } from './metrics.js';
import type { EvalObservation } from './locomo.js';
import type { EvalStoreKind, EvalSystem, EvalSystemFactory } from './types.js';
import { bleu1, tokenF1, type LlmJudge } from './answers.js';
import type { SystemTwo } from '../answer/system-two.js';
import type { EmbedderKind } from '../embedder.js';
import { readInputFile } from '../output.js';

export interface SystemReport {
  build_seconds: number;
  /** CPU seconds of the builds (user + system), when the system reports them (the @mem systems do). */
  build_cpu_seconds?: number;
  observations: number;
  query_latency_ms: { p50: number; p95: number };
  /**
   * CPU milliseconds of the `search` call (user + system of this process, `process.cpuUsage`): on a
   * loaded machine a long search waits for a core many times over while a short one rarely does, so
   * wall-time ratios between systems grow with the load; CPU time much less (absent in older reports).
   */
  query_cpu_ms?: { p50: number; p95: number };
  recall_at_k: Record<string, Record<string, number>>;
  answer_token_recall: Record<string, number>;
  controller_calls_per_query: number;
  gate: { add: number; update: number; noop: number };
  /**
   * Only with an answer endpoint (`answerer`): System-Two answers written from the packed context,
   * scored against the gold answer (categories 1–4): token-F1, BLEU-1, LLM-as-judge accuracy, per group.
   */
  answers?: { model: string; judge_model: string | null; answered: number; failed: number; token_f1: Record<string, number>; bleu1: Record<string, number>; llm_judge: Record<string, number> };
}

/** The JSON an eval's `--out` writes (issue 8's shape; each dataset adds its own `config` fields). */
export interface EvalReport<C extends object = Record<string, unknown>> {
  dataset: string;
  /** Number of conversations evaluated (their indices are in `config.conversations`). */
  conversations: number;
  /** Number of questions evaluated per system. */
  questions: number;
  config: {
    systems: string[];
    ks: number[];
    budget_tokens: number;
    conversations: number[];
    /** Embedder model every system used (e.g. `wink-glove-100d-sif`, `all-MiniLM-L6-v2`); absent in older reports. */
    embedder?: string;
    /** Stores the @mem systems ran on, when not only the default SQLite (`<system>@<store>` names with two or more). */
    stores?: EvalStoreKind[];
    /**
     * The machine's load average (1, 5 and 15 minutes; `os.loadavg()`) at the start and the end of the
     * run: latencies move with it on a shared machine (absent in older reports).
     */
    load_average?: { start: number[]; end: number[] };
  } & C;
  systems: Record<string, SystemReport>;
}

/** The JSON `mem eval locomo --out` writes (issue 8, exactly this shape). */
export type LocomoReport = EvalReport<{ audit: string | null; audited_questions: number }>;

/** One `--dump` line: enough to recompute every recall number. */
export interface DumpRow {
  system: string;
  conversation: number;
  qa_index: number;
  /** LoCoMo: the category number; BEAM: the question type. */
  category: number | string;
  evidence: string[];
  retrieved: string[];
}

/** A question ready for scoring (any dataset). */
export interface PreparedQuestion {
  qaIndex: number;
  /** LoCoMo: the category number; BEAM: the question type. */
  category: number | string;
  /** Recall groups the question counts in (e.g. `overall` and its type). */
  groups: string[];
  /** Groups of System-Two answers ([] = not answered). */
  answerGroups: string[];
  /** Groups of answer-token recall (default: `answerGroups`). */
  tokenGroups?: string[];
  question: string;
  /** Gold / ideal answer ('' when none). */
  answer: string;
  /** Evidence turn ids ([] = left out of recall means). */
  evidence: string[];
  /** Rubric items (BEAM): what a good answer states. */
  rubric?: string[];
  /**
   * The conversation the question belongs to, when it differs from the memory it is asked against
   * (`mem eval beam --one-scope`: every conversation in one memory); dump rows report this one.
   */
  conversation?: number;
}

/** One conversation ready for the engine. */
export interface PreparedConversation {
  /** The index reported (`conversation` of dump rows, `config.conversations`). */
  index: number;
  observations: EvalObservation[];
  questions: PreparedQuestion[];
}

/** Scores a System-Two answer in [0, 1] (LLM judge of the gold answer, or of a rubric). */
export interface AnswerJudge {
  readonly model: string;
  score(q: PreparedQuestion, answer: string): Promise<number>;
}

export type EvalProgress =
  | { phase: 'build'; system: string; conversation: number; observations: number }
  | { phase: 'built'; system: string; conversation: number; seconds: number }
  | { phase: 'query'; system: string; conversation: number; done: number; total: number };

/** Options of `runEval`: the dataset-neutral part of every eval's options (LoCoMo's, BEAM's). */
export interface RunEvalOptions {
  dataset: string;
  /** Report groups in print order (recall; answer groups are those of the questions). */
  groups: readonly string[];
  /** Systems by registered name, or `{ name, factory }` pairs. */
  systems: (string | { name: string; factory: EvalSystemFactory })[];
  /** Registry used to resolve names (default: `systems/index.ts`). */
  registry?: Record<string, EvalSystemFactory>;
  /** Cut-offs for recall@k. Default [5, 10, 20]. */
  ks?: number[];
  /** Token budget of the packed context for answer-token recall. Default 1000 (ours). */
  budgetTokens?: number;
  /** How many items to retrieve per question (≥ max k; feeds the context too). Default max(ks). */
  retrieveK?: number;
  onProgress?: (e: EvalProgress) => void;
  /** `--dump`: a JSONL path, or a callback per row. */
  dump?: string | ((row: DumpRow) => void);
  /**
   * System Two (an OpenAI-compatible endpoint) writes an answer from each question's packed context
   * and the answers are scored: token-F1, BLEU-1 and, with `judge`, a judge.
   * A failed call is counted in `answers.failed` and scored as nothing (not as wrong).
   */
  answerer?: { systemTwo: SystemTwo; judge?: AnswerJudge | null };
  /** Embedder of every system in the run: glove (default) | minilm | openai (see ../embedder.ts). */
  embedder?: EmbedderKind;
  /**
   * Stores the @mem systems run on (ours). Default `['sqlite']`. With two or more, every system runs
   * once per store, named `<system>@<store>` (e.g. `jev@sqlite`, `jev@neo4j`), in the same run, and
   * {@link formatStoreComparison} prints them side by side. `neo4j` reads MEM_NEO4J_URI / USER / PASSWORD.
   */
  stores?: EvalStoreKind[];
}

export interface RunLocomoEvalOptions extends Omit<RunEvalOptions, 'dataset' | 'groups' | 'answerer'> {
  /** Parsed LoCoMo JSON, or a path to it. */
  data: unknown;
  /** Name shown as `dataset` (default: the file name, or `locomo`). */
  datasetName?: string;
  /** Only the first n questions of each conversation (a bounded run, e.g. with System-Two answers); default all. */
  maxQuestions?: number;
  /** Conversation indices (0-based); default all. */
  conversations?: number[];
  /** Audit corrections: parsed JSON array, a Map, or a path. */
  audit?: unknown;
  /** System Two answers the questions of categories 1–4; the judge is LLM-as-judge (see `RunEvalOptions.answerer`). */
  answerer?: { systemTwo: SystemTwo; judge?: LlmJudge | null };
}

function readJson(p: string, what: string): unknown {
  let text: string;
  try {
    text = readInputFile(p, what);
  } catch (e) {
    // LoCoMo is not shipped with @mem (CC BY-NC 4.0): say where it comes from (ours)
    if (what === 'LoCoMo data' && (e as { cause?: NodeJS.ErrnoException }).cause?.code === 'ENOENT') {
      throw new MemValidationError('INVALID_INPUT', `${(e as Error).message} (LoCoMo is not in this repository: pass --data the path of your copy of the authors' locomo10.json)`, { cause: e });
    }
    throw e;
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new MemValidationError('INVALID_INPUT', `cannot read ${what} ${p}: not valid JSON (${(e as Error).message})`, { cause: e });
  }
}

function checkKs(ks: number[]): number[] {
  if (!Array.isArray(ks) || ks.length === 0 || ks.some((k) => !Number.isInteger(k) || k < 1)) {
    throw new MemValidationError('INVALID_INPUT', `ks must be positive integers, got ${JSON.stringify(ks)}`);
  }
  return [...new Set(ks)].sort((a, b) => a - b);
}

/**
 * Run the LoCoMo evaluation. Every system of a conversation is built and queried before the next
 * conversation starts; shared resources are released after each conversation. Throws
 * MemValidationError on bad data, options or unknown systems (before any system is built).
 */
export async function runLocomoEval(options: RunLocomoEvalOptions): Promise<LocomoReport> {
  const dataPath = typeof options.data === 'string' ? options.data : null;
  const data: LocomoConversation[] = checkLocomo(dataPath ? readJson(dataPath, 'LoCoMo data') : options.data);
  const convs = options.conversations ?? data.map((_, i) => i);
  for (const c of convs) {
    if (!Number.isInteger(c) || c < 0 || c >= data.length) throw new MemValidationError('INVALID_INPUT', `conversation ${c} is not in 0..${data.length - 1}`);
  }
  const auditPath = typeof options.audit === 'string' ? options.audit : null;
  const audit: Map<string, AuditEntry> | undefined =
    options.audit === undefined || options.audit === null
      ? undefined
      : options.audit instanceof Map
        ? (options.audit as Map<string, AuditEntry>)
        : parseAudit(auditPath ? readJson(auditPath, 'audit file') : options.audit);
  if (options.maxQuestions !== undefined && (!Number.isInteger(options.maxQuestions) || options.maxQuestions < 1)) {
    throw new MemValidationError('INVALID_INPUT', `maxQuestions must be a positive integer, got ${options.maxQuestions}`);
  }
  let audited = 0;
  const prepared: PreparedConversation[] = convs.map((c) => {
    const questions = conversationQuestions(data[c], c, audit).slice(0, options.maxQuestions);
    audited += questions.filter((q) => q.audited).length;
    return {
      index: c,
      observations: conversationObservations(data[c], c),
      questions: questions.map((q) => {
        const groups: string[] = groupsOf(q.category);
        return { qaIndex: q.qaIndex, category: q.category, groups, answerGroups: q.category >= 1 && q.category <= 4 ? groups.filter((g) => g !== 'overall') : [], question: q.question, answer: q.answer, evidence: q.evidence };
      }),
    };
  });
  const judge = options.answerer?.judge;
  const report = await runEval(prepared, {
    ...options,
    dataset: options.datasetName ?? (dataPath ? path.basename(dataPath) : 'locomo'),
    groups: GROUPS,
    answerer: options.answerer && { systemTwo: options.answerer.systemTwo, judge: judge ? { model: judge.model, score: (q, text) => judge.judge(q.question, q.answer, text) } : null },
  });
  return { ...report, config: { ...report.config, audit: auditPath ?? (audit ? 'inline' : null), audited_questions: audited } };
}

/**
 * Check, before a run, that `file` can be written as an output (`--out`, `--dump`): its folder exists
 * and it is not a folder. Throws MemValidationError `INVALID_INPUT` naming `flag` (ours; a run used to
 * find out only at the end, after minutes of work, and might have written the other file by then).
 */
export function checkOutputPath(file: string | undefined, flag: string): void {
  if (file === undefined) return;
  const dir = path.dirname(path.resolve(file));
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new MemValidationError('INVALID_INPUT', `${flag} ${file}: the folder ${dir} does not exist`);
  if (existsSync(file) && statSync(file).isDirectory()) throw new MemValidationError('INVALID_INPUT', `${flag} ${file} is a folder, not a file`);
}

/** Write `text` to `file` through a temporary file and a rename, so a failed run leaves no half-written file (ours). */
export function writeFileAtomic(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.partial`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/**
 * Run prepared conversations through every system (the engine of `mem eval locomo` and `mem eval
 * beam`). A `dump` path is written to a temporary file renamed at the end: a run that fails in any
 * conversation throws (the error names the conversation in `details.conversation`) and leaves no dump.
 * Throws MemValidationError on bad options or unknown systems before any system is built.
 */
export async function runEval(prepared: PreparedConversation[], options: RunEvalOptions): Promise<EvalReport> {
  const ks = checkKs(options.ks ?? [5, 10, 20]);
  const budgetTokens = options.budgetTokens ?? 1000;
  if (!Number.isInteger(budgetTokens) || budgetTokens < 1) throw new MemValidationError('INVALID_INPUT', `budgetTokens must be a positive integer`);
  const retrieveK = Math.max(options.retrieveK ?? 0, ks[ks.length - 1]);
  const { systems, stores } = await evalSystemsOf(options);
  let dumpStream: WriteStream | null = null;
  const dumpTmp = typeof options.dump === 'string' ? `${options.dump}.${process.pid}.partial` : null;
  const dump: ((row: DumpRow) => void) | null =
    typeof options.dump === 'function'
      ? options.dump
      : dumpTmp
        ? ((dumpStream = createWriteStream(dumpTmp)), (row: DumpRow) => void dumpStream!.write(JSON.stringify(row) + '\n'))
        : null;
  const acc = new Map<string, EvalAcc>(
    systems.map((s) => [
      s.name,
      { build: 0, buildCpu: null, observations: 0, latencies: [], cpu: [], calls: 0, queries: 0, recall: new MeanAccumulator(), tokens: new MeanAccumulator(), gate: { add: 0, update: 0, noop: 0 },
        f1: new MeanAccumulator(), bleu: new MeanAccumulator(), judge: new MeanAccumulator(), answered: 0, failed: 0 },
    ]),
  );
  const runShared = new Map<string, unknown>([['embedderKind', options.embedder ?? 'glove']]);
  const loadStart = os.loadavg();
  let questionCount = 0;
  let ok = false;
  try {
    for (const conv of prepared) {
      questionCount += conv.questions.length;
      await evalConversation(conv, systems, acc, { options, runShared, dump, ks, retrieveK, budgetTokens });
    }
    ok = true;
  } finally {
    for (const v of runShared.values()) {
      const close = (v as { close?: () => unknown } | null)?.close;
      if (typeof close === 'function') await close.call(v);
    }
    if (dumpStream) await new Promise<void>((resolve) => (dumpStream as WriteStream).end(resolve));
    if (dumpTmp) {
      if (ok) renameSync(dumpTmp, options.dump as string);
      else rmSync(dumpTmp, { force: true });
    }
  }
  const report = evalReport(prepared, options, { systems, stores, acc, runShared, questionCount, ks, budgetTokens });
  report.config.load_average = { start: loadStart.map(r2), end: os.loadavg().map(r2) };
  return report;
}

const r2 = (x: number) => Math.round(x * 100) / 100;

/** One named system of a run (a store suffix `@neo4j` when several stores are compared). */
interface NamedSystem {
  name: string;
  factory: EvalSystemFactory;
}

/** The systems and stores of a run (MemValidationError for unknown systems, bad stores, duplicates). */
async function evalSystemsOf(options: RunEvalOptions): Promise<{ systems: NamedSystem[]; stores: EvalStoreKind[] }> {
  const registry = options.registry ?? (await import('./systems/index.js')).evalSystems;
  const systems: NamedSystem[] = options.systems.map((s) => {
    if (typeof s !== 'string') return s;
    const factory = registry[s];
    if (!factory) throw new MemValidationError('INVALID_INPUT', `unknown system "${s}" (known: ${Object.keys(registry).join(', ')})`);
    return { name: s, factory };
  });
  const stores = options.stores ?? ['sqlite'];
  if (stores.length === 0 || stores.some((st) => st !== 'sqlite' && st !== 'neo4j') || new Set(stores).size !== stores.length) {
    throw new MemValidationError('INVALID_INPUT', `stores must be distinct of sqlite, neo4j; got ${JSON.stringify(stores)}`);
  }
  if (stores.length > 1 || stores[0] !== 'sqlite') {
    const base = systems.splice(0, systems.length);
    for (const st of stores) {
      for (const b of base) systems.push({ name: stores.length > 1 ? `${b.name}@${st}` : b.name, factory: (ctx) => b.factory({ ...ctx, store: st }) });
    }
  }
  if (systems.length === 0) throw new MemValidationError('INVALID_INPUT', 'no systems to evaluate');
  if (new Set(systems.map((s) => s.name)).size !== systems.length) throw new MemValidationError('INVALID_INPUT', 'duplicate system names');

  return { systems, stores };
}

/** Per-system sums of a run. */
interface EvalAcc {
  build: number;
  buildCpu: number | null;
  observations: number;
  latencies: number[];
  cpu: number[];
  calls: number;
  queries: number;
  recall: MeanAccumulator;
  tokens: MeanAccumulator;
  gate: { add: number; update: number; noop: number };
  f1: MeanAccumulator;
  bleu: MeanAccumulator;
  judge: MeanAccumulator;
  answered: number;
  failed: number;
}

/** What every conversation of a run shares. */
interface EvalRun {
  options: RunEvalOptions;
  runShared: Map<string, unknown>;
  dump: ((row: DumpRow) => void) | null;
  ks: number[];
  retrieveK: number;
  budgetTokens: number;
}

/** One conversation through every system; a failure is rethrown naming the conversation (`details.conversation`). */
async function evalConversation(conv: PreparedConversation, systems: NamedSystem[], acc: Map<string, EvalAcc>, run: EvalRun): Promise<void> {
  const c = conv.index;
  const shared = new Map<string, unknown>();
  const deferred: (() => Promise<void> | void)[] = [];
  let warmed = false;
  try {
    for (const s of systems) {
      await evalSystemOnConversation(s, conv, acc.get(s.name)!, run, shared, deferred, () => warmed, (w) => (warmed = w));
    }
  } catch (e) {
    // name the conversation; keep the code and category of an @mem error
    const m = MemError.isInstance(e) ? (e as MemError) : null;
    throw new MemError(m?.code ?? 'INTERNAL', m?.category ?? 'internal', `conversation ${c}: ${(e as Error)?.message ?? String(e)}`, {
      cause: e,
      details: { ...(m?.details ?? {}), conversation: c },
    });
  } finally {
    for (const f of deferred.reverse()) await f();
  }
}

/** Build one system on the conversation, then ask every question (recall@k, token recall, answers; dump rows). */
async function evalSystemOnConversation(
  s: NamedSystem,
  conv: PreparedConversation,
  a: EvalAcc,
  run: EvalRun,
  shared: Map<string, unknown>,
  deferred: (() => Promise<void> | void)[],
  isWarm: () => boolean,
  setWarm: (w: boolean) => void,
): Promise<void> {
  const { options, runShared, dump, ks, retrieveK, budgetTokens } = run;
  const c = conv.index;
  const { observations, questions } = conv;
  const system: EvalSystem = await s.factory({ name: s.name, conversation: c, shared, runShared, defer: (f) => void deferred.push(f) });
  try {
    options.onProgress?.({ phase: 'build', system: s.name, conversation: c, observations: observations.length });
    const t0 = performance.now();
    const stats = await system.build(observations);
    const seconds = stats.seconds ?? (performance.now() - t0) / 1000;
    a.build += seconds;
    if (stats.cpuSeconds !== undefined) a.buildCpu = (a.buildCpu ?? 0) + stats.cpuSeconds;
    a.observations += stats.observations;
    a.gate.add += stats.gate.add;
    a.gate.update += stats.gate.update;
    a.gate.noop += stats.gate.noop;
    options.onProgress?.({ phase: 'built', system: s.name, conversation: c, seconds });
    if (!isWarm()) setWarm(await warmQuestionVectors(runShared.get('embedder'), questions));
    for (let i = 0; i < questions.length; i++) {
      const q = questions[i];
      const c1 = process.cpuUsage();
      const t1 = performance.now();
      const res = await system.search(q.question, retrieveK, { budgetTokens });
      a.latencies.push(performance.now() - t1);
      const c2 = process.cpuUsage(c1);
      a.cpu.push((c2.user + c2.system) / 1000);
      a.calls += res.controllerCalls ?? 0;
      a.queries += 1;
      const retrieved = res.ids.slice(0, retrieveK);
      for (const k of ks) {
        const r = recallAtK(q.evidence, retrieved, k);
        for (const g of q.groups) a.recall.add(`${g}@${k}`, r);
      }
      const tokenGroups = q.tokenGroups ?? q.answerGroups;
      if ((tokenGroups.length || (options.answerer && q.answerGroups.length)) && res.context) {
        const context = res.context();
        if (tokenGroups.length) {
          const tr = answerTokenRecall(q.answer, context);
          for (const g of tokenGroups) a.tokens.add(g, tr);
        }
        if (options.answerer && q.answerGroups.length) await scoreAnswer(options.answerer, q, context, a);
      }
      dump?.({ system: s.name, conversation: q.conversation ?? c, qa_index: q.qaIndex, category: q.category, evidence: q.evidence, retrieved });
      if ((i + 1) % 25 === 0 || i + 1 === questions.length) {
        options.onProgress?.({ phase: 'query', system: s.name, conversation: c, done: i + 1, total: questions.length });
      }
    }
  } finally {
    await system.close();
  }
}

/** The report of a run: per system build seconds, latency, recall@k per group, token recall, gate counts, answers. */
function evalReport(
  prepared: PreparedConversation[],
  options: RunEvalOptions,
  r: { systems: NamedSystem[]; stores: EvalStoreKind[]; acc: Map<string, EvalAcc>; runShared: Map<string, unknown>; questionCount: number; ks: number[]; budgetTokens: number },
): EvalReport {
  const { systems, stores, acc, runShared, questionCount, ks, budgetTokens } = r;
  const ordered = (set: Set<string>) => [...options.groups.filter((g) => set.has(g)), ...[...set].filter((g) => !options.groups.includes(g))];
  const answerGroups = ordered(new Set(prepared.flatMap((p) => p.questions.flatMap((q) => q.answerGroups))));
  const tokenGroups = ordered(new Set(prepared.flatMap((p) => p.questions.flatMap((q) => q.tokenGroups ?? q.answerGroups))));
  const report: EvalReport = {
    dataset: options.dataset,
    conversations: prepared.length,
    questions: questionCount,
    config: {
      systems: systems.map((s) => s.name),
      ks,
      budget_tokens: budgetTokens,
      conversations: prepared.map((p) => p.index),
      embedder: (runShared.get('embedder') as { model?: string } | undefined)?.model ?? options.embedder ?? 'glove',
      ...(stores.length > 1 || stores[0] !== 'sqlite' ? { stores } : {}),
    },
    systems: {},
  };
  for (const s of systems) {
    const a = acc.get(s.name)!;
    const recall: Record<string, Record<string, number>> = {};
    const tokens: Record<string, number> = {};
    for (const g of options.groups) {
      recall[g] = {};
      for (const k of ks) {
        const m = a.recall.mean(`${g}@${k}`);
        if (m !== null) recall[g][String(k)] = r4(m);
      }
    }
    for (const g of tokenGroups) {
      const t = a.tokens.mean(g);
      if (t !== null) tokens[g] = r4(t);
    }
    report.systems[s.name] = {
      build_seconds: Math.round(a.build * 100) / 100,
      ...(a.buildCpu !== null ? { build_cpu_seconds: Math.round(a.buildCpu * 100) / 100 } : {}),
      observations: a.observations,
      query_latency_ms: { p50: Math.round(percentile(a.latencies, 0.5) * 100) / 100, p95: Math.round(percentile(a.latencies, 0.95) * 100) / 100 },
      query_cpu_ms: { p50: Math.round(percentile(a.cpu, 0.5) * 100) / 100, p95: Math.round(percentile(a.cpu, 0.95) * 100) / 100 },
      recall_at_k: recall,
      answer_token_recall: tokens,
      controller_calls_per_query: a.queries ? Math.round((a.calls / a.queries) * 100) / 100 : 0,
      gate: a.gate,
    };
    if (options.answerer) {
      const by = (m: MeanAccumulator) => Object.fromEntries(answerGroups.flatMap((g) => (m.mean(g) === null ? [] : [[g, r4(m.mean(g)!)]])));
      report.systems[s.name].answers = {
        model: options.answerer.systemTwo.model,
        judge_model: options.answerer.judge?.model ?? null,
        answered: a.answered,
        failed: a.failed,
        token_f1: by(a.f1),
        bleu1: by(a.bleu),
        llm_judge: by(a.judge),
      };
    }
  }
  return report;
}

/**
 * Fair query timing with an embedding cache (ours): when the run's embedder keeps vectors (core's
 * `createCachedEmbedder`, MEM_EMBED_CACHE_DIR), every question of the conversation is embedded once
 * before any system is timed, so each system reads its query vector from the cache. Otherwise the
 * first system queried (jev) paid the encoder for a question new to the cache and the systems after it
 * read the vector back. Returns whether the questions were embedded (false: no cached embedder yet).
 * Without a cache nothing is embedded here and every system pays its own query embedding.
 */
async function warmQuestionVectors(embedder: unknown, questions: PreparedQuestion[]): Promise<boolean> {
  const e = embedder as { embed?: (texts: string[]) => Promise<unknown>; stats?: () => unknown } | undefined;
  if (!e || typeof e.embed !== 'function' || typeof e.stats !== 'function') return false;
  // one text per call, as a system embeds its query (a batch can change an encoder's last bits)
  for (const text of new Set(questions.map((q) => q.question))) await e.embed([text]);
  return true;
}

/** Markdown tables of a report: recall@k per group for each k, then costs. */
export function formatLocomoMarkdown(report: LocomoReport): string {
  const names = Object.keys(report.systems);
  const out: string[] = [];
  out.push(`LoCoMo ${report.dataset}: ${report.conversations} conversations, ${report.questions} questions${report.config.audit ? `, audit applied to ${report.config.audited_questions}` : ''}${report.config.embedder ? `; embedder ${report.config.embedder}` : ''}`);
  for (const k of report.config.ks) {
    out.push('', `Evidence recall@${k}`, '', `| system | ${GROUPS.join(' | ')} |`, `|---|${GROUPS.map(() => '---:').join('|')}|`);
    for (const n of names) {
      const r = report.systems[n].recall_at_k;
      out.push(`| ${n} | ${GROUPS.map((g) => fmt(r[g]?.[String(k)])).join(' | ')} |`);
    }
  }
  const tokenGroups = GROUPS.filter((g) => g !== 'overall' && g !== 'adversarial');
  out.push('', `Answer-token recall in a ${report.config.budget_tokens}-token context (categories 1–4)`, '', `| system | ${tokenGroups.join(' | ')} |`, `|---|${tokenGroups.map(() => '---:').join('|')}|`);
  for (const n of names) out.push(`| ${n} | ${tokenGroups.map((g) => fmt(report.systems[n].answer_token_recall[g])).join(' | ')} |`);
  out.push('', ...costTable(report.systems, names), ...loadAverageLines(report.config));
  const answered = names.filter((n) => report.systems[n].answers);
  if (answered.length) {
    const first = report.systems[answered[0]].answers!;
    out.push('', `System-Two answers (${first.model}${first.judge_model ? `, judge ${first.judge_model}` : ''}; categories 1–4): token-F1 / BLEU-1 / LLM-judge`, '', `| system | answered | failed | ${tokenGroups.join(' | ')} |`, `|---|---:|---:|${tokenGroups.map(() => '---').join('|')}|`);
    for (const n of answered) {
      const a = report.systems[n].answers!;
      out.push(`| ${n} | ${a.answered} | ${a.failed} | ${tokenGroups.map((g) => `${fmt(a.token_f1[g])} / ${fmt(a.bleu1[g])} / ${fmt(a.llm_judge[g])}`).join(' | ')} |`);
    }
  }
  const comparison = formatStoreComparison(report);
  if (comparison) out.push('', comparison);
  return out.join('\n');
}

/**
 * The same systems on two stores side by side (ours; `--stores sqlite,neo4j`): overall recall@k on
 * each store and the difference (second − first), build (ingest) seconds and query latency p50 / p95
 * on each, with the ratio second / first. '' when the report ran on fewer than two stores. Ratios
 * come from one run on one machine: compare them, not the absolute times.
 */
export function formatStoreComparison(report: EvalReport): string {
  const stores = report.config.stores ?? [];
  if (stores.length < 2) return '';
  const [a, b] = stores as [EvalStoreKind, EvalStoreKind];
  const bases = [...new Set(Object.keys(report.systems).filter((n) => n.endsWith(`@${a}`)).map((n) => n.slice(0, -a.length - 1)))].filter((x) => report.systems[`${x}@${b}`]);
  const ks = report.config.ks;
  const out = [
    `Stores side by side: ${a} vs ${b} (same systems, same run; Δ = ${b} − ${a}, ratio = ${b} / ${a})`,
    '',
    `| system | ${ks.map((k) => `recall@${k} ${a} / ${b} (Δ)`).join(' | ')} | ingest s ${a} / ${b} (ratio) | p50 ms ${a} / ${b} (ratio) | p95 ms ${a} / ${b} (ratio) |`,
    `|---|${ks.map(() => '---').join('|')}|---|---|---|`,
  ];
  const ratio = (x: number, y: number) => (x > 0 ? `${(y / x).toFixed(2)}×` : '–');
  let maxDelta = 0;
  for (const n of bases) {
    const x = report.systems[`${n}@${a}`]!;
    const y = report.systems[`${n}@${b}`]!;
    const cells = ks.map((k) => {
      const rx = x.recall_at_k.overall?.[String(k)] ?? 0;
      const ry = y.recall_at_k.overall?.[String(k)] ?? 0;
      maxDelta = Math.max(maxDelta, Math.abs(ry - rx));
      return `${fmt(rx)} / ${fmt(ry)} (${ry - rx >= 0 ? '+' : ''}${(ry - rx).toFixed(3)})`;
    });
    out.push(
      `| ${n} | ${cells.join(' | ')} | ${x.build_seconds.toFixed(1)} / ${y.build_seconds.toFixed(1)} (${ratio(x.build_seconds, y.build_seconds)}) | ${x.query_latency_ms.p50.toFixed(1)} / ${y.query_latency_ms.p50.toFixed(1)} (${ratio(x.query_latency_ms.p50, y.query_latency_ms.p50)}) | ${x.query_latency_ms.p95.toFixed(1)} / ${y.query_latency_ms.p95.toFixed(1)} (${ratio(x.query_latency_ms.p95, y.query_latency_ms.p95)}) |`,
    );
  }
  out.push('', `largest overall recall difference: ${maxDelta.toFixed(3)}`);
  return out.join('\n');
}

function fmt(x: number | undefined): string {
  return x === undefined ? '–' : x.toFixed(3);
}

/** Recall@k per conversation and system from dump rows (for per-conversation tables; ours). */
export function recallByConversation(rows: DumpRow[], k: number): Map<string, Map<number, number>> {
  const acc = new Map<string, Map<number, { sum: number; n: number }>>();
  for (const r of rows) {
    const v = recallAtK(r.evidence, r.retrieved, k);
    if (v === null) continue;
    const bySys = acc.get(r.system) ?? new Map();
    const e = bySys.get(r.conversation) ?? { sum: 0, n: 0 };
    e.sum += v;
    e.n++;
    bySys.set(r.conversation, e);
    acc.set(r.system, bySys);
  }
  return new Map([...acc].map(([s, m]) => [s, new Map([...m].map(([c, e]) => [c, e.sum / e.n]))]));
}

/** Ask System Two for one question's answer and add its scores to the accumulators (the question's answer groups). */
async function scoreAnswer(
  answerer: NonNullable<RunEvalOptions['answerer']>,
  q: PreparedQuestion,
  context: string,
  a: { f1: MeanAccumulator; bleu: MeanAccumulator; judge: MeanAccumulator; answered: number; failed: number },
): Promise<void> {
  try {
    const { text } = await answerer.systemTwo.answer(q.question, context);
    const verdict = answerer.judge ? await answerer.judge.score(q, text) : null;
    a.answered += 1;
    const f1 = tokenF1(text, q.answer);
    const b1 = bleu1(text, q.answer);
    for (const g of q.answerGroups) {
      a.f1.add(g, f1);
      a.bleu.add(g, b1);
      if (verdict !== null) a.judge.add(g, verdict);
    }
  } catch (e) {
    if (!MemError.isInstance(e) || e.category !== 'unavailable') throw e;
    a.failed += 1;
  }
}

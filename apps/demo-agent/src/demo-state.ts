/**
 * The demo's "what is true now" section (ours, issue 37): a small memory of our own (Jonas, eight
 * observations over a year, written for this demo) in its own scope, where one preference changes
 * (an update), one claim is taken back (a contradiction), and one question has no answer in memory
 * (abstention). Each answer is shown with the evidence's status (current / superseded by, since, p)
 * and, for the abstention, p(evidence).
 */
import type { Stack, AskResult } from './stack.js';
import { c, fmt, truncate } from './output.js';

/** Jonas's observations (ours; not from any dataset). */
export const STATE_DEMO_OBSERVATIONS = [
  { text: 'I love spicy food, the hotter the better.', at: '2026-01-10T19:00:00Z' },
  { text: 'My dog loves the harbour walks.', at: '2026-02-14T19:00:00Z' },
  { text: 'I am a vegetarian, I have not eaten meat for years.', at: '2026-03-03T19:00:00Z' },
  { text: 'I work at the bank as a loan officer.', at: '2026-04-21T19:00:00Z' },
  { text: 'My favourite football player is Haaland.', at: '2026-05-30T19:00:00Z' },
  { text: 'I was never a vegetarian, I eat meat almost every day.', at: '2026-08-09T19:00:00Z' },
  { text: 'I have stopped eating spicy food, these days I prefer mild dishes.', at: '2026-11-10T19:00:00Z' },
  { text: 'We took the dog to the beach on Sunday.', at: '2026-11-22T19:00:00Z' },
] as const;

export const STATE_DEMO_QUESTIONS = [
  { question: 'What kind of food does Jonas like?', shows: 'an update: the newer preference first, the older one marked superseded' },
  { question: 'Is Jonas a vegetarian?', shows: 'a contradiction: the later statement first, the taken-back one marked superseded' },
  { question: 'What food did Jonas use to like?', shows: 'a question about the past: the older state first' },
  { question: 'What is the name of Jonas\'s sister?', shows: 'unanswerable: nothing in memory; search abstains when p(evidence) is below the threshold chosen on train data (LoCoMo / BEAM conversations, our tiny memories)' },
] as const;

export interface StateDemoReport {
  edges: { from: string; to: string; subtype: string; probability: number }[];
  answers: (Pick<AskResult, 'question' | 'answer' | 'answerable' | 'pEvidence'> & { top: { text: string; status: string; supersededBy: AskResult['evidence'][number]['supersededBy'] }[] })[];
}

/** Ingest the observations into `stack` (a scope of its own) and answer the questions; `say` prints. */
export async function runStateDemo(stack: Stack, say: (line: string) => void): Promise<StateDemoReport> {
  const added = await stack.add(STATE_DEMO_OBSERVATIONS.map((o) => ({ text: o.text, speaker: 'Jonas', observedAt: o.at })));
  const text = new Map(added.map((a) => [a.node.id, a.node.text]));
  const graph = await stack.graph();
  const edges = graph.edges.filter((e) => e.subtype === 'OBSOLETES' || e.subtype === 'CONTRADICTS').map((e) => ({ from: text.get(e.from) ?? e.from, to: text.get(e.to) ?? e.to, subtype: e.subtype, probability: e.probability }));
  say(c.dim(`   ${STATE_DEMO_OBSERVATIONS.length} observations by Jonas over 2026 (scope ${stack.scope.userId}); state edges the write path found:`));
  for (const e of edges) say(c.dim(`     "${truncate(e.to, 44)}" ←${e.subtype} p=${fmt(e.probability, 2)}─ "${truncate(e.from, 44)}"`));
  const answers: StateDemoReport['answers'] = [];
  for (const q of STATE_DEMO_QUESTIONS) {
    const r = await stack.ask(q.question, { k: 3, now: '2026-12-01T12:00:00Z' });
    say('');
    say(`   ${c.bold(q.question)} ${c.dim(`(${q.shows})`)}`);
    // an abstention's line already gives its p(evidence)
    say(`   ${c.yellow('answer (offline)')}: ${r.answer}${r.pEvidence === undefined || r.answerable === false ? '' : c.dim(`  · p(evidence) ${fmt(r.pEvidence, 2)}`)}`);
    if (r.answerable !== false) {
      for (const [j, e] of r.evidence.entries()) {
        const sb = e.supersededBy;
        const status = e.status === 'superseded' && sb ? c.yellow(`superseded ${sb.at.slice(0, 10)} by "${truncate(text.get(sb.id) ?? sb.id, 30)}" (${sb.relation ?? 'obsoleteBy'}${sb.p === null ? '' : ` p=${fmt(sb.p, 2)}`})`) : c.green('current');
        say(`     ${j + 1}. ${e.observedAt.slice(0, 10)} ${truncate(e.text, 62)}  ${status}`);
      }
    }
    answers.push({ question: r.question, answer: r.answer, answerable: r.answerable, pEvidence: r.pEvidence, top: r.evidence.map((e) => ({ text: e.text, status: e.status, supersededBy: e.supersededBy })) });
  }
  return { edges, answers };
}

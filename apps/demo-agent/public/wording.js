// Plain words for what the memory did (ours, issue 36): ONE source for the web playground (served as
// /wording.js, imported by app.js) and the mem CLI (`mem ask`, its --help legend). Plain ES module, no
// dependencies, so a browser and Node load the same file; types in wording.d.ts.

/** θ_act: a kind of link is followed when its routing probability reaches it (docs/design.md; JEV_DEFAULTS.thetaAct). */
export const THETA_ACT = 0.1;

/** Plain-language name and tooltip of every term the trace and gate panels show: `key → [label, explanation]`. */
export const GLOSSARY = {
  routing: ['Which kinds of links to follow', 'Routing probabilities: System One\'s estimate, per kind of link between memories, that following it helps answer this question.'],
  semantic: ['similar meaning', 'Semantic links join memories that say similar things.'],
  temporal: ['time order', 'Temporal links join memories by time: one before the other, the same conversation, or the same time.'],
  causal: ['cause and effect', 'Causal links join a cause to its effect (e.g. a flat tire → a missed meeting).'],
  entity: ['same person or thing', 'Entity links join memories that mention the same person, place or thing.'],
  multiHop: ['needs several steps h(q)', 'h(q): how likely the answer needs a chain of memories rather than a single one. A higher value allows more steps.'],
  recency: ['recent matters r(q)', 'r(q): how much newer memories should count more (e.g. “these days”, “now”).'],
  thetaAct: ['follow-threshold θ_act', `θ_act = ${THETA_ACT}: a kind of link is followed only when its probability reaches this mark (✓ = followed).`],
  budgets: ['How many memories each kind of link may add', 'Budget b_g: the number of memories the search may add through each kind of link; “used” is how many it did add.'],
  given: ['allowed (b_g)', 'b_g: how many memories this kind of link may add, split from the total by the routing probabilities.'],
  spent: ['used', 'How many memories were actually added through this kind of link.'],
  depth: ['max steps D(q)', 'D(q): the largest number of link steps away from the first matches the search may go.'],
  rounds: ['Search steps', 'Each step follows links one hop further out from the memories found so far, then asks whether to stop.'],
  step: ['step', 'How many links away from the first matches this step reaches.'],
  frontier: ['expanded', 'How many memories this step followed links from (the frontier).'],
  admitted: ['added', 'Memories this step added, by kind of link.'],
  edges: ['links looked at', 'How many links this step examined.'],
  sufficient: ['enough? s', 's: System One\'s probability that the evidence found so far is enough to answer.'],
  useful: ['worth going on? u', 'u: the probability that another step would find something useful.'],
  missing: ['gap? m', 'm: the probability that something needed is still missing.'],
  contradiction: ['conflict? c', 'c: the probability that the evidence contradicts itself.'],
  stop: ['Why it stopped', 'The reason the search ended (hover the reason for what it means).'],
  controllerCalls: ['System-One calls', 'How many small, typed questions the cheap System-One controller answered for this search (no LLM).'],
  nodesVisited: ['memories looked at', 'How many stored memories the search scored.'],
  novelty: ['novelty ν', 'ν = 1 − s_vMF: how new this observation is compared with everything already stored in this scope.'],
  threshold: ['threshold τ', 'τ: the adaptive bar novelty must clear to count as new; it moves with how dense the memory already is.'],
  score: ['similarity s_vMF', 's_vMF: the von Mises–Fisher kernel score of this observation against every stored memory (high = familiar).'],
  kappa: ['concentration κ', 'κ: how tightly the stored memories cluster; estimated from their mean direction.'],
  density: ['density ρ', 'ρ: how crowded the memory is around this observation (drives the threshold).'],
  nearest: ['closest memory', 'The stored memory most similar to this observation (cosine similarity).'],
};
/** Why the search stopped, in words, by the retriever's `stopReason` (@mem/retrieval `StopReason`). */
export const STOP_REASONS = {
  sufficient: 'enough evidence found',
  not_useful: 'another step would not help',
  depth: 'reached the step limit D(q)',
  budget: 'every budget used up',
  frontier_empty: 'nothing left to follow',
  node_cap: 'looked at the maximum number of memories',
  edge_cap: 'looked at the maximum number of links',
  controller_cap: 'used the maximum number of System-One calls',
  time_cap: 'ran out of time',
  no_active_views: 'no kind of link was worth following',
  traversal_off: 'link following is switched off',
  no_anchors: 'nothing matched the question',
};

/** The SAGE gate's three actions in words. */
export const GATE_ACTIONS = {
  add: 'add: new enough to be stored as a new memory and linked to others',
  update: 'update: close to a stored memory; stored and linked to it as a possible update',
  noop: 'noop: already known; stored (nothing is thrown away) but given no extra write work',
};

/** A gate Noop whose value changed (issue 37): the write path made it an update. */
export const ROUTED_NOOP_UPDATE = 'update: the gate found it close to a stored memory (noop), but the state question found a changed value, so it is stored as an update and the older memory is marked superseded';

/** Each kind of link (relation view) in two or three words. */
export const VIEW_WORDS = { semantic: 'similar meaning', temporal: 'time order', causal: 'cause and effect', entity: 'same person or thing' };

const two = (p) => (typeof p === 'number' && Number.isFinite(p) ? p.toFixed(2) : '–');
const list = (items) => (items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);
/** `SAME_EPISODE` → `same episode`. */
export const linkWords = (subtype) => String(subtype).toLowerCase().replace(/_/g, ' ');

/**
 * Why these memories, in one or two sentences. `trace`: the demo agent's TraceView (retriever,
 * routing, activeViews, rounds, depth); `evidence`: items with `via` (relation subtypes followed).
 */
export function whyTheseMemories(trace, evidence) {
  const n = evidence.length;
  if (!n) return 'no stored memory matched the question.';
  if (!trace || !trace.routing) {
    const how = trace?.retriever === 'bm25' ? 'share the most words with' : trace?.retriever === 'dense' ? 'are closest in meaning to' : 'best match the words and meaning of';
    return `a flat search (${trace?.retriever ?? 'flat'}): the ${n} memories that ${how} the question; no links followed.`;
  }
  const views = Object.keys(VIEW_WORDS).filter((v) => trace.activeViews.includes(v));
  const follow = views.length
    ? ` and followed links of ${list(views.map((v) => `${VIEW_WORDS[v]} (${two(trace.routing[v])})`))}, the kinds this question seemed to need`
    : '; no kind of link seemed worth following';
  const linked = evidence.filter((e) => e.via && e.via.length);
  const reached = linked.length ? ` ${linked.length} of these ${n} came through a link.` : '';
  return `the search started from the memories closest to the question's words and meaning${follow}.${reached}`;
}

/** Why the search stopped, in words, with the number of steps and System-One calls. */
export function whyItStopped(trace) {
  if (!trace || !trace.routing) return 'a flat search takes one step.';
  const reason = trace.stopReason ? (STOP_REASONS[trace.stopReason] ?? trace.stopReason) : 'it ran to the end';
  const steps = trace.rounds.length;
  return `${reason} (${steps} link step${steps === 1 ? '' : 's'}, ${trace.controllerCalls ?? 0} System-One question${trace.controllerCalls === 1 ? '' : 's'}).`;
}

/**
 * How sure it is: the top memory's relevance (jev: its learned, calibrated p(evidence)), `pEvidence`
 * when the retriever gave one (the chance that the evidence holds an answer at all), and System One's
 * last "enough evidence?" answer when it was asked. Flat scores are not probabilities: not read as such.
 * `answerable === false` (issue 37: pEvidence below the retriever's abstention threshold) opens with
 * "memory holds nothing reliable on this": the memories listed are the closest, not an answer.
 */
export function howSure(trace, evidence, pEvidence, answerable) {
  if (!evidence.length) return 'nothing to be sure of: no memory matched.';
  if (!trace || !trace.routing) return `not estimated: ${trace?.retriever ?? 'flat'} scores are not probabilities.`;
  const top = evidence[0].score;
  if (answerable === false) {
    const p = typeof pEvidence === 'number' ? two(pEvidence) : '?';
    return `memory holds nothing reliable on this: it holds an answer with probability ${p}, below the abstention threshold, so no memory is quoted as the answer; the memories below are the closest, not answers (the top one is evidence with probability ${two(top)}).`;
  }
  const word = top >= 0.7 ? 'fairly sure' : top >= 0.4 ? 'unsure' : 'not sure';
  const parts = [`the top memory is evidence for this question with probability ${two(top)}`];
  if (typeof pEvidence === 'number') parts.push(`memory holds an answer with probability ${two(pEvidence)}`);
  const last = [...trace.rounds].reverse().find((r) => r.stopping);
  if (last && typeof last.stopping.sufficient === 'number') parts.push(`System One judged the evidence enough with probability ${two(last.stopping.sufficient)}`);
  return `${word}. ${parts.map((p) => p[0].toUpperCase() + p.slice(1)).join('; ')}.`;
}

/**
 * What an offline answer line quotes, in words: `offline: top evidence statement, not generated`, or
 * for a when-question whose #1 has no date `offline: evidence #2, the best-ranked with a date, not
 * generated` (`answerRank`: the 1-based rank of the quoted evidence item, as /v1/ask returns it).
 */
export function offlineAnswerWords(answerRank) {
  // null: the line quotes no memory (memory holds nothing on the question, or nothing matched)
  if (answerRank === null) return 'offline: no memory quoted, not generated';
  const what = answerRank && answerRank > 1 ? `evidence #${answerRank}, the best-ranked with a date` : 'top evidence statement';
  return `offline: ${what}, not generated`;
}

/** Word-wrap `text` after `prefix` to `width` columns, every following line indented by `indent` spaces. */
function wrap(text, width, indent, prefix = '') {
  const lines = [];
  let line = prefix;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line.trim() && line.length + 1 + word.length > width) {
      lines.push(line);
      line = ' '.repeat(indent) + word;
    } else line = line.trim() ? `${line} ${word}` : `${line}${word}`;
  }
  if (line.trim()) lines.push(line);
  return lines.join('\n');
}
const entry = (term, text) => wrap(text, 100, 19, `  ${term.padEnd(16)}`);

/** The legend of `mem ask --help`: every word and number the default output and --trace show. */
export const ASK_LEGEND = [
  '',
  'What mem ask prints (offline: no LLM; the answer line is a stored memory, not a generated sentence):',
  entry('Answer', 'the top memory, "speaker: text". For a when-question the line also gives the date the memory\'s words point to ("yesterday" said on 18 March → 2025-03-17) and when it was said; it then quotes the best-ranked memory of the top 3 that carries such a date (its rank is in the label), else #1 with "the text gives no date".'),
  entry('Why these', `how the memories were found: the closest matches of the question's words and meaning, then links between memories of the kinds the question seemed to need: ${Object.entries(VIEW_WORDS).map(([v, w]) => `${w} (${v})`).join(', ')}. The number after a kind is its routing probability, how likely following it helps (followed when ≥ ${THETA_ACT}).`),
  entry('Why it stopped', `${Object.values(STOP_REASONS).join('; ')}.`),
  entry('How sure', 'probabilities between 0 and 1: that the top memory is evidence for this question (the read path\'s calibrated relevance model), that memory holds an answer at all (p(evidence) of the whole search), and System One\'s answer to "is the evidence found so far enough?". Fairly sure ≥ 0.7, unsure ≥ 0.4, else not sure. When p(evidence) is below the abstention threshold, memory holds nothing reliable on the question: the answer line says so instead of quoting a memory, and the memories listed are only the closest.'),
  entry('Evidence', 'best first: short id, date said, speaker: text, relevance (0–1, the same scale as "How sure"; flat retrievers print their own score instead), and the links it was reached through, if any.'),
  entry('short id', 'the last 8 characters of a memory\'s id (ids start with their write time, so the first characters repeat). mem inspect and mem forget take a short id, or any unique start or end of an id; one that names several memories is refused with AMBIGUOUS_ID.'),
  wrap('--trace prints the full trace instead: routing probabilities (with multiHopNeed h(q) and recencyImportance r(q)), budgets per kind of link (used/allowed), max steps D(q), rounds, the stop reason code, System-One calls, full ids and raw scores. --json prints everything as JSON.', 100, 0),
].join('\n');

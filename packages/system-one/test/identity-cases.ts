/**
 * The question set of the System-One identity test (ours), shared by `src/identity.test.ts` and the
 * golden-file script `scripts/golden.ts`. Every section runs one controller implementation through a
 * fixed, seeded workload and returns one entry per answered question: where it was asked (`label`),
 * its question id and catalogue kind, and the value that must not change (answer + trace without
 * latency, a scorer's output, a stableStringify string, an LRU observation).
 *
 * The golden file stores, per section and kind, a short hash of every entry's value in order, the
 * section's controller stats and a hash of its generated inputs. It was recorded once from the frozen
 * pre-optimisation controller (git tag `system-one-reference`, commit 8c2c84c, `src/reference/`), so
 * the comparison keeps the power of the old side-by-side test without the copy in `src/`.
 *
 * Sections:
 * - `hand-labelled`: every state of the bench's two hand-labelled sets (29 kinds, 1,139 questions);
 * - `write-path`: core's write-path calls (typing, relations, consolidation) on generated
 *   conversations, caches warm across calls and objects asked again;
 * - `random-lexical` / `random-embedder`: fast-check states (fixed seed) with one question of every
 *   catalogue kind plus free-form Noul/Choice, lexical path and an injected embedder;
 * - `scorer`: `scoreQuestion` on the resolved refs of those states;
 * - `edits`: items and questions edited in place between asks;
 * - `adversarial-lexical` / `adversarial-embedder`: RTL / CJK / emoji / control-character / 200 kB
 *   texts asked one at a time (the oracle of the concurrency test);
 * - `lru`: the answer cache's get / put / evict observations on random operation sequences;
 * - `stableStringify`: the canonical JSON of random JSON-like values.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { dataset } from '../bench/dataset';
import { holdout } from '../bench/holdout';
import { TEMPLATES } from '../bench/templates';
import { everyKindQuestions, rng, syntheticObservations, writeCalls } from '../bench/write-workload';
import { catalogue } from '../src/catalogue';
import { resolveRefs, type Question } from '../src/schema';

/** One implementation of the controller, its offline backend, scorer, cache and canonical JSON. */
export interface Impl {
  createSystemOne(options?: { backend?: unknown; cache?: false }): Asker & { stats(): unknown };
  createOfflineBackend(options?: { embed?: (texts: string[]) => Promise<Float32Array[]>; cosineRange?: { low: number; high: number } }): unknown;
  lexicalContext(): unknown;
  scoreQuestion(q: Question, refs: any, ctx: any): unknown;
  stableStringify(x: unknown): string;
  /** An LRU answer cache of `max` answers addressed by key number 0..8 (0..2 single keys, 3..8 pairs). */
  lru(max: number): { get(k: number): Map<string, number> | undefined; put(k: number, q: string, v: number): void; clear(): void; readonly size: number };
}

export interface Asker {
  ask(state: Record<string, unknown>, qs: Record<string, Question>): Promise<{ answers: Record<string, unknown>; traces: any[] }>;
}

export interface Entry {
  /** Where: the call within the section, e.g. `seed 2 rep 1 call 17 (relations)`. */
  label: string;
  qid: string;
  kind: string;
  value: unknown;
}

export interface SectionRun {
  entries: Entry[];
  /** Controller stats at the end of the section (undefined where no controller is involved). */
  stats?: unknown;
  /** Hash of the generated inputs: a change means the workload changed, not the answers. */
  inputs: string;
  /** `edits` only: whether each of the edited-question asks was a cache hit. */
  cacheHits?: boolean[];
}

/** The kind an entry is filed under: the catalogue kind, or `free.<type>` for free-form questions. */
export const kindOf = (q: Question): string => q.kind ?? `free.${q.type}`;

/** Canonical text of any value (NaN, ±Infinity, -0, undefined, bigint kept apart). */
export function encode(x: unknown): string {
  return JSON.stringify(x, (_k, v) => {
    if (typeof v === 'number') {
      if (Number.isNaN(v)) return '\u0000NaN';
      if (v === Infinity) return '\u0000+Inf';
      if (v === -Infinity) return '\u0000-Inf';
      if (Object.is(v, -0)) return '\u0000-0';
    }
    if (v === undefined) return '\u0000undefined';
    if (typeof v === 'bigint') return `\u0000${v}n`;
    if (v instanceof Map) return { '\u0000map': [...v] };
    if (ArrayBuffer.isView(v)) return { '\u0000view': Array.from(v as unknown as ArrayLike<number>) };
    return v;
  }) ?? '\u0000undefined';
}

/** `chars` base64url characters (6 bits each) of the SHA-256 of a value's canonical text. */
export function shortHash(x: unknown, chars = 8): string {
  return createHash('sha256').update(typeof x === 'string' ? x : encode(x)).digest('base64url').slice(0, chars);
}

const noLatency = (ts: any[]) => ts.map(({ latencyMs: _l, ...t }) => t);

function inputsHash(parts: unknown[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(encode(p)).update('\u0001');
  return h.digest('base64url').slice(0, 16);
}

/** Ask and file one entry per question (answer + trace without latency). */
async function askInto(out: Entry[], a: Asker, label: string, state: Record<string, unknown>, qs: Record<string, Question>) {
  const r = await a.ask(state, qs);
  const traces = new Map(noLatency(r.traces).map((t) => [t.id as string, t]));
  for (const id of Object.keys(qs)) out.push({ label, qid: id, kind: kindOf(qs[id]), value: { answer: r.answers[id], trace: traces.get(id) } });
  return r;
}

/** A deterministic stand-in sentence embedder (hashed character trigrams, 64-d). */
export async function trigramEmbed(texts: string[]): Promise<Float32Array[]> {
  return texts.map((t) => {
    const v = new Float32Array(64);
    const s = ` ${t.toLowerCase()} `;
    for (let i = 0; i + 3 <= s.length; i++) {
      let h = 2166136261;
      for (let j = i; j < i + 3; j++) h = Math.imul(h ^ s.charCodeAt(j), 16777619);
      v[(h >>> 0) % 64] += 1;
    }
    v[0] += 0.5;
    return v;
  });
}

// ---------------------------------------------------------------------------------------------
// random states (fast-check, fixed seeds)
// ---------------------------------------------------------------------------------------------

const text = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc
    .array(
      fc.constantFrom(
        'Ana', 'Bob', 'Robert', 'NYC', 'New York', 'Mel', 'Melanie', 'went', 'to', 'the', 'park', 'yesterday', 'last Saturday',
        'two weeks ago', 'next Friday', 'because', 'so', 'since', 'after', 'I', 'love', 'hate', 'never', "don't", 'not', 'quit',
        'smoking', 'lives in', 'Oslo', 'works as a', 'nurse', 'teacher', 'again', 'once', 'more', 'Monday', 'June', '3', '42',
        'first,', 'then', 'stir', 'add', 'every day', 'my', 'favorite', 'is', 'married to', 'vegan', 'steak', 'broke', 'lost',
        'won', 'now', 'used to', '.', ',', '?', 'Caroline:', 'how to', 'recently', 'when', 'why', 'who', 'where', 'how many',
      ),
      { maxLength: 16 },
    )
    .map((ws) => ws.join(' ')),
);
const time = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('2024-05-01T10:00:00Z', '2024-05-01T10:30:00Z', '2024-05-03 09:00', '2023-12-24T20:00:00+02:00', 'not a date', ''),
  fc.integer({ min: 1_600_000_000_000, max: 1_800_000_000_000 }),
);
const item = fc.oneof(
  text,
  fc.record(
    {
      text,
      time,
      start: time,
      end: time,
      speaker: fc.oneof(fc.constantFrom('Ana', 'Bob', 'Caroline'), fc.constant(7)),
      entities: fc.oneof(fc.array(fc.constantFrom('ana', 'bob', 'robert', 'new york city', 'nyc', 'oslo'), { maxLength: 3 }), fc.constant('x')),
      keywords: fc.array(fc.constantFrom('park', 'running shoes', 'smoking', 'oslo', 'work'), { maxLength: 3 }),
      cosine: fc.oneof(fc.double({ min: -1, max: 1, noNaN: true }), fc.constant(Number.NaN), fc.constant('0.5')),
      session: fc.oneof(fc.constantFrom('s1', 's2'), fc.integer({ min: 0, max: 2 })),
      relation: fc.constantFrom('semantic', 'temporal', 'causal', 'entity', 'LEADS_TO', 'redundant_with', 'precedes'),
      probability: fc.double({ min: 0, max: 1, noNaN: true }),
    },
    { requiredKeys: ['text'] },
  ),
  fc.record({ content: text, time }),
  fc.jsonValue({ maxDepth: 2 }),
);
const stateArb = fc.record({
  query: text,
  observation: item,
  new_memory: item,
  candidates: fc.tuple(item, item),
  evidence: fc.array(item, { maxLength: 4 }),
  depth: fc.integer({ min: 0, max: 6 }),
});

/** One question of every catalogue kind plus a free-form Noul and Choice (the zero-shot path). */
export function allKinds(): Record<string, Question> {
  const qs = everyKindQuestions();
  qs.free = { type: 'noul', instructions: 'Is {{new_memory}} about sport?', criteria: { true: 'it is about sport', false: 'it is not' } };
  qs.freeChoice = { type: 'choice', kind: 'no.such.kind', instructions: 'Mood of {{query}}?', criteria: { happy: 'glad', sad: 'unhappy', flat: 'neutral' } };
  return qs;
}

const randomStates = (seed: number, numRuns: number) => fc.sample(stateArb, { seed, numRuns }) as Record<string, unknown>[];

// ---------------------------------------------------------------------------------------------
// adversarial states (the concurrency test's oracle)
// ---------------------------------------------------------------------------------------------

const TEXTS = [
  'אני אוהב פיצה עם זיתים, ודני עבר לתל אביב',
  'أنا أحب البيتزا وانتقل سامي إلى القاهرة',
  '我喜欢吃披萨。明天去北京。',
  '🎉🎉 Ana loves 🍕 pizza 👨‍👩‍👧 since 2019',
  'Ana moved to Oslo last May because of her new job',
  'Bob stopped smoking after his doctor warned him',
  'the the the of and a',
  'yesterday',
  'tag \u0000 inside and separator \u0001 inside',
  '\u202Ereversed\u202C text with bidi controls',
  'Caroline went running in the park on Monday, then she bought running shoes',
  'x'.repeat(200_000),
  'Ana n\u0301o\u0308 combining marks and ZWJ a\u200Db',
  'Bob works as a nurse; Bob is a teacher now',
];
const TIMES = ['2024-05-01T10:00:00Z', '2024-05-03 09:00', 'not a date', '', 1_700_000_000_000, '+275760-09-13T00:00:00Z', '0000-01-01T00:00:00Z'];

/** `n` states whose item objects are shared from a pool of 10 (identity caches see one object many times). */
export function adversarialStates(n: number, seed: number): Record<string, unknown>[] {
  const u = rng(seed);
  const pick = <T>(a: readonly T[]) => a[Math.floor(u() * a.length)]!;
  const pool = Array.from({ length: 10 }, () => ({
    text: pick(TEXTS),
    time: pick(TIMES),
    start: pick(TIMES),
    speaker: pick(['Ana', 'Bob', '🙂', '']),
    entities: u() < 0.5 ? [pick(['ana', 'bob', 'oslo', 'תל אביב'])] : [],
    keywords: u() < 0.5 ? [pick(['pizza', 'running shoes', 'smoking'])] : [],
    ...(u() < 0.5 ? { cosine: u() * 2 - 1 } : {}),
  }));
  return Array.from({ length: n }, () => ({
    query: pick(TEXTS),
    observation: u() < 0.3 ? pick(TEXTS) : pick(pool),
    new_memory: pick(pool),
    candidates: [pick(pool), pick(pool)],
    evidence: Array.from({ length: Math.floor(u() * 4) }, () => pick(pool)),
    depth: Math.floor(u() * 5),
  }));
}

/** The concurrency test's embedder: character-position buckets, 32-d (its random delay is the test's). */
export function bucketEmbed(texts: string[]): Float32Array[] {
  return texts.map((t) => {
    const v = new Float32Array(32);
    for (let i = 0; i < t.length && i < 4096; i++) v[(t.charCodeAt(i) * 31 + i) % 32] += 1;
    v[0] += 0.5;
    return v;
  });
}

// ---------------------------------------------------------------------------------------------
// sections
// ---------------------------------------------------------------------------------------------

export const SECTIONS = {
  async 'hand-labelled'(impl: Impl): Promise<SectionRun> {
    const a = impl.createSystemOne();
    const entries: Entry[] = [];
    const cases = [...dataset, ...holdout];
    for (let i = 0; i < cases.length; i++) {
      const c = cases[i];
      await askInto(entries, a, `case ${i} (${i < dataset.length ? 'dataset' : 'holdout'} ${c.kind})`, structuredClone(c.state), { q: TEMPLATES[c.kind]() });
    }
    return { entries, stats: a.stats(), inputs: inputsHash(cases.map((c) => [c.kind, c.state])) };
  },

  async 'write-path'(impl: Impl): Promise<SectionRun> {
    const a = impl.createSystemOne();
    const entries: Entry[] = [];
    const parts: unknown[] = [];
    for (const seed of [1, 2, 3]) {
      const obs = syntheticObservations(seed, 3, 30);
      parts.push(obs);
      // the same texts again in new objects (text caches hit across calls, as in a long ingest)
      for (const rep of [0, 1]) {
        const ca = writeCalls(obs, { seed: seed + rep, representation: true });
        const cb = writeCalls(obs, { seed: seed + rep, representation: true });
        for (let i = 0; i < ca.length; i++) {
          const label = `seed ${seed} rep ${rep} call ${i} (${ca[i].stage})`;
          await askInto(entries, a, label, ca[i].state, ca[i].questions);
          // the same state objects again with new question objects: cache hits
          if (i % 7 === 0) await askInto(entries, a, `${label} again`, ca[i].state, cb[i].questions);
        }
      }
    }
    return { entries, stats: a.stats(), inputs: inputsHash(parts) };
  },

  async 'random-lexical'(impl: Impl): Promise<SectionRun> {
    const a = impl.createSystemOne();
    const entries: Entry[] = [];
    const states = randomStates(1901, 150);
    for (let i = 0; i < states.length; i++) {
      await askInto(entries, a, `state ${i}`, structuredClone(states[i]), allKinds());
      // the same values again in new objects (content caches)
      await askInto(entries, a, `state ${i} again`, structuredClone(states[i]), allKinds());
    }
    return { entries, stats: a.stats(), inputs: inputsHash(states) };
  },

  async 'random-embedder'(impl: Impl): Promise<SectionRun> {
    const a = impl.createSystemOne({ backend: impl.createOfflineBackend({ embed: trigramEmbed, cosineRange: { low: 0.3, high: 0.9 } }), cache: false });
    const entries: Entry[] = [];
    const states = randomStates(1902, 60);
    for (let i = 0; i < states.length; i++) await askInto(entries, a, `state ${i}`, structuredClone(states[i]), allKinds());
    return { entries, stats: a.stats(), inputs: inputsHash(states) };
  },

  async scorer(impl: Impl): Promise<SectionRun> {
    const ctx = impl.lexicalContext();
    const entries: Entry[] = [];
    const states = randomStates(1903, 80);
    for (let i = 0; i < states.length; i++) {
      const qs = allKinds();
      for (const id of Object.keys(qs)) {
        const refs = resolveRefs(id, qs[id], states[i]);
        entries.push({ label: `state ${i}`, qid: id, kind: kindOf(qs[id]), value: impl.scoreQuestion(qs[id], structuredClone(refs), ctx) });
      }
    }
    return { entries, inputs: inputsHash(states) };
  },

  edits: (impl: Impl) => editsRun(impl, false),

  async 'adversarial-lexical'(impl: Impl): Promise<SectionRun> {
    return adversarial(impl, impl.createSystemOne({ backend: impl.createOfflineBackend(), cache: false }), 1);
  },

  async 'adversarial-embedder'(impl: Impl): Promise<SectionRun> {
    const embed = async (texts: string[]) => bucketEmbed(texts);
    return adversarial(impl, impl.createSystemOne({ backend: impl.createOfflineBackend({ embed }), cache: false }), 2);
  },

  async lru(impl: Impl): Promise<SectionRun> {
    const key = fc.integer({ min: 0, max: 8 });
    const op = fc.oneof(
      { arbitrary: fc.record({ get: key }), weight: 10 },
      { arbitrary: fc.record({ put: key, q: fc.integer({ min: 0, max: 2 }), v: fc.integer() }), weight: 10 },
      { arbitrary: fc.constant({ clear: true }), weight: 1 },
    );
    const runs = fc.sample(fc.tuple(fc.integer({ min: 1, max: 6 }), fc.array(op, { maxLength: 120 })), { seed: 1904, numRuns: 400 });
    const entries: Entry[] = [];
    for (let r = 0; r < runs.length; r++) {
      const [max, ops] = runs[r];
      const c = impl.lru(max);
      const seen: unknown[] = [];
      const look = (k: number) => {
        const m = c.get(k);
        return m && [...m];
      };
      for (const o of ops as { get?: number; put?: number; q?: number; v?: number; clear?: boolean }[]) {
        if (o.clear) c.clear();
        else if (o.get !== undefined) seen.push(look(o.get));
        else c.put(o.put!, `q${o.q}`, o.v!);
        seen.push(c.size);
      }
      for (let k = 0; k <= 8; k++) seen.push(look(k));
      entries.push({ label: `run ${r} (max ${max}, ${ops.length} ops)`, qid: 'ops', kind: 'lru', value: seen });
    }
    return { entries, inputs: inputsHash(runs) };
  },

  async stableStringify(impl: Impl): Promise<SectionRun> {
    const v = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 1 }),
        fc.string({ unit: 'binary', maxLength: 12 }), // any UTF-16 code units: quotes, backslashes, controls, lone surrogates
        fc.array(fc.string({ unit: 'binary', maxLength: 6 }), { maxLength: 4 }),
        fc.constantFrom('a"b', 'a\\b', 'x\u0001y', '\u0000z', '\u2028', 'emoji 😀', '\ud800', 'tab\t', '\u007f'),
        fc.constant(undefined),
        fc.double(),
        fc.array(tie('node'), { maxLength: 4 }),
        fc.sparseArray(fc.integer(), { maxLength: 5 }),
        fc.dictionary(fc.string({ maxLength: 4 }), tie('node'), { maxKeys: 4 }),
      ),
    })).node;
    const values = fc.sample(v, { seed: 1905, numRuns: 500 });
    const entries = values.map((x, i) => ({ label: `value ${i}: ${encode(x).slice(0, 120)}`, qid: 'value', kind: 'stableStringify', value: impl.stableStringify(x) }));
    return { entries, inputs: inputsHash(values) };
  },
} satisfies Record<string, (impl: Impl) => Promise<SectionRun>>;

export type SectionName = keyof typeof SECTIONS;
export const SECTION_NAMES = Object.keys(SECTIONS) as SectionName[];

/**
 * Items and questions edited in place between asks (`editScenario`), answers only. `cached: false`
 * (the golden record): a controller without an answer cache asked on fresh copies, i.e. what any cache
 * must serve; `cached: true` (the test): the default controller on the live objects, with the cache
 * hits of the edited-question asks.
 */
export async function editsRun(impl: Impl, cached: boolean): Promise<SectionRun> {
  const a = impl.createSystemOne(cached ? undefined : { cache: false });
  const entries: Entry[] = [];
  let step = 0;
  const cacheHits = await editScenario(async (state, qs) => {
    const r = cached ? await a.ask(state, qs) : await a.ask(structuredClone(state), structuredClone(qs));
    for (const id of Object.keys(qs)) entries.push({ label: `step ${step}`, qid: id, kind: kindOf(qs[id]), value: r.answers[id] });
    step++;
    return r;
  });
  return { entries, inputs: inputsHash([step]), cacheHits };
}

async function adversarial(_impl: Impl, sys: Asker & { stats(): unknown }, seed: number): Promise<SectionRun> {
  const states = adversarialStates(40, seed);
  const entries: Entry[] = [];
  for (let i = 0; i < states.length; i++) await askInto(entries, sys, `state ${i}`, structuredClone(states[i]), everyKindQuestions());
  return { entries, stats: sys.stats(), inputs: inputsHash(states) };
}

/**
 * Items and questions reused and edited in place between asks; `ask` is called at every step with the
 * live state and questions (steps 0-4 ask every kind; steps 5-9 one relation question edited in place).
 */
export async function editScenario(ask: (state: Record<string, unknown>, qs: Record<string, Question>) => Promise<{ traces: any[] }>): Promise<boolean[]> {
  const nm: Record<string, unknown> = { text: 'Ana went to the park yesterday because she loves running.', time: '2024-05-02T10:00:00Z', speaker: 'Ana' };
  const c0: Record<string, unknown> = { text: 'Ana bought running shoes last Saturday.', time: '2024-05-01T09:00:00Z', entities: ['ana'], cosine: 0.7 };
  const c1 = 'Bob: I quit smoking two weeks ago, so now I run every morning.';
  const state = { observation: nm, new_memory: nm, candidates: [c0, c1], query: 'Why does Ana run?', evidence: [c0, c1], depth: 1 };
  const qs = allKinds();
  await ask(state, qs);
  nm.text = 'Ana never went to the park again after she lost her job.'; // text edited in place
  await ask(state, qs);
  c0.time = '2024-05-05T09:00:00Z'; // time edited in place
  await ask(state, qs);
  c0.entities = ['ana', 'oslo']; // array replaced
  c0.keywords = ['running shoes'];
  await ask(state, qs);
  nm.speaker = 'Bob';
  c0.start = '2024-04-01T00:00:00Z';
  c0.cosine = 0.2;
  await ask(state, qs);
  // a question object edited between asks (instructions, then criteria replaced, then edited in place)
  const q = catalogue.relation.semantic(0);
  const one = { q } as Record<string, Question>;
  const hits: boolean[] = [];
  const step = async () => hits.push((await ask(state, one)).traces[0].cacheHit);
  await step();
  q.instructions = 'Is {{new_memory}} about running?';
  await step();
  q.kind = undefined; // now a free-form Noul (zero-shot path)
  q.criteria = { true: 'about running', false: 'about something else' };
  await step();
  q.criteria.true = 'about sport';
  await step();
  q.criteria.true = 'about running'; // back to a content seen before
  await step();
  return hits;
}

// ---------------------------------------------------------------------------------------------
// the golden file
// ---------------------------------------------------------------------------------------------

export interface GoldenSection {
  inputs: string;
  stats?: unknown;
  /**
   * Per kind: `<full>:<groups>`, a 16-character hash of all its answers in order, then a 4-character
   * hash of each group in the order asked (to say where a difference is); a group is the questions of
   * one kind in one call (e.g. the 10 `relation.semantic` questions of one relation batch).
   */
  kinds: Record<string, string>;
}
export interface Golden {
  format: 1;
  note: string;
  sections: Record<string, GoldenSection>;
}

export const HASH_CHARS = 4;
const FULL_CHARS = 16;

interface Group {
  label: string;
  qids: string[];
  values: unknown[];
}

/** Per kind, the run's entries grouped by call (consecutive entries of one label and kind). */
function groupsOf(run: SectionRun): Map<string, Group[]> {
  const out = new Map<string, Group[]>();
  for (const e of run.entries) {
    let gs = out.get(e.kind);
    if (!gs) out.set(e.kind, (gs = []));
    const g = gs[gs.length - 1];
    if (g && g.label === e.label) {
      g.qids.push(e.qid);
      g.values.push(e.value);
    } else gs.push({ label: e.label, qids: [e.qid], values: [e.value] });
  }
  return out;
}

const groupHash = (g: Group) => shortHash([g.qids, g.values], HASH_CHARS);
const kindRecord = (gs: Group[]) => `${shortHash(gs.map((g) => [g.label, g.qids, g.values]), FULL_CHARS)}:${gs.map(groupHash).join('')}`;

/** The golden record of one section run. */
export function goldenOf(run: SectionRun): GoldenSection {
  const kinds: Record<string, string> = {};
  for (const [kind, gs] of [...groupsOf(run)].sort(([a], [b]) => (a < b ? -1 : 1))) kinds[kind] = kindRecord(gs);
  return { inputs: run.inputs, ...(run.stats === undefined ? {} : { stats: run.stats }), kinds };
}

export interface Difference {
  section: string;
  kind: string;
  /** Where (the call) and which questions; absent for a whole-section difference. */
  label?: string;
  qids?: string[];
  /** What this run gives (for a group: the values of its questions, in order). */
  now?: unknown;
  problem: string;
}

/** Compare a run with its golden record; every call whose answers of a kind differ is reported with its kind and place. */
export function compare(section: string, run: SectionRun, golden: GoldenSection | undefined): Difference[] {
  if (!golden) return [{ section, kind: '*', problem: 'no golden record for this section (run scripts/golden.ts --all)' }];
  const out: Difference[] = [];
  if (run.inputs !== golden.inputs)
    out.push({ section, kind: '*', problem: `the generated inputs changed (hash ${run.inputs}, golden ${golden.inputs}): the workload or fast-check changed, not necessarily the answers` });
  const byKind = groupsOf(run);
  for (const kind of new Set([...byKind.keys(), ...Object.keys(golden.kinds)])) {
    const gs = byKind.get(kind) ?? [];
    const rec = golden.kinds[kind] ?? ':';
    if (kindRecord(gs) === rec) continue;
    const hs = rec.slice(rec.indexOf(':') + 1);
    const before = out.length;
    if (gs.length * HASH_CHARS !== hs.length) out.push({ section, kind, problem: `${gs.length} calls ask this kind now, ${hs.length / HASH_CHARS} in the golden file` });
    for (let i = 0; i < gs.length && i * HASH_CHARS < hs.length; i++) {
      if (groupHash(gs[i]) !== hs.slice(i * HASH_CHARS, (i + 1) * HASH_CHARS))
        out.push({ section, kind, label: gs[i].label, qids: gs[i].qids, now: gs[i].values, problem: 'answers differ from the golden file' });
    }
    if (out.length === before) out.push({ section, kind, problem: 'the answers of this kind differ (no single call located: a 4-character hash collision)' });
  }
  if (golden.stats !== undefined && encode(run.stats) !== encode(golden.stats))
    out.push({ section, kind: '*', now: run.stats, problem: `controller stats differ (golden ${encode(golden.stats)})` });
  return out;
}

/** The implementation under test: this package's controller, offline backend, scorer, cache and canonical JSON. */
export async function currentImpl(): Promise<Impl> {
  const [{ createSystemOne, stableStringify }, offline, { AnswerCache }] = await Promise.all([
    import('../src/controller'),
    import('../src/offline/index'),
    import('../src/lru'),
  ]);
  return {
    createSystemOne: createSystemOne as Impl['createSystemOne'],
    createOfflineBackend: offline.createOfflineBackend as Impl['createOfflineBackend'],
    lexicalContext: () => offline.lexicalContext(),
    scoreQuestion: offline.scoreQuestion,
    stableStringify,
    lru(max) {
      const c = new AnswerCache<number>(max);
      // keys 3..8 are the pairs (x, y) the old cache stored as `x + U+0001 + y`
      const parts = (k: number): [string, string] => [`a${Math.floor((k - 3) / 3)}`, `b${(k - 3) % 3}`];
      return {
        get: (k) => (k < 3 ? c.get(`s${k}`) : c.getPair(...parts(k))),
        // a new string object with the same content for even keys (the cache compares by content)
        put: (k, q, v) => (k < 3 ? c.put(k % 2 ? `s${k}` : ['s', String(k)].join(''), q, v) : c.putPair(...parts(k), q, v)),
        clear: () => c.clear(),
        get size() {
          return c.size;
        },
      };
    },
  };
}

// Identity of the optimised controller + offline backend with the frozen pre-optimisation copy in
// ./reference (same states, same questions -> the same answers bit for bit, the same traces apart from
// latency, the same stats), over: the bench's hand-labelled states, core's write-path calls on
// generated conversations, random states for every catalogue kind (lexical and embedding contexts),
// items and questions reused and edited between asks, and stableStringify on random JSON.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dataset } from '../bench/dataset';
import { holdout } from '../bench/holdout';
import { TEMPLATES } from '../bench/templates';
import { everyKindQuestions, syntheticObservations, writeCalls } from '../bench/write-workload';
import { CATALOGUE_KINDS, catalogue } from './catalogue';
import { createSystemOne, stableStringify, type AnswerTrace } from './controller';
import { createOfflineBackend, lexicalContext, scoreQuestion } from './offline/index';
import { createSystemOne as createReference, stableStringify as referenceStableStringify } from './reference/controller';
import { createOfflineBackend as createReferenceOffline, lexicalContext as referenceLexical, scoreQuestion as referenceScore } from './reference/offline';
import { AnswerCache } from './lru';
import { AnswerCache as ReferenceAnswerCache } from './reference/lru';
import { resolveRefs, type Question } from './schema';

type Asker = { ask(state: Record<string, unknown>, qs: Record<string, Question>): Promise<{ answers: Record<string, unknown>; traces: AnswerTrace[] }> };
const noLatency = (ts: AnswerTrace[]) => ts.map(({ latencyMs: _l, ...t }) => t);

/** Ask both; expect identical answers (deep, with Object.is on every number) and traces; return the answers. */
async function same(a: Asker, b: Asker, state: () => Record<string, unknown>, qs: () => Record<string, Question>) {
  const ra = await a.ask(state(), qs());
  const rb = await b.ask(state(), qs());
  expect(ra.answers).toStrictEqual(rb.answers); // toStrictEqual compares numbers with Object.is
  expect(noLatency(ra.traces)).toStrictEqual(noLatency(rb.traces));
  return ra.answers;
}

/** A deterministic stand-in sentence embedder (hashed character trigrams, 64-d). */
async function embed(texts: string[]): Promise<Float32Array[]> {
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

describe('optimised System One = reference (answers, traces, stats)', () => {
  it('on every hand-labelled state of the bench sets (1,139 questions, 29 kinds)', async () => {
    const a = createSystemOne();
    const b = createReference();
    const seen = new Set<string>();
    const values = new Set<string>();
    for (const c of [...dataset, ...holdout]) {
      const ans = await same(a, b, () => structuredClone(c.state), () => ({ q: TEMPLATES[c.kind]() }));
      seen.add(c.kind);
      values.add(JSON.stringify(ans.q));
    }
    expect(seen.size).toBe(CATALOGUE_KINDS.length);
    expect(values.size).toBeGreaterThan(200); // the comparison is over varied answers, not a constant
    expect(a.stats()).toStrictEqual(b.stats());
  });

  it("on core's write-path calls (typing, relations, consolidation) over generated conversations, caches warm across calls", async () => {
    const a = createSystemOne();
    const b = createReference();
    let n = 0;
    for (const seed of [1, 2, 3]) {
      const obs = syntheticObservations(seed, 3, 30);
      // repeat a seed's texts in new objects so text caches hit across calls, as in a long ingest
      for (const rep of [0, 1]) {
        const ca = writeCalls(obs, { seed: seed + rep, representation: true });
        const cb = writeCalls(obs, { seed: seed + rep, representation: true });
        for (let i = 0; i < ca.length; i++) {
          await same(a, b, () => ca[i].state, () => ca[i].questions);
          // ask again the same objects: cache hits on both sides
          if (i % 7 === 0) await same(a, b, () => ca[i].state, () => cb[i].questions);
          n += Object.keys(ca[i].questions).length;
        }
      }
    }
    expect(n).toBeGreaterThan(10_000);
    const sa = a.stats();
    expect(sa).toStrictEqual(b.stats());
    expect(sa.cacheHits).toBeGreaterThan(0);
  });

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
  const allKinds = (): Record<string, Question> => {
    const qs = everyKindQuestions();
    // free-form questions (the zero-shot path)
    qs.free = { type: 'noul', instructions: 'Is {{new_memory}} about sport?', criteria: { true: 'it is about sport', false: 'it is not' } };
    qs.freeChoice = { type: 'choice', kind: 'no.such.kind', instructions: 'Mood of {{query}}?', criteria: { happy: 'glad', sad: 'unhappy', flat: 'neutral' } };
    return qs;
  };
  const stateArb = fc.record({
    query: text,
    observation: item,
    new_memory: item,
    candidates: fc.tuple(item, item),
    evidence: fc.array(item, { maxLength: 4 }),
    depth: fc.integer({ min: 0, max: 6 }),
  });

  it('on random states for every catalogue kind and free-form questions (lexical path)', async () => {
    const a = createSystemOne();
    const b = createReference();
    await fc.assert(
      fc.asyncProperty(stateArb, async (st) => {
        await same(a, b, () => structuredClone(st), allKinds);
        // the same values again in new objects (content caches) and in the same objects (identity caches)
        await same(a, b, () => structuredClone(st), allKinds);
      }),
      { numRuns: 150 },
    );
    expect(a.stats()).toStrictEqual(b.stats());
  });

  it('on random states with an injected embedder (asynchronous path)', async () => {
    const a = createSystemOne({ backend: createOfflineBackend({ embed, cosineRange: { low: 0.3, high: 0.9 } }), cache: false });
    const b = createReference({ backend: createReferenceOffline({ embed, cosineRange: { low: 0.3, high: 0.9 } }), cache: false });
    await fc.assert(
      fc.asyncProperty(stateArb, async (st) => {
        await same(a, b, () => structuredClone(st), allKinds);
      }),
      { numRuns: 60 },
    );
  });

  it('scoreQuestion (the plain scorer) equals the reference scorer on the same refs', () => {
    const ctx = lexicalContext();
    const rctx = referenceLexical();
    fc.assert(
      fc.property(stateArb, (st) => {
        const qs = allKinds();
        for (const id of Object.keys(qs)) {
          const refs = resolveRefs(id, qs[id], st as Record<string, unknown>);
          expect(scoreQuestion(qs[id], refs, ctx)).toStrictEqual(referenceScore(qs[id], structuredClone(refs), rctx));
        }
      }),
      { numRuns: 80 },
    );
  });

  it('items and questions reused and edited between asks: caches never serve stale values', async () => {
    const a = createSystemOne();
    const b = createReference({ cache: false }); // no answer cache, fresh item objects: nothing can be stale
    const nm: Record<string, unknown> = { text: 'Ana went to the park yesterday because she loves running.', time: '2024-05-02T10:00:00Z', speaker: 'Ana' };
    const c0: Record<string, unknown> = { text: 'Ana bought running shoes last Saturday.', time: '2024-05-01T09:00:00Z', entities: ['ana'], cosine: 0.7 };
    const c1 = 'Bob: I quit smoking two weeks ago, so now I run every morning.';
    const state = { observation: nm, new_memory: nm, candidates: [c0, c1], query: 'Why does Ana run?', evidence: [c0, c1], depth: 1 };
    const qs = allKinds();
    const fresh = () => structuredClone(state);
    const check = async () => {
      const ra = await a.ask(state, qs);
      const rb = await b.ask(fresh(), structuredClone(qs));
      expect(ra.answers).toStrictEqual(rb.answers);
    };
    await check();
    nm.text = 'Ana never went to the park again after she lost her job.'; // text edited in place
    await check();
    c0.time = '2024-05-05T09:00:00Z'; // time edited in place
    await check();
    c0.entities = ['ana', 'oslo']; // array replaced
    c0.keywords = ['running shoes'];
    await check();
    nm.speaker = 'Bob';
    c0.start = '2024-04-01T00:00:00Z';
    c0.cosine = 0.2;
    await check();
    // a question object edited between asks (instructions, then criteria replaced, then edited in place)
    const q = catalogue.relation.semantic(0);
    const one = { q } as Record<string, Question>;
    const askBoth = async () => {
      const ra = await a.ask(state, one);
      const rb = await b.ask(fresh(), structuredClone(one));
      expect(ra.answers).toStrictEqual(rb.answers);
      return ra;
    };
    await askBoth();
    q.instructions = 'Is {{new_memory}} about running?';
    expect((await askBoth()).traces[0].cacheHit).toBe(false);
    q.kind = undefined; // now a free-form Noul (zero-shot path)
    q.criteria = { true: 'about running', false: 'about something else' };
    expect((await askBoth()).traces[0].cacheHit).toBe(false);
    q.criteria.true = 'about sport';
    expect((await askBoth()).traces[0].cacheHit).toBe(false);
    q.criteria.true = 'about running'; // back to a content seen before: a cache hit, as the reference would give for that content
    expect((await askBoth()).traces[0].cacheHit).toBe(true);
  });

  it('the LRU answer cache keeps, touches and evicts exactly as the reference (string and pair keys)', () => {
    // key k: 0..2 a single string key, 3..8 the pair (x, y) that the reference stores as `x + U+0001 + y`
    const key = fc.integer({ min: 0, max: 8 });
    const op = fc.oneof(
      { arbitrary: fc.record({ get: key }), weight: 10 },
      { arbitrary: fc.record({ put: key, q: fc.integer({ min: 0, max: 2 }), v: fc.integer() }), weight: 10 },
      { arbitrary: fc.constant({ clear: true }), weight: 1 },
    );
    const parts = (k: number): [string, string] => [`a${Math.floor((k - 3) / 3)}`, `b${(k - 3) % 3}`];
    const flat = (k: number) => (k < 3 ? `s${k}` : parts(k).join('\u0001'));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(op, { maxLength: 120 }), (max, ops) => {
        const a = new AnswerCache<number>(max);
        const b = new ReferenceAnswerCache<number>(max);
        const getA = (k: number) => (k < 3 ? a.get(`s${k}`) : a.getPair(...parts(k)));
        for (const o of ops as { get?: number; put?: number; q?: number; v?: number; clear?: boolean }[]) {
          if (o.clear) {
            a.clear();
            b.clear();
          } else if (o.get !== undefined) {
            const x = getA(o.get);
            const y = b.get(flat(o.get));
            expect(x && [...x]).toStrictEqual(y && [...y]);
          } else {
            const k = o.put!;
            // a new string object with the same content half of the time (the cache compares by content)
            const sk = o.v! % 2 ? `s${k}` : ['s', String(k)].join('');
            if (k < 3) a.put(sk, `q${o.q}`, o.v!);
            else a.putPair(...parts(k), `q${o.q}`, o.v!);
            b.put(flat(k), `q${o.q}`, o.v!);
          }
          expect(a.size).toBe(b.size);
        }
        for (let k = 0; k <= 8; k++) {
          const x = getA(k);
          const y = b.get(flat(k));
          expect(x && [...x]).toStrictEqual(y && [...y]);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('stableStringify gives the reference string for any JSON-like value', () => {
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
    fc.assert(
      fc.property(v, (x) => {
        expect(stableStringify(x)).toBe(referenceStableStringify(x));
      }),
      { numRuns: 500 },
    );
  });
});

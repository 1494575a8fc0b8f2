/**
 * Adversarial identity of the optimised controller + offline backend (tester, ours): many concurrent
 * asks that share state and item objects, with the answer cache on and off, must answer exactly as
 * the frozen reference asked one at a time — on states with RTL / CJK / emoji / control-character
 * texts, strings holding the cache-key tag (U+0000) and separator (U+0001), a 200 kB text, empty
 * lists and odd times; lexical and asynchronous (injected embedder) paths.
 */
import { describe, expect, it } from 'vitest';
import { everyKindQuestions, rng } from '../bench/write-workload';
import { batches } from './catalogue';
import { createSystemOne, type AnswerTrace } from './controller';
import { createOfflineBackend } from './offline/index';
import { createSystemOne as createReference } from './reference/controller';
import { createOfflineBackend as createReferenceOffline } from './reference/offline';

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

function makeStates(n: number, seed: number): Record<string, unknown>[] {
  const u = rng(seed);
  const pick = <T>(a: readonly T[]) => a[Math.floor(u() * a.length)]!;
  // a pool of item objects shared by several states (identity caches see the same object many times)
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

const questions = everyKindQuestions;

async function embed(texts: string[]): Promise<Float32Array[]> {
  await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 3))); // interleave concurrent asks
  return texts.map((t) => {
    const v = new Float32Array(32);
    for (let i = 0; i < t.length && i < 4096; i++) v[(t.charCodeAt(i) * 31 + i) % 32] += 1;
    v[0] += 0.5;
    return v;
  });
}
const noLatency = (ts: AnswerTrace[]) => ts.map(({ latencyMs: _l, ...t }) => t);

describe('optimised System One under concurrency = reference one at a time', () => {
  for (const path of ['lexical', 'embedder'] as const) {
    it(`${path} path: concurrent asks on shared objects, cache on and off`, async () => {
      const states = makeStates(40, path === 'lexical' ? 1 : 2);
      const backend = () => (path === 'lexical' ? createOfflineBackend() : createOfflineBackend({ embed }));
      const ref = createReference({ backend: path === 'lexical' ? createReferenceOffline() : createReferenceOffline({ embed }), cache: false });
      const expected = [];
      for (const st of states) expected.push(await ref.ask(structuredClone(st), questions()));
      for (const cache of [true, false]) {
        const sys = createSystemOne({ backend: backend(), ...(cache ? {} : { cache: false as const }) });
        // every state twice, all at once, sharing the state objects
        const got = await Promise.all([...states, ...states].map((st) => sys.ask(st, questions())));
        for (let i = 0; i < got.length; i++) {
          const e = expected[i % states.length]!;
          expect(got[i]!.answers, `state ${i % states.length}, cache ${cache}`).toStrictEqual(e.answers);
          expect(noLatency(got[i]!.traces).map((t) => ({ ...t, cacheHit: undefined }))).toStrictEqual(noLatency(e.traces).map((t) => ({ ...t, cacheHit: undefined })));
        }
      }
    }, 60_000);
  }
});

describe('answer cache and in-flight state mutation', () => {
  // FINDING (fixed): the answer cache key is computed from the state when `ask` starts, but an
  // asynchronous backend read the state's item objects later, so an item mutated while the ask was in
  // flight made an answer for the new content land under the OLD content's key (cache poisoning).
  // With the cache on, asynchronous backends now get a snapshot (structured clone) of the state.
  it('an item mutated during an in-flight ask does not poison the cache for its old content', async () => {
    const N = 'Ana started a new job in Oslo';
    const A = 'Ana moved to Oslo last May because of her new job';
    const fresh = () => ({ new_memory: { text: N, time: '2024-05-01T10:00:00Z' }, candidates: [{ text: A, time: '2024-04-01T10:00:00Z' }] });
    const sys = createSystemOne({ backend: createOfflineBackend({ embed }) });
    const clean = createSystemOne({ backend: createOfflineBackend({ embed }), cache: false });
    const st = fresh();
    const inFlight = sys.ask(st, batches.relations(1));
    st.candidates[0]!.text = 'Bob stopped smoking after his doctor warned him';
    await inFlight;
    const later = await sys.ask(fresh(), batches.relations(1));
    expect(later.answers).toStrictEqual((await clean.ask(fresh(), batches.relations(1))).answers);
  });
});

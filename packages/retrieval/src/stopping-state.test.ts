import { describe, expect, it } from 'vitest';
import { createJevRetriever } from './jev.js';
import { hashEmbedder, makeNode, memoryStore, rel, SCOPE, scriptedSystemOne } from './__fixtures__/stubs.js';
import type { RetrievalTrace } from './types.js';

// issue 16: the stopping state carries what the learned stopping models read; stopBeforeRounds
const embedder = hashEmbedder();
const ROUTE = { semantic: 0.9, temporal: 0.6, causal: 0.05, entity: 0.3, multi_hop_need: 0.3, recency_importance: 0 };
const NOW = '2024-05-16T10:00:00Z';
const QUERY = 'When did Mira buy a new bicycle?';

async function setup() {
  const nodes = [
    await makeNode(embedder, 'n1', 'Mira said her old bicycle broke on the way to work'),
    await makeNode(embedder, 'n2', 'Mira bought a new bicycle yesterday'),
    await makeNode(embedder, 'n3', 'The shop on Elm street had a sale on helmets'),
    await makeNode(embedder, 'n6', 'She picked the red one at Elm street'),
  ];
  return memoryStore(nodes, [rel('n2', 'n6', 'SAME_EPISODE', 0.9), rel('n1', 'n2', 'LEADS_TO', 0.8)]);
}
const stoppingCalls = (s1: ReturnType<typeof scriptedSystemOne>) => s1.calls.filter((c) => Object.values(c.questions).some((q) => q.kind?.startsWith('stopping.')));

describe('jev stopping state (learned stopping)', () => {
  it('evidence items carry their round and p(evidence) best first; no question before the first round by default', async () => {
    const s1 = scriptedSystemOne(ROUTE);
    const r = createJevRetriever({ store: await setup(), systemOne: s1, embedder, seedsPerRanking: 0 });
    const res = await r.search({ scope: SCOPE, query: QUERY, k: 10, now: NOW });
    const t = res.trace as RetrievalTrace;
    const calls = stoppingCalls(s1);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((c) => (c.state.depth as number) >= 1)).toBe(true);
    expect(t.anchorStopping).toBeNull();
    for (const c of calls) {
      const ev = c.state.evidence as { relevance: number; round: number }[];
      expect(ev.length).toBeGreaterThan(0);
      for (const e of ev) {
        expect(e.relevance).toBeGreaterThanOrEqual(0);
        expect(e.relevance).toBeLessThanOrEqual(1);
        expect(Number.isInteger(e.round) && e.round >= 0 && e.round <= (c.state.depth as number)).toBe(true);
      }
      expect(ev.every((e, i) => i === 0 || ev[i - 1].relevance >= e.relevance)).toBe(true);
    }
  });

  it('without the learned relevance model the items carry no relevance (the offline backend then uses its cue scorers)', async () => {
    const s1 = scriptedSystemOne(ROUTE);
    const r = createJevRetriever({ store: await setup(), systemOne: s1, embedder, seedsPerRanking: 0, relevanceModel: null });
    await r.search({ scope: SCOPE, query: QUERY, k: 10, now: NOW });
    const ev = stoppingCalls(s1)[0].state.evidence as Record<string, unknown>[];
    expect(ev.every((e) => !('relevance' in e) && typeof e.round === 'number')).toBe(true);
  });

  it('stopBeforeRounds asks at depth 0 and stops there when told; otherwise the rounds run', async () => {
    const stopNow = scriptedSystemOne(ROUTE, () => ({ evidence_sufficient: 0.1, continue_useful: 0.01, missing_evidence: 0.9, contradiction: 0 }));
    const r = createJevRetriever({ store: await setup(), systemOne: stopNow, embedder, seedsPerRanking: 0, stopBeforeRounds: true });
    const t = (await r.search({ scope: SCOPE, query: QUERY, k: 10, now: NOW })).trace as RetrievalTrace;
    expect(t.anchorStopping).toMatchObject({ continueUseful: 0.01, stop: true });
    expect(t.stopReason).toBe('not_useful');
    expect(t.rounds).toHaveLength(0);
    expect(stoppingCalls(stopNow).map((c) => c.state.depth)).toEqual([0]);

    const goOn = scriptedSystemOne(ROUTE);
    const r2 = createJevRetriever({ store: await setup(), systemOne: goOn, embedder, seedsPerRanking: 0, stopBeforeRounds: true });
    const t2 = (await r2.search({ scope: SCOPE, query: QUERY, k: 10, now: NOW })).trace as RetrievalTrace;
    expect(t2.anchorStopping?.stop).toBe(false);
    expect(t2.rounds.length).toBeGreaterThan(0);
  });

  it('collectFeatures does not change the search, even at a tight controller-call cap (break-it)', async () => {
    const run = async (collectFeatures: boolean) => {
      const r = createJevRetriever({ store: await setup(), systemOne: scriptedSystemOne(ROUTE), embedder, seedsPerRanking: 0, maxAnchors: 1, caps: { controllerCalls: 3 }, collectFeatures });
      const res = await r.search({ scope: SCOPE, query: QUERY, k: 5, now: NOW });
      return { ids: res.evidence.map((e) => e.node.id), rounds: (res.trace as RetrievalTrace).rounds.length };
    };
    expect(await run(true)).toEqual(await run(false));
  });

  it('collectFeatures asks at depth 0 without stopping and traces the top ids of every step', async () => {
    const stopNow = scriptedSystemOne(ROUTE, () => ({ evidence_sufficient: 0.1, continue_useful: 0.01, missing_evidence: 0.9, contradiction: 0 }));
    const r = createJevRetriever({ store: await setup(), systemOne: stopNow, embedder, seedsPerRanking: 0, collectFeatures: true });
    const res = await r.search({ scope: SCOPE, query: QUERY, k: 3, now: NOW });
    const t = res.trace as RetrievalTrace;
    expect(t.anchorStopping?.stop).toBe(true);
    expect(t.anchorStopping?.top).toHaveLength(3);
    expect(t.rounds.length).toBeGreaterThan(0); // not stopped at depth 0
    expect(t.rounds[0].top).toHaveLength(3);
  });
  it('a backend answering outside [0, 1] is clamped before the stopping rule and the trace (break-it)', async () => {
    const wild = scriptedSystemOne(ROUTE, () => ({ evidence_sufficient: 7, continue_useful: -3, missing_evidence: 2.5, contradiction: -0.4 }));
    const r = createJevRetriever({ store: await setup(), systemOne: wild, embedder, seedsPerRanking: 0, stopBeforeRounds: true });
    const t = (await r.search({ scope: SCOPE, query: QUERY, k: 10, now: NOW })).trace as RetrievalTrace;
    expect(t.anchorStopping).toMatchObject({ sufficient: 1, continueUseful: 0, missing: 1, contradiction: 0, stop: true });

    const later = scriptedSystemOne(ROUTE, () => ({ evidence_sufficient: -2, continue_useful: 9, missing_evidence: -1, contradiction: 4 }));
    const r2 = createJevRetriever({ store: await setup(), systemOne: later, embedder, seedsPerRanking: 0 });
    const t2 = (await r2.search({ scope: SCOPE, query: QUERY, k: 10, now: NOW })).trace as RetrievalTrace;
    const asked = t2.rounds.map((x) => x.stopping).filter((x) => x !== null);
    expect(asked.length).toBeGreaterThan(0);
    for (const st of asked) expect(st).toEqual({ sufficient: 0, continueUseful: 1, missing: 0, contradiction: 1 });
  });
});

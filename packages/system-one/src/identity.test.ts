// Identity of the controller + offline backend with the answers recorded from the frozen
// pre-optimisation controller (test/identity.golden.json; git tag `system-one-reference` holds that
// controller): the same states and questions give the same answers bit for bit, the same traces apart
// from latency and the same stats, over the bench's hand-labelled states, core's write-path calls on
// generated conversations, random states for every catalogue kind (lexical and embedding contexts),
// items and questions edited between asks, the LRU cache's observations and stableStringify on random
// JSON. The question set lives in test/identity-cases.ts. Changing offline answers on purpose: see
// scripts/golden.ts (`pnpm --filter @mem/system-one golden --kinds <kind,...>`).
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE_KINDS } from './catalogue.js';
import { compare, currentImpl, editsRun, type Golden, type Impl, SECTIONS, type SectionName, type SectionRun } from '../test/identity-cases.js';

const golden = JSON.parse(readFileSync(new URL('../test/identity.golden.json', import.meta.url), 'utf8')) as Golden;
let impl: Impl;
beforeAll(async () => {
  impl = await currentImpl();
});

/** Expect no difference; the failure lists each differing call with its section, kind, questions and current values. */
function expectSame(section: string, run: SectionRun) {
  const diffs = compare(section, run, golden.sections[section]);
  expect(diffs.slice(0, 20), `${diffs.length} differences from the golden file in ${section} (kinds: ${[...new Set(diffs.map((d) => d.kind))].join(', ')})`).toStrictEqual([]);
}
async function section(name: SectionName) {
  const run = await SECTIONS[name](impl);
  expectSame(name, run);
  return run;
}
const kindsOf = (run: SectionRun) => new Set(run.entries.map((e) => e.kind));

describe('System One = the answers recorded from the pre-optimisation controller (answers, traces, stats)', () => {
  it('on every hand-labelled state of the bench sets (1,139 questions, 29 kinds)', async () => {
    const run = await section('hand-labelled');
    expect(run.entries.length).toBe(1139);
    // every kind but state.change (issue 37), which has no hand-labelled bench states: its held-out pairs are in scripts/state-data.ts
    expect([...kindsOf(run)].sort()).toEqual(CATALOGUE_KINDS.filter((k) => k !== 'state.change').sort());
    // the comparison is over varied answers, not a constant
    expect(new Set(run.entries.map((e) => JSON.stringify((e.value as { answer: unknown }).answer))).size).toBeGreaterThan(200);
  });

  it("on core's write-path calls (typing, relations, consolidation) over generated conversations, caches warm across calls", async () => {
    const run = await section('write-path');
    expect(run.entries.length).toBeGreaterThan(10_000);
    expect((run.stats as { cacheHits: number }).cacheHits).toBeGreaterThan(0);
  });

  it('on random states for every catalogue kind and free-form questions (lexical path, asked twice)', async () => {
    const run = await section('random-lexical');
    // every kind but state.change (issue 37; recorded after the golden file, tested in state-model.test.ts) and two free-form ones
    expect(kindsOf(run).size).toBe(CATALOGUE_KINDS.length - 1 + 2);
    expect(kindsOf(run).has('state.change')).toBe(false);
  });

  it('on random states with an injected embedder (asynchronous path)', async () => {
    await section('random-embedder');
  });

  it('scoreQuestion (the plain scorer) on the same refs', async () => {
    await section('scorer');
  });

  it('items and questions reused and edited between asks: caches never serve stale values', async () => {
    // the default controller on the live objects must answer what an uncached one answered on fresh copies
    const run = await editsRun(impl, true);
    expectSame('edits', run);
    // edited question: instructions changed, criteria replaced, edited in place (misses), then back to a seen content (a hit)
    expect(run.cacheHits!.slice(1)).toStrictEqual([false, false, false, true]);
  });

  it('on adversarial texts (RTL, CJK, emoji, controls, 200 kB), lexical and embedder paths', async () => {
    await section('adversarial-lexical');
    await section('adversarial-embedder');
  });

  it('the LRU answer cache keeps, touches and evicts as recorded (string and pair keys)', async () => {
    await section('lru');
  });

  it('stableStringify gives the recorded string for any JSON-like value', async () => {
    await section('stableStringify');
  });

  it('the golden file covers every section', () => {
    expect(Object.keys(golden.sections).sort()).toStrictEqual(Object.keys(SECTIONS).sort());
  });
});

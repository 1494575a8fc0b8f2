import { describe, expect, it } from 'vitest';
import { countTokens } from 'gpt-tokenizer';
import { MemError } from '@mem/core';
import { excerpt, toContext } from './context.js';
import { hashEmbedder, makeNode } from './__fixtures__/stubs.js';

const e = hashEmbedder(8);

async function fixture() {
  const a = await makeNode(e, 'a', 'I adopted a grey cat named Pixel.', { speaker: 'Ana', observedAt: '2024-03-02T09:00:00.000Z', provenance: { sourceId: 'S2:4', contentHash: 'a', metadata: {} } });
  const b = await makeNode(e, 'b', 'We hiked up the ridge last Saturday.', {
    speaker: 'Ben',
    observedAt: '2024-01-10T18:30:00.000Z',
    eventTime: { start: '2024-01-06T00:00:00.000Z', end: null, expression: 'last Saturday' },
    provenance: { sourceId: 'S1:2', contentHash: 'b', metadata: {} },
  });
  const c = await makeNode(e, 'c', 'Pixel knocked the plant off the shelf.', { speaker: 'Ana', observedAt: '2024-03-02T09:00:00.000Z', provenance: { sourceId: 'S2:10', contentHash: 'c', metadata: {} } });
  return [a, c, b].map((node, i) => ({ node, score: 1 - i / 10, path: [] }));
}

describe('toContext', () => {
  it('groups by session in time order, shows event dates, stays in budget', async () => {
    const ev = await fixture();
    const p = toContext({ evidence: ev }, { tokenBudget: 500 });
    expect(p.included).toHaveLength(3);
    expect(p.tokens).toBe(countTokens(p.text));
    const lines = p.text.split('\n');
    expect(lines[0]).toBe('## Session — 10 January 2024, 18:30 UTC');
    expect(lines[1]).toContain('[S1:2] Ben: We hiked up the ridge last Saturday. (event: 6 January 2024, "last Saturday")');
    expect(lines[3]).toBe('## Session — 2 March 2024, 09:00 UTC');
    // S2:4 before S2:10 (numeric source order within a session)
    expect(lines[4]).toContain('[S2:4]');
    expect(lines[5]).toContain('[S2:10]');
  });
  it('is stable under input order of equal-rank evidence and drops lowest ranks first', async () => {
    const ev = await fixture();
    const full = toContext({ evidence: ev }, { tokenBudget: 500 });
    const small = toContext({ evidence: ev }, { tokenBudget: full.tokens - 5 });
    expect(small.tokens).toBeLessThanOrEqual(full.tokens - 5);
    expect(small.included.map((x) => x.node.id)).toEqual(['a', 'c']);
    expect(small.omitted).toBe(1);
    const tiny = toContext({ evidence: ev }, { tokenBudget: 3 });
    expect(tiny.included).toHaveLength(0);
    expect(tiny.text).toBe('');
  });
  it('rejects a bad budget', async () => {
    const ev = await fixture();
    for (const b of [0, -1, 1.5, NaN]) {
      let err: unknown;
      try {
        toContext({ evidence: ev }, { tokenBudget: b });
      } catch (x) {
        err = x;
      }
      expect(MemError.isInstance(err)).toBe(true);
    }
  });
});

describe('toContext with the memory state (issue 37)', () => {
  async function pair() {
    const old = await makeNode(e, 'old', 'I love spicy food.', { speaker: 'Jonas', observedAt: '2026-01-10T10:00:00.000Z' });
    const fresh = await makeNode(e, 'new', 'I have stopped eating spicy food, I prefer mild dishes.', { speaker: 'Jonas', observedAt: '2026-11-10T10:00:00.000Z' });
    const superseded = { status: 'superseded' as const, by: 'new', at: fresh.observedAt, p: 0.94, relation: 'CONTRADICTS' as const };
    return { old: { node: old, score: 0.9, path: [], state: superseded }, fresh: { node: fresh, score: 0.8, path: [], state: { status: 'current' as const } } };
  }
  it('packs "now: … (earlier: …, until <date>)" when both are in the context, and the old state is not repeated', async () => {
    const { old, fresh } = await pair();
    const p = toContext({ evidence: [old, fresh] }, { tokenBudget: 500 });
    expect(p.text).toContain('Jonas: now: I have stopped eating spicy food, I prefer mild dishes. (earlier: I love spicy food., until 10 November 2026)');
    expect(p.text.match(/I love spicy food/g)).toHaveLength(1);
    expect(p.tokens).toBe(countTokens(p.text));
    expect(p.tokens).toBeLessThanOrEqual(500);
  });
  it('a superseded memory alone says since when it no longer holds', async () => {
    const { old } = await pair();
    expect(toContext({ evidence: [old] }, { tokenBudget: 500 }).text).toContain('Jonas: I love spicy food. (no longer true since 10 November 2026)');
  });
});

describe('toContext excerpts (issue 38)', () => {
  const long = (topic: string, i: number) =>
    `Intro sentence number ${i} about nothing in particular. Another filler line that says little of use here. The ${topic} was moved to slot ${i} on Tuesday. Closing remark with more filler words to make the message long.`;
  it('cuts each item to the sentences that share the most words with the question, so more items fit', async () => {
    const ev = await Promise.all(Array.from({ length: 12 }, (_, i) => makeNode(e, `m${i}`, long('garden bed', i), { observedAt: `2024-03-${String(i + 1).padStart(2, '0')}T09:00:00.000Z` })));
    const evidence = ev.map((node, i) => ({ node, score: 1 - i / 100, path: [] }));
    const whole = toContext({ evidence }, { tokenBudget: 300 });
    const cut = toContext({ evidence }, { tokenBudget: 300, excerptTokens: 20, query: 'When was the garden bed moved?' });
    expect(cut.tokens).toBeLessThanOrEqual(300);
    expect(cut.included.length).toBeGreaterThan(whole.included.length);
    expect(cut.text).toContain('The garden bed was moved to slot 0 on Tuesday.');
    expect(cut.text).not.toContain('Intro sentence number 0');
    // a result the read path widened carries its own excerpt length and question
    const auto = toContext({ evidence, wide: { query: 'When was the garden bed moved?', excerptTokens: 20 } }, { tokenBudget: 300 });
    expect(auto.text).toBe(cut.text);
    expect(() => toContext({ evidence }, { tokenBudget: 300, excerptTokens: 0 })).toThrow(MemError);
  });
  it('excerpt keeps a text that fits and cuts a single long sentence at a word', () => {
    expect(excerpt('Short text.', 'q', 50)).toBe('Short text.');
    const cut = excerpt(Array.from({ length: 80 }, (_, i) => `word${i}`).join(' '), 'nothing', 10);
    expect(cut.endsWith(' …')).toBe(true);
    expect(countTokens(cut)).toBeLessThanOrEqual(10);
  });
});

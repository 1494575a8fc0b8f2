import { describe, expect, it } from 'vitest';
import { LruMap } from './lru-map.js';
import { feat, itemCacheSize, pairOf, withCallCache } from './inputs.js';
import { features, MAX_TEXTS } from './text.js';

describe('LruMap', () => {
  it('keeps at most `capacity` entries and evicts the least recently used (a get counts as a use)', () => {
    const m = new LruMap<string, number>(3);
    m.set('a', 1).set('b', 2).set('c', 3);
    expect(m.get('a')).toBe(1); // a is now the most recent: b is the oldest
    m.set('d', 4);
    expect(m.size).toBe(3);
    expect(m.has('b')).toBe(false);
    expect([m.get('a'), m.get('c'), m.get('d')]).toEqual([1, 3, 4]);
    m.set('c', 30); // an update is a use and does not evict
    expect(m.size).toBe(3);
    m.set('e', 5); // the oldest now is a
    expect(m.has('a')).toBe(false);
    expect(m.get('c')).toBe(30);
  });

  it('refuses a capacity below 1 or not an integer', () => {
    expect(() => new LruMap(0)).toThrow(RangeError);
    expect(() => new LruMap(1.5)).toThrow(RangeError);
  });
});

// issue 33: a long-running `mem serve` kept every text the offline scorers had seen (20,000 cleared
// when full) and, through pair memos on the item features, a web of evicted items.
describe('offline scorer caches stay bounded', () => {
  it('item features: at most MAX_TEXTS texts, the recently used ones kept', () => {
    const first = feat({ text: 'Maya talked about the kite on day 0 (note 0).' });
    for (let i = 1; i < MAX_TEXTS + 500; i++) {
      feat({ text: `Maya talked about the kite on day ${i} (note ${i}).` });
      if (i % 1000 === 0) expect(feat({ text: 'Maya talked about the kite on day 0 (note 0).' })).toBe(first); // used: kept
    }
    expect(itemCacheSize()).toBeLessThanOrEqual(MAX_TEXTS);
    expect(feat({ text: 'Maya talked about the kite on day 0 (note 0).' })).toBe(first);
    const old = feat({ text: 'Maya talked about the kite on day 1 (note 1).' }); // evicted long ago: computed again
    expect(old.text).toBe('Maya talked about the kite on day 1 (note 1).');
  });

  it('text features: the least recently used text is computed again once MAX_TEXTS others came after it', () => {
    const a = features('Leo went hiking near Berlin last week.');
    expect(features('Leo went hiking near Berlin last week.')).toBe(a);
    for (let i = 0; i < MAX_TEXTS; i++) features(`Leo read book ${i}.`);
    const again = features('Leo went hiking near Berlin last week.');
    expect(again).not.toBe(a);
    expect(again).toEqual(a);
  });

  it('pair memos live for one backend call only', () => {
    const fa = feat({ text: 'Ana adopted a dog.' });
    const fb = feat({ text: 'Ana walks her dog every morning.' });
    const [p1, p2] = withCallCache(() => [pairOf(fa, fb), pairOf(fa, fb)]);
    expect(p2).toBe(p1);
    p1.lexical = 0.5;
    const p3 = withCallCache(() => pairOf(fa, fb));
    expect(p3).not.toBe(p1);
    expect(p3.lexical).toBeUndefined();
    expect(pairOf(fa, fb)).not.toBe(pairOf(fa, fb)); // outside a call: nothing kept
  });
});

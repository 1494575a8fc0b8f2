import { createRequire } from 'node:module';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadWinkModel } from './wink-model.js';

const req = createRequire(import.meta.url);
const stock = req('wink-eng-lite-web-model');
const winkNLP = req('wink-nlp');

describe('loadWinkModel (the faster load of wink-eng-lite-web-model)', () => {
  const fast = loadWinkModel(req);

  it('unpacks a core model equal to the package’s own core()', () => {
    const mine = fast.core();
    const theirs = stock.core();
    expect(Object.keys(mine).sort()).toEqual(Object.keys(theirs).sort());
    for (const key of Object.keys(theirs)) expect(isDeepStrictEqual(mine[key], theirs[key]), `model.${key}`).toBe(true);
    expect(mine.features.lexeme.list.length).toBeGreaterThan(80_000);
    expect(fast.core()).not.toBe(mine); // a fresh model per call: wink-nlp adds out-of-vocabulary words to it
  });

  it('its lexeme lookup reads and writes like a plain object (get, set, in, keys, delete)', () => {
    const hash = fast.core().features.lexeme.hash;
    const plain = stock.core().features.lexeme.hash;
    for (const w of ['the', 'meeting', 'Maya', '__proto__', 'constructor', 'zorblax', '1']) {
      expect(hash[w], w).toBe(plain[w]);
      expect(w in hash, w).toBe(w in plain);
    }
    expect(Object.getPrototypeOf(hash)).toBeNull();
    hash.zorblax = 90_000;
    expect(hash.zorblax).toBe(90_000);
    expect('zorblax' in hash).toBe(true);
    expect(Object.keys(hash).length).toBe(Object.keys(plain).length + 1);
    delete hash.zorblax;
    expect(hash.zorblax).toBeUndefined();
    expect(hash[Symbol.iterator as unknown as string]).toBeUndefined();
  });

  it('gives the same parses as the package’s model (tokens, POS, lemmas, sentences, entities, stems)', () => {
    const pipe = ['sbd', 'pos', 'ner'];
    const a = winkNLP(fast, pipe);
    const b = winkNLP(stock, pipe);
    const texts = [
      'Why did Maya miss the planning meeting?',
      "She'd been running 15 km every Sunday since March 3rd, 2024; then the flat tire happened at 9am.",
      'Dr. Okafor said the mice were hiding under the geese’s feet. Better go see @sam at https://example.com or mail a@b.co #tired',
      'I was, am, and will be leaving; they have children, oxen and data.',
    ];
    for (const text of texts) {
      const da = a.readDoc(text);
      const db = b.readDoc(text);
      for (const its of ['value', 'pos', 'lemma', 'stopWordFlag', 'precedingSpaces', 'stem', 'type']) expect(da.tokens().out(a.its[its]), `${its} of ${text}`).toEqual(db.tokens().out(b.its[its]));
      expect(da.sentences().out(a.its.span)).toEqual(db.sentences().out(b.its.span));
      expect(da.entities().out(a.its.detail)).toEqual(db.entities().out(b.its.detail));
    }
  });

  it('has the addons and annotations of the package’s model', () => {
    expect(Object.keys(fast).sort()).toEqual(Object.keys(stock).sort());
    expect(Object.keys(fast.addons).sort()).toEqual(Object.keys(stock.addons).sort());
  });
});

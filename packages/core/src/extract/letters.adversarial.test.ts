/**
 * Tester finding (ours), not fixed: entity / keyword extraction drops letters outside Latin-1.
 * wink-nlp's English tokenizer does not treat Ż Ł Œ İ Đ Š ẞ … as word characters, so "Żaneta" becomes
 * the keyword "aneta", "Łódź" the entity "ód", "Šibenik" "ibenik", "İstanbul" "stanbul", and the
 * names are lost as entities (the entity / keyword signals of candidate discovery and retrieval miss
 * them). Latin-1 letters (é, ø, å, þ) are fine. A fix needs a tokenizer-level change (e.g. masking
 * such letters with placeholders before parsing and restoring them), left to the extract owner.
 */
import { describe, expect, it } from 'vitest';
import { extractEntities, extractKeywords } from './index.js';

describe('extraction keeps letters outside Latin-1', () => {
  it.skip('Polish, Croatian, Turkish, German ẞ names are kept whole', () => {
    expect(extractKeywords('Żaneta visited Łódź')).toEqual(expect.arrayContaining(['żaneta', 'łódź']));
    expect(extractEntities('Đorđe lives in Šibenik')).toEqual(expect.arrayContaining(['đorđe', 'šibenik']));
    expect(extractKeywords('İstanbul and Işık')).not.toContain('stanbul');
    expect(extractKeywords('Ætna and Œdipus')).not.toContain('dipus');
  });
  it('Latin-1 letters are kept (control for the skipped test)', () => {
    expect(extractEntities('Ørjan from Ålesund met Zoë')).toEqual(expect.arrayContaining(['ørjan', 'ålesund', 'zoë']));
  });
});

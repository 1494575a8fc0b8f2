/**
 * Tester finding (ours), fixed: wink-nlp's English tokenizer does not treat Ż Ł Œ İ Đ Š ẞ … as word
 * characters, so "Żaneta" became the keyword "aneta" and "Łódź" the entity "ód". `parseText` now
 * parses a same-length copy with ASCII stand-ins (`maskExtendedLatin`) and puts the letters back.
 */
import { describe, expect, it } from 'vitest';
import { extractEntities, extractKeywords } from './index.js';
import { maskExtendedLatin } from './nlp.js';

describe('extraction keeps letters outside Latin-1', () => {
  it('Polish, Croatian, Turkish, German ẞ names are kept whole', () => {
    expect(extractKeywords('Żaneta visited Łódź')).toEqual(expect.arrayContaining(['żaneta', 'łódź']));
    expect(extractEntities('Đorđe lives in Šibenik')).toEqual(expect.arrayContaining(['đorđe', 'šibenik']));
    expect(extractKeywords('İstanbul and Işık')).not.toContain('stanbul');
    expect(extractKeywords('Ætna and Œdipus')).not.toContain('dipus');
  });
  it('Latin-1 letters are kept (control)', () => {
    expect(extractEntities('Ørjan from Ålesund met Zoë')).toEqual(expect.arrayContaining(['ørjan', 'ålesund', 'zoë']));
  });
  it('the stand-in text has the same length and leaves Latin-1 and other scripts alone', () => {
    for (const t of ['Żaneta visited Łódź', 'Đorđe, İstanbul, ẞtraße', 'Zoë in Ålesund', '東京 and Москва 🙂']) {
      const m = maskExtendedLatin(t);
      expect(m.length).toBe(t.length);
      expect(/[\u0100-\u024F\u1E00-\u1EFF]/.test(m)).toBe(false);
    }
    expect(maskExtendedLatin('Żaneta visited Łódź')).toBe('Zaneta visited Lódz');
    expect(maskExtendedLatin('Zoë in Ålesund, 東京 and Москва 🙂')).toBe('Zoë in Ålesund, 東京 and Москва 🙂');
  });
});

/**
 * Break-it test of the bulk wink-nlp token read (nlp.ts `parseClean`: one `tokens().out(its.x)`
 * per property, sentences by span, lemmas only for LEMMA_POS non-stop tokens): on ASCII texts (no
 * masking) `parseText` must equal the per-item reading the previous version did, token by token,
 * on texts built to stress sentence boundaries and token shapes.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { LEMMA_POS, parseText, sanitizeForParse } from './nlp.js';

/** The per-item reading of the previous version, on an own wink pipeline (same model, same options). */
let refNlp: any = null;
function referenceParse(text: string) {
  if (!refNlp) {
    const req = createRequire(import.meta.url);
    const winkNLP = req('wink-nlp');
    const model = req('wink-eng-lite-web-model');
    refNlp = (winkNLP.default ?? winkNLP)(model.default ?? model, ['sbd', 'pos', 'ner']);
  }
  const nlp = refNlp;
  const its = nlp.its;
  const doc = nlp.readDoc(sanitizeForParse(text));
  const tokens: Record<string, unknown>[] = [];
  doc.sentences().each((s: any, si: number) => {
    let first = true;
    s.tokens().each((t: any) => {
      const value = t.out() as string;
      const pos = t.out(its.pos) as string;
      const stop = Boolean(t.out(its.stopWordFlag));
      tokens.push({
        value,
        lower: value.toLowerCase(),
        lemma: !stop && LEMMA_POS.has(pos) ? String(t.out(its.lemma)).toLowerCase() : '',
        pos,
        stop,
        space: t.out(its.precedingSpaces) ?? '',
        sentence: si,
        sentenceStart: first,
      });
      first = false;
    });
  });
  const entities: Record<string, unknown>[] = [];
  doc.entities().each((e: any) => {
    const span = e.out(its.span) as [number, number];
    const d = e.out(its.detail) as { value: string; type: string };
    entities.push({ value: d.value, type: d.type, start: span[0], end: span[1] });
  });
  return { tokens, entities };
}

const TEXTS = [
  '',
  '   ',
  '...',
  '!!! ??? ...',
  'Hi. Hi! Hi? Hi...',
  '  leading and trailing spaces  ',
  'Line one\nLine two\n\nLine four\r\nLine five',
  'Mr. Smith went to Washington D.C. on Jan. 5th, 2021 at 10:30 a.m. and met Dr. Jones.',
  "I can't, won't and shouldn't; y'all're gonna love it, ain't ya?",
  'Email me at someone@example.com or visit https://example.com/a?b=c#d, #hashtag @mention :) :-( <3',
  'Prices: $5.99, 3.5%, 1,000,000 units, 2nd place, 10km, 5x faster, v2.0.1-beta',
  '"Quoted," she said. (Parenthetical.) [Bracketed!] {Braced?}',
  'ALL CAPS SENTENCE. another one without caps. MiXeD CaSe HeRe.',
  'word '.repeat(300),
  'A. B. C. D. E. F. G.',
  'Caroline went to the LGBTQ support group yesterday; Melanie painted a lake sunrise in 2022.',
  'a-b-c d_e_f g/h/i j\\k l|m n~o p^q r*s t+u v=w x<y z>a',
  'x'.repeat(300) + ' tail words here.',
  '\t\ttabs\tbetween\twords\t',
  'Numbers 1 2 3 and ordinals first second third; fractions 1/2 3/4.',
];

describe('bulk token read = per-item read (ASCII texts)', () => {
  it('tokens (value, lemma, pos, stop, spaces, sentence starts) and entities agree on stress texts', () => {
    for (const t of TEXTS) {
      const got = parseText(t);
      const want = referenceParse(t);
      expect(got.tokens.length, JSON.stringify(t.slice(0, 60))).toBe(want.tokens.length);
      got.tokens.forEach((tok, i) => expect(tok, `${JSON.stringify(t.slice(0, 60))} token ${i}`).toEqual(want.tokens[i]));
      expect(got.entities, JSON.stringify(t.slice(0, 60))).toEqual(want.entities);
    }
  });

  it('the cached result of a text is the same object and unchanged after extraction reads it', async () => {
    const t = 'Caroline met Melanie in Boston on Friday.';
    const a = parseText(t);
    const snapshot = JSON.stringify(a);
    const { extract } = await import('./extract.js');
    extract(t, '2023-05-08T00:00:00Z');
    expect(parseText(t)).toBe(a);
    expect(JSON.stringify(parseText(t))).toBe(snapshot);
  });
});

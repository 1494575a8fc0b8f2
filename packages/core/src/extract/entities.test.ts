import { describe, expect, it } from 'vitest';
import { extractEntities, normalizeEntity } from './entities.js';
import { extractKeywords } from './keywords.js';
import { extract } from './extract.js';

describe('extractEntities', () => {
  it('finds people, places and organisations as normalised names', () => {
    const e = extractEntities("Caroline went to the LGBTQ support group in New York yesterday with Melanie's kids.");
    expect(e).toEqual(expect.arrayContaining(['caroline', 'new york', 'melanie', 'lgbtq']));
    expect(e).not.toContain('yesterday');
    expect(extractEntities('I visited Mount Rainier with Dr. Jane Doe last Saturday.')).toEqual(['mount rainier', 'jane doe']);
    expect(extractEntities('I love Coca-Cola and Gina’s bakery in São Paulo.')).toEqual(['coca-cola', 'gina', 'são paulo']);
  });
  it('exact normalised names match across possessives, case and spacing', () => {
    const a = extractEntities("Melanie's daughter loves horses.");
    const b = extractEntities('I talked to MELANIE  today.');
    const c = extractEntities('We met Melanie at the park.');
    expect(a).toContain('melanie');
    expect(b).toContain('melanie');
    expect(c).toContain('melanie');
    expect(normalizeEntity("  Melanie’s ")).toBe('melanie');
    expect(normalizeEntity('the Joneses’')).toBe('the joneses');
    expect(normalizeEntity('@caroline_s')).toBe('caroline_s');
  });
  it('skips calendar words, pronouns and filler; keeps mentions', () => {
    expect(extractEntities('See you on Monday in March!')).toEqual([]);
    expect(extractEntities("Hey! I'm so happy today.")).toEqual([]);
    expect(extractEntities('we went hiking and it was fun.')).toEqual([]);
    expect(extractEntities('Thanks @caroline_s for the tip')).toContain('caroline_s');
    expect(extractEntities('')).toEqual([]);
  });
  it('does not take sentence-initial common words for names (chat text)', () => {
    expect(extractEntities('Glad you came!')).toEqual([]);
    expect(extractEntities('Great to see you! Nice pic.')).toEqual([]);
    expect(extractEntities('Yup, gonna do it. Woah!')).toEqual([]);
    expect(extractEntities('Congrats on the new job, Melanie!')).toEqual(['melanie']);
    // a common word that is also a name survives as a verb's subject or a possessor
    expect(extractEntities('Nice pic! Max looks happy.')).toEqual(['max']);
    expect(extractEntities("Max's collar is red.")).toEqual(['max']);
    expect(extractEntities('Caroline went to the park.')).toEqual(['caroline']);
  });
  it('deduplicates in order of first mention', () => {
    expect(extractEntities('Sweden is where I grew up. My friends from Sweden visited, and Oslo too.')).toEqual(['sweden', 'oslo']);
  });
});

describe('extractKeywords', () => {
  it('returns content-word lemmas without stop words', () => {
    const k = extractKeywords('Caroline went to the LGBTQ support group yesterday with her kids.');
    expect(k).toEqual(expect.arrayContaining(['caroline', 'lgbtq', 'support', 'group', 'kid']));
    for (const stop of ['the', 'to', 'with', 'her', 'go', 'went']) expect(k).not.toContain(stop);
    expect(extractKeywords('I adopted two dogs and they are running around.')).toEqual(expect.arrayContaining(['adopt', 'dog', 'run']));
    expect(extractKeywords('#pottery is my thing!!!')).toContain('pottery');
    expect(extractKeywords('   ')).toEqual([]);
  });
  it('overlaps for paraphrases that share content words', () => {
    const a = new Set(extractKeywords('Melanie painted a lake at sunrise.'));
    const b = extractKeywords('At sunrise, Melanie was painting the lake.');
    expect(b.filter((w) => a.has(w)).length).toBeGreaterThanOrEqual(3);
  });
});

describe('robustness', () => {
  it('handles emoji, CJK, right-to-left and very long text without throwing', () => {
    for (const t of ['我喜欢东京的春天 🎉', 'שלום, מה שלומך?', 'مرحبا بالعالم', '🎉🎉🎉', '...', 'Zoë and Björn visited Zürich.']) {
      expect(Array.isArray(extractEntities(t))).toBe(true);
      expect(Array.isArray(extractKeywords(t))).toBe(true);
      expect(() => extract(t, '2023-05-08T13:56:00Z')).not.toThrow();
    }
    expect(extractEntities('Zoë and Björn visited Zürich.')).toEqual(['zoë', 'björn', 'zürich']);
    const long = 'Caroline went hiking near Lake Tahoe last weekend with her dog. '.repeat(1000); // ~64 KiB
    const r = extract(long, '2023-05-08T13:56:00Z');
    expect(r.entities).toEqual(expect.arrayContaining(['caroline', 'lake tahoe']));
    expect(r.eventTime?.granularity).toBe('weekend');
  });
});

describe('extract', () => {
  it('combines the three', () => {
    const r = extract('Caroline adopted a puppy two weekends ago.', '2023-05-08T13:56:00Z');
    expect(r.entities).toEqual(['caroline']);
    expect(r.keywords).toEqual(expect.arrayContaining(['adopt', 'puppy']));
    expect(r.eventTime?.start).toBe('2023-04-29T00:00:00.000Z');
  });
});

/**
 * All three extractions in one call (one wink-nlp parse shared by entities and keywords).
 */
import { extractEntities } from './entities.js';
import { extractKeywords } from './keywords.js';
import { resolveEventTime, type ResolvedEventTime, type ResolveTimeOptions } from './time.js';

export interface Extraction {
  entities: string[];
  keywords: string[];
  /** null when the text has no time expression. */
  eventTime: ResolvedEventTime | null;
}

/**
 * `extract(text, observedAt, { timeZone })` = `{ extractEntities, extractKeywords, resolveEventTime }`
 * of one text (relative dates in `timeZone`'s calendar). Throws BAD_DATE like `resolveEventTime`.
 */
export function extract(text: string, observedAt: string | Date | number, options: ResolveTimeOptions = {}): Extraction {
  return { entities: extractEntities(text), keywords: extractKeywords(text), eventTime: resolveEventTime(text, observedAt, options) };
}

/**
 * All three extractions in one call (one wink-nlp parse shared by entities and keywords).
 */
import { extractEntities } from './entities.js';
import { extractKeywords } from './keywords.js';
import { resolveEventTime, type ResolvedEventTime } from './time.js';

export interface Extraction {
  entities: string[];
  keywords: string[];
  /** null when the text has no time expression. */
  eventTime: ResolvedEventTime | null;
}

/** `extract(text, observedAt)` = `{ extractEntities, extractKeywords, resolveEventTime }` of one text. Throws BAD_DATE like `resolveEventTime`. */
export function extract(text: string, observedAt: string | Date | number): Extraction {
  return { entities: extractEntities(text), keywords: extractKeywords(text), eventTime: resolveEventTime(text, observedAt) };
}

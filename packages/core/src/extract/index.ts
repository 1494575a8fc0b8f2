export { extractEntities, normalizeEntity } from './entities.js';
export { extractKeywords } from './keywords.js';
export { resolveEventTime, resolveEventTimes, tenseAround, utcDayStart, utcWeekStart } from './time.js';
export type { ResolvedEventTime, ResolveTimeOptions, Tense, TimeGranularity } from './time.js';
export { extract } from './extract.js';
export type { Extraction } from './extract.js';

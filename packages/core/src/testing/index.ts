// `@mem/core/testing`: the MemoryStore conformance suite (needs vitest) and fixture helpers.
export { runStoreConformance, expectMemError, type StoreConformanceOptions } from './conformance.js';
export {
  makeNode,
  makeRelation,
  makeHistory,
  testScope,
  testMeta,
  unitVector,
  axisVector,
  normalize,
  cosine,
  seededRandom,
} from './fixtures.js';

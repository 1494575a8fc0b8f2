// `@mem/store-spec/testing` (re-exported as `@mem/core/testing`): the MemoryStore conformance suite
// (needs vitest) and fixture helpers.
export { runStoreConformance, type StoreConformanceOptions } from './conformance.js';
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

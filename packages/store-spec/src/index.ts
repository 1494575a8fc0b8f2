// `@mem/store-spec`: the contract a store adapter builds against, with no native module (issue 35):
// the memory graph model and `MemoryStore`, the error classes, scope checks, the shared batch and
// query validators and the search-text normalisation. `@mem/core` re-exports all of it. The
// conformance suite is the separate entry `@mem/store-spec/testing` (it needs vitest).
export * from './types.js';
export * from './errors.js';
export { SCOPE_KEYS, resolveScope, scopeKey, parseScopeKey, scopeValueProblem } from './scope.js';
export {
  checkWriteBatch,
  checkNeighborQuery,
  checkVector,
  checkStateName,
  checkStateValue,
  checkCount,
  checkMeta,
  HISTORY_OPS,
  type CheckedBatch,
  type NodeJson,
} from './validate.js';
export { searchText, searchTextSlow, searchTokens, docTokens, ftsMatchQuery, PRIVATE_USE } from './text.js';
export { mulberry32 } from './random.js';
export { implementedCapabilities } from './capabilities.js';

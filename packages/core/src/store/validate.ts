// The shared batch and query checks live in `@mem/store-spec` (every adapter runs them; issue 35).
export { checkWriteBatch, checkNeighborQuery, checkVector, checkStateName, checkStateValue, checkCount, checkMeta, HISTORY_OPS, type CheckedBatch, type NodeJson } from '@mem/store-spec';

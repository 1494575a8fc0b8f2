/**
 * Unicode checks shared by validation (src/write) and the embedding cache (src/embed) (ours); a leaf
 * module, so neither folder imports the other for it. `isWellFormed` (no lone UTF-16 surrogate) is
 * defined in @mem/gate-vmf, where the gate service shares it.
 */
export { isWellFormed } from '@mem/gate-vmf';

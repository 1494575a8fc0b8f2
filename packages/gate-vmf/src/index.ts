/**
 * @mem/gate-vmf — the SAGE von Mises–Fisher novelty gate (seed 001: "SAGE: Spherical Adaptive Gate
 * for Memory Evolution", §3), usable on its own: Add / Update / Noop in closed form.
 */
export { createNoveltyGate, toUnitVector } from './gate.js';
export type { GateDecision, NoveltyGate, ScopeStats, GateAction } from './gate.js';
export { createNoopFilter } from './noop.js';
export type { NoopDecision, NoopFilter, NoopFilterOptions } from './noop.js';
export type { GateOptions, ResolvedGateOptions } from './options.js';
export type { GateSnapshot, ScopeSnapshot, IvfSnapshot, VectorSource } from './snapshot.js';
export { GateError } from './errors.js';
export { scopeValueProblem, isWellFormed } from './keys.js';
// the seeded PRNG of the gate's start vectors, shared with @mem/store-spec (and through it @mem/core)
export { mulberry32 } from './pca.js';
export type { GateErrorCode, GateErrorCategory } from './errors.js';
export {
  SAGE_DEFAULTS,
  vmfScore,
  vmfScoreFromShiftedSum,
  novelty,
  meanResultantLength,
  estimateKappa,
  pcaVolume,
  pcaLogVolume,
  density,
  targetThreshold,
  emaThreshold,
  routeByNovelty,
  isNoopByScore,
  cosineUpperBound,
  fastModeErrorBound,
} from './math.js';
export type { KappaClips, ThresholdParams } from './math.js';
export { topEigen, jacobiEigen } from './pca.js';

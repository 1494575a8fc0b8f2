// Write path, consolidation and the Memory facade (Jev-Mem write path behind the SAGE gate).
export {
  createMemory,
  defaultExtractor,
  defaultQuestions,
  MEMORY_DEFAULTS,
  DEFAULT_WRITE_GATE_OPTIONS,
  MEMORY_SCHEMA_VERSION,
  type AddOptions,
  type Memory,
  type MemoryOptions,
  type MemoryStats,
  type RetrieverDeps,
} from './memory.js';
export {
  Writer,
  emptyCounters,
  memoryItem,
  WRITE_STAGES,
  PENDING_SCAN,
  addCounters,
  type PreparedWrite,
  type AddResult,
  type QuestionSet,
  type WriteCounters,
  type WriterConfig,
  type WriteStage,
} from './writer.js';
export { CandidateIndex, indexedMemory, DEFAULT_POSTING_CAP, NodeCache, DEFAULT_NODE_CACHE, type IndexedMemory } from './candidate-index.js';
export type { WriteGate, WriteController, ControllerQuestion, ControllerAnswer, Extractor, Summarizer } from './ports.js';
export { GateRegistry, isGateMember, type ScopeRuntime, type RecentWrite } from './gates.js';
export { compareHistory, orderHistory } from './history-order.js';
export {
  DEFAULT_MAX_TEXT_BYTES,
  validateObservation,
  contentHash,
  normalizeTextForHash,
  isWellFormed,
  forbiddenCharacter,
  type NormalizedObservation,
  type ValidateOptions,
} from './validate.js';
export { normalizeObservedAt, normalizeNow, zonedWallTimeToUtc, timeZoneOffsetMs, assertTimeZone, TIME_RANGE } from './time.js';
export {
  DAY_MS,
  positiveCosine,
  vectorSignal,
  entitySignal,
  keywordSignal,
  timeSignal,
  candidateScore,
  normalizeKeyword,
} from './signals.js';
export {
  DEFAULT_RELATION_THRESHOLD,
  CONCURRENT_TOLERANCE_MS,
  temporalRuleEdge,
  sharesEntity,
  finalizeEdges,
  type EdgeDraft,
} from './relations.js';
export { episodeKey, turnNumber } from './episode.js';
export { uuidv7 } from './ids.js';
export { KeyedQueue } from './queue.js';
export {
  NEAR_DUPLICATE_PAIRS,
  STATE_LABELS,
  SUPERSEDING_SUBTYPES,
  changeProbability,
  consolidationEdges,
  nearDuplicateEdges,
  noulValue,
  relationEdges,
  stateEdge,
  stateJudgment,
  stateKey,
  supersessionOf,
  temporalOrderEdge,
  typeScores,
  type PairPlan,
  type StateJudgment,
  type StateLabel,
  type StateOutcome,
  type StateThresholds,
  type Supersession,
  type SupersedingSubtype,
} from './questions/index.js';

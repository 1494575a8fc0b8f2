/**
 * @mem/system-one — the typed System-One controller J(S, Q) of Jev-Mem (seed 000): Noul and Choice
 * questions over one shared state, answered in batches by an offline scorer, an OpenAI-compatible
 * model, a Transformers.js NLI model or a Jev HTTP server.
 */
export * from './errors.js';
export * from './schema.js';
export * from './catalogue.js';
export type { SystemOneBackend, BackendRequest, BackendCallOptions } from './backend.js';
export { createSystemOne, stableStringify } from './controller.js';
export type { SystemOne, SystemOneOptions, SystemOneStats, AnswerTrace, AskResult } from './controller.js';
export { createOfflineBackend, routeFeatures } from './offline/index.js';
export type { OfflineBackendOptions } from './offline/index.js';
export { STOPPING_DEPTH_FEATURES, STOPPING_FEATURES, STOPPING_HEADS, learnedStopping, learnedStoppingApplies, stoppingFeatureRecord, stoppingModels } from './offline/stopping-learned.js';
export type { StoppingFeature, StoppingHead } from './offline/stopping-learned.js';
export { createOpenAIBackend, buildPrompt } from './backends/openai.js';
export type { OpenAIBackendOptions } from './backends/openai.js';
export { parseLenientJson } from './backends/parse.js';
export { createJevHttpBackend } from './backends/jev-http.js';
export type { JevHttpBackendOptions } from './backends/jev-http.js';
export { createTransformersBackend, checkModelFolder } from './backends/transformers.js';
export type { TransformersBackendOptions } from './backends/transformers.js';
export * from './learned/index.js';
export { STATE_KINDS, kindOf, kindProbabilities, stateProbabilities, stateModels, parseStateWeights, type StateKind } from './offline/state-model.js';

/**
 * @mem/system-one — the typed System-One controller J(S, Q) of Jev-Mem (seed 000): Noul and Choice
 * questions over one shared state, answered in batches by an offline scorer, an OpenAI-compatible
 * model, a Transformers.js NLI model or a Jev HTTP server.
 */
export * from './errors';
export * from './schema';
export * from './catalogue';
export type { SystemOneBackend, BackendRequest, BackendCallOptions } from './backend';
export { createSystemOne, stableStringify } from './controller';
export type { SystemOne, SystemOneOptions, SystemOneStats, AnswerTrace, AskResult } from './controller';
export { createOfflineBackend, routeFeatures } from './offline/index';
export type { OfflineBackendOptions } from './offline/index';
export { STOPPING_DEPTH_FEATURES, STOPPING_FEATURES, STOPPING_HEADS, learnedStopping, learnedStoppingApplies, stoppingFeatureRecord, stoppingModels } from './offline/stopping-learned';
export type { StoppingFeature, StoppingHead } from './offline/stopping-learned';
export { createOpenAIBackend, buildPrompt } from './backends/openai';
export type { OpenAIBackendOptions } from './backends/openai';
export { parseLenientJson } from './backends/parse';
export { createJevHttpBackend } from './backends/jev-http';
export type { JevHttpBackendOptions } from './backends/jev-http';
export { createTransformersBackend, checkModelFolder } from './backends/transformers';
export type { TransformersBackendOptions } from './backends/transformers';
export * from './learned/index';

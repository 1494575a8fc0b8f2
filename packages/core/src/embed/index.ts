export { createWinkEmbedder, defaultCacheDir, clearWinkMemoryCache } from './wink.js';
export type { WinkEmbedder, WinkEmbedderOptions, WinkLoadInfo } from './wink.js';
export { createTransformersEmbedder } from './transformers.js';
export type { TransformersEmbedderOptions } from './transformers.js';
export { createOpenAIEmbedder } from './openai.js';
export type { OpenAIEmbedderOptions } from './openai.js';
export { zipfProbability, sifWeight, harmonicNumber, hashedTokenVector, surfaceTokens } from './sif.js';
export { EmbedderError, ModelNotFoundError, DimensionMismatchError, toUnitVector } from './util.js';

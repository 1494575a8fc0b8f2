export { createWinkEmbedder, defaultCacheDir, clearWinkMemoryCache } from './wink.js';
export type { WinkEmbedder, WinkEmbedderOptions, WinkLoadInfo } from './wink.js';
export { zipfProbability, sifWeight, harmonicNumber, hashedTokenVector, surfaceTokens } from './sif.js';
export { EmbedderError, ModelNotFoundError, DimensionMismatchError, toUnitVector } from './util.js';

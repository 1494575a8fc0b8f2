export * from './types.js';
export * from './errors.js';
export * from './scope.js';
// What reads say about a memory: current or superseded (issue 37).
export * from './state.js';
// Owned by the store work: SQLite store, migrations.
export * from './store/index.js';
// Embedders: offline wink GloVe (SIF), Transformers.js, OpenAI-compatible.
export * from './embed/index.js';
// Extraction: entities, keywords, relative time.
export * from './extract/index.js';
// Write path, consolidation, Memory facade.
export * from './write/index.js';
// Export / import (JSONL) and re-embedding of a store.
export * from './transfer/index.js';

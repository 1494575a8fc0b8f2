// Owned by the store work: SQLite store, migrations, shared batch validation, search-text normalisation.
export { createSqliteStore, SqliteStore, type SqliteStoreOptions, type AnnStatus } from './sqlite.js';
export { type AnnOptions, ANN_DEFAULTS } from './vectors.js';
export { SQLITE_SCHEMA_VERSION } from './schema.js';
export { bm25Term, BM25_K1, BM25_B } from './bm25.js';
export { checkWriteBatch, checkNeighborQuery, checkVector, checkStateName, checkStateValue, HISTORY_OPS, type CheckedBatch, type NodeJson } from './validate.js';
export { searchText, searchTokens, ftsMatchQuery } from './text.js';
export { checkOutputFile, checkInputFile, placeFile, sweepPartialFiles, isStoreFile, canonicalPath, SQLITE_SIDE_FILES, STORE_SIDE_FOLDERS } from './files.js';

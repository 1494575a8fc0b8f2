export { createNeo4jStore, type Neo4jStoreOptions } from './store.js';
export { mapNeo4jError, withTimeout, type ErrorContext } from './errors.js';
export { createDriverRunner, type QueryRunner, type TxRunner, type Row, type DriverRunnerOptions } from './runner.js';
export * from './queries.js';
export { ALLOWED_SCHEMA_NAMES, ALL_REL_TYPES, HISTORY_LABEL, INDEX_NAMES, MEMORY_LABEL, META_LABEL, VIEW_REL_TYPES } from './schema.js';
export { nodeToProps, propsToNode, indexText, uidOf } from './codec.js';

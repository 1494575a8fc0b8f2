// The error classes live in `@mem/store-spec` (a store adapter needs them without core's native
// modules; issue 35); core's modules import them from here.
export { MEM_ERROR_MARKER, hasMarker, MemError, MemValidationError, MemNotFoundError, StoreUnavailableError, StoreMetaMismatchError, StoreConflictError, StoreError, ImportMismatchError, ScopeNotFoundError, EmbedderError, ModelNotFoundError, DimensionMismatchError, type MemErrorCategory, type MemErrorCode, type MemErrorOptions } from '@mem/store-spec';

// Scope checks live in `@mem/store-spec` (shared with store adapters; issue 35).
export { SCOPE_KEYS, resolveScope, scopeKey, parseScopeKey, scopeValueProblem } from '@mem/store-spec';

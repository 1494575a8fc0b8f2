// An unresolvable relative import for scripts/lint-selftest.mjs: lint must report it. Never imported.
export { nothing } from './does-not-exist.js';

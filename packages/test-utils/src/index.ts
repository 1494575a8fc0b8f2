// Test helpers shared by every @mem package's tests (private; bundled where a published test entry
// uses one, e.g. @mem/store-spec/testing).
export { errorCodeOf, expectMemError, type ErrorClass } from './errors.js';

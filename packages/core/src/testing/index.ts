// `@mem/core/testing`: the MemoryStore conformance suite (needs vitest) and fixture helpers, from
// `@mem/store-spec/testing` (issue 35), where a store adapter imports them without core; plus
// helpers for core's own formats.
export * from '@mem/store-spec/testing';
export { stableExport } from './transfer.js';

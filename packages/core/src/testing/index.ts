// `@mem/core/testing`: the MemoryStore conformance suite (needs vitest) and fixture helpers, from
// `@mem/store-spec/testing` (issue 35), where a store adapter imports them without core.
export * from '@mem/store-spec/testing';

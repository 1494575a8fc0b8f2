// The seeded PRNG lives in `@mem/store-spec` (its test fixtures use it; issue 35).
export { mulberry32 } from '@mem/store-spec';

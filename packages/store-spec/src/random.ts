// Deterministic pseudo-random numbers (ours): mulberry32, floats in [0, 1), the same sequence for the
// same 32-bit seed on every platform. One implementation for gate-vmf, store-spec and core: the
// gate's (`gate-vmf/src/pca.ts`), which this package already depends on.
export { mulberry32 } from '@mem/gate-vmf';

import { mergeConfig } from 'vitest/config';
import { memVitestConfig } from '../../vitest.shared.mjs';

// isolate: false — test files share a worker's module cache, so the workspace packages' sources are
// transformed and imported once per worker instead of once per file (the suite's main cost).
export default mergeConfig(memVitestConfig({ testTimeout: 120_000 }), { test: { isolate: false } });

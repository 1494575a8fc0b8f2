import { memVitestConfig } from '../../vitest.shared.mjs';

// Integration tier (`pnpm test:integration`, run by .ci/run after `pnpm test`): slow tests that
// install packages from the npm registry and build native modules, and the MiniLM reference check
// (all-MiniLM-L6-v2 from `pnpm models:fetch` vs langchain4j's Java vectors; MEM_REQUIRE_MODELS=1 in CI).
export default memVitestConfig({ include: ['integration/**/*.test.ts', 'src/embed/minilm.test.ts'], testTimeout: 900_000 });

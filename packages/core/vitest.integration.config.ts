import { memVitestConfig } from '../../vitest.shared.mjs';

// Integration tier (`pnpm test:integration`, run by .ci/run after `pnpm test`): slow tests that
// install packages from the npm registry and build native modules, the MiniLM reference check
// (all-MiniLM-L6-v2 from `pnpm models:fetch` vs langchain4j's Java vectors; MEM_REQUIRE_MODELS=1 in CI),
// and the many-writers kill test at full size (4 processes × 500 adds; the default tier runs it at 60).
const config = memVitestConfig({ include: ['integration/**/*.test.ts', 'src/embed/minilm.test.ts', 'src/write/many-writers.kill.test.ts'], testTimeout: 900_000 });
config.test.env = { MEM_KILL_ADDS: '500', ...config.test.env };
export default config;

import { memVitestConfig } from '../../vitest.shared.mjs';

// Integration tier (`pnpm test:integration`, run by .ci/run after `pnpm test`): slow tests that
// install packages from the npm registry and build native modules.
export default memVitestConfig({ include: ['integration/**/*.test.ts'], testTimeout: 900_000 });

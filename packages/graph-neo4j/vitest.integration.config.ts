// The Neo4j integration tier: only *.integration.test.ts, against a real Neo4j started by the global setup.
import { defineConfig, mergeConfig } from 'vitest/config';
import { memVitestConfig } from '../../vitest.shared.mjs';

export default mergeConfig(
  memVitestConfig({ include: ['src/**/*.integration.test.ts', 'test/**/*.integration.test.ts'], testTimeout: 120_000 }),
  defineConfig({ test: { globalSetup: ['./test/neo4j-global-setup.ts'], hookTimeout: 300_000, fileParallelism: false } }),
);

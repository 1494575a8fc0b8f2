// Shared vitest settings: resolve workspace packages from their TypeScript sources
// (the "@mem/source" export condition), so tests never need a prior build.
import { defineConfig } from 'vitest/config';

export function memVitestConfig(extra: { testTimeout?: number; include?: string[] } = {}) {
  return defineConfig({
    resolve: { conditions: ['@mem/source', 'import', 'module', 'node', 'default'] },
    ssr: { resolve: { conditions: ['@mem/source', 'import', 'module', 'node', 'default'] } },
    test: {
      include: extra.include ?? ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: extra.testTimeout ?? 20_000,
      pool: 'forks',
    },
  });
}

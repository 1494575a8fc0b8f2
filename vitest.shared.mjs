// Shared vitest settings: resolve workspace packages from their TypeScript sources
// (the "@mem/source" export condition), so tests never need a prior build.
import { defineConfig } from 'vitest/config';

const conditions = ['@mem/source', 'import', 'module', 'node', 'default'];

/** @param {{ testTimeout?: number, include?: string[] }} [extra] */
export function memVitestConfig(extra = {}) {
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions } },
    test: {
      include: extra.include ?? ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: extra.testTimeout ?? 20_000,
      pool: 'forks',
    },
  });
}

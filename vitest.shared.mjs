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
      // generous: CI's 2 cores are quiet, but a loaded developer machine (load 25+) runs the store and
      // gate-snapshot tests 5-10x slower; a timeout here only bounds how long a hung test takes to fail
      testTimeout: extra.testTimeout ?? 90_000,
      hookTimeout: 90_000,
      pool: 'forks',
    },
  });
}

/**
 * Integration tier against the local LLM server (issue 15): `*.llm.test.ts` files, with
 * scripts/llm-global-setup.mjs starting llama.cpp + SmolLM2 on 127.0.0.1 once per package run and
 * stopping it by PID (it exports MEM_TEST_LLM_URL / MEM_TEST_LLM_MODEL to the test workers).
 * @param {{ include?: string[] }} [extra]
 */
export function memLlmVitestConfig(extra = {}) {
  const base = memVitestConfig({ include: extra.include ?? ['src/**/*.llm.test.ts'], testTimeout: 1_200_000 });
  base.test.globalSetup = [new URL('./scripts/llm-global-setup.mjs', import.meta.url).pathname];
  base.test.hookTimeout = 300_000;
  base.test.fileParallelism = false;
  return base;
}

import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/testing/index.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  // the conformance suite's error check comes from the private @mem/test-utils: bundled, never a dependency
  noExternal: ['@mem/test-utils'],
});

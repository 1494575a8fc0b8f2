import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ["src/index.ts","src/mem0/index.ts"],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
});

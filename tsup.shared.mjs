// The build every publishable @mem package shares (each package's tsup.config.ts names its entries):
// ESM only, type declarations, source maps, a clean dist/, Node 20.
import { defineConfig } from 'tsup';

/**
 * @param {import('tsup').Options['entry']} entry
 * @param {import('tsup').Options} [extra] options that differ (e.g. `noExternal`)
 */
export function memTsupConfig(entry, extra = {}) {
  return defineConfig({ entry, format: ['esm'], dts: true, sourcemap: true, clean: true, target: 'node20', ...extra });
}

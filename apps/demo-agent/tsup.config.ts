import path from 'node:path';
import { defineConfig, type Options } from 'tsup';

/**
 * The `mem` CLI bundle (dist/cli.js plus chunks that load on first use; bin/mem.js runs it).
 *
 * Start-up (issue 36 point 4): Node 20 spends about 0.5–1 ms per ES module it loads, and `mem ask`
 * loaded about 270 (zod alone 95, chrono-node 51). So the bundle includes the @mem packages (their
 * dist/, built first by turbo) and the pure-JS libraries on the start-up path, leaving a dozen files.
 * zod is bundled together with every library that builds or reads zod schemas (@hono/zod-openapi and
 * its helpers, the MCP SDK): one zod instance in the process, as before. Native modules, model and
 * data packages, and SDKs loaded on demand stay external; they are dependencies of this package
 * because the bundled packages' code resolves them from here (`createRequire(import.meta.url)`,
 * `import()`). `bench/cli-startup.mjs` measures the result.
 */
/**
 * zod's `locales` namespace (`z.locales`, 40 translations of its error messages, 370 KB of the
 * 760 KB zod adds) holds only English in the bundle: English is zod's default, and nothing in the CLI
 * calls `z.config(z.locales.xx())`. Every zod message stays the same.
 */
const zodEnglishOnly: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${path.sep}zod${path.sep}v4${path.sep}`) ? { path: path.resolve(args.resolveDir, '../locales/index.js'), namespace: 'zod-english-only' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(path.join(path.dirname(args.path), 'en.js'))};`,
      resolveDir: path.dirname(args.path),
    }));
  },
};

export default defineConfig({
  entry: { cli: 'src/cli.ts' },
  format: ['esm'],
  splitting: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  noExternal: [/^@mem\//, 'zod', 'chrono-node', 'commander', 'env-paths', '@hono/zod-openapi', '@modelcontextprotocol/sdk'],
  // bundled CommonJS code (commander, ajv) calls `require` for Node's built-ins
  esbuildPlugins: [zodEnglishOnly],
  banner: { js: "import { createRequire as __memCreateRequire } from 'node:module'; const require = __memCreateRequire(import.meta.url);" },
});
